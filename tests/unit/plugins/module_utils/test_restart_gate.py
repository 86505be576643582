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


# ------------------------------------------------------------------------------------------------ the controller quorum

def replica(node, caught_up_ms, log_end=100):
    return {"replica_id": node, "log_end_offset": log_end, "last_fetch_timestamp": caught_up_ms,
            "last_caught_up_timestamp": caught_up_ms}


def with_quorum(voters, leader=1, observers=(), error=None):
    """A broker-less answer (controller-only nodes) with DescribeQuorum's answer, or its ``error``."""
    result = answer([], brokers=(7,))
    if error:
        result["quorum_error"] = error
    else:
        result["quorum"] = {"version": 1, "leader_id": leader, "leader_epoch": 3, "high_watermark": 100,
                            "voters": list(voters), "observers": list(observers)}
    return result


NOW = 1_000_000


def test_a_quorum_all_caught_up_lets_any_voter_restart():
    full = with_quorum([replica(1, NOW), replica(2, NOW - 500), replica(3, NOW - 2000)])
    for node in (1, 2, 3):
        check = gate.restart_check(full, node, "before_restart", "c%d" % node, checks=["quorum"])
        assert check["ready"] and check["voter"] and check["quorum"]["caught_up_without"] == 2, check


def test_a_voter_behind_holds_the_restart_of_the_others_and_is_named_with_its_lag():
    behind = with_quorum([replica(1, NOW), replica(2, NOW - 100), replica(3, NOW - 34_500, log_end=30)])
    check = gate.restart_check(behind, 2, "before_restart", "c2", checks=["quorum"])
    assert not check["ready"]
    assert check["quorum"]["majority"] == 2 and check["quorum"]["caught_up_without"] == 1
    assert check["reason"].startswith("restarting c2 now would leave the controller quorum without a majority")
    assert "2 of its 3 voters must be caught up, and without c2 1 is caught up" in check["reason"]
    assert "Not caught up: node 3 (34.5 s behind leader 1)" in check["reason"]
    assert check["reason"].endswith("c2 was not restarted.")
    # the leader is held too; the voter that is behind may restart: the two others keep the majority
    assert not gate.restart_check(behind, 1, "before_restart", checks=["quorum"])["ready"]
    assert gate.restart_check(behind, 3, "before_restart", checks=["quorum"])["ready"]


def test_the_fetch_timeout_is_the_limit_and_unknown_times_are_not_caught_up():
    edge = with_quorum([replica(1, NOW), replica(2, NOW - 2001), replica(3, -1)])
    check = gate.restart_check(edge, 1, "before_restart", "c1", checks=["quorum"])
    assert [e["caught_up"] for e in check["quorum"]["voters"]] == [True, False, False]
    assert "node 3 (no fetch from leader 1 known" in check["reason"]
    assert gate.restart_check(edge, 1, "before_restart", checks=["quorum"], quorum_max_lag_ms=2001)["quorum"][
        "caught_up_without"] == 1


def test_without_times_v0_counts_records_behind_the_leader():
    old = with_quorum([replica(1, -1, 500), replica(2, -1, 500 - gate.QUORUM_MAX_LAG_RECORDS),
                       replica(3, -1, 500 - gate.QUORUM_MAX_LAG_RECORDS - 1)])
    check = gate.restart_check(old, 3, "before_restart", "c3", checks=["quorum"])
    assert [e["lag_records"] for e in check["quorum"]["voters"]] == [0, 20, 21]
    assert check["ready"]
    held = gate.restart_check(old, 2, "before_restart", "c2", checks=["quorum"])
    assert "node 3 (21 records behind leader 1)" in held["reason"]


def test_without_a_leader_no_voter_restarts():
    lost = with_quorum([replica(1, NOW), replica(2, NOW), replica(3, NOW)], leader=-1)
    check = gate.restart_check(lost, 1, "before_restart", "c1", checks=["quorum"])
    assert not check["ready"] and "node 2 (no leader to be caught up with)" in check["reason"]


def test_a_single_voter_and_a_node_that_is_no_voter_are_not_held():
    alone = with_quorum([replica(1, NOW)])
    assert gate.restart_check(alone, 1, "before_restart", checks=["quorum"])["ready"]
    behind = with_quorum([replica(1, NOW), replica(2, -1), replica(3, -1)])
    check = gate.restart_check(behind, 7, "before_restart", checks=["quorum"])
    assert check["ready"] and check["voter"] is False


def test_a_refused_describe_quorum_stops_and_names_the_way_out():
    refused = with_quorum([], error="DescribeQuorum v2: the cluster refused: CLUSTER_AUTHORIZATION_FAILED")
    check = gate.restart_check(refused, 1, "before_restart", "c1", checks=["quorum"])
    assert not check["ready"] and check["voter"] is None
    assert "CLUSTER_AUTHORIZATION_FAILED" in check["reason"] and "broker_restart_quorum_gate: false" in check["reason"]
    assert check["reason"].endswith("c1 was not restarted.")


def test_after_restart_the_node_must_be_caught_up_as_voter_or_observer():
    back = with_quorum([replica(1, NOW), replica(2, NOW - 300), replica(3, NOW - 9000)],
                       observers=[replica(7, NOW - 100)])
    assert gate.restart_check(back, 2, "after_restart", "c2", checks=["quorum"])["ready"]
    assert gate.restart_check(back, 7, "after_restart", "b7", checks=["quorum"])["ready"]
    lagging = gate.restart_check(back, 3, "after_restart", "c3", checks=["quorum"])
    assert not lagging["ready"]
    assert lagging["reason"].startswith("c3 is not caught up with the controller quorum (asked b2:9092): node 3 "
                                        "(9.0 s behind leader 1)")
    missing = gate.restart_check(back, 4, "after_restart", "c4", checks=["quorum"])
    assert missing["reason"].startswith("c4 is neither a voter nor an observer of the controller quorum")


def test_a_combined_node_is_held_by_either_gate_and_the_partitions_speak_first():
    held = answer([partition(0, [1, 2, 3], [1, 2])], brokers=(1, 2))
    held["quorum"] = with_quorum([replica(1, NOW), replica(2, NOW), replica(3, -1)])["quorum"]
    check = gate.restart_check(held, 1, "before_restart", "n1", checks=["partitions", "quorum"])
    assert not check["ready"] and check["reason"].startswith("restarting n1 now would take 1 partition(s) below")
    assert check["quorum"]["caught_up_without"] == 1 and check["voter"]
    held["metadata"]["topics"][0]["partitions"] = [partition(0, [1, 2, 3], [1, 2, 3])]
    check = gate.restart_check(held, 1, "before_restart", "n1", checks=["partitions", "quorum"])
    assert not check["ready"] and check["reason"].startswith("restarting n1 now would leave the controller quorum")


def test_the_preferred_leadership_a_restart_moved_away_is_what_an_election_gives_back():
    metadata = answer([
        partition(0, [2, 1, 3], [1, 3, 2], leader=1),  # moved away: given back
        partition(1, [2, 3, 1], [3, 1], leader=3),  # 2 not in the ISR yet: an election would fail
        partition(2, [2, 3, 1], [2, 3, 1]),  # 2 leads it already
        partition(3, [1, 2, 3], [1, 2, 3], leader=3),  # 1 prefers it: not 2's
        partition(4, [2, 1], [2, 1], leader=1, error_code=72),  # an error on the listener asked: left alone
        partition(5, [2, 1, 3], [1, 2, 3], leader=-1),  # no leader at all: elected too
    ])["metadata"]
    assert gate.preferred_elsewhere(metadata, 2) == [("orders", [0, 5])]
    assert gate.preferred_elsewhere(metadata, 1) == [("orders", [3])]
    assert gate.preferred_elsewhere(metadata, 4) == []
