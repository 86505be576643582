# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The filters between the broker role's facts and its readers: the cluster's nodes for the planner, the ports a
node's plan binds, and the audit's records of the brokers' public broker_record facts."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.broker_plan_nodes import broker_plan_nodes
from ansible_collections.kafkaops.listeners.plugins.filter.kafka_broker_records import kafka_broker_records
from ansible_collections.kafkaops.listeners.plugins.filter.listener_bind_endpoints import listener_bind_endpoints
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import plan_listeners
from ansible_collections.kafkaops.listeners.plugins.module_utils._records import broker_record

FACTS = [{"name": "b1", "node_id": 1, "private_host": "ip-198-18-0-11.internal",
          "public_dns": "ec2-198-19-0-11.example", "public_ip": "198.19.0.11", "process_roles": []},
         {"name": "b2", "node_id": 2, "private_host": "ip-198-18-0-12.internal", "public_dns": None,
          "public_ip": None, "process_roles": []}]
CHECK = {"name": "ec2-198-19-0-11.example", "resolvable": False, "connectable": None}
RUN = ("run-1", "2026-11-22T03:00:00.000Z", "prod")


def test_plan_nodes_carry_the_checks_made_from_each_node_and_none_when_skipped():
    nodes = broker_plan_nodes(FACTS, [{"changed": False, "results": [CHECK]}, {"skipped": True}])
    assert [node["external_checks"] for node in nodes] == [[CHECK], []]
    assert [dict(node, external_checks=None) for node in nodes] == [
        dict(facts, external_checks=None) for facts in FACTS]
    assert broker_plan_nodes(FACTS[:1], [None])[0]["external_checks"] == []


def test_plan_nodes_take_the_answers_gathered_earlier_for_the_names_the_plan_needs_and_no_other():
    early = {"results": [dict(CHECK, name="gone.example"), CHECK, dict(CHECK, name="p2.internal", resolvable=True)]}
    names = ["ec2-198-19-0-11.example", "p2.internal"]
    # b1 resolved nothing itself (every name answered earlier), b2 resolved one name the earlier answers lacked
    fresh = dict(CHECK, name="p2.internal", resolvable=False)
    nodes = broker_plan_nodes(FACTS, [{"skipped": True}, {"results": [fresh]}], checked=[early, early], names=names)
    assert nodes[0]["external_checks"] == [CHECK, dict(CHECK, name="p2.internal", resolvable=True)]
    assert nodes[1]["external_checks"] == [fresh, CHECK]
    # no earlier answers: the node's own run only
    nodes = broker_plan_nodes(FACTS, [{"results": [CHECK]}, {"skipped": True}], checked=[None, None], names=names)
    assert [node["external_checks"] for node in nodes] == [[CHECK], []]


def test_plan_nodes_refuse_earlier_answers_without_names_or_of_another_length():
    with pytest.raises(AnsibleFilterError, match="checked must give one answer .* 1 here for 2 nodes"):
        broker_plan_nodes(FACTS, [None, None], checked=[None], names=[])
    with pytest.raises(AnsibleFilterError, match="comes with names"):
        broker_plan_nodes(FACTS, [None, None], checked=[{"results": [CHECK]}, None])


def test_plan_nodes_refuse_a_check_list_of_another_length():
    with pytest.raises(AnsibleFilterError, match="2 nodes but 1 resolvability results"):
        broker_plan_nodes(FACTS, [{"skipped": True}])


def test_bind_endpoints_reach_a_wildcard_on_the_nodes_own_endpoint():
    node = {"name": "b1", "properties": {"listeners": "INTERNAL://0.0.0.0:19092,EXTERNAL://:9092,V6://[::]:9093,"
                                                      "LOCAL://127.0.0.1:9094,ODD://no-port,,V6HOST://[fd00::1]:9095"},
            "health_endpoint": {"host": "ip-198-18-0-11.internal", "port": 19092}, "controller_endpoint": None}
    assert listener_bind_endpoints(node) == [
        {"host": "ip-198-18-0-11.internal", "port": 19092}, {"host": "ip-198-18-0-11.internal", "port": 9092},
        {"host": "ip-198-18-0-11.internal", "port": 9093}, {"host": "127.0.0.1", "port": 9094},
        {"host": "fd00::1", "port": 9095}]


def test_bind_endpoints_of_a_controller_only_node_and_of_no_listeners():
    controller = {"name": "c1", "properties": {"listeners": "CONTROLLER://:9093"}, "health_endpoint": None,
                  "controller_endpoint": {"host": "c1.internal", "port": 9093}}
    assert listener_bind_endpoints(controller) == [{"host": "c1.internal", "port": 9093}]
    assert listener_bind_endpoints({"properties": {"listeners": None}}) == []


def test_bind_endpoints_refuse_what_is_not_a_node_plan_and_a_wildcard_with_nowhere_to_ask():
    with pytest.raises(AnsibleFilterError, match="expected one node's plan"):
        listener_bind_endpoints({"brokers": []})
    with pytest.raises(AnsibleFilterError, match="binds every address, but node x has no health"):
        listener_bind_endpoints({"name": "x", "properties": {"listeners": "A://:1"}})


def _public_record(facts, applied):
    node_plan = plan_listeners([facts])["brokers"][0]
    return {"name": facts["name"], "node_id": facts["node_id"], "provider": "aws", "cluster": "prod",
            "facts": facts, "plan_options": {"mode": "auto"}, "plan": node_plan,
            "current": {"listeners": "PLAINTEXT://:9092"}, "planned": node_plan["properties"],
            "changed_keys": None if applied is None else ["listeners"],
            "applied": node_plan["properties"] if applied else None, "restart_waiting": False}


def test_broker_records_are_the_audit_record_of_each_public_record():
    written, planned_only = _public_record(FACTS[0], True), _public_record(FACTS[1], None)
    assert kafka_broker_records([written, planned_only], *RUN) == [
        broker_record(FACTS[0], written["current"], written["planned"], {"mode": "auto"}, "aws", *RUN),
        broker_record(FACTS[1], planned_only["current"], None, {"mode": "auto"}, "aws", *RUN)]
    assert kafka_broker_records([planned_only], *RUN)[0]["listeners"] == "PLAINTEXT://:9092"
    assert kafka_broker_records([], *RUN) == []


def test_broker_records_name_the_broker_whose_record_lacks_a_field():
    record = _public_record(FACTS[0], False)
    del record["current"]
    with pytest.raises(AnsibleFilterError, match="the broker record of 'b1' has no current: give the broker role's"):
        kafka_broker_records([record], *RUN)
