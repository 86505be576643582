# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Value checks, the Hetzner YAML-list parser, and the link-local guard of conftest."""

from __future__ import annotations

import pytest
from metadata_lab import LinkLocalConnect, guarded

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import checks, hetzner
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import (
    AccessRefused,
    InvalidValue,
    MalformedAnswer,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.http_client import Answer, Call

# The emulator's "garbage" host name: written unchecked into server.properties it would add a second key.
GARBAGE_HOST = "broker 1.internal\nadvertised.listeners=PLAINTEXT://evil.example:9092"


def answer(body: bytes = b"", status: int = 200, path: str = "/latest/meta-data/local-hostname") -> Answer:
    return Answer("aws", "http://127.0.0.1:1", Call("GET", path), status, {}, body)


def test_garbage_host_is_refused_naming_provider_path_and_value():
    with pytest.raises(InvalidValue) as caught:
        checks.host(GARBAGE_HOST, answer())
    message = str(caught.value)
    assert repr(GARBAGE_HOST) in message
    assert "aws metadata GET /latest/meta-data/local-hostname" in message
    assert "contains a newline" in message


@pytest.mark.parametrize("value", ["ip-198-18-0-11.ec2.internal", "198.18.0.11"])
def test_valid_hosts_pass(value):
    assert checks.host(value, answer()) == value


def test_ip_address_refuses_names():
    with pytest.raises(InvalidValue) as caught:
        checks.ip_address("broker-1.internal", answer(), "privateIp")
    assert "it is not an IPv4 or IPv6 address" in str(caught.value)
    assert "key privateIp" in str(caught.value)


@pytest.mark.parametrize("value", ["i-0a1b2c3d", "ocid1.instance.oc1..aaaa", "Uocm:PHX-AD-1",
                                   "projects/1/networks/default", "us-west-2a"])
def test_safe_tokens_pass(value):
    assert checks.token(value, "instance id", answer()) == value


@pytest.mark.parametrize("value", ["", "-leading", "a b", "a=b", "x\ny", "\x00\xff", "a" * 256, 42, None])
def test_unsafe_tokens_are_refused(value):
    with pytest.raises(InvalidValue) as caught:
        checks.token(value, "zone", answer())
    assert "invalid zone %r" % (value,) in str(caught.value)


def test_text_refuses_non_utf8_with_a_bytes_excerpt():
    with pytest.raises(MalformedAnswer) as caught:
        checks.text(answer(b"\x00\xff\xfe198.18.0.\x1b[31m999"))
    assert "not UTF-8 text" in str(caught.value)
    assert "b'\\x00\\xff\\xfe198.18.0." in str(caught.value)


def test_json_errors_name_the_request():
    with pytest.raises(MalformedAnswer) as caught:
        checks.json_document(answer(b'{"truncated": ', path="/metadata/v1.json"))
    assert "aws metadata GET /metadata/v1.json: the answer is not JSON" in str(caught.value)


def test_dig_names_the_missing_key():
    doc = {"network": {"interface": []}}
    with pytest.raises(MalformedAnswer) as caught:
        checks.dig(doc, ("network", "interface", 0, "ipv4"), answer())
    assert "has no network.interface[0].ipv4 (network.interface is a list of 0 items)" in str(caught.value)
    assert checks.dig(doc, ("network", "interface", 0), answer(), required=False) is None


@pytest.mark.parametrize(("status", "error"), [(401, AccessRefused), (403, AccessRefused), (500, MalformedAnswer),
                                               (404, MalformedAnswer)])
def test_require_status(status, error):
    with pytest.raises(error) as caught:
        checks.require_status(answer(b"nope", status=status))
    assert "HTTP %d" % status in str(caught.value)


def test_require_status_optional_404():
    assert checks.require_status(answer(status=404), optional=True) is False
    assert checks.require_status(answer(), optional=True) is True


def test_result_has_every_field():
    record = checks.result("gcp", zone="us-central1-a")
    assert list(record) == list(checks.FIELDS)
    assert record["provider"] == "gcp" and record["zone"] == "us-central1-a" and record["region"] is None


# -- Hetzner private-networks (YAML subset) -----------------------------------------------------------------------

HETZNER_NETWORKS = """\
- ip: 10.0.0.2
  alias_ips: [10.0.0.3, 10.0.0.4]
  interface_num: 1
  mac_address: 86:00:00:2a:7d:e0
  network_id: 1234
  network_name: "nw-test1"
  network: 10.0.0.0/8
  subnet: 10.0.0.0/24
  gateway: 10.0.0.1
- ip: 10.1.0.2
  alias_ips: []
  network_name: 'it''s'
"""


def test_hetzner_network_list_is_parsed():
    networks = hetzner.parse_mapping_list(HETZNER_NETWORKS)
    assert networks[0] == {
        "ip": "10.0.0.2",
        "alias_ips": ["10.0.0.3", "10.0.0.4"],
        "interface_num": 1,
        "mac_address": "86:00:00:2a:7d:e0",
        "network_id": 1234,
        "network_name": "nw-test1",
        "network": "10.0.0.0/8",
        "subnet": "10.0.0.0/24",
        "gateway": "10.0.0.1",
    }
    assert networks[1] == {"ip": "10.1.0.2", "alias_ips": [], "network_name": "it's"}


@pytest.mark.parametrize("text", ["", "[]\n", "\n\n"])
def test_hetzner_empty_network_list(text):
    assert hetzner.parse_mapping_list(text) == []


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("hostname: [never closed\n\tinstance-id: : :\n", "line 1: expected '- key: value'"),
        ("- ip: [10.0.0.1\n", "line 1: unterminated or nested flow list"),
        ("- ip: 10.0.0.1\n\tnetwork_id: 1\n", "line 2: tab character"),
        ("- ip: 10.0.0.1\n  ip: 10.0.0.2\n", "line 2: duplicate key 'ip'"),
        ('- name: "open\n', "line 1: unterminated or invalid double-quoted string"),
        ("- ip: {a: b}\n", "line 1: unsupported YAML syntax"),
        ("- ip: a: b\n", "line 1: unsupported plain scalar"),
        ("- ip: 10.0.0.1\n    deeper: x\n", "line 2: expected '- key: value'"),
    ],
)
def test_hetzner_parser_refuses_what_it_does_not_understand(text, reason):
    with pytest.raises(ValueError) as caught:
        hetzner.parse_mapping_list(text)
    assert str(caught.value).startswith(reason)


# -- the conftest guard ---------------------------------------------------------------------------------------


def test_link_local_guard_refuses_before_connecting():
    calls = []
    connect = guarded(lambda sock, address: calls.append(address))  # stands in for socket.connect
    for address in [("169.254.169.254", 80), ("169.254.0.1", 8080), ("fd00:ec2::254", 80, 0, 0)]:
        with pytest.raises(LinkLocalConnect):
            connect(None, address)
    connect(None, ("127.0.0.1", 80))
    assert calls == [("127.0.0.1", 80)]  # only the loopback connect reached the real function


def test_guard_is_installed_for_every_test():
    import _socket
    import socket

    assert socket.socket.connect is not _socket.socket.connect
    # with the guard this raises before touching the (absent) socket; without it, TypeError, never a connection
    with pytest.raises(LinkLocalConnect):
        socket.socket.connect(None, ("169.254.169.254", 80))
