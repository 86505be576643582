# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Transformations that pick the current state and enrich it: build input, actual and expected frames; compare."""

import pytest
from chispa import assert_df_equality
from frame_assertions import utc
from records import broker_record, frame, probe_record

from kafka_listeners_audit.evaluate import EVALUATION_SCHEMA
from kafka_listeners_audit.pipeline import evaluated_brokers_here_if_small
from kafka_listeners_audit.schema import BROKERS_SCHEMA, PROBES_SCHEMA
from kafka_listeners_audit.transforms import (
    advertised_endpoint_rows,
    classify_probes,
    current_probes,
    evaluate_brokers,
    latest_broker_snapshot,
    state_islands,
)


def test_latest_broker_snapshot_keeps_each_clusters_newest_run(spark):
    brokers = frame(spark, [
        broker_record(1, run_id="run-1", observed_at="2026-01-05 00:00:00"),
        broker_record(1, run_id="run-2", observed_at="2026-01-05 01:00:00"),
        broker_record(2, run_id="run-2", observed_at="2026-01-05 01:00:05"),
        broker_record(1, cluster="kafka-b", run_id="run-1", observed_at="2026-01-05 00:00:00"),
        # equal run times: the greater run_id wins
        broker_record(1, cluster="kafka-c", run_id="run-7", observed_at="2026-01-05 00:00:00"),
        broker_record(1, cluster="kafka-c", run_id="run-8", observed_at="2026-01-05 00:00:00"),
    ], BROKERS_SCHEMA)
    actual = brokers.transform(latest_broker_snapshot).select("cluster", "run_id", "broker")
    expected = spark.createDataFrame([("kafka-a", "run-2", "b1"), ("kafka-a", "run-2", "b2"),
                                      ("kafka-b", "run-1", "b1"), ("kafka-c", "run-8", "b1")],
                                     "cluster string, run_id string, broker string")
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


def test_current_probes_are_each_clients_latest_run_and_newest_probe_per_endpoint(spark):
    probes = frame(spark, [
        probe_record(client="laptop", run_id="run-1", observed_at="2026-01-05 00:00:00", ok=False),
        probe_record(client="laptop", run_id="run-2", observed_at="2026-01-05 01:00:00", ok=False),
        probe_record(client="laptop", run_id="run-2", observed_at="2026-01-05 01:05:00"),
        probe_record(client="laptop", run_id="run-2", observed_at="2026-01-05 01:05:00", broker="b2",
                     host="b2.example.com"),
        # the VPC client last ran earlier: its run still counts as its current view
        probe_record(client="vpc-1", client_network="vpc", run_id="run-1", observed_at="2026-01-05 00:00:30",
                     listener="INTERNAL", host="b1.internal", port=19092),
    ], PROBES_SCHEMA)
    actual = probes.transform(current_probes).select("client", "broker", "run_id", "observed_at", "resolvable")
    expected = spark.createDataFrame([
        ("laptop", "b1", "run-2", utc("2026-01-05 01:05:00"), True),
        ("laptop", "b2", "run-2", utc("2026-01-05 01:05:00"), True),
        ("vpc-1", "b1", "run-1", utc("2026-01-05 00:00:30"), True),
    ], "client string, broker string, run_id string, observed_at timestamp, resolvable boolean")
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


# in Python workers (a pandas UDF), or in this process as for a small fleet
@pytest.mark.parametrize("in_driver", [False, True])
def test_evaluate_brokers_runs_the_planner_per_cluster(spark, in_driver):
    brokers = frame(spark, [
        broker_record(1), broker_record(2, advertised_listeners="INTERNAL://b2.internal:19092"),
        broker_record(1, cluster="kafka-b", private_host=None),
    ], BROKERS_SCHEMA)
    actual = evaluate_brokers(brokers, in_driver).select(
        "cluster", "broker", "plan_mode", "plan_error", "drift.key", "inter_broker_listener")
    expected = spark.createDataFrame([
        ("kafka-a", "b1", "dual", None, [], "INTERNAL"),
        ("kafka-a", "b2", "dual", None, ["advertised.listeners"], "INTERNAL"),
        ("kafka-b", "b1", None, "broker b1: private_host is required for the INTERNAL listener", None, "INTERNAL"),
    ], "cluster string, broker string, plan_mode string, plan_error string, key array<string>, "
       "inter_broker_listener string")
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


@pytest.mark.parametrize("limit, in_driver", [(3, True), (2, False)])
def test_a_snapshot_up_to_the_limit_is_evaluated_here_a_larger_one_in_workers(spark, limit, in_driver):
    brokers = frame(spark, [
        broker_record(1, run_id="run-1", observed_at="2026-01-05 00:00:00"),
        broker_record(1, run_id="run-2", observed_at="2026-01-05 01:00:00"),
        broker_record(2, run_id="run-2", observed_at="2026-01-05 01:00:01"),
        broker_record(1, cluster="kafka-b", private_host=None),
    ], BROKERS_SCHEMA)
    evaluated, here = evaluated_brokers_here_if_small(brokers, limit)
    assert here is in_driver
    expected = spark.createDataFrame([
        ("kafka-a", "run-2", utc("2026-01-05 01:00:00"), "b1", "dual"),
        ("kafka-a", "run-2", utc("2026-01-05 01:00:01"), "b2", "dual"),
        ("kafka-b", "run-1", utc("2026-01-05 00:00:00"), "b1", None),
    ], "cluster string, run_id string, observed_at timestamp, broker string, plan_mode string")
    assert_df_equality(evaluated.select("cluster", "run_id", "observed_at", "broker", "plan_mode"), expected,
                       ignore_nullable=True, ignore_row_order=True)


def _evaluated(spark):
    """Two brokers of kafka-a: b1 advertises INTERNAL (PLAINTEXT, inter-broker) and EXTERNAL (SASL_SSL) on
    ordinary hosts, b2 advertises INTERNAL on localhost."""
    def endpoint(listener, host, port, protocol, klass=None):
        return (listener, host, port, protocol, klass)
    rows = [
        ("kafka-a", "run-1", utc("2026-01-05 00:00:00"), "b1", 1, "dual", None, [], [], "INTERNAL",
         [endpoint("INTERNAL", "b1.internal", 19092, "PLAINTEXT"),
          endpoint("EXTERNAL", "b1.example.com", 9092, "SASL_SSL")]),
        ("kafka-a", "run-1", utc("2026-01-05 00:00:01"), "b2", 2, "dual", None, [], [], "INTERNAL",
         [endpoint("INTERNAL", "localhost", 19092, "PLAINTEXT", "loopback")]),
    ]
    return spark.createDataFrame(rows, EVALUATION_SCHEMA)


def test_advertised_endpoint_rows_flag_the_inter_broker_listener(spark):
    actual = _evaluated(spark).transform(advertised_endpoint_rows)
    expected = spark.createDataFrame([
        ("kafka-a", "b1", "INTERNAL", "b1.internal", 19092, "PLAINTEXT", None, True),
        ("kafka-a", "b1", "EXTERNAL", "b1.example.com", 9092, "SASL_SSL", None, False),
        ("kafka-a", "b2", "INTERNAL", "localhost", 19092, "PLAINTEXT", "loopback", True),
    ], "cluster string, broker string, listener string, advertised_host string, advertised_port int, "
       "protocol string, host_class string, inter_broker boolean")
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


@pytest.mark.parametrize("in_driver", [False, True])
def test_classify_probes_picks_one_rule_per_probe(spark, in_driver):
    probes = frame(spark, [
        # 1. the classic failure: bootstrap works, the advertised name does not resolve
        probe_record(client="laptop", broker="b1", listener="EXTERNAL", host="b1.example.com", ok=False),
        # 2. resolves, does not connect
        probe_record(client="laptop-2", broker="b1", listener="EXTERNAL", host="b1.example.com",
                     connectable=False, error="timed out"),
        # 3. loopback advertised to another machine (it even "connects": to the laptop itself)
        probe_record(client="laptop", broker="b2", listener="INTERNAL", host="localhost", port=19092),
        # 4. a peer broker cannot resolve b1 on the inter-broker listener (no bootstrap needed for that)
        probe_record(client="b2", client_network="vpc", broker="b1", listener="INTERNAL", host="b1.internal",
                     port=19092, ok=False, bootstrap_ok=False),
        # 5. b2 probing its own loopback endpoint: local, fine
        probe_record(client="b2", client_network="vpc", broker="b2", listener="INTERNAL", host="localhost",
                     port=19092),
        # 6. no bootstrap from this network: the client never gets these endpoints
        probe_record(client="office", client_network="office", broker="b1", listener="INTERNAL",
                     host="b1.internal", port=19092, ok=False, bootstrap_ok=False),
    ], PROBES_SCHEMA)
    actual = probes.transform(classify_probes(_evaluated(spark), ["internet"], in_driver)).select(
        "client", "broker", "listener", "peer_broker", "inter_broker", "protocol", "host_class", "reachable",
        "internet", "reachability_rule")
    expected = spark.createDataFrame([
        ("b2", "b1", "INTERNAL", True, True, "PLAINTEXT", None, False, False, "KL005"),
        ("b2", "b2", "INTERNAL", True, True, "PLAINTEXT", "loopback", True, False, None),
        ("laptop", "b1", "EXTERNAL", False, False, "SASL_SSL", None, False, True, "KL001"),
        ("laptop", "b2", "INTERNAL", False, False, "PLAINTEXT", "loopback", True, True, "KL003"),
        ("laptop-2", "b1", "EXTERNAL", False, False, "SASL_SSL", None, False, True, "KL002"),
        ("office", "b1", "INTERNAL", False, False, "PLAINTEXT", None, False, False, None),
    ], "client string, broker string, listener string, peer_broker boolean, inter_broker boolean, protocol string, "
       "host_class string, reachable boolean, internet boolean, reachability_rule string")
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


def test_state_islands_collapse_runs_of_equal_state(spark):
    minute = "2026-01-05 00:%02d:00"
    states = [(0, True), (1, True), (2, False), (3, False), (4, True), (5, None)]  # None: connect refused
    probes = frame(spark, [
        probe_record(observed_at=minute % m, ok=bool(ok)) if ok is not None else
        probe_record(observed_at=minute % m, connectable=False, error="refused")
        for m, ok in states
    ], PROBES_SCHEMA)
    actual = probes.transform(state_islands).select(
        "island", "reachable", "start", "last_seen", "next_start", "probes", "first_error", "kind")
    refused = "Failed to resolve 'b1.example.com:9092'"
    expected = spark.createDataFrame([
        (1, True, utc(minute % 0), utc(minute % 1), utc(minute % 2), 2, None, None),
        (2, False, utc(minute % 2), utc(minute % 3), utc(minute % 4), 2, refused, "unresolvable"),
        (3, True, utc(minute % 4), utc(minute % 4), utc(minute % 5), 1, None, None),
        (4, False, utc(minute % 5), utc(minute % 5), None, 1, "refused", "unconnectable"),
    ], "island bigint, reachable boolean, start timestamp, last_seen timestamp, next_start timestamp, probes bigint, "
       "first_error string, kind string")
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


def test_state_islands_keep_series_apart(spark):
    probes = frame(spark, [
        probe_record(client="laptop", observed_at="2026-01-05 00:00:00", ok=False),
        probe_record(client="laptop-2", observed_at="2026-01-05 00:01:00"),
        probe_record(client="laptop", observed_at="2026-01-05 00:02:00", ok=False),
    ], PROBES_SCHEMA)
    actual = probes.transform(state_islands).select("client", "island", "reachable", "probes", "next_start")
    expected = spark.createDataFrame([("laptop", 1, False, 2, None), ("laptop-2", 1, True, 1, None)],
                                     "client string, island bigint, reachable boolean, probes bigint, "
                                     "next_start timestamp")
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)
