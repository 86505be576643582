# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The finding rules KL001-KL011: transformations from enriched records to rows of ``FINDINGS_SCHEMA``; the rules
read from the current probes (KL001-KL003, KL005, KL007, KL011) are one aggregation (:func:`probe_findings`), those
read from the evaluated brokers (KL004, KL006, KL009, KL010) one SQL statement (:func:`broker_findings`).

Rule ids and meanings are listed in :data:`kafka_listeners_audit.rules.RULES` and ``docs/records.md``. Probe
findings are reported per endpoint x client network (the clients that saw it are in ``details``); broker findings
per broker, except KL010 (per cluster).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kafka_listeners_audit.rules import RULES, SEVERITIES
from kafka_listeners_audit.schema import FINDING_IDENTITY, FINDINGS_SCHEMA
from kafka_listeners_audit.sql_text import sql_name, sql_string
from kafka_listeners_audit.transforms import Transform, endpoint_label

_PROBE_GROUP = ("cluster", "broker", "listener", "advertised_host", "advertised_port", "client_network")


def stable_key_sql(columns: Iterable[str]) -> str:
    """SQL text of :func:`stable_key`."""
    parts = ["coalesce(concat('=', CAST(%s AS STRING)), '-')" % sql_name(name) for name in columns]
    return "sha2(concat_ws(char(31), %s), 256)" % ", ".join(parts)


def stable_key(columns: Iterable[str]) -> F.Column:
    """A hex SHA-256 over ``columns`` (nulls and empty strings kept apart): equal identity, equal key, every run."""
    # one SQL expression: built from column functions, it took some 300 round trips to the JVM per frame
    return F.expr(stable_key_sql(columns))


def _rule_attribute(rule_id: F.Column | str, attribute: str, candidates: Iterable[str]) -> F.Column:
    if isinstance(rule_id, str):
        return F.lit(getattr(RULES[rule_id], attribute))
    choice = None
    for candidate in candidates:
        value = F.lit(getattr(RULES[candidate], attribute))
        choice = F.when(rule_id == candidate, value) if choice is None else choice.when(rule_id == candidate, value)
    return choice


def _as_findings(df: DataFrame, rule_id: F.Column | str, candidates: Iterable[str] = (), **columns) -> DataFrame:
    """Shape ``df`` into ``FINDINGS_SCHEMA`` in one projection: ``rule_id`` (a literal id, or a column holding one
    of ``candidates``) plus the given columns; the others are null."""
    candidates = list(candidates)
    fields = {
        "rule_id": F.lit(rule_id) if isinstance(rule_id, str) else rule_id,
        "rule": _rule_attribute(rule_id, "name", candidates),
        "severity": _rule_attribute(rule_id, "severity", candidates),
        **columns,
    }
    # types as SQL names and the missing columns as SQL text: a DataType or a literal costs the JVM round trips
    # each (some 130 per rule before)
    shaped = df.select(*[fields[field.name].cast(field.dataType.simpleString()).alias(field.name)
                         if field.name in fields else
                         F.expr("CAST(NULL AS %s) AS `%s`" % (field.dataType.simpleString(), field.name))
                         for field in FINDINGS_SCHEMA.fields if field.name != "finding_key"])
    return shaped.select("*", stable_key(FINDING_IDENTITY).alias("finding_key"))


REACHABILITY_RULES = ("KL001", "KL002", "KL003", "KL005")
"""The rules of :func:`~kafka_listeners_audit.transforms.classify_probes`' ``reachability_rule`` column."""

PROBE_RULES = (*REACHABILITY_RULES, "KL007", "KL011")
"""The rules read from the current probes classified by :func:`~kafka_listeners_audit.transforms.classify_probes`."""


def _probe_hits(rule_ids: tuple) -> list:
    """Per classified probe, one struct (rule_id, subject, error, host_class) or null per rule family of
    ``rule_ids``; only the columns of those rules are read."""
    def hit(rule: F.Column, subject: F.Column, error: F.Column, host: F.Column) -> F.Column:
        return F.struct(rule.alias("rule_id"), subject.cast("string").alias("subject"),
                        error.cast("string").alias("error"), host.cast("string").alias("host_class"))

    none = F.lit(None)
    hits = []
    reachability = [rule for rule in REACHABILITY_RULES if rule in rule_ids]
    if reachability:
        hits.append(F.when(F.col("reachability_rule").isin(*reachability),
                           hit(F.col("reachability_rule"), none, F.col("error"), F.col("host_class"))))
    if "KL007" in rule_ids:
        exposed = F.col("internet") & (F.col("protocol") == "PLAINTEXT") & F.coalesce(F.col("connectable"),
                                                                                        F.lit(False))
        hits.append(F.when(exposed, hit(F.lit("KL007"), none, none, none)))
    if "KL011" in rule_ids:
        refused = (F.col("tls_verified") == F.lit(False)) | (F.col("authenticated") == F.lit(False))
        subject = F.when(F.col("tls_verified") == F.lit(False), F.coalesce(F.col("tls_outcome"), F.lit("tls"))) \
            .otherwise(F.lit("sasl"))
        hits.append(F.when(refused, hit(F.lit("KL011"), subject, F.col("security_error"), none)))
    return hits


def probe_findings(rule_ids: Iterable[str] = PROBE_RULES) -> Transform:
    """Return a transformation of current probes classified by
    :func:`~kafka_listeners_audit.transforms.classify_probes` giving the findings of ``rule_ids`` (of
    :data:`PROBE_RULES`) in one aggregation: one finding per rule x endpoint x client network (x ``subject`` for
    KL011).

    - KL001, KL002, KL003, KL005: the probe's ``reachability_rule``.
    - KL007: a probe from an internet network connected to an endpoint of a PLAINTEXT listener.
    - KL011: the probe reached the endpoint, but its certificate did not verify (``tls_verified`` false) or its
      SASL login was refused (``authenticated`` false); ``subject`` is the TLS outcome (``name_mismatch``, ...) or
      ``sasl``, the message quotes the first reason.
    """
    wanted = set(rule_ids)
    if not wanted or not wanted <= set(PROBE_RULES):
        raise ValueError("probe_findings: rule ids must be some of %s, got %s"
                         % (", ".join(PROBE_RULES), ", ".join(sorted(wanted)) or "none"))
    rule_ids = tuple(rule for rule in PROBE_RULES if rule in wanted)

    def transform(classified: DataFrame) -> DataFrame:
        # each probe once, as one row per rule it breaks: one aggregation for all the rules, not one per rule
        hits = classified.select(*_PROBE_GROUP, "client", "run_id", "observed_at",
                                 F.explode(F.filter(F.array(*_probe_hits(rule_ids)), lambda item: item.isNotNull()))
                                 .alias("hit"))
        grouped = (hits.groupBy(F.col("hit.rule_id").alias("rule_id"), *_PROBE_GROUP,
                                F.col("hit.subject").alias("subject"))
                   .agg(F.sort_array(F.collect_set("client")).alias("clients"),
                        F.sort_array(F.collect_set("hit.error")).alias("errors"),
                        F.first("hit.host_class", ignorenulls=True).alias("host_class"),
                        F.max_by("run_id", "observed_at").alias("run_id"),
                        F.max("observed_at").alias("observed_at")))
        endpoint = endpoint_label()
        where = F.format_string("%s (broker %s, listener %s)", endpoint, F.col("broker"), F.col("listener"))
        clients = F.concat_ws(", ", "clients")
        rule = F.col("rule_id")
        what = F.when(F.col("subject") == "sasl", F.lit("refuses their SASL login")).otherwise(
            F.format_string("fails TLS verification (%s)", F.col("subject")))
        message = (F.when(rule == "KL001", F.format_string(
                       "%s does not resolve from network %s, although bootstrap works there (clients: %s)",
                       where, F.col("client_network"), clients))
                   .when(rule == "KL002", F.format_string(
                       "%s resolves but does not connect from network %s (clients: %s)",
                       where, F.col("client_network"), clients))
                   .when(rule == "KL003", F.format_string(
                       "%s is a %s address advertised to network %s, whose clients are other machines (clients: %s)",
                       where, F.col("host_class"), F.col("client_network"), clients))
                   .when(rule == "KL005", F.format_string(
                       "%s is the inter-broker listener, and peer brokers cannot reach it (brokers: %s)",
                       where, clients))
                   .when(rule == "KL007", F.format_string(
                       "%s speaks PLAINTEXT and connects from internet network %s (clients: %s)",
                       where, F.col("client_network"), clients))
                   .otherwise(F.format_string(
                       "%s %s for network %s (clients: %s): %s", where, what, F.col("client_network"), clients,
                       F.coalesce(F.element_at("errors", 1), F.lit("no reason recorded")))))
        details = (F.when(rule == "KL007", F.to_json(F.struct("clients")))
                   .when(rule == "KL011", F.to_json(F.struct("clients", "errors")))
                   .otherwise(F.to_json(F.struct("clients", "errors", "host_class"))))
        return _as_findings(grouped, rule, rule_ids, cluster=F.col("cluster"), broker=F.col("broker"),
                            listener=F.col("listener"), endpoint=endpoint, client_network=F.col("client_network"),
                            subject=F.col("subject"), message=message, details=details, run_id=F.col("run_id"),
                            observed_at=F.col("observed_at"))

    return transform


def reachability_findings(classified: DataFrame) -> DataFrame:
    """KL001, KL002, KL003, KL005 from current probes classified by
    :func:`~kafka_listeners_audit.transforms.classify_probes`: one finding per rule x endpoint x client network."""
    return classified.transform(probe_findings(REACHABILITY_RULES))


def plaintext_exposure_findings(classified: DataFrame) -> DataFrame:
    """KL007: a current probe from an internet network connected to an endpoint of a PLAINTEXT listener."""
    return classified.transform(probe_findings(("KL007",)))


def security_findings(classified: DataFrame) -> DataFrame:
    """KL011: a current probe reached the endpoint, but its certificate did not verify (``tls_verified`` false) or
    its SASL login was refused (``authenticated`` false); ``subject`` is the TLS outcome (``name_mismatch``, ...) or
    ``sasl``, the message quotes the first reason."""
    return classified.transform(probe_findings(("KL011",)))


BROKER_RULES = ("KL004", "KL006", "KL009", "KL010")
"""The rules read from the evaluated brokers (:func:`~kafka_listeners_audit.transforms.evaluate_brokers`)."""

# Per rule of BROKER_RULES: the SQL text of its rows over the evaluated brokers ({evaluated}) and, for each finding
# column the rule sets, its SQL text over those rows (the other columns are null).
_BROKER_RULE_SQL = {
    # two or more brokers of a cluster advertise one host:port on one listener: one finding per broker involved;
    # empty hosts (each broker's own canonical name) are not duplicates
    "KL004": ("""
        SELECT cluster, broker, listener, advertised_host, advertised_port, brokers, run_id, observed_at
        FROM (SELECT *, explode(brokers) AS broker
              FROM (SELECT cluster, listener, advertised_host, advertised_port,
                           sort_array(collect_set(broker)) AS brokers
                    FROM (SELECT cluster, broker, endpoint.listener AS listener,
                                 lower(endpoint.host) AS advertised_host, endpoint.port AS advertised_port
                          FROM (SELECT cluster, broker, explode(endpoints) AS endpoint FROM {evaluated})
                          WHERE coalesce(endpoint.host_class, '') != 'default')
                    GROUP BY cluster, listener, advertised_host, advertised_port)
              WHERE size(brokers) > 1)
        LEFT JOIN (SELECT cluster, broker, run_id, observed_at FROM {evaluated}) USING (cluster, broker)""", {
        "cluster": "cluster", "broker": "broker", "listener": "listener", "endpoint": "{endpoint}",
        "message": "format_string('%s is advertised on listener %s by %d brokers of cluster %s: %s', {endpoint}, "
                   "listener, size(brokers), cluster, concat_ws(', ', brokers))",
        "details": "to_json(named_struct('brokers', brokers))", "run_id": "run_id", "observed_at": "observed_at"}),
    # the broker's current listener keys differ from the plan made from its current facts
    "KL006": ("SELECT * FROM {evaluated} WHERE drift IS NOT NULL AND size(drift) > 0", {
        "cluster": "cluster", "broker": "broker", "subject": "concat_ws(',', transform(drift, item -> item.key))",
        "message": "format_string('broker %s differs from its %s plan: %s', broker, plan_mode, concat_ws('; ', "
                   "transform(drift, item -> format_string('%s is %s, plan says %s', item.key, "
                   "coalesce(item.current, 'unset'), coalesce(item.planned, 'unset')))))",
        "details": "to_json(drift)", "run_id": "run_id", "observed_at": "observed_at"}),
    # one finding per Kafka startup rule (R1-R24) the broker's current config breaks
    "KL009": ("SELECT cluster, broker, run_id, observed_at, explode(startup_violations) AS violation "
              "FROM {evaluated}", {
                  "cluster": "cluster", "broker": "broker", "subject": "violation.rule",
                  "message": "format_string('broker %s would not start (%s): %s', broker, violation.rule, "
                             "violation.message)",
                  "details": "to_json(violation)", "run_id": "run_id", "observed_at": "observed_at"}),
    # the planner refused the cluster's current facts or options: one finding per cluster
    "KL010": ("SELECT cluster, plan_error, max(run_id) AS run_id, max(observed_at) AS observed_at "
              "FROM {evaluated} WHERE plan_error IS NOT NULL GROUP BY cluster, plan_error", {
                  "cluster": "cluster",
                  "message": "format_string('cluster %s: no plan, so drift is not checked: %s', cluster, "
                             "plan_error)",
                  "details": "to_json(named_struct('error', plan_error))", "run_id": "run_id",
                  "observed_at": "observed_at"}),
}

_ENDPOINT_SQL = ("CASE WHEN contains(advertised_host, ':') THEN format_string('[%s]:%d', advertised_host, "
                 "advertised_port) ELSE format_string('%s:%d', advertised_host, advertised_port) END")
"""SQL text of :func:`~kafka_listeners_audit.transforms.endpoint_label`."""


_BROKER_RULE_COLUMNS = ("cluster", "broker", "run_id", "observed_at", "plan_mode", "plan_error", "drift",
                        "startup_violations", "endpoints")
"""The columns of the evaluated brokers that :data:`_BROKER_RULE_SQL` reads (not node_id, inter_broker_listener)."""


def _broker_rule_sql(rule_id: str) -> str:
    """SQL text of ``rule_id``'s findings (of :data:`BROKER_RULES`) shaped as ``FINDINGS_SCHEMA`` without
    ``finding_key``."""
    rows, columns = _BROKER_RULE_SQL[rule_id]
    rule = RULES[rule_id]
    columns = {"rule_id": sql_string(rule_id), "rule": sql_string(rule.name), "severity": sql_string(rule.severity),
               **{name: text.replace("{endpoint}", _ENDPOINT_SQL) for name, text in columns.items()}}
    shaped = ", ".join("CAST(%s AS %s) AS %s" % (columns.get(field.name, "NULL"), field.dataType.simpleString(),
                                                 sql_name(field.name))
                       for field in FINDINGS_SCHEMA.fields if field.name != "finding_key")
    return "SELECT %s FROM (%s)" % (shaped, rows)


def broker_findings(rule_ids: Iterable[str] = BROKER_RULES) -> Transform:
    """Return a transformation of evaluated brokers (:func:`~kafka_listeners_audit.transforms.evaluate_brokers`)
    giving the findings of ``rule_ids`` (of :data:`BROKER_RULES`) as one SQL statement:

    - KL004: two or more brokers of a cluster's current snapshot advertise one host:port (host in lower case) on
      one listener; one finding per broker involved. Empty hosts (each broker's own canonical name) are not
      duplicates.
    - KL006: the broker's current listener keys differ from the plan made from its current facts; ``subject``
      lists the drifted keys.
    - KL009: one finding per Kafka startup rule (R1-R24) the broker's current config breaks; ``subject`` is the
      rule, the message quotes Kafka.
    - KL010: the planner refused the cluster's current facts or options (one finding per cluster and reason).
    """
    wanted = set(rule_ids)
    if not wanted or not wanted <= set(BROKER_RULES):
        raise ValueError("broker_findings: rule ids must be some of %s, got %s"
                         % (", ".join(BROKER_RULES), ", ".join(sorted(wanted)) or "none"))
    # SQL text, not column functions: built from these, the four rules took some 500 round trips to the JVM
    rules = " UNION ALL ".join("(%s)" % _broker_rule_sql(rule) for rule in BROKER_RULES if rule in wanted)
    query = "SELECT *, %s AS finding_key FROM (%s)" % (stable_key_sql(FINDING_IDENTITY), rules)

    def transform(evaluated: DataFrame) -> DataFrame:
        # spark.sql names a frame argument by a temporary view and drops it once the query is analysed, and
        # dropping a view uncaches every cached plan that gives the same result as the view's: given the evaluated
        # brokers as they are, that was the audit's persisted frame, so every later use evaluated the brokers again
        # (in Python workers for a large fleet). The columns the rules read are another plan (without node_id
        # and inter_broker_listener; Spark counts a projection of every column, or an alias, as the same plan):
        # dropping its view uncaches nothing, and the query still reads the persisted frame.
        return evaluated.sparkSession.sql(query, evaluated=evaluated.select(*_BROKER_RULE_COLUMNS))

    return transform


def duplicate_endpoint_findings(evaluated: DataFrame) -> DataFrame:
    """KL004 of :func:`broker_findings`: two or more brokers of a cluster's current snapshot advertise one
    host:port on one listener; one finding per broker involved."""
    return evaluated.transform(broker_findings(("KL004",)))


def drift_findings(evaluated: DataFrame) -> DataFrame:
    """KL006 of :func:`broker_findings`: the broker's current listener keys differ from the plan made from its
    current facts; ``subject`` lists the drifted keys."""
    return evaluated.transform(broker_findings(("KL006",)))


def startup_rule_findings(evaluated: DataFrame) -> DataFrame:
    """KL009 of :func:`broker_findings`: one finding per Kafka startup rule (R1-R24) the broker's current config
    breaks."""
    return evaluated.transform(broker_findings(("KL009",)))


def plan_unavailable_findings(evaluated: DataFrame) -> DataFrame:
    """KL010 of :func:`broker_findings`: the planner refused the cluster's current facts or options (one finding
    per cluster)."""
    return evaluated.transform(broker_findings(("KL010",)))


def flapping_findings(min_changes: int, window_seconds: float, as_of=None) -> Transform:
    """Return a transformation of :func:`~kafka_listeners_audit.transforms.state_islands` output giving KL008:
    a series whose state changed at least ``min_changes`` times in the ``window_seconds`` before ``as_of``
    (a datetime; default: the newest probe in the data). One finding per endpoint x client network."""
    if min_changes < 1:
        raise ValueError("flapping: min_changes must be at least 1, got %r" % min_changes)
    if window_seconds <= 0:
        raise ValueError("flapping: window_seconds must be positive, got %r" % window_seconds)

    def transform(islands: DataFrame) -> DataFrame:
        if as_of is None:
            horizon = islands.agg(F.max("last_seen").alias("_as_of"))
        else:
            # a literal, not a frame made from Python values (reading that starts a Python worker)
            horizon = islands.sparkSession.range(1).select(F.lit(as_of).cast("timestamp").alias("_as_of"))
        since = F.unix_micros("_as_of") - F.lit(int(window_seconds * 1_000_000))
        # an island after the first one starts with a state change
        changes = (islands.crossJoin(F.broadcast(horizon))
                   .where((F.col("island") > 1) & (F.unix_micros("start") > since)
                          & (F.col("start") <= F.col("_as_of")))
                   .groupBy(*_PROBE_GROUP, "client")
                   .agg(F.count(F.lit(1)).alias("changes"), F.max("start").alias("observed_at"))
                   .where(F.col("changes") >= min_changes))
        grouped = (changes.groupBy(*_PROBE_GROUP)
                   .agg(F.sort_array(F.collect_set("client")).alias("clients"), F.max("changes").alias("changes"),
                        F.max("observed_at").alias("observed_at")))
        endpoint = endpoint_label()
        message = F.format_string(
            "%s (broker %s, listener %s) changed state %d times in %s s from network %s (clients: %s)",
            endpoint, F.col("broker"), F.col("listener"), F.col("changes"), F.lit("%g" % window_seconds),
            F.col("client_network"), F.concat_ws(", ", "clients"))
        return _as_findings(grouped, "KL008", cluster=F.col("cluster"), broker=F.col("broker"),
                            listener=F.col("listener"), endpoint=endpoint, client_network=F.col("client_network"),
                            message=message, details=F.to_json(F.struct("clients", "changes")),
                            observed_at=F.col("observed_at"))

    return transform


def findings_order() -> list:
    """The findings' order, as sort columns: most severe first, then by rule id, cluster, broker, listener,
    endpoint, client network and subject (each finding is one of these, so the order is total)."""
    rank = F.array_position(F.array(*[F.lit(name) for name in SEVERITIES]), F.col("severity"))
    return [rank.desc(), *[F.col(name).asc_nulls_first() for name in FINDING_IDENTITY]]


def union_findings(frames: Iterable[DataFrame]) -> DataFrame:
    """All findings in one frame, in :func:`findings_order`."""
    frames = list(frames)
    combined = reduce(DataFrame.unionByName, frames)
    return combined.orderBy(*findings_order())
