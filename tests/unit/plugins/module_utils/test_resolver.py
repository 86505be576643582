# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import inspect
import ipaddress
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import textwrap
import threading

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils import _resolver
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import HostError
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import plan_listeners
from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import ResolverError, probe_names

# Only a guard against hangs: the calls under test are bounded by timeouts of at most a few seconds.
HANG_GUARD = 20.0


class FakeDns:
    """A UDP DNS server on 127.0.0.1: A/AAAA answers from ``zone``, NXDOMAIN for other names; silent if told so.

    Standard library only, so the same class can run inside a private network namespace (see ``_in_private_netns``).
    """

    def __init__(self, zone, port=0, silent=False):
        self.zone = {name.lower(): addresses for name, addresses in zone.items()}
        self.silent = silent
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", port))
        self.port = self.sock.getsockname()[1]
        self.queries = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                query, peer = self.sock.recvfrom(4096)
            except OSError:  # closed
                return
            reply = self._reply(query)
            if reply is not None and not self.silent:
                self.sock.sendto(reply, peer)

    def _reply(self, query):
        pos, labels = 12, []
        while pos < len(query) and query[pos]:
            labels.append(query[pos + 1:pos + 1 + query[pos]].decode("ascii"))
            pos += 1 + query[pos]
        if len(query) < pos + 5:
            return None
        qtype = struct.unpack(">H", query[pos + 1:pos + 3])[0]
        name = ".".join(labels).lower()
        self.queries.append((name, qtype))
        version = {1: 4, 28: 6}.get(qtype)
        records = [ipaddress.ip_address(a).packed for a in self.zone.get(name, ())]
        records = [packed for packed in records if version == (4 if len(packed) == 4 else 6)]
        rcode = 0 if name in self.zone else 3  # NOERROR / NXDOMAIN
        flags = bytes([0x84 | (query[2] & 0x01), 0x80 | rcode])  # response, authoritative, RD copied; RA
        header = query[:2] + flags + struct.pack(">HHHH", 1, len(records), 0, 0)
        answers = b"".join(b"\xc0\x0c" + struct.pack(">HHIH", qtype, 1, 60, len(p)) + p for p in records)
        return header + query[12:pos + 5] + answers

    def close(self):
        self.sock.close()


@pytest.fixture
def fake_dns():
    servers = []

    def start(zone, silent=False):
        servers.append(FakeDns(zone, silent=silent))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def listener():
    """A TCP port on 127.0.0.1 that accepts connections."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock.getsockname()[1]
    sock.close()


@pytest.fixture
def closed_port():
    """A TCP port on 127.0.0.1 that nothing listens on (bound, never listened: connections are refused)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    yield sock.getsockname()[1]
    sock.close()


def _guarded(call, *args, **kwargs):
    """Run ``call`` in a thread and fail the test (instead of hanging) if it has not returned by HANG_GUARD."""
    box = {}

    def target():
        try:
            box["value"] = call(*args, **kwargs)
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    assert not thread.is_alive(), "the call did not return within the %s s hang guard" % HANG_GUARD
    if "error" in box:
        raise box["error"]
    return box["value"]


def _one(outcome):
    assert len(outcome["results"]) == 1
    return outcome["results"][0]


# ---------------------------------------------------------------------------------------------------- system resolver


def test_localhost_resolves_with_the_system_resolver():
    outcome = _guarded(probe_names, ["localhost"])
    result = _one(outcome)
    assert result["resolvable"] is True
    assert {"127.0.0.1", "::1"} & set(result["addresses"])
    assert result["error"] is None
    assert result["connectable"] is None
    assert result["matches_expected"] is None
    assert isinstance(result["elapsed_ms"], int)
    assert outcome == {"results": [result], "all_resolvable": True, "all_connectable": None, "stale": []}


def test_names_are_checked_once_ignoring_case_and_root_dot():
    outcome = _guarded(probe_names, ["localhost", "LOCALHOST.", "localhost"])
    assert [result["name"] for result in outcome["results"]] == ["localhost"]


def test_an_ip_literal_resolves_to_itself_without_a_lookup(fake_dns):
    server = fake_dns({})
    result = _one(_guarded(probe_names, ["[2001:DB8::0011]"], nameservers=["127.0.0.1"], dns_port=server.port))
    assert (result["name"], result["addresses"], result["resolvable"]) == ("2001:db8::11", ["2001:db8::11"], True)
    assert server.queries == []


# The next tests need glibc to meet a DNS server we control; from this namespace it would ask the machine's
# real resolver, so they run in a private network namespace whose resolv.conf points at 127.0.0.1.
_NETNS_SKIP = None
if os.geteuid() != 0:
    _NETNS_SKIP = "needs root to create a private network namespace for glibc's resolver"
elif not (shutil.which("unshare") and shutil.which("ip")):
    _NETNS_SKIP = "needs unshare and ip (util-linux, iproute2) to create a private network namespace"
needs_netns = pytest.mark.skipif(_NETNS_SKIP is not None, reason=_NETNS_SKIP or "")


def _in_private_netns(tmp_path, silent, call):
    """Run ``call`` (source text using probe_names) in a new net+mount namespace with a fake DNS on 127.0.0.1:53.

    Returns the JSON the child prints. The bind mount of resolv.conf is private to the child's mount namespace.
    """
    resolv = tmp_path / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.1\n")
    script = "\n".join([
        "import ipaddress, json, socket, struct, threading",
        "from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import probe_names",
        textwrap.dedent(inspect.getsource(FakeDns)),
        "server = FakeDns({}, port=53, silent=%r)" % silent,
        "print(json.dumps(%s))" % call,
    ])
    command = ["unshare", "--net", "--mount", "--propagation", "private", "sh", "-c",
               'mount --bind "$1" /etc/resolv.conf && ip link set lo up && exec "$2" -c "$3"',
               "sh", str(resolv), sys.executable, script]
    # the child imports the collection as this process found it (ansible-test units uses a loader, not sys.path)
    root = os.path.abspath(os.path.join(os.path.dirname(_resolver.__file__), *[os.pardir] * 5))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    done = subprocess.run(command, capture_output=True, text=True, timeout=HANG_GUARD, check=False, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@needs_netns
def test_an_invalid_name_does_not_resolve_with_the_system_resolver(tmp_path):
    outcome = _in_private_netns(tmp_path, False, "probe_names(['x.invalid', 'localhost'], timeout=5)")
    missing, local = outcome["results"]
    assert missing["resolvable"] is False
    assert missing["addresses"] == []
    assert missing["error"] == "Name or service not known"
    assert local["resolvable"] is True
    assert outcome["all_resolvable"] is False


@needs_netns
def test_a_dead_dns_server_costs_the_timeout_not_glibc_retries(tmp_path):
    # glibc alone would wait 5 s x 2 attempts here; the result must say the deadline cut it off
    outcome = _in_private_netns(tmp_path, True, "probe_names(['b1.example'], timeout=0.5)")
    result = _one(outcome)
    assert result["resolvable"] is False
    assert result["error"] == "timed out after 0.5 s"


# ---------------------------------------------------------------------------------------------------- dnspython path


def test_nameservers_are_asked_for_a_and_aaaa(fake_dns):
    server = fake_dns({"b1.example": ["127.0.0.2", "::1", "127.0.0.1", "127.0.0.2"]})
    result = _one(_guarded(probe_names, ["b1.example"], nameservers=["127.0.0.1"], dns_port=server.port))
    assert result["resolvable"] is True
    assert result["addresses"] == ["127.0.0.1", "127.0.0.2", "::1"]
    assert result["error"] is None
    assert {qtype for _name, qtype in server.queries} == {1, 28}


def test_a_name_the_nameserver_does_not_know_is_not_resolvable(fake_dns):
    server = fake_dns({"b1.example": ["127.0.0.1"]})
    outcome = _guarded(probe_names, ["b1.example", "x.invalid"], nameservers=["127.0.0.1"], dns_port=server.port)
    known, unknown = outcome["results"]
    assert known["resolvable"] is True
    assert unknown["resolvable"] is False
    assert "does not exist" in unknown["error"]
    assert "x.invalid" in unknown["error"]
    assert outcome["all_resolvable"] is False


def test_a_blackhole_nameserver_times_out_and_the_call_returns(fake_dns):
    server = fake_dns({"b1.example": ["127.0.0.1"]}, silent=True)
    outcome = _guarded(probe_names, ["b1.example", "b2.example"], timeout=0.5, nameservers=["127.0.0.1"],
                       dns_port=server.port)
    for result in outcome["results"]:
        assert result["resolvable"] is False
        assert result["error"] == "timed out after 0.5 s"
    assert server.queries  # the queries did reach the blackhole


def test_without_dnspython_nameservers_are_refused(monkeypatch):
    monkeypatch.setattr(_resolver, "dnspython_import_error", lambda: "ImportError: import of dns halted")
    with pytest.raises(ResolverError, match="dnspython"):
        probe_names(["b1.example"], nameservers=["127.0.0.1"])


# ---------------------------------------------------------------------------------------------------- connect check


def test_a_listening_port_is_connectable(listener):
    outcome = _guarded(probe_names, ["localhost", "127.0.0.1"], port=listener)
    for result in outcome["results"]:
        assert result["connectable"] is True
        assert result["error"] is None
    assert outcome["all_connectable"] is True


def test_a_closed_port_is_not_connectable(closed_port):
    outcome = _guarded(probe_names, ["127.0.0.1"], port=closed_port)
    result = _one(outcome)
    assert result["resolvable"] is True
    assert result["connectable"] is False
    assert result["error"] == "no address accepted a connection on port %d: 127.0.0.1: Connection refused" % (
        closed_port)
    assert outcome["all_connectable"] is False


def test_one_accepting_address_is_enough(fake_dns, listener):
    # 127.0.0.2 refuses: the listener is bound to 127.0.0.1 only
    server = fake_dns({"b1.example": ["127.0.0.2", "127.0.0.1"]})
    result = _one(_guarded(probe_names, ["b1.example"], port=listener, nameservers=["127.0.0.1"],
                           dns_port=server.port))
    assert result["connectable"] is True


def test_a_name_that_does_not_resolve_is_not_connectable(fake_dns, listener):
    server = fake_dns({})
    outcome = _guarded(probe_names, ["x.invalid"], port=listener, nameservers=["127.0.0.1"], dns_port=server.port)
    assert _one(outcome)["connectable"] is False
    assert outcome["all_connectable"] is False


# ---------------------------------------------------------------------------------------------------- expected


def test_expected_flags_a_record_holding_another_address_as_stale(fake_dns):
    server = fake_dns({"b1.example": ["127.0.0.1"], "b2.example": ["127.0.0.2"]})
    outcome = _guarded(probe_names, ["b1.example", "B2.example", "x.invalid"], nameservers=["127.0.0.1"],
                       dns_port=server.port,
                       expected={"b1.example": ["127.0.0.1"], "b2.example.": ["198.19.0.12"], "x.invalid": ["::1"]})
    b1, b2, missing = outcome["results"]
    assert b1["matches_expected"] is True
    assert b2["matches_expected"] is False
    assert missing["matches_expected"] is False
    assert outcome["stale"] == ["B2.example"]  # a name that does not resolve is not stale, it is unresolvable


# ---------------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("names", "message"), [
    (["a b"], "invalid host 'a b' from names[0]: it contains whitespace"),
    (["localhost", "x\nlisteners=PLAINTEXT://evil:9092"], "from names[1]: it contains a newline"),
])
def test_a_bad_name_is_refused_before_anything_is_sent(names, message):
    with pytest.raises(HostError) as caught:
        probe_names(names)
    assert message in str(caught.value)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"names": []}, "names must be a non-empty list"),
    ({"names": ["localhost"], "timeout": 0}, "timeout must be a number of seconds greater than 0, got 0"),
    ({"names": ["localhost"], "timeout": 2, "total_timeout": 1}, "total_timeout (1.0 s) must not be shorter"),
    ({"names": ["localhost"], "port": 70000}, "port must be a TCP/UDP port from 1 to 65535, got 70000"),
    ({"names": ["localhost"], "nameservers": ["dns.example"]}, "nameservers[0]: 'dns.example' is not an IP"),
    ({"names": ["localhost"], "nameservers": ["127.0.0.1"], "dns_port": 0}, "dns_port must be a TCP/UDP port"),
    ({"names": ["localhost"], "expected": {"other": ["127.0.0.1"]}}, "expected['other']: the name is not in names"),
    ({"names": ["localhost"], "expected": {"localhost": ["me"]}}, "expected['localhost'][0]: 'me' is not an IP"),
    ({"names": ["localhost"], "expected": {"localhost": "127.0.0.1"}}, "must be a list of IP addresses"),
])
def test_bad_arguments_are_refused_naming_the_argument(kwargs, message):
    with pytest.raises(ResolverError) as caught:
        probe_names(**kwargs)
    assert message in str(caught.value)


def test_an_answer_that_is_not_an_ip_address_is_refused():
    # dnspython and getaddrinfo only hand back addresses; this guards the check itself against a lookup that does not
    run = _resolver._Run(["b1.example"], lambda name, timeout: ["127.0.0.1", "1.2.3.4\nx=y"], 1.0, 2.0, None)
    result = _one({"results": _guarded(run.run)})
    assert result["resolvable"] is False
    assert result["error"] == "the answer for b1.example holds '1.2.3.4\\nx=y', which is not an IP address"


def test_a_lookup_that_crashes_still_gives_a_result():
    def broken(name, timeout):
        raise RuntimeError("boom")

    result = _one({"results": _guarded(_resolver._Run(["b1.example"], broken, 1.0, 2.0, None).run)})
    assert (result["resolvable"], result["error"]) == (False, "lookup failed: boom")


# ---------------------------------------------------------------------------------------------------- the planner


def test_results_keyed_by_name_are_the_external_checks_the_plan_reads(fake_dns):
    # the module documents dict(results | map(attribute='name') | zip(results)); this is the same in Python. The
    # answers are addresses a client could use (the plan refuses names that resolve to loopback); nothing connects.
    server = fake_dns({"ec2-b1.example": ["198.18.0.11"]})
    brokers = [{"name": "b1", "node_id": 1, "private_host": "ip-b1.internal", "public_dns": "ec2-b1.example"},
               {"name": "b2", "node_id": 2, "private_host": "ip-b2.internal", "public_dns": "EC2-b2.example"}]
    outcome = _guarded(probe_names, [broker["public_dns"] for broker in brokers], nameservers=["127.0.0.1"],
                       dns_port=server.port)
    checks = {result["name"]: result for result in outcome["results"]}
    plan = plan_listeners([dict(broker, external_checks=checks) for broker in brokers])
    assert plan["mode"] == "dual"
    assert "EC2-b2.example" in plan["reason"] and "does not resolve" in plan["reason"]

    server.zone["ec2-b2.example"] = ["198.18.0.12"]
    outcome = _guarded(probe_names, [broker["public_dns"] for broker in brokers], nameservers=["127.0.0.1"],
                       dns_port=server.port)
    checks = {result["name"]: result for result in outcome["results"]}
    assert plan_listeners([dict(broker, external_checks=checks) for broker in brokers])["mode"] == "single"
