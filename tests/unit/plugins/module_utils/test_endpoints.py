# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Kafka's endpoint syntax: parsing, formatting and the protocol map (plugins/module_utils/_endpoints.py)."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    DEFAULT_PROTOCOL_MAP,
    NODE_ID_KEYS,
    SECURITY_PROTOCOLS,
    Endpoint,
    EndpointError,
    controller_listener_names,
    effective_protocol_map,
    format_endpoint,
    identity_properties,
    inter_broker_listener,
    parse_endpoint,
    parse_listener_list,
    parse_protocol_map,
    process_roles,
)

# -- parse_endpoint -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("PLAINTEXT://broker1.example.com:9092", Endpoint("PLAINTEXT", "broker1.example.com", 9092)),
        ("internal://10.0.0.5:19092", Endpoint("INTERNAL", "10.0.0.5", 19092)),  # names are upper-cased
        ("PLAINTEXT://:9092", Endpoint("PLAINTEXT", "", 9092)),  # empty host: default interface
        ("SSL://[::1]:9093", Endpoint("SSL", "::1", 9093)),  # brackets removed
        ("SSL://::1:9093", Endpoint("SSL", "::1", 9093)),  # unbracketed IPv6 still splits at the last ':'
        ("SSL://[fe80::1%eth0]:9093", Endpoint("SSL", "fe80::1%eth0", 9093)),  # zone id allowed
        ("EXTERNAL://0.0.0.0:0", Endpoint("EXTERNAL", "0.0.0.0", 0)),
        ("A://h:-1", Endpoint("A", "h", -1)),  # Kafka's pattern accepts a sign; binding fails later
        ("A://h:09092", Endpoint("A", "h", 9092)),
        ("A://B://h:1", Endpoint("A://B", "h", 1)),  # the name group is greedy, as in Kafka
        ("://h:1", Endpoint("", "h", 1)),
        ("A://h:2147483647", Endpoint("A", "h", 2147483647)),
    ],
)
def test_parse_endpoint_accepts_kafka_syntax(entry, expected):
    assert parse_endpoint(entry) == expected


@pytest.mark.parametrize(
    "entry",
    [
        "PLAINTEXT://localhost",  # no port
        "PLAINTEXT:/localhost:9092",  # no '://'
        "localhost:9092",
        "PLAINTEXT://host:9092/",  # Kafka's match is a full match: nothing may follow the port
        "PLAINTEXT://host:9092 ",  # no trimming inside parse_endpoint
        "PLAINTEXT://host name:9092",
        "PLAINTEXT://host/x:9092",
        "PLAINTEXT://host:+9092",
        "A\rB://h:1",  # Java's '.' stops at '\r' (Python's would not)
        "A\u2028B://h:1",
        "",
    ],
)
def test_parse_endpoint_rejects_with_kafkas_message(entry):
    with pytest.raises(EndpointError) as caught:
        parse_endpoint(entry)
    assert str(caught.value) == "Unable to parse %s to a broker endpoint" % entry
    assert caught.value.kind == "syntax"
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("port", ["2147483648", "99999999999", "-2147483649"])
def test_parse_endpoint_port_beyond_java_int_fails_like_integer_parse_int(port):
    with pytest.raises(EndpointError) as caught:
        parse_endpoint("PLAINTEXT://h:%s" % port)
    assert str(caught.value) == 'For input string: "%s"' % port
    assert caught.value.kind == "port"


def test_parse_endpoint_requires_a_string():
    with pytest.raises(TypeError, match="listener entry must be a string"):
        parse_endpoint(9092)


# -- parse_listener_list --------------------------------------------------------------------------------------


def test_parse_listener_list_splits_trims_and_drops_empty_items():
    value = "  INTERNAL://0.0.0.0:19092 ,EXTERNAL://0.0.0.0:9092,, \t CONTROLLER://[::1]:9093,  "
    assert parse_listener_list(value) == [
        Endpoint("INTERNAL", "0.0.0.0", 19092),
        Endpoint("EXTERNAL", "0.0.0.0", 9092),
        Endpoint("CONTROLLER", "::1", 9093),
    ]


@pytest.mark.parametrize("value", ["", "   ", ",", " , ,"])
def test_parse_listener_list_empty_values_give_no_endpoints(value):
    assert parse_listener_list(value) == []


def test_parse_listener_list_wraps_the_first_bad_entry_with_the_trimmed_value():
    with pytest.raises(EndpointError) as caught:
        parse_listener_list("  PLAINTEXT://:9092,SSL//:9093,also bad  ")
    assert str(caught.value) == (
        "Error creating broker listeners from 'PLAINTEXT://:9092,SSL//:9093,also bad': "
        "Unable to parse SSL//:9093 to a broker endpoint")
    assert caught.value.kind == "syntax"


def test_parse_listener_list_keeps_the_port_failure_kind():
    with pytest.raises(EndpointError) as caught:
        parse_listener_list("PLAINTEXT://:99999999999")
    assert str(caught.value) == (
        "Error creating broker listeners from 'PLAINTEXT://:99999999999': For input string: \"99999999999\"")
    assert caught.value.kind == "port"


def test_parse_listener_list_does_not_judge_duplicates():
    # duplicate names/ports are Kafka rules of their own (R4, R5 in _kafka_rules), not syntax
    assert parse_listener_list("A://:1,A://:1") == [Endpoint("A", "", 1), Endpoint("A", "", 1)]


# -- format_endpoint ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("PLAINTEXT", "ec2-54-191-84-122.us-west-2.compute.amazonaws.com", 9092),
         "PLAINTEXT://ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092"),
        (("INTERNAL", "0.0.0.0", 19092), "INTERNAL://0.0.0.0:19092"),
        (("PLAINTEXT", "", 9092), "PLAINTEXT://:9092"),
        (("SSL", "::1", 9093), "SSL://[::1]:9093"),
        (("SSL", "[::1]", 9093), "SSL://[::1]:9093"),  # already bracketed: not doubled
        (("SSL", "fe80::1%eth0", 9093), "SSL://[fe80::1%eth0]:9093"),
        (("listener_bob", "kafka0", 29092), "listener_bob://kafka0:29092"),  # the name is written as given
    ],
)
def test_format_endpoint(args, expected):
    assert format_endpoint(*args) == expected


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("", "h", 1), "listener name ''"),
        (("A,B", "h", 1), "listener name 'A,B'"),
        (("A://B", "h", 1), "listener name 'A://B'"),
        (("IN TERNAL", "h", 1), "listener name 'IN TERNAL'"),
        (("A", "host name", 1), "host 'host name'"),
        (("A", "h/x", 1), "host 'h/x'"),
        (("A", "[::1", 1), "host '[::1'"),
        (("A", "h", 65536), "port 65536 for listener A is outside 0-65535"),
        (("A", "h", -1), "port -1 for listener A is outside 0-65535"),
    ],
)
def test_format_endpoint_rejects_what_kafka_could_not_read_back(args, fragment):
    with pytest.raises(EndpointError, match=fragment.replace("[", r"\[")) as caught:
        format_endpoint(*args)
    assert caught.value.kind == "value"


@pytest.mark.parametrize("args", [("A", "h", True), ("A", "h", "9092"), ("A", None, 1), (None, "h", 1)])
def test_format_endpoint_type_errors(args):
    with pytest.raises(TypeError):
        format_endpoint(*args)


_NAMES = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.", min_size=1, max_size=20)
_LABEL = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
_HOSTS = st.one_of(
    st.just(""),
    st.lists(_LABEL, min_size=1, max_size=4).map(".".join),
    st.ip_addresses(v=4).map(str),
    st.ip_addresses(v=6).map(str),
    st.builds(lambda address, zone: "%s%%%s" % (address, zone), st.ip_addresses(v=6).map(str), _LABEL),
)
_PORTS = st.integers(min_value=0, max_value=65535)


@given(listener=_NAMES, host=_HOSTS, port=_PORTS)
def test_format_then_parse_round_trips(listener, host, port):
    text = format_endpoint(listener, host, port)
    assert parse_endpoint(text) == Endpoint(listener.upper(), host, port)
    if ":" in host:
        assert "[%s]" % host in text  # IPv6 literals are always bracketed
    # one entry of a list reads back the same way
    assert parse_listener_list(" %s , " % text) == [Endpoint(listener.upper(), host, port)]


@given(listener=_NAMES, host=_HOSTS, port=_PORTS)
def test_parse_then_format_is_stable(listener, host, port):
    endpoint = parse_endpoint(format_endpoint(listener, host, port))
    assert format_endpoint(*endpoint) == format_endpoint(listener.upper(), host, port)


@given(st.ip_addresses(v=6))
def test_ipv6_hosts_survive_with_brackets(address):
    endpoint = parse_endpoint(format_endpoint("SSL", str(address), 9093))
    assert ipaddress.ip_address(endpoint.host) == address


# -- parse_protocol_map and the constants ---------------------------------------------------------------------


def test_parse_protocol_map_splits_each_entry_at_its_last_colon():
    assert parse_protocol_map("INTERNAL:PLAINTEXT,[::1]:SSL, a:b:sasl_ssl") == {
        "INTERNAL": "PLAINTEXT",
        "[::1]": "SSL",
        "A:B": "SASL_SSL",
    }


def test_parse_protocol_map_upper_cases_and_trims():
    value = "  listener_bob : plaintext ,\tLISTENER_FRED:Sasl_Plaintext  ,"
    assert parse_protocol_map(value) == {"LISTENER_BOB": "PLAINTEXT", "LISTENER_FRED": "SASL_PLAINTEXT"}


@pytest.mark.parametrize("value", ["", "  "])
def test_parse_protocol_map_empty_value_maps_nothing(value):
    # an explicit empty map replaces the default one: no listener name has a protocol then
    assert parse_protocol_map(value) == {}


def test_parse_protocol_map_repeated_name_keeps_the_last_value():
    assert parse_protocol_map("INTERNAL:PLAINTEXT,internal:SSL") == {"INTERNAL": "SSL"}


def test_parse_protocol_map_invalid_protocol_message_keeps_the_spelling():
    with pytest.raises(EndpointError) as caught:
        parse_protocol_map("INTERNAL:PLAINTEXT,EXTERNAL:Tls")
    assert str(caught.value) == "Invalid security protocol `Tls` defined in listener.security.protocol.map"
    assert caught.value.kind == "protocol"


@pytest.mark.parametrize(
    ("value", "length"),
    [("INTERNAL", 8), ("INTERNAL:PLAINTEXT,,EXTERNAL:SSL", 0), (",INTERNAL:PLAINTEXT", 0)],
)
def test_parse_protocol_map_entry_without_colon_fails_like_kafka(value, length):
    with pytest.raises(EndpointError) as caught:
        parse_protocol_map(value)
    assert str(caught.value) == (
        "Error parsing configuration property 'listener.security.protocol.map': begin 0, end -1, length %d" % length)
    assert caught.value.kind == "map_entry"


def test_parse_protocol_map_malformed_entry_is_reported_before_a_bad_protocol():
    with pytest.raises(EndpointError) as caught:
        parse_protocol_map("A:NOPE,B")
    assert caught.value.kind == "map_entry"


def test_default_protocol_map_maps_each_protocol_to_itself_and_is_read_only():
    assert SECURITY_PROTOCOLS == ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
    assert dict(DEFAULT_PROTOCOL_MAP) == {protocol: protocol for protocol in SECURITY_PROTOCOLS}
    with pytest.raises(TypeError):
        DEFAULT_PROTOCOL_MAP["INTERNAL"] = "PLAINTEXT"


# -- what a broker serves ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({}, dict(DEFAULT_PROTOCOL_MAP)),
        ({"listener.security.protocol.map": "INTERNAL:plaintext,EXTERNAL:SSL"},
         {"INTERNAL": "PLAINTEXT", "EXTERNAL": "SSL"}),
        # KRaft without a map: controller listener names are PLAINTEXT (R7) ...
        ({"process.roles": "controller", "controller.listener.names": "controller", "listeners": "CONTROLLER://:9093"},
         dict(DEFAULT_PROTOCOL_MAP, CONTROLLER="PLAINTEXT")),
        # ... unless an SSL/SASL listener name is in use
        ({"process.roles": "broker,controller", "controller.listener.names": "CONTROLLER",
          "listeners": "SSL://:9094,CONTROLLER://:9093"}, dict(DEFAULT_PROTOCOL_MAP)),
        # ZooKeeper mode: no implicit mapping
        ({"controller.listener.names": "CONTROLLER"}, dict(DEFAULT_PROTOCOL_MAP)),
    ],
)
def test_effective_protocol_map(props, expected):
    assert effective_protocol_map(props) == expected


def test_effective_protocol_map_refuses_a_bad_map():
    with pytest.raises(EndpointError, match="Invalid security protocol `TLS`"):
        effective_protocol_map({"listener.security.protocol.map": "A:TLS"})


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({}, "PLAINTEXT"),
        ({"inter.broker.listener.name": " internal "}, "INTERNAL"),
        ({"security.inter.broker.protocol": "ssl"}, "SSL"),
        ({"inter.broker.listener.name": "", "security.inter.broker.protocol": "SASL_SSL"}, "SASL_SSL"),
    ],
)
def test_inter_broker_listener(props, expected):
    assert inter_broker_listener(props) == expected


def test_roles_and_identity_keys():
    assert process_roles({"process.roles": " broker , controller "}) == ("broker", "controller")
    assert process_roles({}) == ()
    assert controller_listener_names({"controller.listener.names": "ctl, Other"}) == ["CTL", "OTHER"]
    assert identity_properties(3, ("broker",)) == {"node.id": "3", "process.roles": "broker"}
    assert identity_properties(3, ()) == {"broker.id": "3"}
    # the keys written read back as the same node
    props = identity_properties(7, ("broker", "controller"))
    assert process_roles(props) == ("broker", "controller")
    assert [props.get(key) for key in NODE_ID_KEYS] == ["7", None]
