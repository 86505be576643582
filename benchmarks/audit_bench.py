# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Benchmark of the fleet audit: the Spark job against a plain pandas implementation of the same findings.

For each size (probe records: 1M and 10M by default, ``--rows 100000000`` for 100M) the script generates a
synthetic fleet as Parquet (not timed), then runs, each in its own process: ``kafka-listeners-audit`` on
``local[*]`` and the pandas baseline below. It prints wall time, peak RSS of each process tree (sampled from
/proc), rows/s, the Spark/pandas ratios, whether Spark found exactly the injected faults (the generator's truth
table) and whether pandas found the same. The baseline runs under an address-space limit: where it cannot fit
(100M rows), the table says it failed with MemoryError.

The pandas code exists only as the baseline: it re-states the audit's Spark transformations in pandas (calling
the same per-cluster evaluation, i.e. the collection's planner and rule checker) and is not used anywhere else.

Usage: ``python benchmarks/audit_bench.py [--rows N ...] [--workdir DIR] [--driver-memory 4g] [--pandas-memory 16g]
[--keep]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
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
    import pyarrow.parquet as pq

    from kafka_listeners_audit.evaluate import evaluate_cluster_frame, host_class
    from kafka_listeners_audit.schema import SERIES_COLUMNS

    findings = set()
    brokers = pq.read_table(brokers_path).to_pandas()
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

    probes = pq.read_table(probes_path).to_pandas(strings_to_categorical=True)
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

    # gaps and islands over the whole history
    history = probes[[*SERIES_COLUMNS, "observed_at", "resolvable", "connectable"]].sort_values(
        [*SERIES_COLUMNS, "observed_at"], kind="stable")
    reachable = (history["resolvable"].fillna(False).astype(bool) & history["connectable"].fillna(False).astype(bool)
                 ).to_numpy()
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


def _label(host: str, port: int) -> str:
    return "[%s]:%d" % (host, port) if ":" in host else "%s:%d" % (host, port)


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


def bench(rows: int, workdir: str, driver_memory: str, pandas_memory: int) -> dict:
    from kafka_listeners_audit.synthetic_fleet import FleetSpec, clusters_for_probe_rows, write_fleet

    folder = os.path.join(workdir, "fleet-%d" % rows)
    spec = FleetSpec(clusters=clusters_for_probe_rows(rows, ROUNDS), rounds=ROUNDS, rounds_per_run=ROUNDS_PER_RUN)
    started = time.monotonic()
    fleet = write_fleet(spec, folder, "parquet", chunk_clusters=500)
    print("generated %d probe rows (%d clusters) in %.1f s" % (fleet["probe_rows"], spec.clusters,
                                                                time.monotonic() - started), flush=True)
    out = os.path.join(workdir, "out-%d" % rows)
    spark = measure([sys.executable, "-m", "kafka_listeners_audit.cli", "--brokers", fleet["brokers"], "--probes",
                     fleet["probes"], "--out", out, "--fail-on", "none",
                     "--conf", "spark.driver.memory=%s" % driver_memory], _env())
    if spark["status"] != 0:
        raise SystemExit("the Spark audit failed:\n%s" % spark["stderr"][-3000:])
    # the first progress line comes right after the session started: the rest is the job
    first = next(line for line in spark["stderr"].splitlines() if line.startswith("[kafka-listeners-audit +"))
    spark["session_s"] = float(first.split("+", 1)[1].split("s]", 1)[0])
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    spark_findings = _spark_findings(out)
    truth_findings, truth_incidents = _truth(fleet)
    result = {"rows": fleet["probe_rows"], "spark": spark, "findings": summary["findings"],
              "incidents": summary["incidents"]["total"],
              "spark_is_truth": spark_findings == truth_findings and summary["incidents"]["total"] == truth_incidents}
    baseline_out = os.path.join(workdir, "pandas-%d.json" % rows)
    pandas = measure([sys.executable, os.path.abspath(__file__), "--pandas-baseline", fleet["brokers"],
                      fleet["probes"], baseline_out], _env(), memory_limit=pandas_memory)
    result["pandas"] = pandas
    if pandas["status"] != 0:
        if "MemoryError" not in pandas["stderr"]:
            raise SystemExit("the pandas baseline failed:\n%s" % pandas["stderr"][-3000:])
        pandas["failure"] = "MemoryError under a %.0f GB address-space limit" % (pandas_memory / 2**30)
        return result
    with open(baseline_out, encoding="utf-8") as handle:
        baseline = json.load(handle)
    result["agree"] = spark_findings == sorted((tuple(item) for item in baseline["findings"]), key=str) and (
        summary["incidents"]["total"], summary["incidents"]["open"]) == (baseline["incidents"],
                                                                         baseline["open_incidents"])
    return result


def _report(result: dict) -> None:
    spark, pandas, rows = result["spark"], result["pandas"], result["rows"]
    job = spark["wall_s"] - spark["session_s"]
    agree = "did not finish" if "failure" in pandas else ("yes" if result["agree"] else "NO")
    print("%d probe rows: %d findings, %d incidents; Spark equals the injected faults: %s; pandas agrees: %s" % (
        rows, result["findings"], result["incidents"], "yes" if result["spark_is_truth"] else "NO", agree))
    print("  %-20s %8s %8s %8s %11s %14s" % ("engine", "wall s", "job s", "CPU s", "peak RSS", "rows/s (wall)"))
    print("  %-20s %8.1f %8.1f %8.1f %8.0f MB %14.0f" % ("Spark local[*]", spark["wall_s"], job, spark["cpu_s"],
                                                        spark["peak_rss"] / 2**20, rows / spark["wall_s"]))
    if "failure" in pandas:
        print("  %-20s failed after %.1f s at %.0f MB peak RSS: %s" % (
            "pandas (baseline)", pandas["wall_s"], pandas["peak_rss"] / 2**20, pandas["failure"]))
    else:
        print("  %-20s %8.1f %8s %8.1f %8.0f MB %14.0f" % (
            "pandas (baseline)", pandas["wall_s"], "-", pandas["cpu_s"], pandas["peak_rss"] / 2**20,
            rows / pandas["wall_s"]))
        print("  ratios Spark/pandas: wall %.2f, job-only %.2f, CPU %.2f, peak RSS %.2f" % (
            spark["wall_s"] / pandas["wall_s"], job / pandas["wall_s"], spark["cpu_s"] / max(pandas["cpu_s"], 0.01),
            spark["peak_rss"] / max(pandas["peak_rss"], 1)))
    print("  load average while measuring: %.1f (this machine has %d cores)" % (os.getloadavg()[0], os.cpu_count()),
          flush=True)


def _bytes(text: str) -> int:
    units = {"k": 2**10, "m": 2**20, "g": 2**30}
    try:
        return int(float(text[:-1]) * units[text[-1].lower()]) if text[-1:].lower() in units else int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a size such as 16g or 512m" % text) from None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000],
                        help="probe record counts to run (default: 1000000 10000000; add 100000000 for 100M)")
    parser.add_argument("--workdir", default="/tmp/kafka-listeners-audit-bench", help="scratch folder")
    parser.add_argument("--driver-memory", default="4g", help="spark.driver.memory of the local Spark run")
    parser.add_argument("--pandas-memory", type=_bytes, default="16g",
                        help="address-space limit of the pandas baseline (default 16g): past it, it fails with "
                             "MemoryError, which the table reports, instead of exhausting a shared machine")
    parser.add_argument("--keep", action="store_true", help="keep the generated fleets and outputs")
    parser.add_argument("--pandas-baseline", nargs=3, metavar=("BROKERS", "PROBES", "OUT"),
                        help=argparse.SUPPRESS)  # the baseline's own process
    args = parser.parse_args(argv)
    if args.pandas_baseline:
        brokers, probes, out = args.pandas_baseline
        with open(out, "w", encoding="utf-8") as handle:
            json.dump(pandas_audit(brokers, probes), handle)
        return 0
    os.makedirs(args.workdir, exist_ok=True)
    try:
        for rows in args.rows:
            _report(bench(rows, args.workdir, args.driver_memory, args.pandas_memory))
    finally:
        if not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
