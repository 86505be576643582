# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""kafka-listeners-audit: audit a fleet's listener records (from the verify role) on Spark.

Exit status: 0 when no finding reaches ``--fail-on``, 1 when one does, 2 when the input cannot be used (the
message names the file and the first bad record) or an output cannot be written (the message names the option),
3 when the audit cannot run (pyspark, pandas, pyarrow or a Java runtime missing: the message says what to install)
or fails (Spark does not start or a job fails: the message names the cause; ``--verbose`` adds Spark's log and the
traceback).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import TYPE_CHECKING

# standard library and pyspark-free modules only at the top: --help and input errors work without pyspark or Java
from kafka_listeners_audit.inputs import FORMATS, InputError, detect_format, is_local_path, printable
from kafka_listeners_audit.rules import SEVERITIES, severity_rank
from kafka_listeners_audit.session import APP_NAME, missing_runtime, started_session

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from kafka_listeners_audit.pipeline import AuditSettings

EXIT_CLEAN, EXIT_FINDINGS, EXIT_BAD_INPUT, EXIT_CANNOT_RUN = 0, 1, 2, 3
PROG = APP_NAME
TIMELINE_INCIDENTS = 300

KEEP_JSON_BYTES = 8 * 2**30
"""Local JSON lines smaller than this are parsed once and kept (memory, spilling to disk) for the later passes,
when Spark's local folders have room for them (:func:`keep_json_decision`). 10M probe records (5.1 GB) took 0.9
of the CPU and wall time kept (two runs against three, alternating), findings the same."""


class Progress:
    """Progress lines on stderr, each with the seconds since the start."""

    def __init__(self, quiet: bool = False):
        self.started = time.monotonic()
        self.quiet = quiet

    def __call__(self, message: str) -> None:
        if not self.quiet:
            print("[%s +%.1fs] %s" % (PROG, time.monotonic() - self.started, message), file=sys.stderr, flush=True)


def _conf_pair(text: str) -> tuple:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError("expected KEY=VALUE, got %r" % text)
    return key.strip(), value


def _timestamp(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not an ISO 8601 timestamp" % text) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a number" % text) from None
        if value <= 0:
            raise argparse.ArgumentTypeError("%r must be positive" % text)
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--brokers", metavar="PATH",
                        help="brokers records: JSON lines or Parquet (file, folder or glob pattern)")
    parser.add_argument("--probes", metavar="PATH",
                        help="probes records: JSON lines or Parquet (file, folder or glob pattern)")
    parser.add_argument("--out", metavar="DIR", help="output folder (any Spark-writable path)")
    parser.add_argument("--master", metavar="URL",
                        help="Spark master (default local[*]; ignored under spark-submit, which sets it)")
    parser.add_argument("--fail-on", choices=(*SEVERITIES, "none"), default="error",
                        help="exit 1 when a finding of this severity or worse exists (default: error)")
    parser.add_argument("--input-format", choices=FORMATS, default="auto",
                        help="format of both inputs (default: by .parquet suffix, else JSON lines)")
    parser.add_argument("--internet-network", action="append", metavar="NAME", dest="internet_networks",
                        help="a client network that is the internet, for KL007 (repeatable; default: internet)")
    parser.add_argument("--flap-changes", type=_positive(int), default=4, metavar="N",
                        help="KL008: state changes that make an endpoint flapping (default 4)")
    parser.add_argument("--flap-window", type=_positive(float), default=3600.0, metavar="SECONDS",
                        help="KL008: window the changes must fall in, ending at --as-of (default 3600)")
    parser.add_argument("--as-of", type=_timestamp, metavar="TIME",
                        help="end of the flap window (default: the newest probe)")
    parser.add_argument("--report", metavar="PATH", help="HTML report path (default OUT/report.html; local only)")
    parser.add_argument("--docs-url", metavar="URL",
                        help="where the collection's docsite is published (make docs builds it): the report links "
                             "each rule to its section there")
    parser.add_argument("--conf", type=_conf_pair, action="append", default=[], metavar="KEY=VALUE",
                        help="extra Spark configuration (repeatable), e.g. spark.driver.memory=4g")
    parser.add_argument("--no-ship-code", action="store_true",
                        help="do not send this package and the collection's module_utils to the executors")
    parser.add_argument("--build-pyfiles", metavar="ZIP",
                        help="only write the code zip for spark-submit --py-files, then exit")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--verbose", action="store_true", help="Spark's own WARN and INFO lines too (default: errors)")
    return parser


JSON_BYTES_PER_RECORD = 400
"""About the size of one probes record as a JSON line: Parquet files count as that many bytes per record."""


def _record_bytes(path: str) -> int:
    if not path.endswith(".parquet"):
        return os.path.getsize(path)
    import pyarrow.parquet as pq

    # a few MB of Parquet can hold 100M repetitive records: what costs is the records, not the compressed bytes
    return pq.ParquetFile(path).metadata.num_rows * JSON_BYTES_PER_RECORD


def input_bytes(paths: list) -> int | None:
    """Size of the records at ``paths`` (files, folders or glob patterns) as JSON lines: the bytes of JSON files,
    :data:`JSON_BYTES_PER_RECORD` for each record of a Parquet file; None when a path is not local or a Parquet
    file cannot be read."""
    total = 0
    try:
        for path in paths:
            if not is_local_path(path):
                return None
            for match in glob.glob(_local_path(path)) or [_local_path(path)]:
                if os.path.isdir(match):
                    total += sum(_record_bytes(os.path.join(root, name))
                                 for root, _dirs, names in os.walk(match) for name in names)
                elif os.path.isfile(match):
                    total += _record_bytes(match)
    except Exception:  # noqa: BLE001 - an unreadable file is reported by the read itself; here it only means "unknown"
        return None
    return total


def _join(folder: str, name: str) -> str:
    return folder.rstrip("/") + "/" + name


def _local_path(path: str) -> str:
    return path[len("file:"):] if path.startswith("file:") else path


def exit_status(findings: list, fail_on: str) -> tuple:
    """Return (status, failing findings): EXIT_FINDINGS when a finding is at least as severe as ``fail_on``
    (a severity, or ``none`` to never fail), else EXIT_CLEAN."""
    if fail_on == "none":
        return EXIT_CLEAN, []
    threshold = severity_rank(fail_on)
    failing = [item for item in findings if severity_rank(item["severity"]) >= threshold]
    return (EXIT_FINDINGS if failing else EXIT_CLEAN), failing


def _rows(frame: DataFrame) -> list:
    return [row.asDict() for row in frame.collect()]


def write_json_lines(spark: SparkSession, frame: DataFrame, path: str, order: list | tuple = ()) -> None:
    """Write ``frame`` as one JSON-lines file at ``path`` (any Spark-writable path; null fields written as null),
    in ``order`` (sort columns), replacing a file or Spark folder of an earlier run: Spark writes one part into a
    hidden folder beside it, which is renamed to ``path`` and removed.

    The one part is sorted itself: a sorted frame merged into one partition keeps its order only while Spark
    merges the partitions in their order, which it does not promise for kept rows (its coalescing starts with a
    partition whose location it knows, which need not be the first). One audit of ten of the benchmark's 1M fleet
    (2026-12-02) wrote the errors before the critical findings so."""
    parts = _join(path.rstrip("/").rsplit("/", 1)[0], "." + path.rstrip("/").rsplit("/", 1)[-1] + ".parts")
    single = frame.coalesce(1)
    if order:
        single = single.sortWithinPartitions(*order)
    single.write.mode("overwrite").option("ignoreNullFields", "false").json(parts)
    if is_local_path(path):
        local, folder = _local_path(path), _local_path(parts)
        found = glob.glob(os.path.join(folder, "part-*"))
        if os.path.isdir(local):
            shutil.rmtree(local)
        if found:
            os.replace(found[0], local)
        else:  # Spark writes no part for an empty frame
            open(local, "w").close()  # noqa: SIM115 - an empty file, closed at once
        shutil.rmtree(folder)
        return
    hadoop = spark.sparkContext._jvm.org.apache.hadoop.fs  # e.g. hdfs:// or s3a://: Spark's own file systems
    folder, target = hadoop.Path(parts), hadoop.Path(path)
    fs = folder.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    found = [status.getPath() for status in fs.listStatus(folder) if status.getPath().getName().startswith("part-")]
    fs.delete(target, True)
    if found:
        fs.rename(found[0], target)
    else:
        fs.create(target).close()
    fs.delete(folder, True)


def _incident_totals(incidents: DataFrame) -> dict:
    from pyspark.sql import functions as F

    totals = incidents.agg(F.count(F.lit(1)).alias("total"),
                           F.coalesce(F.sum(F.col("open").cast("int")), F.lit(0)).alias("open")).first()
    return {"total": totals["total"], "open": totals["open"]}


def heatmap_cells(classified: DataFrame) -> DataFrame:
    """The report's reachability heatmap: per cluster, broker and client network, the current probes, how many
    reached the endpoint, the reachability rules they broke and the endpoint networks they probed, each with its
    route (``internet-nlb (load_balancer)``; records without them add none)."""
    from pyspark.sql import functions as F

    route = F.when(F.col("route").isNotNull(), F.concat(F.lit(" ("), F.col("route"), F.lit(")"))).otherwise(F.lit(""))
    via = F.when(F.col("endpoint_network").isNotNull(), F.concat(F.col("endpoint_network"), route))
    return classified.groupBy("cluster", "broker", "client_network").agg(
        F.count(F.lit(1)).alias("probes"),
        F.sum(F.col("reachable").cast("int")).alias("reachable"),
        F.sort_array(F.collect_set("reachability_rule")).alias("rules"),
        F.sort_array(F.collect_set(via)).alias("endpoint_networks"))


def _discard(spark: SparkSession, group: str, pending, release) -> None:
    """Cancel the jobs of ``group`` if ``pending`` still runs, wait for it and ``release`` what it returned, if
    anything."""
    if not pending.done():  # a finished one has no job left to cancel (Spark would warn that it found none)
        spark.sparkContext.cancelJobGroup(group)
    if pending.exception() is None:
        release(pending.result())


def _read_and_evaluate(spark: SparkSession, args: argparse.Namespace, settings: AuditSettings, progress: Progress,
                       local: bool, keep_json: bool) -> tuple:
    """Return (brokers Records, evaluated brokers frame (kept), its rows of cluster and broker, probes Records,
    AuditFrames).

    Three jobs run side by side, each from a thread of its own, so that none waits for the others' planning or
    tasks: the check of the probe records (the longest), the check of the brokers records and then the evaluation
    of their latest snapshot: on a ``local`` master in this process when the snapshot is small
    (:func:`~kafka_listeners_audit.pipeline.evaluated_brokers_here_if_small`), else in Python workers. Bad brokers
    records are reported before bad probes records; either cancels the other jobs.
    """
    from kafka_listeners_audit.keeping import keep, release
    from kafka_listeners_audit.pipeline import (
        PROBE_COLUMNS,
        audit_frames,
        evaluated_brokers,
        evaluated_brokers_here_if_small,
    )
    from kafka_listeners_audit.sources import Records, read_brokers, read_probes
    from kafka_listeners_audit.transforms import PROBE_RUN_KEYS, run_span_aggregates

    group = "%s-read-%d" % (PROG, id(args))

    def in_group(function, *arguments, **options):
        spark.sparkContext.setJobGroup(group, "read, check and evaluate the records", interruptOnCancel=True)
        return function(*arguments, **options)

    def evaluate(brokers: Records) -> tuple:
        if local:
            frame, in_driver = evaluated_brokers_here_if_small(brokers.frame)
        else:
            frame, in_driver = evaluated_brokers(brokers.frame), False
        frame = keep(frame, eager=True)
        try:
            return frame, in_driver, frame.select("cluster", "broker").collect()
        except BaseException:
            release(frame)
            raise

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix=PROG) as pool:
        # the pass that checks the probes also sums up the clients' runs: one scan of the history fewer
        pending_probes = pool.submit(in_group, read_probes, spark, args.probes, args.input_format,
                                     (*PROBE_RUN_KEYS, "run_id"), tuple(run_span_aggregates()), keep_json=keep_json,
                                     columns=PROBE_COLUMNS)
        try:
            brokers = read_brokers(spark, args.brokers, args.input_format, keep_json=keep_json)
        except BaseException:
            _discard(spark, group, pending_probes, Records.unpersist)
            raise
        progress("%d brokers records; evaluating the latest broker snapshot with the collection's planner and rule "
                 "checker while the probes records are checked" % brokers.count)
        pending_evaluation = pool.submit(in_group, evaluate, brokers)
        try:
            probes = pending_probes.result()
        except BaseException:
            _discard(spark, group, pending_evaluation, lambda result: release(result[0]))
            brokers.unpersist()
            raise
        progress("%d probes records, newest %s" % (probes.count, probes.newest))
        try:
            evaluated_frame, in_driver, evaluated = pending_evaluation.result()
        except BaseException:
            probes.unpersist()
            brokers.unpersist()
            raise
    try:
        frames = audit_frames(brokers.frame, probes.frame, settings, persist=True, evaluated=evaluated_frame,
                              runs=probes.groups, in_driver=in_driver)
    except BaseException:
        release(evaluated_frame)
        for kept in (probes, brokers):
            kept.unpersist()
        raise
    progress("%d brokers in %d clusters, evaluated %s; applying the rules" % (
        len(evaluated), len({row["cluster"] for row in evaluated}),
        "in this process" if in_driver else "in Python workers"))
    return brokers, evaluated_frame, evaluated, probes, frames


def spark_local_dirs(conf: dict, environ=os.environ) -> list:
    """The folders where Spark spills what it keeps, as Spark chooses them: ``SPARK_EXECUTOR_DIRS`` or
    ``SPARK_LOCAL_DIRS`` from the environment, else ``spark.local.dir`` from ``conf`` (the session's settings),
    else the JVM's temporary folder (``-Djava.io.tmpdir`` in the driver's Java options, or ``/tmp``)."""
    if environ.get("SPARK_EXECUTOR_DIRS"):
        return environ["SPARK_EXECUTOR_DIRS"].split(os.pathsep)
    if environ.get("SPARK_LOCAL_DIRS"):
        return environ["SPARK_LOCAL_DIRS"].split(",")
    if conf.get("spark.local.dir"):
        return conf["spark.local.dir"].split(",")
    options = conf.get("spark.driver.extraJavaOptions", "").split()
    tmpdirs = [option.split("=", 1)[1] for option in options if option.startswith("-Djava.io.tmpdir=")]
    return tmpdirs[-1:] or ["/tmp"]


SPILL_SETTINGS = ("spark.local.dir", "spark.driver.extraJavaOptions")


def spill_settings(spark: SparkSession) -> dict:
    """The settings of :data:`SPILL_SETTINGS` (what spark_local_dirs reads) that ``spark`` was given, asked for by
    name through the session's public configuration (copying the SparkContext's whole configuration took ~230 round
    trips to the JVM). Its driver Java options are the ones given, without the module options Spark adds in front
    of them, none of which names a folder."""
    values = {name: spark.conf.get(name, None) for name in SPILL_SETTINGS}
    return {name: value for name, value in values.items() if value is not None}


def free_bytes(folders: list) -> int | None:
    """What Spark can spill into ``folders``: it spreads its blocks evenly over them, so the least free space of
    one times their number; None when one cannot be examined."""
    try:
        return min(_free(folder) for folder in folders) * len(folders)
    except (OSError, ValueError):
        return None


def _free(folder: str) -> int:
    # a folder Spark creates itself: its nearest existing parent holds it
    while not os.path.exists(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    stat = os.statvfs(folder)
    return stat.f_bavail * stat.f_frsize


def keep_json_decision(size: int | None, free: int | None, folders: list) -> tuple:
    """(keep, reason): whether local JSON lines of ``size`` bytes (None: not local, or unknown) are parsed once and
    kept, with ``free`` bytes free in Spark's local ``folders`` (None: unknown). Kept records that do not fit in
    memory spill to those folders, up to about their size as JSON lines, so they are kept only below
    :data:`KEEP_JSON_BYTES` and with that much room; otherwise each pass parses the text again, as before."""
    if size is None:
        return False, None
    if size >= KEEP_JSON_BYTES:
        return False, "%s of JSON lines: parsed again by each pass (kept below %s)" % (
            _amount(size), _amount(KEEP_JSON_BYTES))
    where = ", ".join(folders)
    if free is None or free < size:
        return False, ("%s of JSON lines not kept: %s free in Spark's local folder %s, which keeping them may take; "
                       "parsed again by each pass instead (spark.local.dir or SPARK_LOCAL_DIRS can name a larger "
                       "disk)" % (_amount(size), "unknown space" if free is None else _amount(free), where))
    return True, "%s of JSON lines: parsed once and kept (%s free in %s)" % (_amount(size), _amount(free), where)


def _amount(size: int) -> str:
    return "%.1f GB" % (size / 1e9) if size >= 10**8 else "%.1f MB" % (size / 1e6)


def _keep_json(spark: SparkSession, args: argparse.Namespace, progress: Progress) -> bool:
    if detect_format(args.probes, args.input_format) != "json":
        return False  # Parquet is read again instead: a columnar scan costs less than a copy
    folders = spark_local_dirs(spill_settings(spark))
    keep, reason = keep_json_decision(input_bytes([args.brokers, args.probes]), free_bytes(folders), folders)
    if reason:
        progress(reason)
    return keep


class OutputError(Exception):
    """An output the audit cannot write; the message names the option (--out or --report) and why."""


def prepare_outputs(args: argparse.Namespace, report_path: str) -> str:
    """Check, before any work, that the outputs can be written: the local ``--out`` folder and the report's folder
    exist (made when missing) and are writable, and ``--report`` is not a folder. Remove the report and summary of
    an earlier run, so that a run that fails later leaves none that looks complete beside its own outputs. Returns
    the summary's path; OutputError naming the option otherwise."""
    folders = [("--out", args.out, _local_path(args.out))] if is_local_path(args.out) else []
    folders.append(("--report" if args.report else "--out", args.report or args.out,
                    os.path.dirname(os.path.abspath(report_path))))
    for option, value, folder in folders:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as exc:
            raise OutputError("%s %s: cannot make the folder %s: %s" % (option, value, folder,
                                                                       exc.strerror or exc)) from None
        if not os.access(folder, os.W_OK | os.X_OK):
            raise OutputError("%s %s: the folder %s is not writable" % (option, value, folder))
    if os.path.isdir(report_path):
        raise OutputError("%s %s: %s is a folder, not a file for the HTML report" % (
            "--report" if args.report else "--out", args.report or args.out, report_path))
    summary_path = os.path.join(os.path.dirname(os.path.abspath(report_path)), "summary.json")
    for stale in (report_path, summary_path):
        try:
            os.unlink(stale)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise OutputError("cannot remove the earlier run's %s: %s" % (stale, exc.strerror or exc)) from None
    return summary_path


def write_atomically(path: str, text: str, option: str) -> None:
    """Replace ``path`` with ``text`` by a rename: a reader sees the old file or the whole new one. The file gets the
    mode the umask gives a new file, as the outputs Spark writes beside it do (a temporary file of ``tempfile`` is
    the owner's alone: a report nobody else could open)."""
    temporary = os.path.join(os.path.dirname(path), ".%s.%d.%s" % (os.path.basename(path), os.getpid(),
                                                                   secrets.token_hex(4)))
    try:
        with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise OutputError("%s: cannot write %s: %s" % (option, path, exc.strerror or exc)) from None


def check_arguments(args: argparse.Namespace) -> tuple:
    """Check, before Spark starts, that both inputs exist (InputError) and the outputs can be written
    (:func:`prepare_outputs`, OutputError); returns (report path, summary path)."""
    for option, path in (("--brokers", args.brokers), ("--probes", args.probes)):
        try:
            detect_format(path, args.input_format)
        except InputError as exc:
            raise InputError("%s %s" % (option, exc)) from None
    report_path = args.report or (_join(_local_path(args.out), "report.html") if is_local_path(args.out) else None)
    if report_path is None:
        raise OutputError("--out %s is not a local folder: give --report PATH for the HTML report" % args.out)
    return report_path, prepare_outputs(args, report_path)


def run(args: argparse.Namespace, spark: SparkSession, progress: Progress, report_path: str,
        summary_path: str) -> int:
    """Run the audit with parsed ``args`` on ``spark``, writing the report and summary at the paths
    :func:`check_arguments` checked; returns the exit status."""
    from kafka_listeners_audit.findings import findings_order
    from kafka_listeners_audit.incidents import incidents_order
    from kafka_listeners_audit.keeping import keep, release
    from kafka_listeners_audit.pipeline import AuditSettings
    from kafka_listeners_audit.report import client_network_summary, render_report, summary_lines

    # Parquet readers everywhere understand UTC-adjusted microseconds; Spark's default, INT96, is deprecated
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    progress("reading brokers records from %s and probes records from %s" % (args.brokers, args.probes))
    keep_json = _keep_json(spark, args, progress)
    settings = AuditSettings(internet_networks=tuple(args.internet_networks or ("internet",)),
                             flap_changes=args.flap_changes, flap_window_s=args.flap_window, as_of=args.as_of)
    brokers, evaluated_frame, evaluated, probes, frames = _read_and_evaluate(
        spark, args, settings, progress, spark.sparkContext.master.startswith("local"), keep_json)
    # each output is computed once, then read from what keep() kept by the writes and the report
    findings_frame, incidents_frame = keep(frames.findings), keep(frames.incidents)
    try:
        findings = [row.asDict() for row in findings_frame.collect()]
        progress("%d findings; sorting the probe history into incidents" % len(findings))
        # the remaining actions read cached frames and are small: run them side by side, so that one job's
        # planning and commit overlap another's tasks
        with ThreadPoolExecutor(max_workers=3, thread_name_prefix=PROG) as pool:
            totals = pool.submit(_incident_totals, incidents_frame)
            writes, written = [], []
            for name, frame, order in (("findings", findings_frame, findings_order()),
                                       ("incidents", incidents_frame, incidents_order())):
                writes.append(pool.submit(frame.write.mode("overwrite").parquet, _join(args.out, name + ".parquet")))
                writes.append(pool.submit(write_json_lines, spark, frame, _join(args.out, name + ".json"), order))
                written += [_join(args.out, name + ".parquet"), _join(args.out, name + ".json")]
            timeline = pool.submit(_rows, incidents_frame.limit(TIMELINE_INCIDENTS))
            cells = pool.submit(_rows, heatmap_cells(frames.classified))
            incident_stats = totals.result()
            progress("%(total)d incidents, %(open)d open; writing the outputs" % incident_stats)
            for write in writes:
                write.result()
            timeline, cells = timeline.result(), cells.result()
    finally:
        for frame in (findings_frame, incidents_frame, evaluated_frame):
            release(frame)
        frames.unpersist()
        probes.unpersist()
        brokers.unpersist()
    stats = {"clusters": len({row["cluster"] for row in evaluated}), "brokers": len(evaluated),
             "probes": probes.count, "as_of": probes.newest}
    report_option = "--report" if args.report else "--out"
    write_atomically(report_path, render_report(stats, findings, cells, timeline, incident_stats,
                                                brokers=[(row["cluster"], row["broker"]) for row in evaluated],
                                                docs_url=args.docs_url),
                     report_option)
    written.append(report_path)
    status, failing = exit_status(findings, args.fail_on)
    write_atomically(summary_path, json.dumps({
            "stats": {**stats, "as_of": None if stats["as_of"] is None else stats["as_of"].astimezone(UTC).isoformat()},
            "findings": len(findings),
            "findings_by_severity": {sev: sum(1 for f in findings if f["severity"] == sev) for sev in SEVERITIES},
            "findings_by_rule": {rule: sum(1 for f in findings if f["rule_id"] == rule)
                                 for rule in sorted({f["rule_id"] for f in findings})},
            "incidents": incident_stats,
            "client_networks": client_network_summary(cells),
            "fail_on": args.fail_on,
            "exit_status": status,
        }, indent=1), report_option)
    written.append(summary_path)
    for line in summary_lines(stats, findings, incident_stats, written):
        print(line)
    progress("done: exit status %d (%d findings at or above --fail-on %s)" % (status, len(failing), args.fail_on))
    return status


def main(argv: list | None = None) -> int:
    """Entry point of the ``kafka-listeners-audit`` command and of ``spark_submit_entry.py``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.build_pyfiles:
        from kafka_listeners_audit.pyfiles import build_code_zip

        print(build_code_zip(args.build_pyfiles))
        return EXIT_CLEAN
    missing = [option for option in ("brokers", "probes", "out") if not getattr(args, option)]
    if missing:
        parser.error("missing %s" % ", ".join("--" + option for option in missing))
    try:
        return _audit(args)
    except InputError as exc:
        print("%s: bad input: %s" % (PROG, printable(str(exc))), file=sys.stderr)
        return EXIT_BAD_INPUT
    except OutputError as exc:
        print("%s: cannot write the outputs: %s" % (PROG, printable(str(exc))), file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # noqa: BLE001 - Python's own exit status, 1, would say "findings"
        if args.verbose:
            traceback.print_exc()
        cause = printable((str(exc).strip().splitlines() or [""])[0][:500])
        print("%s: the audit failed: %s%s%s" % (PROG, type(exc).__name__, ": " if cause else "", cause),
              file=sys.stderr)
        if not args.verbose:
            print("%s: run it again with --verbose for Spark's log and the whole traceback" % PROG, file=sys.stderr)
        return EXIT_CANNOT_RUN


def _audit(args: argparse.Namespace) -> int:
    """Check the arguments, start Spark (or take spark-submit's session) and run the audit; the exit status."""
    report_path, summary_path = check_arguments(args)
    missing = missing_runtime()
    if missing:
        print("%s: cannot run Spark here: %s" % (PROG, missing), file=sys.stderr)
        return EXIT_CANNOT_RUN
    progress = Progress(args.quiet)
    with (tempfile.TemporaryDirectory(prefix="kafka-listeners-audit-") as code_dir,
          started_session(args.master, args.conf, code_dir, progress, input_bytes([args.brokers, args.probes]),
                          verbose=args.verbose, ship_code=not args.no_ship_code) as spark):
        return run(args, spark, progress, report_path, summary_path)


if __name__ == "__main__":
    sys.exit(main())
