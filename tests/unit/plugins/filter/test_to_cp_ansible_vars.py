# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""to_cp_ansible_vars, held to what cp-ansible makes of its variables.

The reference is confluentinc/cp-ansible at commit 000021a94864e67d701bca8c8388a49615071d6a (7.6.9-post):
roles/variables/defaults/main.yml defines ``kafka_broker_listeners`` (a mapping of listener key to
``name``/``port``/``ssl_enabled``/``ssl_mutual_auth_enabled``/``sasl_protocol``, optionally ``hostname`` and ``ip``)
and ``kafka_broker_inter_broker_listener_name`` (a key of it); roles/variables/vars/main.yml builds ``listeners``
(``NAME://<ip or empty>:PORT``), ``advertised.listeners`` (``NAME://<hostname or the inventory host>:PORT``),
``listener.security.protocol.map`` (from ssl_enabled and sasl_protocol, plugins/filter/filters.py
``kafka_protocol_defaults``) and ``inter.broker.listener.name``. ``cp_ansible_listener_keys`` below restates that
rendering, so the tests check that cp-ansible, given the filter's variables, writes exactly the plan's keys.
"""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.listener_plan import listener_plan
from ansible_collections.kafkaops.listeners.plugins.filter.to_cp_ansible_vars import to_cp_ansible_vars

# the keys a cp-ansible listener entry may carry (roles/variables/defaults/main.yml, vars/main.yml)
CP_LISTENER_KEYS = {"name", "port", "ssl_enabled", "ssl_mutual_auth_enabled", "sasl_protocol", "hostname", "ip"}
CP_VARIABLES = {"kafka_broker_listeners", "kafka_broker_inter_broker_listener_name"}

BROKERS = [
    {"name": "b1", "node_id": 1, "private_host": "ip-172-31-18-160.us-west-2.compute.internal",
     "public_dns": "ec2-54-191-84-122.us-west-2.compute.amazonaws.com"},
    {"name": "b2", "node_id": 2, "private_host": "ip-172-31-18-161.us-west-2.compute.internal",
     "public_dns": "ec2-54-191-84-123.us-west-2.compute.amazonaws.com"},
]


def _cp_protocol(listener):
    sasl = listener.get("sasl_protocol", "none") != "none"
    tls = listener.get("ssl_enabled", False)
    return ("SASL_" if sasl else "") + ("SSL" if tls else "PLAINTEXT")


def cp_ansible_listener_keys(cp_vars, inventory_host):
    """The listener keys cp-ansible writes into a broker's server.properties from ``cp_vars``."""
    listeners = cp_vars["kafka_broker_listeners"].values()
    return {
        "listeners": ",".join("%s://%s:%s" % (v["name"], v.get("ip", ""), v["port"]) for v in listeners),
        "advertised.listeners": ",".join("%s://%s:%s" % (v["name"], v.get("hostname", inventory_host), v["port"])
                                         for v in listeners),
        "listener.security.protocol.map": ",".join("%s:%s" % (v["name"], _cp_protocol(v)) for v in listeners),
        "inter.broker.listener.name":
            cp_vars["kafka_broker_listeners"][cp_vars["kafka_broker_inter_broker_listener_name"]]["name"],
    }


def _plan_keys(node):
    return {key: value for key, value in node["properties"].items()
            if key in ("listeners", "advertised.listeners", "listener.security.protocol.map",
                       "inter.broker.listener.name") and value is not None}


@pytest.mark.parametrize("options", [
    {"mode": "single"},
    {"mode": "dual"},
    {"mode": "dual", "security_protocols": {"EXTERNAL": "SSL"}},
    {"mode": "dual", "internal_port": 9091, "external_listener_name": "CLIENT", "bind_address": "::"},
], ids=["single", "dual", "dual-external-ssl", "dual-renamed"])
def test_cp_ansible_writes_exactly_the_plan_from_the_filters_variables(options):
    plan = listener_plan(BROKERS, options)
    for node in plan["brokers"]:
        cp_vars = to_cp_ansible_vars(node)
        assert set(cp_vars) == CP_VARIABLES
        assert all(set(entry) <= CP_LISTENER_KEYS for entry in cp_vars["kafka_broker_listeners"].values())
        rendered = cp_ansible_listener_keys(cp_vars, inventory_host="not-" + node["name"])
        plan_keys = _plan_keys(node)
        # the plan leaves inter.broker.listener.name unset where Kafka's default (PLAINTEXT) is meant
        plan_keys.setdefault("inter.broker.listener.name", "PLAINTEXT")
        # without a map Kafka maps PLAINTEXT, SSL, SASL_* to themselves; cp-ansible always writes the map out
        plan_keys.setdefault("listener.security.protocol.map", ",".join(
            "%s:%s" % (name, name) for name in (entry.split("://")[0] for entry in plan_keys["listeners"].split(","))))
        assert rendered == plan_keys


def test_dual_plan_as_cp_ansible_variables():
    assert to_cp_ansible_vars(listener_plan(BROKERS, mode="dual")["brokers"][0]) == {
        "kafka_broker_listeners": {
            "internal": {"name": "INTERNAL", "port": 19092, "ip": "0.0.0.0", "ssl_enabled": False,
                         "hostname": "ip-172-31-18-160.us-west-2.compute.internal", "sasl_protocol": "none"},
            "external": {"name": "EXTERNAL", "port": 9092, "ip": "0.0.0.0", "ssl_enabled": False,
                         "hostname": "ec2-54-191-84-122.us-west-2.compute.amazonaws.com", "sasl_protocol": "none"},
        },
        "kafka_broker_inter_broker_listener_name": "internal",
    }


def test_sasl_listeners_need_cp_ansibles_mechanism():
    node = listener_plan(BROKERS, mode="dual", security_protocols={"EXTERNAL": "SASL_SSL"})["brokers"][0]
    with pytest.raises(AnsibleFilterError, match="listener EXTERNAL uses SASL.*pass sasl_protocol"):
        to_cp_ansible_vars(node)
    with pytest.raises(AnsibleFilterError, match="sasl_protocol 'SCRAM' for listener EXTERNAL is not one of"):
        to_cp_ansible_vars(node, sasl_protocol="SCRAM")
    cp_vars = to_cp_ansible_vars(node, sasl_protocol={"EXTERNAL": "scram"})
    assert cp_vars["kafka_broker_listeners"]["external"]["sasl_protocol"] == "scram"
    assert cp_ansible_listener_keys(cp_vars, "b1")["listener.security.protocol.map"] == \
        "INTERNAL:PLAINTEXT,EXTERNAL:SASL_SSL"


def test_kraft_brokers_leave_the_controller_to_cp_ansible_and_controllers_are_refused():
    nodes = [dict(broker, process_roles=["broker"]) for broker in BROKERS] + [
        {"name": "c1", "node_id": 101, "private_host": "ip-172-31-18-170.us-west-2.compute.internal",
         "process_roles": ["controller"]}]
    plan = listener_plan(nodes, mode="dual")
    cp_vars = to_cp_ansible_vars(plan["brokers"][0])
    assert [entry["name"] for entry in cp_vars["kafka_broker_listeners"].values()] == ["INTERNAL", "EXTERNAL"]
    with pytest.raises(AnsibleFilterError, match="c1 has the controller role; cp-ansible runs KRaft controllers"):
        to_cp_ansible_vars(plan["brokers"][2])


def test_refuses_what_is_not_a_node_plan():
    with pytest.raises(AnsibleFilterError, match="expected one element of a listener plan's brokers list"):
        to_cp_ansible_vars({"listeners": "PLAINTEXT://:9092"})
