# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The finding rules KL001-KL011: transformations from enriched records to rows of ``FINDINGS_SCHEMA``; the rules
read from the current probes (KL001-KL003, KL005, KL007, KL011) are one aggregation (:func:`probe_findings`).

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
from kafka_listeners_audit.transforms import Transform, advertised_endpoint_rows, endpoint_label

_PROBE_GROUP = ("cluster", "broker", "listener", "advertised_host", "advertised_port", "client_network")


def stable_key(columns: Iterable[str]) -> F.Column:
    """A hex SHA-256 over ``columns`` (nulls and empty strings kept apart): equal identity, equal key, every run."""
    # one SQL expression: built from column functions, it took some 300 round trips to the JVM per frame
    parts = ["coalesce(concat('=', CAST(`%s` AS STRING)), '-')" % name.replace("`", "``") for name in columns]
    return F.expr("sha2(concat_ws(char(31), %s), 256)" % ", ".join(parts))


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


def duplicate_endpoint_findings(evaluated: DataFrame) -> DataFrame:
    """KL004: two or more brokers of a cluster's current snapshot advertise one host:port on one listener; one
    finding per broker involved. Empty hosts (each broker's own canonical name) are not duplicates."""
    endpoints = (advertised_endpoint_rows(evaluated)
                 .where(F.coalesce(F.col("host_class"), F.lit("")) != "default")
                 .withColumn("advertised_host", F.lower("advertised_host")))
    sharing = (endpoints.groupBy("cluster", "listener", "advertised_host", "advertised_port")
               .agg(F.sort_array(F.collect_set("broker")).alias("brokers"))
               .where(F.size("brokers") > 1))
    runs = evaluated.select("cluster", "broker", "run_id", "observed_at")
    rows = (sharing.select("*", F.explode("brokers").alias("broker"))
            .join(runs, ["cluster", "broker"], "left"))
    endpoint = endpoint_label()
    message = F.format_string("%s is advertised on listener %s by %d brokers of cluster %s: %s", endpoint,
                              F.col("listener"), F.size("brokers"), F.col("cluster"), F.concat_ws(", ", "brokers"))
    return _as_findings(rows, "KL004", cluster=F.col("cluster"), broker=F.col("broker"), listener=F.col("listener"),
                        endpoint=endpoint, message=message, details=F.to_json(F.struct("brokers")),
                        run_id=F.col("run_id"), observed_at=F.col("observed_at"))


def drift_findings(evaluated: DataFrame) -> DataFrame:
    """KL006: the broker's current listener keys differ from the plan made from its current facts; ``subject``
    lists the drifted keys."""
    drifted = evaluated.where(F.col("drift").isNotNull() & (F.size("drift") > 0))
    keys = F.concat_ws(",", F.transform("drift", lambda item: item["key"]))
    changes = F.concat_ws("; ", F.transform("drift", lambda item: F.format_string(
        "%s is %s, plan says %s", item["key"], F.coalesce(item["current"], F.lit("unset")),
        F.coalesce(item["planned"], F.lit("unset")))))
    message = F.format_string("broker %s differs from its %s plan: %s", F.col("broker"), F.col("plan_mode"), changes)
    return _as_findings(drifted, "KL006", cluster=F.col("cluster"), broker=F.col("broker"), subject=keys,
                        message=message, details=F.to_json(F.col("drift")), run_id=F.col("run_id"),
                        observed_at=F.col("observed_at"))


def startup_rule_findings(evaluated: DataFrame) -> DataFrame:
    """KL009: one finding per Kafka startup rule (R1-R24) the broker's current config breaks; ``subject`` is the
    rule, the message quotes Kafka."""
    rows = evaluated.select("cluster", "broker", "run_id", "observed_at",
                            F.explode("startup_violations").alias("violation"))
    message = F.format_string("broker %s would not start (%s): %s", F.col("broker"), F.col("violation.rule"),
                              F.col("violation.message"))
    return _as_findings(rows, "KL009", cluster=F.col("cluster"), broker=F.col("broker"),
                        subject=F.col("violation.rule"), message=message,
                        details=F.to_json(F.col("violation")), run_id=F.col("run_id"),
                        observed_at=F.col("observed_at"))


def plan_unavailable_findings(evaluated: DataFrame) -> DataFrame:
    """KL010: the planner refused the cluster's current facts or options (one finding per cluster)."""
    rows = (evaluated.where(F.col("plan_error").isNotNull())
            .groupBy("cluster", "plan_error")
            .agg(F.max("run_id").alias("run_id"), F.max("observed_at").alias("observed_at")))
    message = F.format_string("cluster %s: no plan, so drift is not checked: %s", F.col("cluster"),
                              F.col("plan_error"))
    return _as_findings(rows, "KL010", cluster=F.col("cluster"), message=message,
                        details=F.to_json(F.struct(F.col("plan_error").alias("error"))), run_id=F.col("run_id"),
                        observed_at=F.col("observed_at"))


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


def union_findings(frames: Iterable[DataFrame]) -> DataFrame:
    """All findings in one frame, most severe first, then by rule id, cluster, broker, listener, endpoint,
    client network and subject."""
    frames = list(frames)
    combined = reduce(DataFrame.unionByName, frames)
    rank = F.array_position(F.array(*[F.lit(name) for name in SEVERITIES]), F.col("severity"))
    return combined.orderBy(rank.desc(), *[F.col(name).asc_nulls_first() for name in FINDING_IDENTITY])
