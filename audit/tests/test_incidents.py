# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Incidents from probe history (gaps and islands): build probes, compare with the expected incidents."""

from chispa import assert_df_equality
from frame_assertions import rows, utc
from records import frame, probe_record

from kafka_listeners_audit.incidents import incidents_closed_when_unprobed, incidents_from_islands, order_incidents
from kafka_listeners_audit.schema import INCIDENTS_SCHEMA, PROBES_SCHEMA
from kafka_listeners_audit.transforms import PROBE_RUN_KEYS, current_probes, run_spans, state_islands

COLUMNS = [field.name for field in INCIDENTS_SCHEMA.fields if field.name != "incident_key"]


def test_each_unreachable_island_is_one_incident_and_the_last_one_stays_open(spark):
    at = "2026-01-05 00:%02d:00"
    probes = frame(spark, [
        probe_record(observed_at=at % 0),
        probe_record(observed_at=at % 5, ok=False),
        probe_record(observed_at=at % 10, ok=False),
        probe_record(observed_at=at % 15),
        probe_record(observed_at=at % 20, connectable=False, error="Connection refused"),
        probe_record(observed_at=at % 25, connectable=False, error="Connection refused"),
        # another client of the same network, never down
        probe_record(client="laptop-2", observed_at=at % 7),
    ], PROBES_SCHEMA)
    actual = probes.transform(state_islands).transform(incidents_from_islands).select(*COLUMNS)
    series = ("kafka-a", "b1", "EXTERNAL", "b1.example.com", 9092, "internet", "laptop")
    resolve_error = "Failed to resolve 'b1.example.com:9092'"
    expected = spark.createDataFrame([
        (*series, utc(at % 5), utc(at % 15), False, "recovered", 600.0, 2, "unresolvable", resolve_error),
        (*series, utc(at % 20), None, True, None, 300.0, 2, "unconnectable", "Connection refused"),
    ], INCIDENTS_SCHEMA.__class__([INCIDENTS_SCHEMA[name] for name in COLUMNS]))
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


def test_a_probe_that_connects_but_whose_certificate_or_login_is_refused_is_an_incident(spark):
    at = "2026-01-05 00:%02d:00"
    mismatch = "TLS certificate verification failed for b1.example.com: the host is not among the certificate's names"
    refused = "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
    tls = dict(tls_verified=True, tls_outcome="verified")
    probes = frame(spark, [
        probe_record(observed_at=at % 0, **tls, authenticated=True),
        probe_record(observed_at=at % 5, tls_verified=False, tls_outcome="name_mismatch", security_error=mismatch),
        probe_record(observed_at=at % 10, **tls, authenticated=True),
        probe_record(observed_at=at % 15, **tls, authenticated=False, security_error=refused),
        # TLS and SASL not spoken (nulls) on another client: never an incident
        probe_record(client="laptop-2", observed_at=at % 7),
    ], PROBES_SCHEMA)
    actual = probes.transform(state_islands).transform(incidents_from_islands).select(*COLUMNS)
    series = ("kafka-a", "b1", "EXTERNAL", "b1.example.com", 9092, "internet", "laptop")
    expected = spark.createDataFrame([
        (*series, utc(at % 5), utc(at % 10), False, "recovered", 300.0, 1, "tls_refused", mismatch),
        (*series, utc(at % 15), None, True, None, 0.0, 1, "sasl_refused", refused),
    ], INCIDENTS_SCHEMA.__class__([INCIDENTS_SCHEMA[name] for name in COLUMNS]))
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)


def test_order_puts_open_incidents_first_then_newest(spark):
    at = "2026-01-05 00:%02d:00"
    probes = frame(spark, [
        probe_record(client="a", observed_at=at % 0, ok=False), probe_record(client="a", observed_at=at % 1),
        probe_record(client="b", observed_at=at % 2, ok=False), probe_record(client="b", observed_at=at % 3),
        probe_record(client="c", observed_at=at % 1, ok=False),
    ], PROBES_SCHEMA)
    incidents = probes.transform(state_islands).transform(incidents_from_islands).transform(order_incidents)
    assert [(row["client"], row["open"]) for row in rows(incidents.select("client", "open"))] == [
        ("c", True), ("b", False), ("a", False)]
    keys = [row["incident_key"] for row in rows(incidents.select("incident_key"))]
    assert len(set(keys)) == 3 and all(len(key) == 64 for key in keys)


def test_an_incident_ends_when_the_client_no_longer_probes_the_endpoint(spark):
    at = "2026-01-05 00:%02d:00"
    private = dict(listener="PLAINTEXT", host="ip-10-0-0-1.ec2.internal", ok=False)
    public = dict(listener="PLAINTEXT", host="ec2-198-19-0-1.compute.amazonaws.com")
    probes = frame(spark, [
        # the laptop cannot resolve the private name, in two runs; the fix lands, and the third run gets the public name
        probe_record(observed_at=at % 0, run_id="r1", **private),
        probe_record(observed_at=at % 10, run_id="r2", **private),
        probe_record(observed_at=at % 20, run_id="r3", **public),
        probe_record(observed_at=at % 30, run_id="r4", **public),
        # another laptop still gets the private name in its latest run: still open
        probe_record(client="laptop-2", observed_at=at % 12, run_id="r2", **private),
        # a client whose only run probed the endpoint: nothing later to close it with
        probe_record(client="laptop-3", observed_at=at % 1, run_id="r1", **private),
    ], PROBES_SCHEMA)
    current = probes.transform(current_probes)
    runs = probes.transform(run_spans(PROBE_RUN_KEYS))
    actual = (probes.transform(state_islands).transform(incidents_closed_when_unprobed(current, runs))
              .select(*COLUMNS))
    resolve_error = "Failed to resolve 'ip-10-0-0-1.ec2.internal:9092'"

    def series(client):
        return ("kafka-a", "b1", "PLAINTEXT", "ip-10-0-0-1.ec2.internal", 9092, "internet", client)

    expected = spark.createDataFrame([
        (*series("laptop"), utc(at % 0), utc(at % 20), False, "no_longer_advertised", 1200.0, 2, "unresolvable",
         resolve_error),
        (*series("laptop-2"), utc(at % 12), None, True, None, 0.0, 1, "unresolvable", resolve_error),
        (*series("laptop-3"), utc(at % 1), None, True, None, 0.0, 1, "unresolvable", resolve_error),
    ], INCIDENTS_SCHEMA.__class__([INCIDENTS_SCHEMA[name] for name in COLUMNS]))
    assert_df_equality(actual, expected, ignore_nullable=True, ignore_row_order=True)
