# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""DataFrame -> DataFrame steps that pick the current state out of the record history and enrich it.

Every public function is a transformation or a factory returning one, to be composed with ``df.transform``.
Nothing here decides listener layouts: broker records go through :mod:`kafka_listeners_audit.evaluate`, which calls
the collection's planner and rule checker inside a grouped-map pandas UDF.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.pandas.types import to_arrow_schema

from kafka_listeners_audit.evaluate import (
    EVALUATION_SCHEMA,
    evaluate_clusters,
    evaluate_clusters_frame,
    host_class,
    host_class_series,
)
from kafka_listeners_audit.schema import SERIES_COLUMNS

Transform = Callable[[DataFrame], DataFrame]


def local_frame(spark: SparkSession, rows: list, schema: T.StructType) -> DataFrame:
    """A frame of ``rows`` (dicts, made in this process) with ``schema``, handed to the JVM as one Arrow table: a
    local relation, which no Python worker has to pickle again each time it is read. Naive datetimes are this
    process's local time, as ``collect`` returns them."""
    def instant(value):
        return value.astimezone(UTC) if isinstance(value, datetime) else value

    table = pa.Table.from_pylist([{key: instant(value) for key, value in row.items()} for row in rows],
                                 schema=to_arrow_schema(schema, timezone="UTC"))
    return spark.createDataFrame(table, schema)


def run_span_aggregates() -> list:
    """The aggregates of :func:`run_spans` over a run's records: ``run_start`` and ``run_time``."""
    return [F.min("observed_at").alias("run_start"), F.max("observed_at").alias("run_time")]


def run_spans(partition: Iterable[str]) -> Transform:
    """Return a transformation giving one row per run of each ``partition`` group: the ``partition`` columns,
    ``run_id``, ``run_start`` (its first ``observed_at``) and ``run_time`` (its newest)."""
    keys = list(partition)

    def transform(df: DataFrame) -> DataFrame:
        return df.groupBy(*keys, "run_id").agg(*run_span_aggregates())

    return transform


def newest_runs(partition: Iterable[str]) -> Transform:
    """Return a transformation of :func:`run_spans` output giving each ``partition`` group's most recent run: one
    row of the ``partition`` columns and ``run_id``. Ties of ``run_time`` go to the greatest ``run_id``."""
    keys = list(partition)

    def transform(spans: DataFrame) -> DataFrame:
        newest_first = Window.partitionBy(*keys).orderBy(F.col("run_time").desc(), F.col("run_id").desc())
        return (spans.withColumn("_rank", F.row_number().over(newest_first))
                .where(F.col("_rank") == 1).select(*keys, "run_id"))

    return transform


def latest_runs(partition: Iterable[str]) -> Transform:
    """Return a transformation giving, for each ``partition`` group of its input, the group's most recent run: one
    row of the ``partition`` columns and ``run_id``.

    A run's time is its newest ``observed_at``; ties go to the greatest ``run_id``. Only run times are sorted (one
    row per run), never the history.
    """
    keys = list(partition)
    return lambda df: df.transform(run_spans(keys)).transform(newest_runs(keys))


def latest_run_rows(partition: Iterable[str]) -> Transform:
    """Keep, for each ``partition`` group, the rows of its most recent run (:func:`latest_runs`), semi-joined with
    the latest runs (broadcast: one row per group)."""
    keys = list(partition)

    def transform(df: DataFrame) -> DataFrame:
        return df.join(F.broadcast(df.transform(latest_runs(keys))), [*keys, "run_id"], "left_semi")

    return transform


def latest_broker_snapshot(brokers: DataFrame) -> DataFrame:
    """The ``brokers`` records of each cluster's most recent run: the fleet's current configuration."""
    return brokers.transform(latest_run_rows(["cluster"]))


#: Probes are grouped into runs per cluster and client: clients in different networks verify at different times.
PROBE_RUN_KEYS = ("cluster", "client")


def newest_per_series(probes: DataFrame) -> DataFrame:
    """The newest probe of every series (endpoint x client) in ``probes``."""
    newest_first = Window.partitionBy(*SERIES_COLUMNS).orderBy(F.col("observed_at").desc())
    return (probes.withColumn("_rank", F.row_number().over(newest_first))
            .where(F.col("_rank") == 1).drop("_rank"))


def current_probes(probes: DataFrame) -> DataFrame:
    """Each client's most recent run per cluster and, in it, the newest probe of every endpoint it probed.

    Per client rather than per cluster, because clients in different networks run their verification at
    different times; an endpoint no longer probed in that run (no longer advertised) drops out.
    """
    return probes.transform(latest_run_rows(PROBE_RUN_KEYS)).transform(newest_per_series)


def probes_to_sort(latest: DataFrame, series: DataFrame) -> Transform:
    """Return a transformation keeping, in one pass over the probe history, the probes the audit sorts: those of
    each client's latest run (``latest``, from :func:`latest_runs` over :data:`PROBE_RUN_KEYS`) and those of the
    series that change state (not ``steady`` in ``series``, from :func:`probe_series`). Adds ``in_latest_run``.

    The pass compares 64-bit hashes of the run and series columns, not the columns: a hash collision can only
    keep a probe too many, never drop one. ``in_latest_run`` is then set by the columns themselves on the few
    probes kept, and :func:`islands_of` picks the changing series by their columns, so results are exact.
    """
    run_hash, series_hash = F.xxhash64(*PROBE_RUN_KEYS, "run_id"), F.xxhash64(*SERIES_COLUMNS)

    def transform(probes: DataFrame) -> DataFrame:
        # one row per client run or per series, far fewer than probes: broadcast them
        run_hashes = latest.select(run_hash.alias("_hash"), F.lit(True).alias("_run")).dropDuplicates(["_hash"])
        series_hashes = (series.where(~F.col("steady")).select(series_hash.alias("_hash"), F.lit(True).alias("_series"))
                         .dropDuplicates(["_hash"]))
        kept = (probes
                .join(F.broadcast(run_hashes), run_hash == F.col("_hash"), "left").drop("_hash")
                .join(F.broadcast(series_hashes), series_hash == F.col("_hash"), "left")
                .where(F.col("_run").isNotNull() | F.col("_series").isNotNull())
                .select(*probes.columns))
        runs = latest.select(*PROBE_RUN_KEYS, "run_id", F.lit(True).alias("in_latest_run"))
        joined = kept.join(F.broadcast(runs), [*PROBE_RUN_KEYS, "run_id"], "left")
        return joined.select(*probes.columns, F.coalesce(F.col("in_latest_run"), F.lit(False)).alias("in_latest_run"))

    return transform


def current_probes_of(selected: DataFrame) -> DataFrame:
    """:func:`current_probes` from the output of :func:`probes_to_sort`."""
    return selected.where(F.col("in_latest_run")).drop("in_latest_run").transform(newest_per_series)


def evaluate_brokers(snapshot: DataFrame, in_driver: bool = False) -> DataFrame:
    """One :data:`~kafka_listeners_audit.evaluate.EVALUATION_SCHEMA` row per broker of ``snapshot`` (one run per
    cluster): plan, drift, startup-rule violations and advertised endpoints, computed per cluster by the
    collection's planner and rule checker.

    The pandas UDF gets whole clusters in a few groups (as many as shuffle partitions), not one group per
    cluster: a group costs an Arrow round trip and two frame conversions, far more than planning one cluster.
    With ``in_driver``, the snapshot is collected and evaluated in this process instead (an action, run now):
    for a small fleet, starting Python workers that import pandas and the collection costs more than that.
    """
    if in_driver:
        return evaluate_rows(snapshot.sparkSession, snapshot.collect())
    groups = int(snapshot.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    bucket = F.pmod(F.xxhash64("cluster"), F.lit(groups)).alias("_clusters")
    return snapshot.groupBy(bucket).applyInPandas(evaluate_clusters_frame, EVALUATION_SCHEMA)


def evaluate_rows(spark: SparkSession, snapshot: list) -> DataFrame:
    """:func:`evaluate_brokers` of ``snapshot`` (collected rows), evaluated in this process."""
    return local_frame(spark, evaluate_clusters([row.asDict() for row in snapshot]), EVALUATION_SCHEMA)


def advertised_endpoint_rows(evaluated: DataFrame) -> DataFrame:
    """One row per endpoint a broker advertises: cluster, broker, listener, advertised_host, advertised_port,
    protocol, host_class and whether it is the broker's inter-broker listener."""
    return (evaluated.select("cluster", "broker", "inter_broker_listener", F.explode("endpoints").alias("ep"))
            .select("cluster", "broker",
                    F.col("ep.listener").alias("listener"),
                    F.col("ep.host").alias("advertised_host"),
                    F.col("ep.port").alias("advertised_port"),
                    F.col("ep.protocol").alias("protocol"),
                    F.col("ep.host_class").alias("host_class"),
                    (F.col("ep.listener") == F.col("inter_broker_listener")).alias("inter_broker")))


_host_class_udf = F.pandas_udf(host_class_series, T.StringType())
_HOST_CLASSES = T.StructType([T.StructField("advertised_host", T.StringType()),
                              T.StructField("host_class", T.StringType())])


def with_host_class(df: DataFrame) -> DataFrame:
    """Add ``host_class`` (loopback / wildcard / default / null) of ``advertised_host``, by the collection's own
    host checks (``_hostnames``)."""
    return df.withColumn("host_class", _host_class_udf(F.col("advertised_host")))


def host_classes(hosts: DataFrame, in_driver: bool = False) -> DataFrame:
    """:func:`with_host_class` of ``hosts`` (distinct ``advertised_host`` values); with ``in_driver``, the hosts
    are collected and classed in this process (an action, run now) rather than in Python workers."""
    if not in_driver:
        return hosts.transform(with_host_class)
    rows = [{"advertised_host": row["advertised_host"], "host_class": host_class(row["advertised_host"])}
            for row in hosts.collect()]
    return local_frame(hosts.sparkSession, rows, _HOST_CLASSES)


def _reachable() -> F.Column:
    return F.coalesce(F.col("resolvable"), F.lit(False)) & F.coalesce(F.col("connectable"), F.lit(False))


def with_reachable(df: DataFrame) -> DataFrame:
    """Add ``reachable``: the probe resolved the advertised host and connected to it (unknown counts as no)."""
    return df.withColumn("reachable", _reachable())


def classify_probes(evaluated: DataFrame, internet_networks: Iterable[str], in_driver: bool = False) -> Transform:
    """Return a transformation of current probes that adds what the finding rules read.

    Added columns: ``peer_broker`` (the client is a broker of the probed cluster's current snapshot),
    ``inter_broker`` (the probed listener is the target broker's inter-broker listener), ``protocol`` (of the
    listener, from the target broker's current config), ``host_class``, ``reachable``, ``internet``
    (``client_network`` is one of ``internet_networks``) and ``reachability_rule``: at most one of
    KL003 > KL005 > KL001 > KL002, the first that explains the probe. A probe counts for the client-side rules
    only when the client could bootstrap (it then gets these endpoints in Metadata); a peer broker's probe of the
    inter-broker listener always counts, because brokers connect to it directly. ``in_driver``: the host classes
    are computed in this process (:func:`host_classes`).
    """
    networks = sorted(set(internet_networks))

    def transform(probes: DataFrame) -> DataFrame:
        # one row per key, so a broker recorded twice in a run (KL010 says so) cannot duplicate probes
        peers = evaluated.select("cluster", F.col("broker").alias("client"), F.lit(True).alias("peer_broker")) \
            .dropDuplicates(["cluster", "client"])
        targets = evaluated.select("cluster", "broker", "inter_broker_listener").dropDuplicates(["cluster", "broker"])
        protocols = advertised_endpoint_rows(evaluated).select("cluster", "broker", "listener", "protocol") \
            .dropDuplicates(["cluster", "broker", "listener"])
        # the collection's host checks run in Python once per distinct host, not once per probe
        hosts = host_classes(probes.select("advertised_host").distinct(), in_driver)
        joined = (probes
                  .join(F.broadcast(peers), ["cluster", "client"], "left")
                  .join(F.broadcast(targets), ["cluster", "broker"], "left")
                  .join(F.broadcast(protocols), ["cluster", "broker", "listener"], "left")
                  .join(F.broadcast(hosts), ["advertised_host"], "left"))
        # one projection for all added columns: every step of a DataFrame is analysed again from the top
        peer = F.coalesce(F.col("peer_broker"), F.lit(False))
        inter_broker = peer & F.coalesce(F.col("listener") == F.col("inter_broker_listener"), F.lit(False))
        df = joined.select(*probes.columns, peer.alias("peer_broker"), inter_broker.alias("inter_broker"),
                           "protocol", "host_class", _reachable().alias("reachable"),
                           F.col("client_network").isin(networks).alias("internet"))
        bootstrapped = F.coalesce(F.col("bootstrap_ok"), F.lit(False))
        # the client is the target broker itself: loopback reaches the right process there
        remote = F.col("client") != F.col("broker")
        local_only = F.col("host_class").isin("loopback", "wildcard") & remote
        rule = (F.when((bootstrapped | F.col("inter_broker")) & local_only, "KL003")
                .when(F.col("inter_broker") & ~F.col("reachable"), "KL005")
                .when(bootstrapped & ~F.coalesce(F.col("resolvable"), F.lit(False)), "KL001")
                .when(bootstrapped & ~F.col("reachable"), "KL002"))
        return df.select("*", rule.alias("reachability_rule"))

    return transform


def _refused(column: str) -> F.Column:
    return F.coalesce(F.col(column) == F.lit(False), F.lit(False))


def _states(probes: DataFrame) -> DataFrame:
    """Per probe the state the islands follow: ``reachable`` here means usable, i.e. resolved, connected, and
    neither its TLS certificate refused nor its SASL login (a null TLS or SASL outcome: not spoken, not refused);
    ``error`` is the probe's error, else its TLS/SASL error."""
    usable = _reachable() & ~_refused("tls_verified") & ~_refused("authenticated")
    return probes.select(*SERIES_COLUMNS, "observed_at", "resolvable", "connectable", "tls_verified",
                         "authenticated", F.coalesce(F.col("error"), F.col("security_error")).alias("error"),
                         usable.alias("reachable"))


def probe_series(probes: DataFrame) -> DataFrame:
    """One row per probe series (an endpoint seen from one client): the series columns, ``steady`` (every probe
    reached the endpoint and none reported an error), ``start`` (first probe), ``last_seen`` (last probe) and
    ``probes``. An aggregation without sorting, which :func:`islands_of` uses to sort only the series that change.
    """
    return (probes.transform(_states).groupBy(*SERIES_COLUMNS)
            .agg(F.bool_and(F.col("reachable") & F.col("error").isNull()).alias("steady"),
                 F.min("observed_at").alias("start"), F.max("observed_at").alias("last_seen"),
                 F.count(F.lit(1)).alias("probes")))


def islands_of(series: DataFrame) -> Transform:
    """Return the transformation :func:`state_islands` of probes whose :func:`probe_series` is ``series`` (given
    separately so that it can be persisted and read twice: for the steady series and to pick the others). The
    probes may be any selection that holds every probe of the changing series, e.g. :func:`probes_to_sort`."""

    def transform(probes: DataFrame) -> DataFrame:
        steady = series.where(F.col("steady")).select(
            *SERIES_COLUMNS, F.lit(1).cast("long").alias("island"), F.lit(True).alias("reachable"), "start",
            "last_seen", "probes", F.lit(None).cast("string").alias("first_error"),
            F.lit(None).cast("string").alias("kind"), F.lit(None).cast("timestamp").alias("next_start"))
        # one row per series, far fewer than probes even when every series changes: broadcast it
        changing = probes.transform(_states).join(
            F.broadcast(series.where(~F.col("steady")).select(*SERIES_COLUMNS)), list(SERIES_COLUMNS), "left_semi")
        return steady.unionByName(changing.transform(_sorted_islands))

    return transform


def state_islands(probes: DataFrame) -> DataFrame:
    """Collapse every probe series (an endpoint seen from one client) into runs of equal ``reachable`` state, where
    a probe that connected but whose TLS certificate or SASL login was refused counts as not reachable.

    One row per island: the series columns, ``island`` (1 = the series' first), ``reachable``, ``start`` (first
    probe), ``last_seen`` (last probe), ``probes``, ``first_error`` and ``kind`` (``unresolvable`` /
    ``unconnectable`` / ``tls_refused`` / ``sasl_refused`` / ``unknown``, from the first probe) and ``next_start``
    (first probe of the following island, null for the last one).

    Most series are one island (always reachable, never an error): :func:`probe_series` finds those without
    sorting their probes. Only the probes of the other series are sorted, for gaps and islands with window
    functions (:func:`_sorted_islands`).
    """
    return probes.transform(islands_of(probes.transform(probe_series)))


def _sorted_islands(states: DataFrame) -> DataFrame:
    """:func:`state_islands` of ``states`` (series columns, ``observed_at``, ``resolvable``, ``connectable``,
    ``tls_verified``, ``authenticated``, ``error``, ``reachable``) by gaps and islands: a probe whose state
    differs from the previous probe of its series starts an island, one whose state differs from the next probe
    ends it. One window pass keeps only those boundary probes, and the islands are read off them with a second
    window over the same, already sorted, partitions."""
    series = Window.partitionBy(*SERIES_COLUMNS).orderBy("observed_at")
    reachable = F.col("reachable")
    previous, following = F.lag("reachable").over(series), F.lead("reachable").over(series)
    kind = (F.when(reachable, None)
            .when(~F.coalesce(F.col("resolvable"), F.lit(True)), "unresolvable")
            .when(~F.coalesce(F.col("connectable"), F.lit(True)), "unconnectable")
            .when(_refused("tls_verified"), "tls_refused")
            .when(_refused("authenticated"), "sasl_refused")
            .otherwise("unknown"))
    bounds = (states.select(*SERIES_COLUMNS, "observed_at", "reachable", "resolvable", "connectable", "tls_verified",
                            "authenticated", "error",
                            F.row_number().over(series).alias("_n"),
                            (previous.isNull() | (previous != reachable)).alias("_first"),
                            (following.isNull() | (following != reachable)).alias("_last"))
              .where(F.col("_first") | F.col("_last")))
    # on the boundary rows, an island's last probe is its first one or the next row, and the next island's
    # first probe is the row after that
    last = F.col("_last")
    ahead = lambda column, rows: F.lead(column, rows).over(series)  # noqa: E731
    islands = bounds.select(
        *SERIES_COLUMNS,
        F.sum(F.col("_first").cast("long")).over(series.rowsBetween(Window.unboundedPreceding, Window.currentRow))
        .alias("island"),
        "reachable",
        F.col("observed_at").alias("start"),
        F.when(last, F.col("observed_at")).otherwise(ahead("observed_at", 1)).alias("last_seen"),
        (F.when(last, F.col("_n")).otherwise(ahead("_n", 1)) - F.col("_n") + 1).cast("long").alias("probes"),
        F.col("error").alias("first_error"),
        kind.alias("kind"),
        F.when(last, ahead("observed_at", 1)).otherwise(ahead("observed_at", 2)).alias("next_start"),
        "_first")
    return islands.where(F.col("_first")).drop("_first")


def endpoint_label(host: str = "advertised_host", port: str = "advertised_port") -> F.Column:
    """``host:port`` as clients write it (IPv6 literals bracketed)."""
    return F.when(F.col(host).contains(":"), F.format_string("[%s]:%d", F.col(host), F.col(port))) \
        .otherwise(F.format_string("%s:%d", F.col(host), F.col(port)))

