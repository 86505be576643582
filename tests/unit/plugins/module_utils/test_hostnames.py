# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import (
    HostError,
    is_loopback,
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


@given(st.text())
def test_whatever_it_accepts_cannot_inject_a_property_or_split_a_listener(value):
    try:
        host = validate_host(value, "fuzz")
    except HostError:
        return
    assert not any(c in host for c in "\n\r\t =#!\\,/") and host


@pytest.mark.parametrize(("host", "loopback"), [
    ("localhost", True), ("LOCALHOST.", True), ("127.0.0.2", True), ("::1", True),
    ("kafka0", False), ("198.18.0.1", False), ("localhost.example.com", False),
])
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback
