# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The restart gate: whether a broker may be restarted now, and whether it is back, from decoded answers."""

from __future__ import annotations

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils import _restart_gate as gate


def partition(index, replicas, isr, leader=None, error_code=0):
    return {"error_code": error_code, "partition": index, "leader": replicas[0] if leader is None else leader,
            "leader_epoch": 0, "replicas": replicas, "isr": isr, "offline_replicas": []}


def answer(partitions, brokers=(1, 2, 3), topic_configs=None, configs_error=None, topic="orders"):
    metadata = {"brokers": [{"node_id": node, "host": "b%d" % node, "port": 9092, "rack": None} for node in brokers],
                "cluster_id": "c", "controller_id": 1, "throttle_time_ms": 0,
                "topics": [{"error_code": 0, "name": topic, "topic_id": None, "is_internal": False,
                            "partitions": partitions}]}
    result = {"bootstrap_used": "b2:9092", "bootstrap_errors": [], "metadata_version": 12, "metadata": metadata}
    if configs_error:
        result["topic_configs_error"] = configs_error
    else:
        result["topic_configs"] = topic_configs if topic_configs is not None else {topic: {gate.MIN_INSYNC: "2"}}
    return result


def test_a_healthy_cluster_lets_any_broker_restart():
    full = answer([partition(0, [1, 2, 3], [1, 2, 3]), partition(1, [2, 3, 1], [2, 3, 1])])
    check = gate.restart_check(full, 1, "before_restart", "b1")
    assert check["ready"] and check["reason"] is None and check["blocking"] == []


def test_a_partition_at_min_insync_blocks_the_restart_of_a_replica_in_its_isr():
    # broker 3 is down: every partition at ISR 2 = min.insync.replicas 2
    held = answer([partition(0, [1, 2, 3], [1, 2]), partition(1, [2, 3, 1], [2, 1])], brokers=(1, 2))
    check = gate.restart_check(held, 1, "before_restart", "b1")
    assert not check["ready"]
    held = [(e["topic"], e["partition"], e["isr"]) for e in check["blocking"]]
    assert held == [("orders", 0, [1, 2]), ("orders", 1, [2, 1])]
    assert check["reason"].startswith("restarting b1 now would take 2 partition(s) below min.insync.replicas")
    assert "orders-0 (ISR [1, 2] of replicas [1, 2, 3], min.insync.replicas 2)" in check["reason"]
    assert check["reason"].endswith("b1 was not restarted.")


def test_the_broker_that_is_out_of_sync_may_restart_and_already_short_partitions_block():
    short = answer([partition(0, [1, 2, 3], [2, 3]), partition(1, [1, 2, 3], [1])])
    check = gate.restart_check(short, 1, "before_restart")
    # partition 0: broker 1 is not in its ISR, a restart takes nothing away; partition 1: already below, it blocks
    assert [e["partition"] for e in check["blocking"]] == [1]
    assert "broker 1" in check["reason"]


def test_a_replication_factor_at_min_insync_is_unavoidable_not_blocking():
    single = answer([partition(0, [1], [1])], topic_configs={"orders": {gate.MIN_INSYNC: "1"}})
    check = gate.restart_check(single, 1, "before_restart")
    assert check["ready"] and [e["partition"] for e in check["unavoidable"]] == [0]


def test_a_refused_describe_configs_stops_unless_a_minimum_is_assumed():
    held = answer([partition(0, [1, 2, 3], [1, 2])], configs_error="DescribeConfigs v2: the broker refused orders "
                  "(TOPIC_AUTHORIZATION_FAILED)")
    check = gate.restart_check(held, 1, "before_restart", "b1")
    assert not check["ready"]
    assert "TOPIC_AUTHORIZATION_FAILED" in check["reason"]
    assert "broker_restart_assume_min_insync_replicas" in check["reason"]
    assert gate.restart_check(held, 1, "before_restart", "b1", assume_min_insync=1)["ready"]
    assert not gate.restart_check(held, 1, "before_restart", "b1", assume_min_insync=2)["ready"]


@pytest.mark.parametrize("value", ["two", ""])
def test_a_min_insync_that_is_not_a_number_is_named(value):
    odd = answer([partition(0, [1, 2, 3], [1, 2, 3])], topic_configs={"orders": {gate.MIN_INSYNC: value}})
    check = gate.restart_check(odd, 1, "before_restart", "b1")
    assert not check["ready"]
    assert "min.insync.replicas=%r for topic orders, not a number" % value in check["reason"]


def test_after_restart_needs_registration_and_every_hosted_isr():
    back = answer([partition(0, [1, 2, 3], [2, 3, 1]), partition(1, [2, 3], [2, 3])])
    assert gate.restart_check(back, 1, "after_restart")["ready"]
    missing = answer([partition(0, [1, 2, 3], [2, 3])], brokers=(2, 3))
    check = gate.restart_check(missing, 1, "after_restart", "b1")
    assert not check["ready"] and not check["registered"]
    assert check["reason"].startswith("b1 is not registered in the cluster (asked b2:9092)")
    # another partition under-replicated elsewhere does not keep broker 1 from counting as back
    elsewhere = answer([partition(0, [1, 2, 3], [1, 2, 3]), partition(1, [2, 3, 4], [2, 3])], brokers=(1, 2, 3))
    assert gate.restart_check(elsewhere, 1, "after_restart")["ready"]


def test_after_restart_names_listener_not_found_and_the_way_out():
    split = answer([partition(index, [1, 2, 3], [2, 3], leader=-1, error_code=72) for index in range(10)])
    check = gate.restart_check(split, 1, "after_restart", "b1")
    assert not check["ready"] and check["registered"]
    assert "not back in sync for 10 partition(s)" in check["reason"]
    assert "orders-0 (ISR [2, 3] of replicas [1, 2, 3], LISTENER_NOT_FOUND)" in check["reason"]
    assert "and 2 more" in check["reason"]
    assert "must first add the new listener on every broker" in check["reason"]


def test_a_listener_the_others_do_not_have_yet_does_not_hold_a_broker_that_is_in_sync():
    # the first broker of a rollout that adds a listener, asked on it: the others' partitions answer
    # LISTENER_NOT_FOUND, but every replica is in sync
    adding = answer([partition(0, [2, 1, 3], [2, 1, 3], leader=-1, error_code=72), partition(1, [1, 2, 3], [1, 2, 3])])
    assert gate.restart_check(adding, 1, "after_restart")["ready"]
