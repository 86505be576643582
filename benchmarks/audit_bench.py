# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Benchmark of the fleet audit: the Spark job against a single-machine engine (DuckDB), the Spark floor and pandas.

For each size - the generator's default fleet (one cluster per scenario, about 4k probe records) and 1M, 10M and
100M probe records by default - the script generates a synthetic fleet (JSON lines as the verify role writes them,
or ``--format parquet``; sizes above ``--parquet-above`` rows, 10M by default, as Parquet, since 100M records as
JSON lines take about 38 GB of disk and over an hour to write; not timed), then runs, each in its own process and
one after the other:

- ``kafka-listeners-audit`` on ``local[*]`` (the audit);
- the Spark floor: a session started as the audit starts it, reading both inputs with their known schemas and
  counting them, every column decoded - what any Spark job over these records pays at least;
- the DuckDB baseline below, answering the audit's probe questions (incidents, KL001, KL002, KL007, KL008);
- with ``--engines ... pandas``, the pandas baseline below (every finding);
- with ``--engines ... unchecked``, the audit with its record checks taken out (:func:`unchecked_audit`): what the
  audit costs without them, to weigh them; never a way to run the audit.

``--repeat N`` runs the floor, the audit and the audit without checks N times each, alternating, and reports each
by its run of median wall time. ``--warm-runs N`` also calls the audit's ``run()`` N times in one session started
as the command starts it: the first run pays for a fresh JVM (its first pass through Spark's planner, writers and
the rest of the code the floor does not run, interpreted and compiled), the later ones do not, so the difference is
that cost (with large inputs also the heap's growth and input the page cache did not hold yet: an upper bound
there).

It prints per size: wall time, CPU seconds and peak RSS of each process tree (sampled from /proc), rows/s, the
ratios to DuckDB and to the floor, whether each engine found exactly the injected faults (the generator's truth
table), whether the issue's goal for that size is met, and the load average (the machine may be shared: prefer
the ratios). The baselines run under an address-space limit, so that a size one cannot hold fails with an
out-of-memory error, which the table reports, instead of pushing a shared machine into its OOM killer.

The DuckDB and pandas code exists only as baselines and is not used anywhere else: it re-states the audit's
questions (calling the same per-cluster evaluation of the latest broker snapshot, i.e. the collection's planner
and rule checker).

The generated fleets are kept in ``--fleet-cache`` (``${XDG_CACHE_HOME:-~/.cache}/kafkaops-listeners/audit-fleets``),
one per size, format and version of the generator's code (a hash of it and of the collection's planner), and reused
by later runs: a 100M-record fleet is generated once.

Usage: ``python benchmarks/audit_bench.py [--rows default 1e6 ...] [--format json|parquet] [--parquet-above ROWS]
[--engines ...] [--repeat N] [--warm-runs N] [--workdir DIR] [--fleet-cache DIR | --no-fleet-cache]
[--driver-memory 4g] [--baseline-memory 16g] [--keep]``.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
AUDIT_DIR = os.path.join(os.path.dirname(HERE), "audit")
sys.path.insert(0, AUDIT_DIR)

ROUNDS, ROUNDS_PER_RUN = 288, 12  # a day of probes every 5 minutes, a verify run per hour
PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------------------------------------ measurement


def _children() -> dict:
    parents: dict = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry, encoding="ascii", errors="replace") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                parents.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError):
                continue  # the process ended while we looked
    return parents


def tree_sample(pid: int, cpu: dict) -> int:
    """Resident bytes of ``pid`` and all its descendants (a JVM and its Python workers count together); records
    each process's CPU seconds so far in ``cpu`` (pid -> seconds)."""
    parents, total, stack = _children(), 0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open("/proc/%d/statm" % current, encoding="ascii") as handle:
                total += int(handle.read().split()[1]) * PAGE
            with open("/proc/%d/stat" % current, encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            cpu[current] = max(cpu.get(current, 0.0), (int(fields[11]) + int(fields[12])) / TICKS)
        except (OSError, IndexError, ValueError):
            pass
        stack.extend(parents.get(current, ()))
    return total


def measure(command: list, env: dict, memory_limit: int | None = None) -> dict:
    """Run ``command``; return wall seconds, peak tree RSS (bytes), CPU seconds of the tree (sampled every 0.2 s,
    so the last moments of each process are missed), exit status, stdout and stderr. ``memory_limit`` caps the
    process's address space (bytes), so that a run that cannot fit fails with MemoryError instead of pushing a
    shared machine into its OOM killer."""
    peak, cpu = [0], {}

    def cap():
        if memory_limit:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=cap)

    def sample():
        while process.poll() is None:
            peak[0] = max(peak[0], tree_sample(process.pid, cpu))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = process.communicate()
    wall = time.monotonic() - started
    sampler.join()
    return {"wall_s": wall, "peak_rss": peak[0], "cpu_s": sum(cpu.values()), "status": process.returncode,
            "stdout": stdout, "stderr": stderr}


# ------------------------------------------------------------------------------------------------ pandas baseline


def pandas_audit(brokers_path: str, probes_path: str, internet=("internet",), flap_changes=4,
                 flap_window_s=3600.0) -> dict:
    """The audit's findings (identities) and incident count, computed with pandas in one process."""
    import numpy as np

    from kafka_listeners_audit.evaluate import evaluate_cluster_frame, host_class
    from kafka_listeners_audit.schema import SERIES_COLUMNS

    findings = set()
    brokers = _arrow_table(brokers_path).to_pandas()
    run_times = brokers.groupby(["cluster", "run_id"])["observed_at"].max().reset_index()
    latest = (run_times.sort_values(["cluster", "observed_at", "run_id"], ascending=[True, False, False])
              .drop_duplicates("cluster")[["cluster", "run_id"]])
    snapshot = brokers.merge(latest, on=["cluster", "run_id"])
    evaluated = [row for _cluster, group in snapshot.groupby("cluster")
                 for row in evaluate_cluster_frame(group).to_dict("records")]
    shared: dict = {}
    for row in evaluated:
        if row["drift"]:
            findings.add(("KL006", row["cluster"], row["broker"], None, None, None,
                          ",".join(item["key"] for item in row["drift"])))
        for violation in row["startup_violations"]:
            findings.add(("KL009", row["cluster"], row["broker"], None, None, None, violation["rule"]))
        if row["plan_error"] is not None:
            findings.add(("KL010", row["cluster"], None, None, None, None, None))
        for ep in row["endpoints"]:
            if ep["host_class"] != "default":
                key = (row["cluster"], ep["listener"], ep["host"].lower(), ep["port"])
                shared.setdefault(key, set()).add(row["broker"])
    for (cluster, listener, host, port), names in shared.items():
        if len(names) > 1:
            for name in names:
                findings.add(("KL004", cluster, name, listener, _label(host, port), None, None))

    probes = _arrow_table(probes_path).to_pandas(strings_to_categorical=True)
    # current probes: each client's latest run per cluster, the newest probe per endpoint in it
    run_key = ["cluster", "client", "run_id"]
    run_starts = probes.groupby(run_key, observed=True)["observed_at"].min().reset_index()
    runs = probes.groupby(run_key, observed=True)["observed_at"].max().reset_index()
    runs = (runs.sort_values(["cluster", "client", "observed_at", "run_id"], ascending=[True, True, False, False])
            .drop_duplicates(["cluster", "client"])[run_key])
    current = probes.merge(runs, on=run_key)
    current = current.sort_values("observed_at", ascending=False).drop_duplicates(list(SERIES_COLUMNS))
    current = current.astype({name: str for name in SERIES_COLUMNS if name != "advertised_port"})
    peers = {(row["cluster"], row["broker"]) for row in evaluated}
    inter = {(row["cluster"], row["broker"]): row["inter_broker_listener"] for row in evaluated}
    protocols = {(row["cluster"], row["broker"], ep["listener"]): ep["protocol"]
                 for row in evaluated for ep in row["endpoints"]}
    for rec in current.to_dict("records"):
        resolvable, connectable = rec["resolvable"] is True, rec["connectable"] is True
        reachable = resolvable and connectable
        bootstrapped = rec["bootstrap_ok"] is True
        inter_broker = (rec["cluster"], rec["client"]) in peers and \
            inter.get((rec["cluster"], rec["broker"])) == rec["listener"]
        local_only = host_class(rec["advertised_host"]) in ("loopback", "wildcard") and rec["client"] != rec["broker"]
        rule = None
        if (bootstrapped or inter_broker) and local_only:
            rule = "KL003"
        elif inter_broker and not reachable:
            rule = "KL005"
        elif bootstrapped and not resolvable:
            rule = "KL001"
        elif bootstrapped and not reachable:
            rule = "KL002"
        where = (rec["cluster"], rec["broker"], rec["listener"], _label(rec["advertised_host"], rec["advertised_port"]),
                 rec["client_network"], None)
        if rule:
            findings.add((rule, *where))
        if rec["client_network"] in internet and connectable and \
                protocols.get((rec["cluster"], rec["broker"], rec["listener"])) == "PLAINTEXT":
            findings.add(("KL007", *where))
        tls_refused, login_refused = _false(rec.get("tls_verified")), _false(rec.get("authenticated"))
        if tls_refused or login_refused:
            findings.add(("KL011", *where[:-1], (rec["tls_outcome"] or "tls") if tls_refused else "sasl"))

    # gaps and islands over the whole history
    history = probes[[*SERIES_COLUMNS, "observed_at", "resolvable", "connectable", "tls_verified",
                      "authenticated"]].sort_values([*SERIES_COLUMNS, "observed_at"], kind="stable")
    # usable: resolved, connected, and neither the certificate nor the login refused (as the audit's islands)
    refused = history["tls_verified"].eq(False).fillna(False).astype(bool) | \
        history["authenticated"].eq(False).fillna(False).astype(bool)
    reachable = (history["resolvable"].fillna(False).astype(bool) & history["connectable"].fillna(False).astype(bool)
                 & ~refused).to_numpy()
    codes = np.column_stack([history[name].cat.codes.to_numpy() if hasattr(history[name], "cat")
                             else history[name].to_numpy() for name in SERIES_COLUMNS])
    new_series = np.ones(len(history), dtype=bool)
    new_series[1:] = (codes[1:] != codes[:-1]).any(axis=1)
    change = new_series.copy()
    change[1:] |= reachable[1:] != reachable[:-1]
    starts = np.flatnonzero(change)
    times = history["observed_at"].to_numpy()
    island_state = reachable[starts]
    island_new_series = new_series[starts]
    next_is_same_series = np.append(~island_new_series[1:], False)
    incidents = int((~island_state).sum())
    # an open incident of an endpoint the client's latest run no longer probed ends with the client's next run
    probed_now = {tuple(rec) for rec in current[list(SERIES_COLUMNS)].itertuples(index=False)}
    first_run_starts = run_starts.groupby(["cluster", "client"], observed=True)["observed_at"].apply(np.sort)
    island_last = np.append(starts[1:], len(history)) - 1
    open_incidents = 0
    for index in np.flatnonzero(~island_state & ~next_is_same_series):
        first = history.iloc[starts[index]]
        key = tuple(first[name] if name == "advertised_port" else str(first[name]) for name in SERIES_COLUMNS)
        later = first_run_starts.get((first["cluster"], first["client"]), np.array([], dtype=times.dtype))
        if key in probed_now or not (later > times[island_last[index]]).any():
            open_incidents += 1
    as_of = times.max()
    since = as_of - np.timedelta64(int(flap_window_s * 1_000_000), "us")
    island_times = times[starts]
    counted = ~island_new_series & (island_times > since) & (island_times <= as_of)
    series_id = np.cumsum(island_new_series)
    flap_counts = np.bincount(series_id[counted], minlength=series_id.max() + 1)
    flapping_series = np.flatnonzero(flap_counts >= flap_changes)
    if len(flapping_series):
        first_rows = history.iloc[starts[island_new_series]]  # one row per series, in series_id order
        for index in flapping_series:
            rec = first_rows.iloc[index - 1]
            findings.add(("KL008", rec["cluster"], rec["broker"], rec["listener"],
                          _label(rec["advertised_host"], rec["advertised_port"]), rec["client_network"], None))
    return {"findings": sorted(findings, key=str), "incidents": incidents, "open_incidents": open_incidents}


def _arrow_table(path: str):
    """The records at ``path`` (Parquet, or JSON lines as the verify role writes them) as an Arrow table."""
    import pyarrow as pa
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    if path.endswith(".parquet"):
        return pq.read_table(path)
    return pj.read_json(path, parse_options=pj.ParseOptions(
        explicit_schema=pa.schema([("observed_at", pa.timestamp("us", tz="UTC"))])))


def _false(value) -> bool:
    """A boolean column's value is False (not null: pandas gives None, or NaN, for a missing one)."""
    return value is not None and not value


def _label(host: str, port: int) -> str:
    return "[%s]:%d" % (host, port) if ":" in host else "%s:%d" % (host, port)


# ------------------------------------------------------------------------------------------------ DuckDB baseline

_DUCKDB_TYPES = {"string": "VARCHAR", "int": "INTEGER", "bigint": "BIGINT", "boolean": "BOOLEAN",
                 "double": "DOUBLE", "timestamp": "TIMESTAMPTZ", "array<string>": "VARCHAR[]"}
_SERIES_SQL = "cluster, broker, listener, advertised_host, advertised_port, client_network, client"


def _duckdb_source(path: str, schema) -> str:
    """A DuckDB table expression reading the records at ``path`` (JSON lines or Parquet) with ``schema``."""
    if path.endswith(".parquet"):
        return "read_parquet('%s')" % path
    columns = ", ".join("'%s': '%s'" % (field.name, _DUCKDB_TYPES[field.dataType.simpleString()])
                        for field in schema.fields)
    return "read_json('%s', format = 'newline_delimited', columns = {%s})" % (path, columns)


def duckdb_audit(brokers_path: str, probes_path: str, internet=("internet",), flap_changes=4,
                 flap_window_s=3600.0, memory_limit: int | None = None, spill_dir: str = ".") -> dict:
    """The probe questions of the audit - incidents, KL001, KL002, KL007 and KL008 - answered with DuckDB SQL in one
    process. The latest broker snapshot (small) is evaluated by the collection's planner and rule checker, as the
    audit does; the probe history is read and judged by DuckDB only."""
    import duckdb
    import pandas as pd

    from kafka_listeners_audit.evaluate import evaluate_cluster_frame, host_class
    from kafka_listeners_audit.schema import BROKERS_SCHEMA, PROBES_SCHEMA

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    if memory_limit:  # spill to disk (beside the answer) below the process's address-space limit, not fail at it
        con.execute("SET memory_limit = '%dMB'" % (memory_limit // 2 // 2**20))
        con.execute("SET temp_directory = '%s'" % spill_dir)
    con.execute("CREATE VIEW probes AS SELECT * FROM %s" % _duckdb_source(probes_path, PROBES_SCHEMA))
    snapshot = con.sql("""
        WITH brokers AS (SELECT * FROM %s),
             runs AS (SELECT cluster, run_id, max(observed_at) AS run_time FROM brokers GROUP BY cluster, run_id),
             latest AS (SELECT cluster, run_id FROM runs
                        QUALIFY row_number() OVER (PARTITION BY cluster ORDER BY run_time DESC, run_id DESC) = 1)
        SELECT brokers.* FROM brokers SEMI JOIN latest USING (cluster, run_id)""" % _duckdb_source(
        brokers_path, BROKERS_SCHEMA)).df()
    evaluated = [row for _cluster, group in snapshot.groupby("cluster")
                 for row in evaluate_cluster_frame(group).to_dict("records")]
    targets = pd.DataFrame([(row["cluster"], row["broker"], row["inter_broker_listener"]) for row in evaluated],
                           columns=["cluster", "broker", "inter_broker_listener"])
    targets = targets.drop_duplicates(["cluster", "broker"])
    protocols = pd.DataFrame([(row["cluster"], row["broker"], ep["listener"], ep["protocol"]) for row in evaluated
                              for ep in row["endpoints"]], columns=["cluster", "broker", "listener", "protocol"])
    con.register("targets", targets)
    con.register("protocols", protocols.drop_duplicates(["cluster", "broker", "listener"]))
    con.execute("""
        CREATE TEMP TABLE runs AS SELECT cluster, client, run_id, min(observed_at) AS run_start,
                                         max(observed_at) AS run_time FROM probes GROUP BY cluster, client, run_id""")
    con.execute("""
        CREATE TEMP TABLE current AS
        SELECT probes.* FROM probes SEMI JOIN (
            SELECT cluster, client, run_id FROM runs
            QUALIFY row_number() OVER (PARTITION BY cluster, client ORDER BY run_time DESC, run_id DESC) = 1)
            USING (cluster, client, run_id)
        QUALIFY row_number() OVER (PARTITION BY %s ORDER BY observed_at DESC) = 1""" % _SERIES_SQL)
    hosts = [row[0] for row in con.sql("SELECT DISTINCT advertised_host FROM current").fetchall()]
    con.register("hosts", pd.DataFrame({"advertised_host": hosts, "host_class": [host_class(h) for h in hosts]}))
    label = ("CASE WHEN contains(advertised_host, ':') THEN '[' || advertised_host || ']:' || advertised_port "
             "ELSE advertised_host || ':' || advertised_port END")
    networks = ", ".join("'%s'" % name for name in internet)
    probe_findings = con.sql("""
        WITH classified AS (
            SELECT c.*, h.host_class, p.protocol,
                   coalesce(c.resolvable, false) AND coalesce(c.connectable, false) AS reachable,
                   coalesce(EXISTS (SELECT 1 FROM targets peer
                                    WHERE peer.cluster = c.cluster AND peer.broker = c.client)
                            AND c.listener = t.inter_broker_listener, false) AS inter_broker,
                   coalesce(c.bootstrap_ok, false) AS bootstrapped
            FROM current c
            LEFT JOIN targets t ON t.cluster = c.cluster AND t.broker = c.broker
            LEFT JOIN protocols p ON p.cluster = c.cluster AND p.broker = c.broker AND p.listener = c.listener
            LEFT JOIN hosts h USING (advertised_host)),
        ruled AS (
            SELECT *, CASE
                WHEN (bootstrapped OR inter_broker) AND host_class IN ('loopback', 'wildcard') AND client <> broker
                    THEN 'KL003'
                WHEN inter_broker AND NOT reachable THEN 'KL005'
                WHEN bootstrapped AND NOT coalesce(resolvable, false) THEN 'KL001'
                WHEN bootstrapped AND NOT reachable THEN 'KL002' END AS rule
            FROM classified)
        SELECT DISTINCT rule, cluster, broker, listener, %(label)s, client_network FROM ruled
        WHERE rule IN ('KL001', 'KL002')
        UNION
        SELECT DISTINCT 'KL007', cluster, broker, listener, %(label)s, client_network FROM ruled
        WHERE client_network IN (%(networks)s) AND protocol = 'PLAINTEXT' AND coalesce(connectable, false)
        """ % {"label": label, "networks": networks}).fetchall()
    # gaps and islands, sorting only the series whose state changes (the others are one reachable island)
    con.execute("""
        CREATE TEMP TABLE islands AS
        WITH states AS (
            SELECT %(series)s, observed_at, coalesce(resolvable, false) AND coalesce(connectable, false)
                   AND coalesce(tls_verified, true) AND coalesce(authenticated, true) AS reachable
            FROM probes),
        changing AS (SELECT %(series)s FROM states GROUP BY %(series)s HAVING NOT bool_and(reachable)),
        marked AS (
            SELECT *, reachable IS DISTINCT FROM lag(reachable) OVER series AS first
            FROM states SEMI JOIN changing USING (%(series)s)
            WINDOW series AS (PARTITION BY %(series)s ORDER BY observed_at)),
        numbered AS (
            SELECT *, sum(first::INTEGER) OVER (PARTITION BY %(series)s ORDER BY observed_at
                                                ROWS UNBOUNDED PRECEDING) AS island
            FROM marked),
        grouped AS (
            SELECT %(series)s, island, any_value(reachable) AS reachable, min(observed_at) AS start,
                   max(observed_at) AS last_seen
            FROM numbered GROUP BY %(series)s, island)
        SELECT *, max(island) OVER (PARTITION BY %(series)s) AS islands FROM grouped""" % {"series": _SERIES_SQL})
    incidents, open_incidents = con.sql("""
        SELECT count(*), count(*) FILTER (
            WHERE island = islands
              AND (EXISTS (SELECT 1 FROM current c WHERE (c.cluster, c.broker, c.listener, c.advertised_host,
                          c.advertised_port, c.client_network, c.client) = (i.cluster, i.broker, i.listener,
                          i.advertised_host, i.advertised_port, i.client_network, i.client))
                   OR NOT EXISTS (SELECT 1 FROM runs r WHERE r.cluster = i.cluster AND r.client = i.client
                                  AND r.run_start > i.last_seen)))
        FROM islands i WHERE NOT reachable""").fetchall()[0]
    flapping = con.sql("""
        WITH horizon AS (SELECT max(observed_at) AS as_of FROM probes)
        SELECT DISTINCT 'KL008', cluster, broker, listener, %(label)s, client_network
        FROM islands, horizon
        WHERE island > 1 AND start > as_of - INTERVAL (%(window)d) MICROSECONDS AND start <= as_of
        GROUP BY cluster, broker, listener, advertised_host, advertised_port, client_network, client
        HAVING count(*) >= %(changes)d""" % {"label": label, "window": int(flap_window_s * 1_000_000),
                                              "changes": flap_changes}).fetchall()
    findings = {(*row, None) for row in probe_findings + flapping}
    return {"findings": sorted(findings, key=str), "incidents": incidents, "open_incidents": open_incidents}


# ------------------------------------------------------------------------------------------------ Spark floor


def spark_floor(brokers_path: str, probes_path: str, driver_memory: str) -> dict:
    """The least a Spark job over these records does: start a session as the audit's command does (same local
    settings), read both inputs with their known schemas and count them, decoding every column."""
    from pyspark.sql import functions as F

    from kafka_listeners_audit.cli import Progress
    from kafka_listeners_audit.schema import BROKERS_SCHEMA, PROBES_SCHEMA
    from kafka_listeners_audit.session import spark_session

    spark, _created = spark_session(None, [("spark.driver.memory", driver_memory)], None, Progress(quiet=True))
    counts = {}
    try:
        for name, path, schema in (("brokers", brokers_path, BROKERS_SCHEMA), ("probes", probes_path, PROBES_SCHEMA)):
            reader = spark.read.schema(schema)
            frame = reader.parquet(path) if path.endswith(".parquet") else reader.json(path)
            row = frame.agg(F.count(F.lit(1)).alias("rows"), *[F.count(f.name) for f in schema.fields]).first()
            counts[name] = row["rows"]
    finally:
        spark.stop()
    return counts


def warm_audit(brokers_path: str, probes_path: str, runs: int, driver_memory: str, out: str) -> dict:
    """The audit's ``run()`` ``runs`` times in one session started as the command starts it: the first run pays for
    a fresh JVM (its first pass through Spark's planner, the writers and the rest, interpreted and compiled), the
    later ones do not. Returns the session's start and each run's seconds."""
    import contextlib
    import io
    import tempfile

    from kafka_listeners_audit import cli
    from kafka_listeners_audit.session import started_session

    args = cli.build_parser().parse_args(["--brokers", brokers_path, "--probes", probes_path, "--out", out,
                                          "--fail-on", "none", "--quiet", "--conf",
                                          "spark.driver.memory=%s" % driver_memory])
    started, times = time.monotonic(), []
    with (tempfile.TemporaryDirectory(prefix="audit-bench-") as code_dir,
          started_session(args.master, args.conf, code_dir, cli.Progress(quiet=True),
                          cli.input_bytes([brokers_path, probes_path])) as spark):
        session_s = time.monotonic() - started
        for _ in range(runs):
            report_path, summary_path = cli.check_arguments(args)
            begun = time.monotonic()
            with contextlib.redirect_stdout(io.StringIO()):  # the summary lines, the same each run
                cli.run(args, spark, cli.Progress(quiet=True), report_path, summary_path)
            times.append(time.monotonic() - begun)
    return {"session_s": session_s, "runs_s": times}


def unchecked_audit(argv: list) -> int:
    """``kafka-listeners-audit`` with ``argv``, its record checks taken out: every JSON field is read as the type
    the schema gives it (no variants, no screen for a value of another JSON kind) and no record is refused (the
    reason is always null), so the audit runs on what the floor reads. Only to measure what the checks cost: it
    accepts records the audit refuses, e.g. a number where a host name belongs."""
    from kafka_listeners_audit import cli, sources

    read_json, record_check = sources._read_json, sources._record_check

    def read_as_typed(spark, path, schema, variants=True):
        return read_json(spark, path, schema, variants=False)

    def no_reason(schema, raw, screen=False):
        typed, _reason, record, _looks = record_check(schema, raw)
        return typed, "CAST(NULL AS STRING)", record, None

    sources._read_json, sources._record_check = read_as_typed, no_reason
    return cli.main(argv)


# ------------------------------------------------------------------------------------------------ driver


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (AUDIT_DIR, env.get("PYTHONPATH"))))
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    return env


def _spark_findings(out: str) -> list:
    import pyarrow.parquet as pq

    from kafka_listeners_audit.schema import FINDING_IDENTITY

    table = pq.read_table(os.path.join(out, "findings.parquet")).to_pylist()
    return sorted((tuple(row[name] for name in FINDING_IDENTITY) for row in table), key=str)


def _truth(fleet: dict) -> tuple:
    """The findings (identities) and the incident count the generator injected into ``fleet``."""
    from kafka_listeners_audit.schema import FINDING_IDENTITY

    with open(fleet["truth"], encoding="utf-8") as handle:
        truth = json.load(handle)
    findings = sorted((tuple(item[name] for name in FINDING_IDENTITY) for item in truth["findings"]), key=str)
    return findings, len(truth["incidents"])


ENGINES = ("audit", "floor", "duckdb", "pandas", "unchecked")
AUDITS = {"audit": "audit (Spark)", "unchecked": "audit without checks"}  # engine: its line in the table
# issue 30's goals: every size within 1.5x the Spark floor; the default fleet within 8 s; 100M within 6 GB and 1.5x
# DuckDB
GOALS = {
    "default": "wall <= 8 s and <= 1.5x the Spark floor",
    1_000_000: "wall <= 1.5x the Spark floor",
    10_000_000: "wall <= 1.5x the Spark floor",
    100_000_000: "peak RSS <= 6 GB, wall <= 1.5x DuckDB and <= 1.5x the Spark floor",
}


def fleet_cache() -> str:
    """Where generated fleets are kept between runs (``--fleet-cache``'s default)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kafkaops-listeners", "audit-fleets")


COLLECTION = "ansible_collections.kafkaops.listeners."


@functools.cache
def _generator_hash() -> str:
    """A hash of the code that decides what the generator writes: itself and every module of the collection and the
    audit it imports (the planner, the schema), listed by a fresh interpreter, so that a change elsewhere in the
    collection keeps the cached fleets. Each module is hashed under its path in a checkout (``audit/...``,
    ``plugins/...``): the collection's modules by their name, wherever they load from, since a second worktree that
    shares a virtualenv imports the collection from the first one's checkout."""
    top = os.path.dirname(AUDIT_DIR)
    listing = subprocess.run(
        [sys.executable, "-c", "import sys, synthetic_fleet; print('\\n'.join('%s %s' % (n, m.__file__) for n, m "
         "in list(sys.modules.items()) if getattr(m, '__file__', None)))"],
        cwd=AUDIT_DIR, env=_env(), check=True, capture_output=True, text=True).stdout.splitlines()
    roots = tuple(os.path.realpath(os.path.join(top, name)) + os.sep for name in ("audit", "plugins"))
    files = {}
    for line in listing:
        name, path = line.split(" ", 1)
        path = os.path.realpath(path)
        if name.startswith(COLLECTION):
            files["/".join(name[len(COLLECTION):].split(".")) + (
                "/__init__.py" if os.path.basename(path) == "__init__.py" else ".py")] = path
        elif path.startswith(roots):
            files[os.path.relpath(path, top)] = path
    digest = hashlib.sha256()
    for key in sorted(files):
        with open(files[key], "rb") as handle:
            digest.update(key.encode() + b"\0" + handle.read())
    return digest.hexdigest()[:12]


def _fleet(size, folder: str, fmt: str) -> tuple:
    """(spec, generated fleet) for ``size``: ``"default"`` (the generator's default fleet, one cluster per
    scenario) or about that many probe rows, under ``folder``. A fleet is generated once per size, format and
    version of the generator's code, and reused from ``folder`` by later runs; fleets of that size and format
    written by other versions of the code are removed."""
    from synthetic_fleet import FleetSpec, clusters_for_probe_rows, write_fleet

    if size == "default":
        spec = FleetSpec()
    else:
        spec = FleetSpec(clusters=clusters_for_probe_rows(size, ROUNDS), rounds=ROUNDS, rounds_per_run=ROUNDS_PER_RUN)
    prefix = "fleet-%s-%s-" % (size, fmt)
    fleet_dir = os.path.join(folder, prefix + _generator_hash())
    done = os.path.join(fleet_dir, "fleet.json")
    if os.path.exists(done):
        with open(done, encoding="utf-8") as handle:
            fleet = json.load(handle)
        print("reusing %d probe rows (%d clusters, %s) from %s" % (fleet["probe_rows"], spec.clusters, fmt, fleet_dir),
              flush=True)
        return spec, fleet
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if name.startswith(prefix):
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
    started = time.monotonic()
    fleet = write_fleet(spec, fleet_dir, fmt, chunk_clusters=500, processes=os.cpu_count() or 1)
    with open(done, "w", encoding="utf-8") as handle:
        json.dump(fleet, handle)
    print("generated %d probe rows (%d clusters, %s) in %.1f s into %s" % (
        fleet["probe_rows"], spec.clusters, fmt, time.monotonic() - started, fleet_dir), flush=True)
    return spec, fleet


def _baseline(engine: str, fleet: dict, workdir: str, memory: int) -> dict:
    """Run a baseline (pandas or DuckDB) in its own process under an address-space limit; its result is in
    ``run["answer"]``, or ``run["failure"]`` says why there is none."""
    out = os.path.join(workdir, "%s-%d.json" % (engine, os.getpid()))
    run = measure([sys.executable, os.path.abspath(__file__), "--baseline", engine, fleet["brokers"],
                   fleet["probes"], out, "--baseline-memory", str(memory)], _env(), memory_limit=memory)
    if run["status"] != 0:
        if "MemoryError" not in run["stderr"] and "Out of Memory" not in run["stderr"]:
            raise SystemExit("the %s baseline failed:\n%s" % (engine, run["stderr"][-3000:]))
        run["failure"] = "out of memory under a %.0f GB address-space limit" % (memory / 2**30)
        return run
    with open(out, encoding="utf-8") as handle:
        run["answer"] = json.load(handle)
    return run


def _median_run(runs: list) -> dict:
    """The run of median wall time (the lower one of an even count), with every run's wall time in ``walls``."""
    walls = [run["wall_s"] for run in runs]
    return {**runs[walls.index(statistics.median_low(walls))], "walls": walls}


def _audit_output(out: str, truth_findings: list, truth_incidents: int) -> tuple:
    """(summary.json of the audit's outputs in ``out``, whether they are exactly the injected faults)."""
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    return summary, _spark_findings(out) == truth_findings and summary["incidents"]["total"] == truth_incidents


def bench(size, workdir: str, fmt: str, engines: tuple, driver_memory: str, baseline_memory: int,
          fleets: str, repeat: int = 1, warm_runs: int = 0) -> dict:
    """Measure every engine of ``engines`` on the fleet of ``size`` (generated into, or reused from, ``fleets``);
    check the audit against the truth table and the baselines against the audit. With ``repeat``, the floor and the
    audit run that many times each, alternating, and each is reported by its run of median wall time: on a shared
    machine one run of either can take twice its usual time. With ``warm_runs``, the audit's ``run()`` is also
    timed that many times in one session (:func:`warm_audit`): the cost of a fresh JVM, apart."""
    _spec, fleet = _fleet(size, fleets, fmt)
    truth_findings, truth_incidents = _truth(fleet)
    result = {"size": size, "rows": fleet["probe_rows"], "format": fmt, "runs": {}, "checks": []}
    floors, audits = [], {"audit": ([], []), "unchecked": ([], [])}  # engine: (runs, verdicts)
    out = os.path.join(workdir, "out-%s" % size)
    for _ in range(repeat):
        if "floor" in engines:
            floor = measure([sys.executable, os.path.abspath(__file__), "--spark-floor", fleet["brokers"],
                             fleet["probes"], driver_memory], _env())
            if floor["status"] != 0:
                raise SystemExit("the Spark floor failed:\n%s" % floor["stderr"][-3000:])
            floors.append(floor)
        for engine, command in (("audit", [sys.executable, "-m", "kafka_listeners_audit.cli"]),
                                ("unchecked", [sys.executable, os.path.abspath(__file__), "--unchecked-audit"])):
            if engine not in engines:
                continue
            spark = measure(command + ["--brokers", fleet["brokers"], "--probes", fleet["probes"], "--out", out,
                                       "--fail-on", "none", "--conf", "spark.driver.memory=%s" % driver_memory],
                            _env())
            if spark["status"] != 0:
                raise SystemExit("the %s failed:\n%s" % (AUDITS[engine], spark["stderr"][-3000:]))
            summary, verdict = _audit_output(out, truth_findings, truth_incidents)
            if engine == "audit":
                result["findings"], result["incidents"] = summary["findings"], summary["incidents"]["total"]
            shutil.rmtree(out, ignore_errors=True)
            audits[engine][0].append(spark)
            audits[engine][1].append(verdict)
    if floors:
        result["runs"]["Spark floor"] = _median_run(floors)
    for engine, (runs, verdicts) in audits.items():
        if runs:
            result["runs"][AUDITS[engine]] = _median_run(runs)
            result["checks"].append("%s equals the injected faults: %s" % (AUDITS[engine], (
                "yes" if all(verdicts) else "NO (%d of %d runs)" % (verdicts.count(False), len(verdicts)))))
    if warm_runs:
        warm = measure([sys.executable, os.path.abspath(__file__), "--warm-audit", fleet["brokers"], fleet["probes"],
                        str(warm_runs), driver_memory, out], _env())
        if warm["status"] != 0:
            raise SystemExit("the audit's runs in one session failed:\n%s" % warm["stderr"][-3000:])
        result["warm"] = json.loads(warm["stdout"].strip().splitlines()[-1])
        result["checks"].append("the last run() in one session equals the injected faults: %s" % (
            "yes" if _audit_output(out, truth_findings, truth_incidents)[1] else "NO"))
        shutil.rmtree(out, ignore_errors=True)
    probe_rules = {"KL001", "KL002", "KL007", "KL008"}
    for engine, label in (("duckdb", "DuckDB (baseline)"), ("pandas", "pandas (baseline)")):
        if engine not in engines:
            continue
        run = result["runs"][label] = _baseline(engine, fleet, workdir, baseline_memory)
        if "answer" not in run:
            result["checks"].append("%s: did not finish (%s)" % (label, run["failure"]))
            continue
        answer = run["answer"]
        expected = truth_findings if engine == "pandas" else [item for item in truth_findings
                                                              if item[0] in probe_rules]
        agrees = sorted((tuple(item) for item in answer["findings"]), key=str) == expected and \
            answer["incidents"] == truth_incidents
        result["checks"].append("%s equals the injected faults%s: %s" % (
            label, "" if engine == "pandas" else " (incidents, %s)" % "/".join(sorted(probe_rules)),
            "yes" if agrees else "NO"))
    return result


def _ratio(runs: dict, name: str, other: str, key: str = "wall_s") -> float | None:
    if name in runs and other in runs and "failure" not in runs[other] and runs[other][key]:
        return runs[name][key] / runs[other][key]
    return None


def _goal(result: dict) -> str:
    """Whether the issue's goal for this size is met, from the measured figures."""
    runs, size = result["runs"], result["size"]
    audit = runs.get("audit (Spark)")
    if audit is None or size not in GOALS:
        return "no goal for this size" if audit else "audit not run"
    duck, floor = _ratio(runs, "audit (Spark)", "DuckDB (baseline)"), _ratio(runs, "audit (Spark)", "Spark floor")
    within_floor = floor is not None and floor <= 1.5
    if size == "default":
        met = audit["wall_s"] <= 8 and within_floor
    elif size == 100_000_000:
        met = within_floor and audit["peak_rss"] <= 6 * 10**9 and duck is not None and duck <= 1.5
    else:
        met = within_floor
    return "goal (%s): %s" % (GOALS[size], "met" if met else "NOT met")


def _warm_line(warm: dict, floor: dict | None) -> str:
    """What the first run() in a fresh JVM pays more than the later ones (the median), and the audit with a warm JVM
    (the session's start and a later run) against the floor."""
    first, later = warm["runs_s"][0], warm["runs_s"][1:]
    line = "one session: start %.1f s, first run() %.1f s" % (warm["session_s"], first)
    if not later:
        return line
    median = statistics.median_low(later)
    line += ", later %s s: the first run's extra %.1f s; start and a later run %.1f s" % (
        ", ".join("%.1f" % value for value in warm["runs_s"][1:]), first - median, warm["session_s"] + median)
    if floor is not None:
        line += ", %.2fx the floor" % ((warm["session_s"] + median) / floor["wall_s"])
    return line


def _report(result: dict) -> None:
    rows, runs = result["rows"], result["runs"]
    size = "default fleet" if result["size"] == "default" else "%s rows" % format(result["size"], ",")
    print("%s: %d probe rows (%s)%s" % (
        size, rows, "JSON lines" if result["format"] == "json" else "Parquet",
        "" if "findings" not in result else ", %d findings, %d incidents" % (result["findings"], result["incidents"])))
    print("  %-20s %8s %8s %10s %12s %9s %9s" % ("engine", "wall s", "CPU s", "peak RSS", "rows/s", "/DuckDB",
                                                 "/floor"))
    for name, run in runs.items():
        if "failure" in run:
            print("  %-20s failed after %.1f s at %.0f MB peak RSS: %s" % (name, run["wall_s"],
                                                                          run["peak_rss"] / 2**20, run["failure"]))
            continue
        duck, floor = _ratio(runs, name, "DuckDB (baseline)"), _ratio(runs, name, "Spark floor")
        print("  %-20s %8.1f %8.1f %7.0f MB %12.0f %9s %9s" % (
            name, run["wall_s"], run["cpu_s"], run["peak_rss"] / 2**20, rows / run["wall_s"],
            "-" if duck is None else "%.2f" % duck, "-" if floor is None else "%.2f" % floor))
        if len(run.get("walls", ())) > 1:
            print("  %-20s median of %d runs, alternating; wall %s s" % (
                "", len(run["walls"]), ", ".join("%.1f" % wall for wall in run["walls"])))
    for line in result["checks"]:
        print("  " + line)
    print("  " + _goal(result))
    if "warm" in result:
        print("  " + _warm_line(result["warm"], runs.get("Spark floor")))
    print("  load average after this size: %.1f / %.1f / %.1f (this machine has %d cores)" % (
        *os.getloadavg(), os.cpu_count()), flush=True)


def _bytes(text: str) -> int:
    units = {"k": 2**10, "m": 2**20, "g": 2**30}
    try:
        return int(float(text[:-1]) * units[text[-1].lower()]) if text[-1:].lower() in units else int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a size such as 16g or 512m" % text) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError("%r is not a whole number of at least 1" % text)
    return value


def _size(text: str):
    if text == "default":
        return text
    try:
        return int(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not 'default' or a number of rows" % text) from None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=_size, nargs="+", default=["default", 1_000_000, 10_000_000, 100_000_000],
                        help="fleet sizes: 'default' (one cluster per scenario) or probe rows (default: default "
                             "1e6 1e7 1e8)")
    parser.add_argument("--format", choices=("json", "parquet"), default="json",
                        help="record format (default json: JSON lines, as the verify role writes them)")
    parser.add_argument("--parquet-above", type=_size, default=10_000_000, metavar="ROWS",
                        help="sizes of more probe rows than this are written as Parquet (default 1e7: 100M records "
                             "as JSON lines take about 38 GB of disk and over an hour to write)")
    parser.add_argument("--engines", nargs="+", choices=ENGINES, default=["audit", "floor", "duckdb"],
                        help="what to run (default: audit floor duckdb; add pandas for the pandas baseline, "
                             "unchecked for the audit with its record checks taken out)")
    parser.add_argument("--workdir", default="/tmp/kafka-listeners-audit-bench", help="scratch folder")
    parser.add_argument("--driver-memory", default="4g", help="spark.driver.memory of the local Spark runs")
    parser.add_argument("--baseline-memory", "--pandas-memory", type=_bytes, default="16g",
                        help="address-space limit of the baselines (default 16g): past it, one fails with an "
                             "out-of-memory error, which the table reports, instead of exhausting a shared machine")
    parser.add_argument("--fleet-cache", default=fleet_cache(), metavar="DIR",
                        help="folder of the generated fleets, reused by later runs (default: %(default)s)")
    parser.add_argument("--no-fleet-cache", action="store_true",
                        help="generate the fleets into the scratch folder, removed at the end unless --keep")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--repeat", type=_positive, default=1, metavar="N",
                        help="run the floor, the audit and the audit without checks N times each, alternating, and "
                             "report each by its run of median wall time (default 1)")
    parser.add_argument("--warm-runs", type=_positive, default=None, metavar="N",
                        help="also time the audit's run() N times in one session (N >= 2): the first pays for a "
                             "fresh JVM, the later ones do not")
    parser.add_argument("--baseline", nargs=4, metavar=("ENGINE", "BROKERS", "PROBES", "OUT"),
                        help=argparse.SUPPRESS)  # a baseline's own process
    parser.add_argument("--spark-floor", nargs=3, metavar=("BROKERS", "PROBES", "DRIVER_MEMORY"),
                        help=argparse.SUPPRESS)  # the floor's own process
    parser.add_argument("--warm-audit", nargs=5, metavar=("BROKERS", "PROBES", "RUNS", "DRIVER_MEMORY", "OUT"),
                        help=argparse.SUPPRESS)  # the audit's runs in one session, their own process
    parser.add_argument("--unchecked-audit", nargs=argparse.REMAINDER,
                        help=argparse.SUPPRESS)  # the audit without checks, its own process
    args = parser.parse_args(argv)
    if args.unchecked_audit is not None:
        return unchecked_audit(args.unchecked_audit)
    if args.warm_runs is not None and args.warm_runs < 2:
        parser.error("--warm-runs must be at least 2: the first run pays for a fresh JVM, a later one does not")
    if args.baseline:
        engine, brokers, probes, out = args.baseline
        answer = pandas_audit(brokers, probes) if engine == "pandas" else duckdb_audit(
            brokers, probes, memory_limit=args.baseline_memory, spill_dir=os.path.join(os.path.dirname(out), "spill"))
        with open(out, "w", encoding="utf-8") as handle:
            json.dump(answer, handle)
        return 0
    if args.spark_floor:
        print(json.dumps(spark_floor(*args.spark_floor)))
        return 0
    if args.warm_audit:
        brokers, probes, runs, driver_memory, out = args.warm_audit
        print(json.dumps(warm_audit(brokers, probes, int(runs), driver_memory, out)))
        return 0
    os.makedirs(args.workdir, exist_ok=True)
    print("load average at the start: %.1f / %.1f / %.1f (%d cores)" % (*os.getloadavg(), os.cpu_count()), flush=True)
    try:
        for size in args.rows:
            fmt = "parquet" if size != "default" and size > args.parquet_above else args.format
            _report(bench(size, args.workdir, fmt, tuple(args.engines), args.driver_memory, args.baseline_memory,
                          args.workdir if args.no_fleet_cache else args.fleet_cache, args.repeat,
                          args.warm_runs or 0))
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
