# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Evaluate one cluster's broker records with the collection's own planner and rule checker.

Everything here is plain Python over plain records, so it runs unchanged in a Spark grouped-map pandas UDF
(``evaluate_cluster_frame``), in the pandas baseline of the benchmark and in unit tests. Listener logic is not
re-implemented: the plan comes from ``_listener_plan.plan_listeners``, Kafka's startup rules from
``_kafka_rules.check_kafka_config`` and endpoint syntax from ``_endpoints``.
"""

from __future__ import annotations

import json

import pandas as pd
from pyspark.sql import types as T

from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    EndpointError,
    advertised_broker_endpoints,
    effective_protocol_map,
    identity_properties,
    inter_broker_listener,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import ip_literal, is_loopback
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config, kafka_release
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import PlanError, plan_listeners
from kafka_listeners_audit.schema import CONFIG_COLUMNS

# values that are lists in Kafka: their order and the spacing around commas do not change what Kafka does
_LIST_KEYS = frozenset((
    "listeners", "advertised.listeners", "listener.security.protocol.map", "controller.listener.names",
    "controller.quorum.voters", "controller.quorum.bootstrap.servers",
))

ENDPOINT_TYPE = T.StructType([
    T.StructField("listener", T.StringType()),
    T.StructField("host", T.StringType()),
    T.StructField("port", T.IntegerType()),
    T.StructField("protocol", T.StringType()),
    T.StructField("host_class", T.StringType()),
])

EVALUATION_SCHEMA = T.StructType([
    T.StructField("cluster", T.StringType()),
    T.StructField("run_id", T.StringType()),
    T.StructField("observed_at", T.TimestampType()),
    T.StructField("broker", T.StringType()),
    T.StructField("node_id", T.LongType()),
    T.StructField("plan_mode", T.StringType()),
    T.StructField("plan_error", T.StringType()),
    T.StructField("drift", T.ArrayType(T.StructType([
        T.StructField("key", T.StringType()),
        T.StructField("current", T.StringType()),
        T.StructField("planned", T.StringType()),
    ]))),
    T.StructField("startup_violations", T.ArrayType(T.StructType([
        T.StructField("rule", T.StringType()),
        T.StructField("message", T.StringType()),
    ]))),
    T.StructField("inter_broker_listener", T.StringType()),
    T.StructField("endpoints", T.ArrayType(ENDPOINT_TYPE)),
])
"""Per broker of a cluster snapshot: the plan's verdict (drift is null when no plan could be made), Kafka's
startup-rule violations of the current config, and the endpoints the broker advertises (empty when they do not
parse; the violations say why)."""


def host_class(host: str | None) -> str | None:
    """``"loopback"`` (localhost, 127/8, ::1), ``"wildcard"`` (0.0.0.0, ::), ``"default"`` (empty: Kafka
    advertises the canonical host name) or None for an ordinary host."""
    if host is None:
        return None
    if host == "":
        return "default"
    if is_loopback(host):
        return "loopback"
    address = ip_literal(host)
    return "wildcard" if address is not None and address.is_unspecified else None


def _json_field(record: dict, field: str, expected: type, problems: list):
    text = record.get(field)
    if text is None or text == "":
        return expected()
    try:
        value = json.loads(text)
    except ValueError as exc:
        problems.append("broker %s: %s is not valid JSON (%s)" % (record["broker"], field, exc))
        return expected()
    if not isinstance(value, expected):
        problems.append("broker %s: %s must be a JSON %s, got %s" % (
            record["broker"], field, "object" if expected is dict else expected.__name__, type(value).__name__))
        return expected()
    return value


def _roles(value) -> list:
    return [] if value is None else [str(role) for role in value]


def current_properties(record: dict, problems: list) -> dict:
    """The server.properties view Kafka would get from a ``brokers`` record: the config columns that are set,
    ``other_config`` and the role/id keys derived from ``process_roles`` and ``node_id``."""
    props = {key: record[column] for key, column in CONFIG_COLUMNS.items() if record.get(column) is not None}
    props.update(identity_properties(record["node_id"], _roles(record.get("process_roles"))))
    other = _json_field(record, "other_config", dict, problems)
    for key, value in other.items():
        if not isinstance(value, str):
            problems.append("broker %s: other_config[%r] must be a string, got %s"
                            % (record["broker"], key, type(value).__name__))
            continue
        props[key] = value
    return props


def advertised_endpoints(props: dict) -> tuple:
    """Return (endpoints, inter_broker_listener) as Kafka derives them from ``props``.

    Endpoints are what the broker advertises to clients: ``advertised.listeners``, or ``listeners`` when it is
    unset (R13 of docs/docsite/rst/kafka-rules.rst), minus controller listeners (R14), each with its protocol from
    the effective map (R2). The inter-broker listener is ``inter.broker.listener.name``, else the listener named after
    ``security.inter.broker.protocol``, else PLAINTEXT (R9). Unparseable settings give no endpoints.
    """
    inter_broker = inter_broker_listener(props)
    try:
        mapping = effective_protocol_map(props)
        parsed = advertised_broker_endpoints(props)
    except EndpointError:
        return [], inter_broker
    endpoints = [{"listener": ep.listener, "host": ep.host, "port": ep.port, "protocol": mapping.get(ep.listener),
                  "host_class": host_class(ep.host)} for ep in parsed]
    return endpoints, inter_broker


def _canonical(key: str, value: str | None):
    if value is None or not value.strip():
        return None
    text = value.strip()
    if key in _LIST_KEYS:
        return tuple(sorted(item.strip() for item in text.split(",") if item.strip()))
    return text


def config_drift(current: dict, planned: dict) -> list:
    """The planned keys whose current value differs from the plan (``None`` = unset), as
    ``[{key, current, planned}]`` sorted by key. Surrounding spaces and the order of list items do not count."""
    drift = []
    for key in sorted(planned):
        if _canonical(key, current.get(key)) != _canonical(key, planned[key]):
            drift.append({"key": key, "current": current.get(key), "planned": planned[key]})
    return drift


def _facts(record: dict, problems: list) -> dict:
    return {
        "name": record["broker"],
        "node_id": record["node_id"],
        "private_host": record.get("private_host"),
        "public_dns": record.get("public_dns"),
        "public_ip": record.get("public_ip"),
        "container_name": record.get("container_name"),
        "process_roles": _roles(record.get("process_roles")),
        "external_checks": _json_field(record, "external_checks", dict, problems),
    }


def evaluate_cluster(records: list) -> list:
    """Evaluate the broker records of one cluster snapshot (one run) and return one result per record.

    The plan is made once for the whole cluster, from every record's facts and the records' (shared)
    ``plan_options``; when it cannot be made, every result carries ``plan_error`` (why) and ``drift`` None.
    ``startup_violations`` quote the release in ``plan_options.kafka_version`` (Kafka 3.9's texts when it is unset
    or unreadable; an unreadable one is the plan's error). Results follow :data:`EVALUATION_SCHEMA`, in the order
    of ``records``.
    """
    problems: list = []
    facts = [_facts(record, problems) for record in records]
    options_text = {record.get("plan_options") or "{}" for record in records}
    if len(options_text) > 1:
        problems.append("the brokers' plan_options differ (%d versions); one plan needs one set of options"
                        % len(options_text))
    options = _json_field(records[0], "plan_options", dict, problems) if records else {}
    current = [current_properties(record, problems) for record in records]
    plan, plan_error = None, None
    if problems:
        plan_error = "; ".join(problems)
    else:
        try:
            plan = plan_listeners(facts, options)
        except (PlanError, TypeError, ValueError) as exc:
            plan_error = str(exc)
    planned = {} if plan is None else {node["name"]: node["properties"] for node in plan["brokers"]}
    kafka_version = (options or {}).get("kafka_version")
    try:
        kafka_release(kafka_version)
    except ValueError:
        kafka_version = None
    results = []
    for record, props in zip(records, current, strict=True):
        endpoints, inter_broker = advertised_endpoints(props)
        results.append({
            "cluster": record["cluster"],
            "run_id": record["run_id"],
            "observed_at": record["observed_at"],
            "broker": record["broker"],
            "node_id": record["node_id"],
            "plan_mode": None if plan is None else plan["mode"],
            "plan_error": plan_error,
            "drift": None if plan is None else config_drift(props, planned[record["broker"]]),
            "startup_violations": check_kafka_config(props, kafka_version=kafka_version),
            "inter_broker_listener": inter_broker,
            "endpoints": endpoints,
        })
    return results


def evaluate_cluster_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`evaluate_cluster` over one cluster's rows, for ``groupBy("cluster").applyInPandas``."""
    records = [{key: (None if _is_missing(value) else value) for key, value in row.items()}
               for row in frame.sort_values("broker").to_dict("records")]
    columns = [field.name for field in EVALUATION_SCHEMA.fields]
    return pd.DataFrame(evaluate_cluster(records), columns=columns)


def evaluate_clusters_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`evaluate_cluster` for every cluster in ``frame`` (rows of several whole clusters), one call per
    cluster; for ``applyInPandas`` over a group of clusters, so the per-call costs of a pandas UDF (Arrow batches,
    frame conversions) are paid once per group rather than once per cluster."""
    columns = [field.name for field in EVALUATION_SCHEMA.fields]
    records = [{key: (None if _is_missing(value) else value) for key, value in row.items()}
               for row in frame.to_dict("records")]
    return pd.DataFrame(evaluate_clusters(records), columns=columns)


def evaluate_clusters(records: list) -> list:
    """:func:`evaluate_cluster` for every cluster of ``records`` (broker records of one snapshot per cluster, in
    any order), one call per cluster; the results are ordered by cluster and broker."""
    ordered = sorted(records, key=lambda record: (record["cluster"], record["broker"]))
    results: list = []
    first = 0
    for index in range(1, len(ordered) + 1):
        if index == len(ordered) or ordered[index]["cluster"] != ordered[first]["cluster"]:
            results += evaluate_cluster(ordered[first:index])
            first = index
    return results


def _is_missing(value) -> bool:
    # Arrow hands array columns over as numpy arrays, whose truth value is ambiguous: only scalars can be NaN/None
    return value is None or (isinstance(value, float) and value != value)


def host_class_series(hosts: pd.Series) -> pd.Series:
    """:func:`host_class` of every host, for a scalar pandas UDF."""
    return hosts.map(host_class)
