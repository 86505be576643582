# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import ipaddress
import re
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import (
    HostError,
    address_class,
    inet_aton_address,
    ip_literal,
    is_loopback,
    special_address,
    validate_host,
)


@pytest.mark.parametrize(("value", "expected"), [
    ("ec2-54-191-84-122.us-west-2.compute.amazonaws.com", "ec2-54-191-84-122.us-west-2.compute.amazonaws.com"),
    ("ip-172-31-18-160.us-west-2.compute.internal.", "ip-172-31-18-160.us-west-2.compute.internal"),
    ("kafka0", "kafka0"),
    ("198.18.0.11", "198.18.0.11"),
    ("[2001:db8:0::11]", "2001:db8::11"),
    ("fe80::1%eth0", "fe80::1%eth0"),
    ("_kafka._tcp.example", "_kafka._tcp.example"),
])
def test_accepts_names_and_ip_literals(value, expected):
    assert validate_host(value, "test") == expected


@pytest.mark.parametrize(("value", "why"), [
    ("evil\nlisteners=X://:1", "contains a newline"),
    ("broker-1.example.com\n", "contains a newline"),
    ("a=b", "contains '='"),
    ("a#b", "contains '#'"),
    ("a\\b", "contains a backslash"),
    ("a b", "contains whitespace"),
    ("a,b", "contains ','"),
    ("host:9092", "contains ':' but is not an IPv6 address"),
    ("-leading.example", "is not a DNS name"),
    ("a..b", "is not a DNS name"),
    ("x" * 64 + ".example", "is not a DNS name"),
    ("a." * 130, "is longer than 253 characters"),
])
def test_refuses_anything_else_naming_value_source_and_reason(value, why):
    with pytest.raises(HostError) as info:
        validate_host(value, "public-hostname from the metadata service")
    message = str(info.value)
    assert repr(value) in message
    assert "from public-hostname from the metadata service" in message
    assert why in message


def test_refuses_empty_and_non_strings():
    with pytest.raises(HostError, match="it is empty"):
        validate_host("", "x")
    with pytest.raises(HostError, match="expected a string, got int"):
        validate_host(42, "x")


@pytest.mark.parametrize("value", [
    "2001:db8::1%0\nlisteners=EVIL", "fe80::1%eth0=x", "fe80::1%a#b", "fe80::1%a\\b", "[fe80::1%eth 0]",
    "fe80::1%", "fe80::1%" + "x" * 65,
])
def test_refuses_an_ipv6_zone_id_that_is_not_an_interface_name_naming_it(value):
    with pytest.raises(HostError) as info:
        validate_host(value, "private_ip of broker b1")
    message = str(info.value)
    assert message.startswith("invalid host %r from private_ip of broker b1: it " % value)
    assert "has the IPv6 zone id" in message and "which is not 1 to 64 letters, digits, '.', '_' and '-'" in message


# what Kafka's endpoint pattern takes as a host (KAFKA_RULES.md rule 1): all an accepted host may hold
KAFKA_ENDPOINT_HOST = re.compile(r"[0-9a-zA-Z\-%._:]+")
ZONED = st.builds("{}%{}".format, st.sampled_from(["fe80::1", "2001:db8::1", "::ffff:198.18.0.1"]),
                  st.text(st.one_of(st.sampled_from("\n\r=#!\\ :,%/"), st.characters()), max_size=70))


@given(st.one_of(st.text(), ZONED))
def test_whatever_it_accepts_cannot_inject_a_property_or_split_a_listener(value):
    try:
        host = validate_host(value, "fuzz")
    except HostError:
        return
    assert not any(c in host for c in "\n\r\t =#!\\,/") and KAFKA_ENDPOINT_HOST.fullmatch(host)


# text near IP literals: hex digits, dots, colons, brackets and a zone, with a few letters and non-ASCII digits
_NEAR_LITERALS = st.text(st.sampled_from("0123456789abcdefABCDEF.:[]%gxZ\u0661\uff11-"), max_size=45)


@given(st.one_of(_NEAR_LITERALS, st.text(), st.ip_addresses().map(str), st.ip_addresses(v=6).map("[{}]".format)))
def test_ip_literal_agrees_with_ipaddress_whatever_its_quick_refusal_of_names(value):
    # the planner calls ip_literal for every host it handles, so names skip ipaddress's two parses
    text = value[1:-1] if value.startswith("[") and value.endswith("]") else value
    try:
        expected = ipaddress.ip_address(text)
    except ValueError:
        expected = None
    literal = ip_literal(value)
    if expected is None or "%" not in text:  # a zone outside interface-name characters is refused on top
        assert literal == expected


@pytest.mark.parametrize(("host", "loopback"), [
    ("localhost", True), ("LOCALHOST.", True), ("127.0.0.2", True), ("::1", True),
    ("kafka0", False), ("198.18.0.1", False), ("localhost.example.com", False),
])
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_names_everything_wrong_with_a_value_not_only_the_first_fault():
    with pytest.raises(HostError) as info:
        validate_host("evil\nadvertised.listeners=X://h:1#\u2028", "public-hostname from the metadata service")
    message = str(info.value)
    for fault in ("a newline", "'='", "'#'", "'/'", "whitespace (U+2028)", "':' but is not an IPv6 address"):
        assert fault in message


_aton_text = st.one_of(
    st.text(alphabet="0123456789abcdefxX.", max_size=16),
    st.lists(st.integers(0, 2**32), min_size=1, max_size=5).map(lambda parts: ".".join(map(str, parts))),
    st.lists(st.integers(0, 2**32), min_size=1, max_size=5).map(lambda parts: ".".join(map(oct, parts))
                                                                .replace("0o", "0")),
    st.lists(st.integers(0, 2**32), min_size=1, max_size=5).map(lambda parts: ".".join(map(hex, parts))),
)


@given(_aton_text)
def test_reads_numeric_ipv4_forms_as_the_c_library_does(text):
    try:
        expected = socket.inet_ntoa(socket.inet_aton(text))
    except OSError:
        expected = None
    got = inet_aton_address(text)
    assert (None if got is None else str(got)) == expected


@pytest.mark.parametrize(("host", "klass"), [
    ("127.1", "loopback"), ("0x7F.1", "loopback"), ("017700000001", "loopback"), ("2130706433", "loopback"),
    ("127.0.0.1.", "loopback"), ("[::1]", "loopback"), ("0:0:0:0:0:0:0:1", "loopback"),
    ("::ffff:127.0.0.1", "loopback"), ("LocalHost.", "loopback"), ("broker.localhost", "loopback"),
    ("ip6-loopback", "loopback"), ("0", "unspecified"), ("0.0.0.0", "unspecified"), ("::", "unspecified"),
    ("0.1.2.3", "unspecified"), ("169.254.169.254", "link-local"), ("0xa9fea9fe", "link-local"),
    ("FE80::1%eth0", "link-local"), ("224.0.0.1", "multicast"), ("ff02::1", "multicast"),
    ("ip6-allnodes", "multicast"), ("255.255.255.255", "broadcast"), ("4294967295", "broadcast"),
    ("kafka0", None), ("198.18.0.11", None), ("2001:db8::11", None), ("localhost.example.com", None),
    ("08", None), ("0x", None), ("1.2.3.4.5", None),
])
def test_special_addresses_in_every_spelling(host, klass):
    special = special_address(host)
    assert (special and special[0]) == klass


def test_address_class_of_dns_answers():
    assert address_class("127.0.1.1") == "loopback"
    assert address_class("::ffff:169.254.169.254") == "link-local"
    assert address_class("198.18.0.11") is None
    assert address_class("not-an-address") is None
