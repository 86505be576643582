# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Builders of ``brokers`` and ``probes`` records for the audit tests: defaults plus the fields a test cares about.

The default broker config is the INTERNAL/EXTERNAL layout (option 2 of Confluent's "Configure Multi-Node
Environment"), written out literally.
"""

import json

from frame_assertions import utc

INTERNAL_EXTERNAL = {
    "listeners": "INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092",
    "listener_security_protocol_map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
    "inter_broker_listener_name": "INTERNAL",
}


def broker_record(number=1, cluster="kafka-a", run_id="run-1", observed_at="2026-01-05 00:00:00", **overrides):
    """A broker of a dual-mode (option 2) ZooKeeper cluster whose config matches the plan for its facts."""
    record = {
        "schema_version": 1, "run_id": run_id, "observed_at": utc(observed_at), "cluster": cluster,
        "broker": "b%d" % number, "node_id": number, "provider": "aws",
        "private_host": "b%d.internal" % number, "public_dns": "b%d.example.com" % number,
        "public_ip": "198.19.0.%d" % number, "container_name": None, "process_roles": [],
        **INTERNAL_EXTERNAL,
        "advertised_listeners": "INTERNAL://b%d.internal:19092,EXTERNAL://b%d.example.com:9092" % (number, number),
        "security_inter_broker_protocol": None, "controller_listener_names": None, "controller_quorum_voters": None,
        "controller_quorum_bootstrap_servers": None, "other_config": None,
        "external_checks": json.dumps({}), "plan_options": json.dumps({"mode": "dual"}),
    }
    record.update(overrides)
    if isinstance(record["observed_at"], str):
        record["observed_at"] = utc(record["observed_at"])
    return record


def probe_record(client="laptop", client_network="internet", broker="b1", listener="EXTERNAL",
                 host="b1.example.com", port=9092, observed_at="2026-01-05 00:00:00", run_id="run-1",
                 cluster="kafka-a", ok=True, **overrides):
    """One probe; ``ok`` sets bootstrap, resolution and connect all to success (or resolution failure)."""
    record = {
        "schema_version": 1, "run_id": run_id, "observed_at": utc(observed_at), "cluster": cluster,
        "client": client, "client_network": client_network, "listener": listener, "broker": broker,
        "node_id": int(broker.lstrip("b")) if broker.lstrip("b").isdigit() else None,
        "advertised_host": host, "advertised_port": port, "bootstrap_ok": True, "resolvable": ok,
        "addresses": ["198.19.0.1"] if ok else [], "connectable": ok,
        "error": None if ok else "Failed to resolve '%s:%d'" % (host, port), "elapsed_ms": 1.5,
        "tls_verified": None, "tls_outcome": None, "authenticated": None, "security_error": None,  # PLAINTEXT
        "endpoint_network": None, "route": None,  # as records written before those fields
    }
    record.update(overrides)
    if isinstance(record["observed_at"], str):
        record["observed_at"] = utc(record["observed_at"])
    return record


def frame(spark, records, schema):
    """A frame of ``schema`` from record dicts (fields in schema order)."""
    return spark.createDataFrame([tuple(record[field.name] for field in schema.fields) for record in records],
                                 schema)
