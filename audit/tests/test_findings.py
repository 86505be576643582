# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Each finding rule as a transformation: build input, actual and expected frames; compare."""

import hashlib
import json

import pytest
from chispa import assert_df_equality
from frame_assertions import rows, utc

from kafka_listeners_audit.evaluate import EVALUATION_SCHEMA
from kafka_listeners_audit.findings import (
    broker_findings,
    drift_findings,
    duplicate_endpoint_findings,
    flapping_findings,
    plaintext_exposure_findings,
    plan_unavailable_findings,
    probe_findings,
    reachability_findings,
    security_findings,
    stable_key,
    startup_rule_findings,
    union_findings,
)
from kafka_listeners_audit.schema import FINDINGS_SCHEMA

T0 = utc("2026-01-05 00:00:00")
T1 = utc("2026-01-05 00:05:00")
FINDING_COLUMNS = [field.name for field in FINDINGS_SCHEMA.fields if field.name != "finding_key"]


def expected_findings(spark, items):
    """A findings frame (without finding_key) from dicts naming only the non-null columns."""
    return spark.createDataFrame([tuple(item.get(name) for name in FINDING_COLUMNS) for item in items],
                                 FINDINGS_SCHEMA.__class__([FINDINGS_SCHEMA[name] for name in FINDING_COLUMNS]))


def _classified(spark, items):
    schema = ("cluster string, broker string, listener string, advertised_host string, advertised_port int, "
              "client_network string, client string, run_id string, observed_at timestamp, error string, "
              "host_class string, connectable boolean, internet boolean, protocol string, reachability_rule string")
    return spark.createDataFrame(items, schema)


def test_reachability_findings_one_per_rule_endpoint_and_network(spark):
    resolve_error = "Failed to resolve 'b1.example.com:9092'"
    classified = _classified(spark, [
        ("kafka-a", "b1", "EXTERNAL", "b1.example.com", 9092, "internet", "laptop-2", "run-1", T0, resolve_error,
         None, False, True, "SASL_SSL", "KL001"),
        ("kafka-a", "b1", "EXTERNAL", "b1.example.com", 9092, "internet", "laptop-1", "run-2", T1, resolve_error,
         None, False, True, "SASL_SSL", "KL001"),
        ("kafka-a", "b2", "EXTERNAL", "localhost", 9092, "internet", "laptop-1", "run-2", T1, None,
         "loopback", True, True, "SASL_SSL", "KL003"),
        ("kafka-a", "b1", "INTERNAL", "b1.internal", 19092, "vpc", "b2", "run-2", T1, "timed out",
         None, False, False, "PLAINTEXT", "KL005"),
        ("kafka-a", "b2", "INTERNAL", "b2.internal", 19092, "vpc", "vpc-1", "run-2", T1, "refused",
         None, False, False, "PLAINTEXT", "KL002"),
        ("kafka-a", "b3", "EXTERNAL", "b3.example.com", 9092, "internet", "laptop-1", "run-2", T1, None,
         None, True, True, "SASL_SSL", None),
    ])
    actual = classified.transform(reachability_findings).select(*FINDING_COLUMNS)
    expected = expected_findings(spark, [
        {"rule_id": "KL001", "rule": "advertised-unresolvable-from-client", "severity": "critical",
         "cluster": "kafka-a", "broker": "b1", "listener": "EXTERNAL", "endpoint": "b1.example.com:9092",
         "client_network": "internet",
         "message": "b1.example.com:9092 (broker b1, listener EXTERNAL) does not resolve from network internet, "
                    "although bootstrap works there (clients: laptop-1, laptop-2)",
         "details": json.dumps({"clients": ["laptop-1", "laptop-2"], "errors": [resolve_error]},
                               separators=(",", ":")),
         "run_id": "run-2", "observed_at": T1},
        {"rule_id": "KL002", "rule": "advertised-unconnectable", "severity": "error", "cluster": "kafka-a",
         "broker": "b2", "listener": "INTERNAL", "endpoint": "b2.internal:19092", "client_network": "vpc",
         "message": "b2.internal:19092 (broker b2, listener INTERNAL) resolves but does not connect from network "
                    "vpc (clients: vpc-1)",
         "details": '{"clients":["vpc-1"],"errors":["refused"]}', "run_id": "run-2", "observed_at": T1},
        {"rule_id": "KL003", "rule": "loopback-or-wildcard-advertised", "severity": "error", "cluster": "kafka-a",
         "broker": "b2", "listener": "EXTERNAL", "endpoint": "localhost:9092", "client_network": "internet",
         "message": "localhost:9092 (broker b2, listener EXTERNAL) is a loopback address advertised to network "
                    "internet, whose clients are other machines (clients: laptop-1)",
         "details": '{"clients":["laptop-1"],"errors":[],"host_class":"loopback"}', "run_id": "run-2",
         "observed_at": T1},
        {"rule_id": "KL005", "rule": "inter-broker-listener-unreachable", "severity": "critical",
         "cluster": "kafka-a", "broker": "b1", "listener": "INTERNAL", "endpoint": "b1.internal:19092",
         "client_network": "vpc",
         "message": "b1.internal:19092 (broker b1, listener INTERNAL) is the inter-broker listener, and peer brokers "
                    "cannot reach it (brokers: b2)",
         "details": '{"clients":["b2"],"errors":["timed out"]}', "run_id": "run-2", "observed_at": T1},
    ])
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


def test_plaintext_exposure_needs_internet_plaintext_and_a_connect(spark):
    classified = _classified(spark, [
        ("kafka-a", "b1", "PLAINTEXT", "b1.example.com", 9092, "internet", "laptop-1", "run-1", T0, None,
         None, True, True, "PLAINTEXT", None),
        ("kafka-a", "b2", "PLAINTEXT", "b2.example.com", 9092, "internet", "laptop-1", "run-1", T0, "refused",
         None, False, True, "PLAINTEXT", "KL002"),  # does not connect: not exposed
        ("kafka-a", "b1", "EXTERNAL", "b1.example.com", 9093, "internet", "laptop-1", "run-1", T0, None,
         None, True, True, "SASL_SSL", None),  # TLS + SASL
        ("kafka-a", "b1", "INTERNAL", "b1.internal", 19092, "vpc", "vpc-1", "run-1", T0, None,
         None, True, False, "PLAINTEXT", None),  # not the internet
    ])
    actual = classified.transform(plaintext_exposure_findings).select(*FINDING_COLUMNS)
    expected = expected_findings(spark, [{
        "rule_id": "KL007", "rule": "plaintext-reachable-from-internet", "severity": "error", "cluster": "kafka-a",
        "broker": "b1", "listener": "PLAINTEXT", "endpoint": "b1.example.com:9092", "client_network": "internet",
        "message": "b1.example.com:9092 (broker b1, listener PLAINTEXT) speaks PLAINTEXT and connects from internet "
                   "network internet (clients: laptop-1)",
        "details": '{"clients":["laptop-1"]}', "run_id": "run-1", "observed_at": T0}])
    assert_df_equality(actual, expected, ignore_nullable=True)


def test_security_findings_one_per_endpoint_network_and_reason(spark):
    schema = ("cluster string, broker string, listener string, advertised_host string, advertised_port int, "
              "client_network string, client string, run_id string, observed_at timestamp, "
              "tls_verified boolean, tls_outcome string, authenticated boolean, security_error string")
    mismatch = "the host is not among the certificate's names; the certificate names b1.internal"
    refused = "SCRAM-SHA-512 SASL_AUTHENTICATION_FAILED: Authentication failed"
    classified = spark.createDataFrame([
        ("kafka-a", "b1", "EXTERNAL", "b1.example.com", 9092, "internet", "laptop-2", "run-1", T0,
         False, "name_mismatch", None, mismatch),
        ("kafka-a", "b1", "EXTERNAL", "b1.example.com", 9092, "internet", "laptop-1", "run-2", T1,
         False, "name_mismatch", None, mismatch),
        ("kafka-a", "b2", "EXTERNAL", "b2.example.com", 9092, "internet", "laptop-1", "run-2", T1,
         True, "verified", False, refused),
        # verified and logged in; PLAINTEXT (all null); not reached (null): no finding
        ("kafka-a", "b3", "EXTERNAL", "b3.example.com", 9092, "internet", "laptop-1", "run-2", T1,
         True, "verified", True, None),
        ("kafka-a", "b1", "INTERNAL", "b1.internal", 19092, "vpc", "vpc-1", "run-2", T1, None, None, None, None),
        ("kafka-a", "b2", "INTERNAL", "b2.internal", 19092, "vpc", "vpc-1", "run-2", T1, None, None, None, None),
    ], schema)
    actual = classified.transform(security_findings).select(*FINDING_COLUMNS)
    expected = expected_findings(spark, [
        {"rule_id": "KL011", "rule": "tls-or-sasl-refused", "severity": "error", "cluster": "kafka-a",
         "broker": "b1", "listener": "EXTERNAL", "endpoint": "b1.example.com:9092", "client_network": "internet",
         "subject": "name_mismatch",
         "message": "b1.example.com:9092 (broker b1, listener EXTERNAL) fails TLS verification (name_mismatch) for "
                    "network internet (clients: laptop-1, laptop-2): " + mismatch,
         "details": json.dumps({"clients": ["laptop-1", "laptop-2"], "errors": [mismatch]}, separators=(",", ":")),
         "run_id": "run-2", "observed_at": T1},
        {"rule_id": "KL011", "rule": "tls-or-sasl-refused", "severity": "error", "cluster": "kafka-a",
         "broker": "b2", "listener": "EXTERNAL", "endpoint": "b2.example.com:9092", "client_network": "internet",
         "subject": "sasl",
         "message": "b2.example.com:9092 (broker b2, listener EXTERNAL) refuses their SASL login for network "
                    "internet (clients: laptop-1): " + refused,
         "details": json.dumps({"clients": ["laptop-1"], "errors": [refused]}, separators=(",", ":")),
         "run_id": "run-2", "observed_at": T1},
    ])
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


def test_probe_findings_of_all_rules_equal_each_family_alone(spark):
    # one probe breaking KL002, KL007 and KL011 at once, one KL003, one clean: one aggregation gives what the
    # three families give one by one
    schema = ("cluster string, broker string, listener string, advertised_host string, advertised_port int, "
              "client_network string, client string, run_id string, observed_at timestamp, error string, "
              "host_class string, connectable boolean, internet boolean, protocol string, reachability_rule string, "
              "tls_verified boolean, tls_outcome string, authenticated boolean, security_error string")
    classified = spark.createDataFrame([
        ("kafka-a", "b1", "PLAINTEXT", "b1.example.com", 9092, "internet", "laptop-1", "run-1", T0, "reset",
         None, True, True, "PLAINTEXT", "KL002", False, "expired", None, "certificate expired"),
        ("kafka-a", "b2", "EXTERNAL", "localhost", 9092, "internet", "laptop-1", "run-1", T0, None,
         "loopback", True, True, "SASL_SSL", "KL003", True, "verified", True, None),
        ("kafka-a", "b3", "EXTERNAL", "b3.example.com", 9092, "internet", "laptop-1", "run-1", T0, None,
         None, True, True, "SASL_SSL", None, True, "verified", True, None),
    ], schema)
    families = union_findings([classified.transform(reachability_findings),
                               classified.transform(plaintext_exposure_findings),
                               classified.transform(security_findings)])
    combined = union_findings([classified.transform(probe_findings())])
    assert [row["rule_id"] for row in combined.collect()] == ["KL002", "KL003", "KL007", "KL011"]
    assert_df_equality(combined, families)


def test_probe_findings_refuses_rules_it_does_not_read():
    with pytest.raises(ValueError, match=r"must be some of KL001, KL002, KL003, KL005, KL007, KL011, got KL006"):
        probe_findings(["KL006"])
    with pytest.raises(ValueError, match="got none"):
        probe_findings([])


def _evaluation_rows(spark, items):
    defaults = {"run_id": "run-1", "observed_at": T0, "node_id": 1, "plan_mode": "dual", "plan_error": None,
                "drift": [], "startup_violations": [], "inter_broker_listener": "INTERNAL", "endpoints": []}
    return spark.createDataFrame([tuple({**defaults, **item}.get(field.name) for field in EVALUATION_SCHEMA.fields)
                                  for item in items], EVALUATION_SCHEMA)


def _endpoint(listener, host, port=9092, host_class=None):
    return {"listener": listener, "host": host, "port": port, "protocol": "PLAINTEXT", "host_class": host_class}


def test_duplicate_endpoints_give_one_finding_per_broker_involved(spark):
    evaluated = _evaluation_rows(spark, [
        {"cluster": "kafka-a", "broker": "b1", "endpoints": [_endpoint("EXTERNAL", "B1.example.com")]},
        {"cluster": "kafka-a", "broker": "b2", "endpoints": [_endpoint("EXTERNAL", "b1.example.com")]},
        # same host:port on another listener, or in another cluster: not a duplicate
        {"cluster": "kafka-a", "broker": "b3", "endpoints": [_endpoint("INTERNAL", "b1.example.com")]},
        {"cluster": "kafka-b", "broker": "b1", "endpoints": [_endpoint("EXTERNAL", "b1.example.com")]},
        # empty hosts advertise each broker's own canonical name
        {"cluster": "kafka-c", "broker": "b1", "endpoints": [_endpoint("PLAINTEXT", "", host_class="default")]},
        {"cluster": "kafka-c", "broker": "b2", "endpoints": [_endpoint("PLAINTEXT", "", host_class="default")]},
    ])
    actual = evaluated.transform(duplicate_endpoint_findings).select(*FINDING_COLUMNS)
    message = "b1.example.com:9092 is advertised on listener EXTERNAL by 2 brokers of cluster kafka-a: b1, b2"
    expected = expected_findings(spark, [
        {"rule_id": "KL004", "rule": "duplicate-endpoint", "severity": "error", "cluster": "kafka-a", "broker": b,
         "listener": "EXTERNAL", "endpoint": "b1.example.com:9092", "message": message,
         "details": '{"brokers":["b1","b2"]}', "run_id": "run-1", "observed_at": T0} for b in ("b1", "b2")])
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


def test_drift_startup_and_plan_findings(spark):
    evaluated = _evaluation_rows(spark, [
        {"cluster": "kafka-a", "broker": "b1", "drift": [
            {"key": "advertised.listeners", "current": "EXTERNAL://localhost:9092", "planned": "EXTERNAL://b1:9092"},
            {"key": "inter.broker.listener.name", "current": None, "planned": "INTERNAL"}],
         "startup_violations": [{"rule": "R11", "message": "requirement failed: inter.broker..."}]},
        {"cluster": "kafka-a", "broker": "b2"},
        {"cluster": "kafka-b", "broker": "b1", "plan_mode": None, "drift": None, "plan_error": "no private_host"},
        {"cluster": "kafka-b", "broker": "b2", "plan_mode": None, "drift": None, "plan_error": "no private_host",
         "run_id": "run-2", "observed_at": T1},
    ])
    drift = evaluated.transform(drift_findings).select(*FINDING_COLUMNS)
    assert_df_equality(drift, expected_findings(spark, [{
        "rule_id": "KL006", "rule": "config-drift", "severity": "warning", "cluster": "kafka-a", "broker": "b1",
        "subject": "advertised.listeners,inter.broker.listener.name",
        "message": "broker b1 differs from its dual plan: advertised.listeners is EXTERNAL://localhost:9092, plan "
                   "says EXTERNAL://b1:9092; inter.broker.listener.name is unset, plan says INTERNAL",
        "details": '[{"key":"advertised.listeners","current":"EXTERNAL://localhost:9092",'
                   '"planned":"EXTERNAL://b1:9092"},{"key":"inter.broker.listener.name","planned":"INTERNAL"}]',
        "run_id": "run-1", "observed_at": T0}]), ignore_nullable=True)
    startup = evaluated.transform(startup_rule_findings).select(*FINDING_COLUMNS)
    assert_df_equality(startup, expected_findings(spark, [{
        "rule_id": "KL009", "rule": "kafka-startup-rule-violation", "severity": "critical", "cluster": "kafka-a",
        "broker": "b1", "subject": "R11",
        "message": "broker b1 would not start (R11): requirement failed: inter.broker...",
        "details": '{"rule":"R11","message":"requirement failed: inter.broker..."}', "run_id": "run-1",
        "observed_at": T0}]), ignore_nullable=True)
    unavailable = evaluated.transform(plan_unavailable_findings).select(*FINDING_COLUMNS)
    assert_df_equality(unavailable, expected_findings(spark, [{
        "rule_id": "KL010", "rule": "plan-unavailable", "severity": "warning", "cluster": "kafka-b",
        "message": "cluster kafka-b: no plan, so drift is not checked: no private_host",
        "details": '{"error":"no private_host"}', "run_id": "run-2", "observed_at": T1}]), ignore_nullable=True)


def _reads_the_cache(frame):
    return "InMemoryRelation" in frame._jdf.queryExecution().withCachedData().toString()


def test_broker_findings_keep_the_evaluated_brokers_cached(spark):
    # spark.sql drops the temporary view it makes of a frame argument, and dropping a view uncaches the plans that
    # give its result: the audit's persisted evaluated brokers were evaluated again for every later use
    evaluated = _evaluation_rows(spark, [
        {"cluster": "kafka-a", "broker": "b1", "startup_violations": [{"rule": "R11", "message": "no listener"}]},
    ]).persist()
    try:
        evaluated.count()
        findings = evaluated.transform(broker_findings())
        assert _reads_the_cache(findings)
        assert _reads_the_cache(evaluated.select("cluster"))
        assert [row["subject"] for row in findings.collect()] == ["R11"]
    finally:
        evaluated.unpersist()


def _islands(spark, starts_by_client):
    """Islands of one endpoint: for each client, islands starting at the given minutes (island 1 first)."""
    items = []
    for client, minutes in starts_by_client.items():
        for number, minute in enumerate(minutes, start=1):
            items.append(("kafka-a", "b1", "EXTERNAL", "b1.example.com", 9092, "internet", client, number,
                          utc("2026-01-05 00:%02d:00" % minute)))
    schema = ("cluster string, broker string, listener string, advertised_host string, advertised_port int, "
              "client_network string, client string, island bigint, start timestamp")
    frame = spark.createDataFrame(items, schema)
    return frame.withColumn("last_seen", frame["start"])


def test_flapping_counts_state_changes_inside_the_window(spark):
    islands = _islands(spark, {
        "laptop-1": [0, 30, 35, 40, 45],  # 4 changes (islands 2-5) inside the 30-minute window before 00:50
        "laptop-2": [0, 10, 35, 40, 45],  # the change at 00:10 is outside: 3 inside
        "laptop-3": [0, 50, 52, 54, 59],  # 4 changes, but 00:59 is after as_of: 3 count
    })
    flapping = flapping_findings(4, 1800, as_of=utc("2026-01-05 00:50:00"))
    actual = islands.transform(flapping).select(*FINDING_COLUMNS)
    expected = expected_findings(spark, [{
        "rule_id": "KL008", "rule": "flapping-endpoint", "severity": "warning", "cluster": "kafka-a",
        "broker": "b1", "listener": "EXTERNAL", "endpoint": "b1.example.com:9092", "client_network": "internet",
        "message": "b1.example.com:9092 (broker b1, listener EXTERNAL) changed state 4 times in 1800 s from network "
                   "internet (clients: laptop-1)",
        "details": '{"clients":["laptop-1"],"changes":4}', "observed_at": utc("2026-01-05 00:45:00")}])
    assert_df_equality(actual, expected, ignore_nullable=True)


def test_flapping_window_ends_at_the_newest_probe_by_default(spark):
    islands = _islands(spark, {"laptop-1": [0, 10, 20, 30, 40], "laptop-2": [0, 2, 4, 6, 8]})
    actual = islands.transform(flapping_findings(4, 1800)).select("client_network", "details")
    # the newest island starts at 00:40: the window opens after 00:10, so laptop-1 has 3 changes inside
    assert rows(actual) == []
    actual = islands.transform(flapping_findings(3, 1800)).select("details")
    assert rows(actual) == [{"details": '{"clients":["laptop-1"],"changes":3}'}]


def test_flapping_refuses_meaningless_settings():
    with pytest.raises(ValueError, match="min_changes must be at least 1"):
        flapping_findings(0, 60)
    with pytest.raises(ValueError, match="window_seconds must be positive"):
        flapping_findings(2, 0)


def test_stable_key_is_sha256_of_the_identity_with_nulls_marked(spark):
    frame = spark.createDataFrame([("KL006", "kafka-a", None, ""), ("KL006", "kafka-a", "", None)],
                                  "rule_id string, cluster string, broker string, listener string")
    keys = [row["key"] for row in frame.select(stable_key(["rule_id", "cluster", "broker", "listener"])
                                               .alias("key")).collect()]

    def independent(*values):
        return hashlib.sha256("\x1f".join("-" if v is None else "=" + v for v in values).encode()).hexdigest()

    assert keys == [independent("KL006", "kafka-a", None, ""), independent("KL006", "kafka-a", "", None)]
    assert keys[0] != keys[1]


def test_union_orders_by_severity_then_identity(spark):
    def finding(rule_id, severity, cluster):
        return {"rule_id": rule_id, "rule": "r", "severity": severity, "cluster": cluster, "message": "m",
                "finding_key": "k"}
    frames = [spark.createDataFrame([tuple(item.get(f.name) for f in FINDINGS_SCHEMA.fields)], FINDINGS_SCHEMA)
              for item in (finding("KL006", "warning", "a"), finding("KL002", "error", "b"),
                           finding("KL001", "critical", "z"), finding("KL002", "error", "a"))]
    ordered = [(row["severity"], row["rule_id"], row["cluster"]) for row in union_findings(frames).collect()]
    assert ordered == [("critical", "KL001", "z"), ("error", "KL002", "a"), ("error", "KL002", "b"),
                       ("warning", "KL006", "a")]
