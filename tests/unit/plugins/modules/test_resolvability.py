# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import socket
import sys
import threading
from unittest import mock

import pytest
from ansible.module_utils.basic import missing_required_lib
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kafkaops.listeners.plugins.module_utils import _resolver
from ansible_collections.kafkaops.listeners.plugins.modules import resolvability

# Only a guard against hangs: every call below is bounded by a timeout of at most a few seconds.
HANG_GUARD = 20.0


def _run(args):
    """Run the module with ``args`` in a thread (guarded against hangs); return ("exit"|"fail", kwargs)."""
    box = {}

    def target():
        with patch_module_args(args):
            try:
                resolvability.main()
            except SystemExit as ended:  # exit_json / fail_json, see conftest.py
                box["outcome"] = ended.code[:2]
            except BaseException as exc:  # re-raised in the test's thread
                box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    assert not thread.is_alive(), "the module did not return within the %s s hang guard" % HANG_GUARD
    if "error" in box:
        raise box["error"]
    assert "outcome" in box, "the module returned without calling exit_json or fail_json"
    return box["outcome"]


def _exit(args):
    kind, result = _run(args)
    assert kind == "exit", result
    return result


def _fail(args):
    kind, result = _run(args)
    assert kind == "fail", result
    return result["msg"]


@pytest.fixture
def closed_port():
    """A TCP port on 127.0.0.1 that nothing listens on: connections are refused."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    yield sock.getsockname()[1]
    sock.close()


@pytest.fixture
def blackhole():
    """A UDP port on 127.0.0.1 that reads DNS queries and never answers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    yield sock.getsockname()[1]
    sock.close()


@pytest.mark.parametrize("check_mode", [False, True])
def test_localhost_resolves_and_nothing_changes(check_mode):
    result = _exit({"names": ["localhost"], "_ansible_check_mode": check_mode})
    assert result["changed"] is False
    assert result["all_resolvable"] is True
    assert result["all_connectable"] is None
    assert result["stale"] == []
    (entry,) = result["results"]
    assert entry["name"] == "localhost"
    assert {"127.0.0.1", "::1"} & set(entry["addresses"])
    assert (entry["resolvable"], entry["connectable"], entry["error"]) == (True, None, None)


def test_connect_check_reports_a_listening_and_a_closed_port(closed_port):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    try:
        open_result = _exit({"names": ["127.0.0.1"], "port": server.getsockname()[1]})
    finally:
        server.close()
    assert open_result["results"][0]["connectable"] is True
    assert open_result["all_connectable"] is True

    closed_result = _exit({"names": ["127.0.0.1"], "port": closed_port})
    (entry,) = closed_result["results"]
    assert entry["connectable"] is False
    assert "Connection refused" in entry["error"]
    assert closed_result["all_connectable"] is False


def test_expected_mismatch_is_reported_as_stale():
    result = _exit({"names": ["localhost", "127.0.0.1"],
                    "expected": {"localhost": ["198.19.0.11"], "127.0.0.1": ["127.0.0.1"]}})
    assert result["stale"] == ["localhost"]
    assert [entry["matches_expected"] for entry in result["results"]] == [False, True]
    assert result["changed"] is False


def test_a_blackhole_nameserver_gives_a_timeout_not_a_hang(blackhole):
    result = _exit({"names": ["b1.example"], "nameservers": ["127.0.0.1"], "dns_port": blackhole, "timeout": 0.5})
    (entry,) = result["results"]
    assert entry["resolvable"] is False
    assert entry["error"] == "timed out after 0.5 s"
    assert result["all_resolvable"] is False


@pytest.mark.parametrize(("names", "message"), [
    (["a b"], "invalid host 'a b' from names[0]: it contains whitespace (U+0020)"),
    (["localhost", "x\nlisteners=PLAINTEXT://evil:9092"],
     "invalid host 'x\\nlisteners=PLAINTEXT://evil:9092' from names[1]: it contains a newline; contains '='; "
     "contains '/'; contains ':' but is not an IPv6 address"),
])
def test_an_invalid_name_fails_the_module_naming_it(names, message):
    assert _fail({"names": names}) == message


@pytest.mark.parametrize(("args", "message"), [
    ({"names": ["localhost"], "timeout": -1}, "timeout must be a number of seconds greater than 0, got -1.0"),
    ({"names": ["localhost"], "timeout": 3, "total_timeout": 1},
     "total_timeout (1.0 s) must not be shorter than timeout (3.0 s)"),
    ({"names": ["localhost"], "nameservers": ["dns.example"]}, "nameservers[0]: 'dns.example' is not an IP address"),
    ({"names": ["localhost"], "expected": {"other.example": ["127.0.0.1"]}},
     "expected['other.example']: the name is not in names"),
])
def test_bad_options_fail_the_module_naming_them(args, message):
    assert _fail(args) == message


@pytest.fixture
def without_dnspython():
    """Make the module see dnspython as on a node where ``import dns`` fails (it is imported on first use)."""
    blocked = {name: None for name in ("dns", "dns.exception", "dns.name", "dns.resolver")}
    _resolver._dnspython.cache_clear()
    with mock.patch.dict(sys.modules, blocked):
        assert _resolver.dnspython_import_error() is not None
    yield
    _resolver._dnspython.cache_clear()


def test_nameservers_without_dnspython_fail_with_missing_required_lib(without_dnspython):
    kind, result = _run({"names": ["b1.example"], "nameservers": ["127.0.0.1"]})
    assert kind == "fail"
    assert result["msg"] == missing_required_lib("dnspython")
    assert "import of dns" in result["exception"]


def test_the_system_resolver_needs_no_dnspython(without_dnspython):
    assert _exit({"names": ["localhost"]})["all_resolvable"] is True
