# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one host:port codec (plugins/module_utils/_hostport.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import (
    HostPortError,
    format_hostport,
    parse_hostport,
    show_hostport,
)


@pytest.mark.parametrize(
    ("host", "port", "expected"),
    [
        ("broker-1.example.com", 9092, "broker-1.example.com:9092"),
        ("::1", 9093, "[::1]:9093"),
        ("[::1]", 9093, "[::1]:9093"),  # already bracketed: not doubled
        ("fe80::1%eth0", 1, "[fe80::1%eth0]:1"),
        ("", 9092, ":9092"),  # the default interface
    ],
)
def test_format_hostport(host, port, expected):
    assert format_hostport(host, port) == expected


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("host name", 1), "host 'host name'"),
        (("h/x", 1), "host 'h/x'"),
        (("h", 65536), "port 65536 is outside 0-65535"),
        (("h", -1, "for listener A"), "port -1 for listener A is outside 0-65535"),
    ],
)
def test_format_hostport_names_what_kafka_could_not_read_back(args, fragment):
    with pytest.raises(HostPortError, match=fragment):
        format_hostport(*args)


@pytest.mark.parametrize("args", [(None, 1), ("h", "9092"), ("h", True)])
def test_format_hostport_type_errors(args):
    with pytest.raises(TypeError):
        format_hostport(*args)


def test_show_hostport_shows_anything_a_peer_sent():
    assert show_hostport("bad host", 9092) == "bad host:9092"
    assert show_hostport("::1", 70000) == "[::1]:70000"
    assert show_hostport(None, "x") == "None:x"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("broker-1.example.com:9092", ("broker-1.example.com", 9092)),
        (" 10.0.0.5:19092 ", ("10.0.0.5", 19092)),
        ("[::1]:9093", ("::1", 9093)),
        ("[fe80::1%eth0]:1", ("fe80::1%eth0", 1)),
    ],
)
def test_parse_hostport(value, expected):
    assert parse_hostport(value) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("broker-1", "forward 'broker-1' is not of the form host:port"),
        ("::1:9092", "forward '::1:9092' is not of the form host:port"),
        ("broker:0", "forward 'broker:0': port 0 is not between 1 and 65535"),
        ("broker:70000", "port 70000 is not between 1 and 65535"),
        (9092, "forward 9092 is not a string"),
        # ports in other scripts' digits (Arabic-Indic, full-width), which int() would take
        ("broker:\u0669\u0660\u0669\u0662", "forward 'broker:\u0669\u0660\u0669\u0662' is not of the form host:port"),
        ("broker:\uff19\uff10\uff19\uff12", "is not of the form host:port"),
        # the host by the one validator, naming the input
        ("evil\nlisteners=x:9092",
         "invalid host 'evil\\\\nlisteners=x' from forward 'evil\\\\nlisteners=x:9092': it contains a newline; "
         "contains '='"),
        ("[fe80::1%0#x]:9092", "from forward '\\[fe80::1%0#x\\]:9092': it contains '#'; has the IPv6 zone id '0#x'"),
    ],
)
def test_parse_hostport_names_the_input(value, message):
    with pytest.raises(HostPortError, match=message):
        parse_hostport(value, "forward")


_LABEL = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
_HOSTS = st.one_of(
    st.lists(_LABEL, min_size=1, max_size=4).map(".".join),
    st.ip_addresses().map(str),
)


@given(host=_HOSTS, port=st.integers(min_value=1, max_value=65535))
def test_format_then_parse_round_trips(host, port):
    assert parse_hostport(format_hostport(host, port)) == (host, port)
