# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""kafka-listeners-audit end to end on generated fleets (in this process, on the session's Spark)."""

import argparse
import json
import os
import re
import stat
import subprocess
import sys
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F
from records import broker_record, probe_record
from synthetic_fleet import SCENARIOS, FleetSpec, build_fleet

from kafka_listeners_audit.cli import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RUN,
    EXIT_CLEAN,
    EXIT_FINDINGS,
    JSON_BYTES_PER_RECORD,
    KEEP_JSON_BYTES,
    SPILL_SETTINGS,
    OutputError,
    exit_status,
    free_bytes,
    heatmap_cells,
    input_bytes,
    keep_json_decision,
    main,
    prepare_outputs,
    spark_local_dirs,
    spill_settings,
    write_json_lines,
)
from kafka_listeners_audit.inputs import printable
from kafka_listeners_audit.session import (
    JVM_NOTICES,
    LOCAL_DEFAULTS,
    QUICK_JIT_BYTES,
    QUICK_JIT_JAVA_OPTIONS,
    SMALL_INPUT_BYTES,
    JvmStderr,
    local_settings,
    missing_runtime,
)


def test_audit_of_the_generated_fleet_writes_everything_and_fails_on_critical(audited_fleet, small_fleet):
    out = audited_fleet["out"]
    assert audited_fleet["status"] == EXIT_FINDINGS
    assert sorted(os.listdir(out)) == ["findings.json", "findings.parquet", "incidents.json", "incidents.parquet",
                                       "report.html", "summary.json"]
    for name in ("findings", "incidents"):
        assert os.path.exists(os.path.join(out, name + ".parquet", "_SUCCESS"))
    # the files the command writes itself open for whoever may open a new file here, as Spark's outputs do
    umask = os.umask(0o022)
    os.umask(umask)
    for name in ("report.html", "summary.json"):
        assert stat.S_IMODE(os.stat(os.path.join(out, name)).st_mode) == 0o666 & ~umask, name
    with open(_one_json(out, "findings"), encoding="utf-8") as handle:
        findings = [json.loads(line) for line in handle]
    with open(small_fleet["truth"], encoding="utf-8") as handle:
        assert len(findings) == len(json.load(handle)["findings"])
    assert findings[0]["severity"] == "critical" and findings[-1]["severity"] == "warning"
    with open(_one_json(out, "incidents"), encoding="utf-8") as handle:
        incidents = [json.loads(line) for line in handle]
    # open ones first (among them KL011's: a certificate refused counts), then newest first: a past outage and flaps
    # recovered; the oldest, the private name advertised to the laptop, ended when the fix was advertised (every
    # field on every line, null included)
    assert all(set(item) == set(incidents[0]) for item in incidents)
    assert [(item["open"], item["end_reason"]) for item in incidents] == [(True, None)] * 6 + [
        (False, "recovered")] * 4 + [(False, "no_longer_advertised")]
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    assert summary["exit_status"] == EXIT_FINDINGS
    assert summary["findings_by_severity"] == {"info": 0, "warning": 6, "error": 8, "critical": 3}
    assert summary["incidents"] == {"total": 11, "open": 6}
    with open(os.path.join(out, "report.html"), encoding="utf-8") as handle:
        page = handle.read()
    heatmap = re.search(r'<table class="heat sortable" id="heatmap">(.*?)</table>', page).group(1)
    folded = re.search(r'<table class="heat sortable" id="heatmap-reachable">(.*?)</table>', page).group(1)
    assert re.findall(r"<th>([^<]*)", heatmap) == ["cluster", "broker", "brokers", "internet", "vpc"]
    # each client network with the endpoint networks (and routes) its clients probed, as the generator planned them
    planned = {}
    for cluster in build_fleet(FleetSpec()):
        for seg in cluster.segments:
            route = cluster.routes[seg.listener]
            planned.setdefault(seg.network, set()).add("%(endpoint_network)s (%(route)s)" % route)
    assert {name: net["endpoint_networks"] for name, net in summary["client_networks"].items()} == {
        name: sorted(labels) for name, labels in planned.items()}
    assert 'internet<br><span class="via">via %s</span>' % ", ".join(sorted(planned["internet"])) in heatmap
    # the fleet summary has a row per cluster; broker rows (3 a cluster) only for the clusters with findings: not
    # the clean one, the past outage's and the fixed failure's
    clusters = re.search(r'<table class="heat sortable" id="clusters">(.*?)</table>', page).group(1)
    assert clusters.count("<tr>") == 1 + len(SCENARIOS)
    assert page.index('id="clusters"') < page.index('id="heatmap"')
    # their brokers with a failed probe, or none, on top; those every current probe reached folded away below
    assert heatmap.count("<tr>") + folded.count("<tr>") == 2 + 3 * (len(SCENARIOS) - 3)
    assert re.findall(r"hsl\((\d+),", folded) == ["120"] * folded.count("hsl(")  # every cell green
    assert '<details><summary>%d brokers every current probe reached</summary>' % (folded.count("<tr>") - 1) in page
    assert page.count('<rect class="bar"') == 11  # one timeline bar per incident
    assert "findings: 17 (critical 3, error 8, warning 6, info 0)" in audited_fleet["stdout"]
    assert "incidents: 11 (6 open)" in audited_fleet["stdout"]


def test_json_lines_are_written_in_the_order_given_whatever_order_the_partitions_come_in(spark, tmp_path):
    # each partition ascending, the partitions descending: merged into one part as they come, the file would be
    # 30..39, 20..29, ...; Spark does not promise that it merges a kept frame's partitions in their order
    frame = spark.range(0, 40, 1, 4).selectExpr("(3 - spark_partition_id()) * 10 + id % 10 AS n")
    path = str(tmp_path / "n.json")
    write_json_lines(spark, frame, path, [F.col("n").desc()])
    with open(path, encoding="utf-8") as handle:
        assert [json.loads(line)["n"] for line in handle] == list(range(39, -1, -1))
    assert os.listdir(tmp_path) == ["n.json"]  # the parts' folder is gone


def _one_json(out, name):
    path = os.path.join(out, name + ".json")
    assert os.path.isfile(path), "%s is not one file" % path  # JSON lines people open, not a Spark folder
    return path


def test_unusable_input_exits_2_naming_the_file(spark, tmp_path, capsys):
    brokers = tmp_path / "brokers.jsonl"
    brokers.write_text('{"schema_version": 1}\n')
    status = main(["--brokers", str(brokers), "--probes", str(brokers), "--out", str(tmp_path / "out"), "--quiet"])
    assert status == EXIT_BAD_INPUT
    assert "bad input: brokers input %s: 1 of 1 records are unusable; first at %s:1: required field run_id is " \
        "missing" % (brokers, brokers) in capsys.readouterr().err


def test_an_unusable_report_path_exits_2_naming_the_option_before_any_work(spark, tmp_path, capsys):
    records = tmp_path / "records.jsonl"
    records.write_text("")
    (tmp_path / "report.html").mkdir()
    status = main(["--brokers", str(records), "--probes", str(records), "--out", str(tmp_path / "out"),
                   "--report", str(tmp_path / "report.html"), "--quiet"])
    assert status == EXIT_BAD_INPUT
    assert capsys.readouterr().err == ("kafka-listeners-audit: cannot write the outputs: --report %s: %s is a folder, "
                                       "not a file for the HTML report\n" % (tmp_path / "report.html",
                                                                              tmp_path / "report.html"))


def test_outputs_are_checked_and_an_earlier_runs_report_and_summary_removed_first(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for name in ("report.html", "summary.json", "findings.json"):
        (out / name).write_text("from an earlier run")
    args = argparse.Namespace(out=str(out), report=None)
    assert prepare_outputs(args, str(out / "report.html")) == str(out / "summary.json")
    # a run that fails after this leaves no summary that looks complete beside its own findings
    assert sorted(os.listdir(out)) == ["findings.json"]
    blocked = tmp_path / "file"
    blocked.write_text("")
    cannot_make = "^--out %s: cannot make the folder %s: " % (blocked / "out", blocked / "out")
    with pytest.raises(OutputError, match=cannot_make):
        prepare_outputs(argparse.Namespace(out=str(blocked / "out"), report=None), str(blocked / "out" / "r.html"))


def _json_lines(path, records):
    path.write_text("".join(json.dumps({key: value.isoformat() if hasattr(value, "isoformat") else value
                                        for key, value in record.items()}) + "\n" for record in records))
    return str(path)


# the brokers and the probes are checked side by side: either one's bad records stop the run, brokers' first, and
# what the other had kept or evaluated is dropped
@pytest.mark.parametrize("bad", ["brokers", "probes", "both"])
def test_bad_records_of_either_input_exit_2_and_leave_nothing_cached(spark, tmp_path, capsys, bad):
    good = {"brokers": [broker_record(1), broker_record(2)], "probes": [probe_record(), probe_record(broker="b2")]}
    paths = {}
    for name in ("brokers", "probes"):
        records = good[name] if bad not in (name, "both") else [{"schema_version": 1}]
        paths[name] = _json_lines(tmp_path / (name + ".jsonl"), records)
    status = main(["--brokers", paths["brokers"], "--probes", paths["probes"], "--out", str(tmp_path / "out"),
                   "--quiet"])
    assert status == EXIT_BAD_INPUT
    named = "probes" if bad == "probes" else "brokers"
    assert "bad input: %s input %s: 1 of 1 records are unusable; first at %s:1: required field run_id is missing" % (
        named, paths[named], paths[named]) in capsys.readouterr().err
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()


@pytest.mark.parametrize(("fail_on", "expected"), [
    ("info", EXIT_FINDINGS), ("warning", EXIT_FINDINGS), ("error", EXIT_CLEAN), ("critical", EXIT_CLEAN),
    ("none", EXIT_CLEAN),
])
def test_fail_on_compares_by_severity_order(fail_on, expected):
    findings = [{"severity": "warning"}, {"severity": "info"}]
    assert exit_status(findings, fail_on)[0] == expected


def test_local_sessions_of_small_inputs_run_one_partition_interpreted_on_the_quick_compiler(tmp_path):
    (tmp_path / "brokers.jsonl").write_text("x" * 100)
    (tmp_path / "probes").mkdir()
    (tmp_path / "probes" / "probes-1.jsonl").write_text("y" * 50)
    size = input_bytes([str(tmp_path / "brokers.jsonl"), str(tmp_path / "probes"), "file:" + str(tmp_path / "b*")])
    assert size == 250
    small = local_settings(size, "-XX:SharedArchiveFile=a.jsa")
    assert (small["spark.sql.shuffle.partitions"], small["spark.sql.codegen.factoryMode"]) == ("1", "NO_CODEGEN")
    assert small["spark.driver.extraJavaOptions"].endswith(" -XX:TieredStopAtLevel=1 -XX:SharedArchiveFile=a.jsa")
    for large in (local_settings(SMALL_INPUT_BYTES), local_settings(None)):
        assert "spark.sql.codegen.factoryMode" not in large
        assert large["spark.sql.shuffle.partitions"] == str(2 * (os.cpu_count() or 2))
    # below QUICK_JIT_BYTES the driver JVM still compiles with the quick compiler only; from it on, with both
    assert local_settings(QUICK_JIT_BYTES - 1)["spark.driver.extraJavaOptions"] == " ".join(
        [LOCAL_DEFAULTS["spark.driver.extraJavaOptions"], QUICK_JIT_JAVA_OPTIONS])
    for large in (local_settings(QUICK_JIT_BYTES), local_settings(SMALL_INPUT_BYTES), local_settings(None)):
        assert large["spark.driver.extraJavaOptions"] == LOCAL_DEFAULTS["spark.driver.extraJavaOptions"]
    # the limits are independent: between them, interpreted expressions on both compilers
    assert QUICK_JIT_BYTES < SMALL_INPUT_BYTES
    assert local_settings(QUICK_JIT_BYTES)["spark.sql.codegen.factoryMode"] == "NO_CODEGEN"
    assert input_bytes(["hdfs:///kafka/records/probes"]) is None
    # Parquet counts by its records: 100M repetitive records fit in a few MB and are no small input
    pq.write_table(pa.table({"run_id": ["run-1"] * 1000}), tmp_path / "probes.parquet")
    assert input_bytes([str(tmp_path / "probes.parquet")]) == 1000 * JSON_BYTES_PER_RECORD


def test_json_lines_are_kept_below_the_bound_when_spark_local_folders_have_room_for_them():
    size = KEEP_JSON_BYTES // 2
    keep, reason = keep_json_decision(size, size, ["/spill"])
    assert keep and "parsed once and kept" in reason and "/spill" in reason
    # too little room where Spark spills: each pass parses the text again, and the line says where and what to set
    keep, reason = keep_json_decision(size, size - 1, ["/spill"])
    assert not keep and "not kept" in reason and "/spill" in reason and "spark.local.dir" in reason
    assert not keep_json_decision(size, None, ["/spill"])[0]
    # from the bound on, not kept even with room to spare; unknown sizes (not local) are not kept, silently
    keep, reason = keep_json_decision(KEEP_JSON_BYTES, 100 * KEEP_JSON_BYTES, ["/spill"])
    assert not keep and "parsed again" in reason
    assert keep_json_decision(None, 100 * KEEP_JSON_BYTES, ["/spill"]) == (False, None)


def test_spark_local_folders_are_found_where_spark_looks_for_them(tmp_path):
    java = "-XX:+UseParallelGC -Djava.io.tmpdir=/scratch"
    assert spark_local_dirs({}, {}) == ["/tmp"]
    assert spark_local_dirs({"spark.driver.extraJavaOptions": java}, {}) == ["/scratch"]
    assert spark_local_dirs({"spark.local.dir": "/a,/b", "spark.driver.extraJavaOptions": java}, {}) == ["/a", "/b"]
    assert spark_local_dirs({"spark.local.dir": "/a"}, {"SPARK_LOCAL_DIRS": "/c,/d"}) == ["/c", "/d"]
    assert spark_local_dirs({"spark.local.dir": "/a"}, {"SPARK_EXECUTOR_DIRS": "/e", "SPARK_LOCAL_DIRS": "/c"}) == [
        "/e"]
    # Spark spreads its blocks over the folders: the least free space counts once per folder; a folder Spark is to
    # create counts with the file system of its nearest existing parent
    stat = os.statvfs(tmp_path)
    free = stat.f_bavail * stat.f_frsize
    assert abs(free_bytes([str(tmp_path / "not-yet" / "spill")]) - free) < 2**26
    assert abs(free_bytes([str(tmp_path), str(tmp_path)]) - 2 * free) < 2**27


def test_missing_arguments_are_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--brokers", "x"])
    assert stop.value.code == 2
    assert "missing --probes, --out" in capsys.readouterr().err


def test_build_pyfiles_zips_the_package_and_the_collection_module_utils(tmp_path, capsys):
    path = str(tmp_path / "code.zip")
    assert main(["--build-pyfiles", path]) == EXIT_CLEAN
    names = set(zipfile.ZipFile(path).namelist())
    utils = "ansible_collections/kafkaops/listeners/plugins/module_utils/"
    assert {"kafka_listeners_audit/__init__.py", "kafka_listeners_audit/evaluate.py", utils + "_listener_plan.py",
            utils + "_kafka_rules.py", utils + "_endpoints.py", utils + "_hostnames.py"} <= names
    assert not any("__pycache__" in name or name.startswith("tests/") for name in names)


def test_code_imported_from_the_zip_is_not_zipped_again(tmp_path):
    path = str(tmp_path / "code.zip")
    assert main(["--build-pyfiles", path]) == EXIT_CLEAN
    script = ("from kafka_listeners_audit import pyfiles\n"
              "print(pyfiles.kafka_listeners_audit.__file__)\n"
              "print(pyfiles._listener_plan.__file__)\n"
              "print(pyfiles.shippable())\n")
    env = {**os.environ, "PYTHONPATH": path}  # as --py-files puts it on an executor's path
    # -S: no site-packages, so neither the checkout nor the venv's copy of the collection can stand in for the zip
    result = subprocess.run([sys.executable, "-S", "-c", script], env=env, cwd=str(tmp_path), capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    package, module_utils, shippable = result.stdout.split()
    assert package.startswith(path) and module_utils.startswith(path)
    assert shippable == "False"


def test_heatmap_cells_label_the_endpoint_networks_probed_and_older_records_add_none(spark):
    classified = spark.createDataFrame([
        ("kafka-a", "b1", "internet", True, None, "internet-nlb", "load_balancer"),
        ("kafka-a", "b1", "internet", False, "KL001", "internet", "public_dns"),
        ("kafka-a", "b1", "internet", True, None, None, None),  # a record from before the fields
        ("kafka-a", "b1", "peered", True, None, "vpc", None),
    ], "cluster string, broker string, client_network string, reachable boolean, reachability_rule string, "
       "endpoint_network string, route string")
    cells = {row["client_network"]: row.asDict() for row in heatmap_cells(classified).collect()}
    assert cells["internet"]["endpoint_networks"] == ["internet (public_dns)", "internet-nlb (load_balancer)"]
    assert (cells["internet"]["probes"], cells["internet"]["reachable"]) == (3, 2)
    assert cells["peered"]["endpoint_networks"] == ["vpc"]


AUDIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _without_pyspark(args, tmp_path, env=None):
    """The command in a Python that cannot import pyspark (-S: no site-packages), only this package."""
    return subprocess.run([sys.executable, "-S", "-m", "kafka_listeners_audit.cli", *args], cwd=str(tmp_path),
                          env={**os.environ, "PYTHONPATH": AUDIT_DIR, **(env or {})}, capture_output=True, text=True,
                          timeout=120)


def test_help_and_input_errors_work_without_pyspark_and_say_what_to_install(tmp_path):
    assert subprocess.run([sys.executable, "-S", "-c", "import pyspark"], capture_output=True).returncode != 0
    shown = _without_pyspark(["--help"], tmp_path)
    assert shown.returncode == 0 and "--fail-on {info,warning,error,critical,none}" in shown.stdout, shown.stderr
    missing = _without_pyspark(["--brokers", str(tmp_path / "nope"), "--probes", str(tmp_path), "--out",
                                str(tmp_path / "out")], tmp_path)
    assert (missing.returncode, missing.stderr) == (EXIT_BAD_INPUT, "kafka-listeners-audit: bad input: --brokers %s "
                                                                    "does not exist\n" % (tmp_path / "nope"))
    records = tmp_path / "records.jsonl"
    records.write_text("{}\n")
    usable = _without_pyspark(["--brokers", str(records), "--probes", str(records), "--out", str(tmp_path / "out")],
                              tmp_path)
    assert usable.returncode == EXIT_CANNOT_RUN and "Traceback" not in usable.stderr
    assert "pyspark is not installed" in usable.stderr
    assert "pip install 'kafkaops-listeners-tools[audit]'" in usable.stderr


INSTALL_THE_EXTRA = ("install the audit's extra, pip install 'kafkaops-listeners-tools[audit]' (pyspark 4.3.0, "
                     "pandas, pyarrow; or pip install '.[audit]' in a checkout)")


@pytest.mark.parametrize("unimportable, reason", [
    (("pyspark",), "pyspark is not installed for %s: " + INSTALL_THE_EXTRA + ", and a Java 17 or newer runtime"),
    # pip install pyspark alone
    (("pandas",), "pandas is not installed for %s (pyspark is, but the audit also needs pandas and pyarrow): "
                  + INSTALL_THE_EXTRA),
    (("pandas", "pyarrow"), "pandas and pyarrow are not installed for %s (pyspark is, but the audit also needs "
                            "pandas and pyarrow): " + INSTALL_THE_EXTRA),
])
def test_a_run_without_a_module_of_the_audit_extra_names_the_extra_before_spark_starts(tmp_path, unimportable,
                                                                                       reason):
    records = tmp_path / "records.jsonl"
    records.write_text("{}\n")
    args = ["--brokers", str(records), "--probes", str(records), "--out", str(tmp_path / "out")]
    # None in sys.modules: importing the module raises ImportError in this venv's Python, which has the rest
    prelude = ("import sys; sys.modules.update(dict.fromkeys(%r)); from kafka_listeners_audit.cli import main; "
               "sys.exit(main(%r))" % (unimportable, args))
    result = subprocess.run([sys.executable, "-c", prelude], cwd=str(tmp_path), capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": AUDIT_DIR}, timeout=120)
    assert result.returncode == EXIT_CANNOT_RUN, result.stderr
    # the one line, before Spark starts: no traceback, no progress line
    assert result.stderr == "kafka-listeners-audit: cannot run Spark here: %s\n" % (reason % sys.executable)


def test_without_java_the_command_says_what_to_install():
    assert "no Java runtime" in missing_runtime({"PATH": "/nonexistent"})
    assert "has no bin/java" in missing_runtime({"JAVA_HOME": "/nonexistent", "PATH": os.environ["PATH"]})
    assert missing_runtime({"PYSPARK_GATEWAY_PORT": "1", "PATH": "/nonexistent"}) is None  # spark-submit's JVM


@pytest.mark.parametrize("verbose", [False, True])
def test_spark_warnings_and_java_stack_traces_only_with_verbose(tmp_path, verbose):
    # a command of its own (its own driver JVM), on bad records: exit 2 with the message, no Java stack trace; the
    # record holds a raw escape sequence (not JSON, so unusable), which the message shows escaped, not acted on
    brokers = tmp_path / "brokers.jsonl"
    brokers.write_bytes(b'{"schema_version": 1, "cluster": "\x1b[2J\x1b]0;title\x07"}\n')
    brokers = str(brokers)
    probes = _json_lines(tmp_path / "probes.jsonl", [probe_record()])
    result = subprocess.run([sys.executable, "-m", "kafka_listeners_audit.cli", "--brokers", brokers, "--probes",
                             probes, "--out", str(tmp_path / "out"), "--quiet", "--conf", "spark.ui.enabled=false",
                             *(["--verbose"] if verbose else [])],
                            env={**os.environ, "PYTHONPATH": AUDIT_DIR}, capture_output=True, text=True, timeout=600)
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    assert "bad input: brokers input %s: 1 of 1 records are unusable" % brokers in result.stderr
    assert '"cluster": "\\x1b[2J\\x1b]0;title\\x07"}' in result.stderr and "\x1b" not in result.stderr
    # Hadoop's native-library warning comes at every start on this machine: shown with --verbose only
    assert (" WARN " in result.stderr) == verbose, result.stderr
    if not verbose:
        # nothing but the command's own lines: no Spark log line, no "Setting default log level", no JVM notice
        assert all(line.startswith("kafka-listeners-audit: ") for line in result.stderr.splitlines()), result.stderr
    assert "\tat " not in result.stderr


def test_messages_show_the_control_characters_of_untrusted_input_escaped():
    assert printable("a\x1b[2Jb\u0085c\ufffd\tz\u00e9") == "a\\x1b[2Jb\\x85c\ufffd\\tz\u00e9"


def test_the_jvm_notices_are_left_out_of_stderr_and_every_other_line_kept(capfd):
    # the filter in place while a process that inherits file descriptor 2 starts, as the driver JVM does
    jvm_stderr = JvmStderr()
    child = subprocess.Popen([sys.executable, "-c", "import sys, time; sys.stderr.write(%r); sys.stderr.flush(); "
                              "time.sleep(0.3); sys.stderr.write('a line without its end')" % (
                                  "Error: one\n%sjdk.incubator.vector\nError: two\n" % JVM_NOTICES[0].decode())])
    jvm_stderr.started()
    print("this process's own line", file=sys.stderr, flush=True)
    assert child.wait(timeout=30) == 0
    jvm_stderr.drain(5.0)
    err = capfd.readouterr().err
    assert "incubator" not in err, err
    # the child's lines in order and whole, this process's own line among them where it came
    assert re.sub("this process's own line\n", "", err) == "Error: one\nError: two\na line without its end", err
    assert "this process's own line\n" in err


def test_a_failure_of_the_audit_itself_exits_3_with_its_cause_not_1(tmp_path):
    # exit status 1 means findings: a Spark that cannot start (here: a heap size the JVM refuses) must not say that
    records = _json_lines(tmp_path / "records.jsonl", [probe_record()])
    result = subprocess.run([sys.executable, "-m", "kafka_listeners_audit.cli", "--brokers", records, "--probes",
                             records, "--out", str(tmp_path / "out"), "--quiet", "--conf", "spark.driver.memory=lots"],
                            env={**os.environ, "PYTHONPATH": AUDIT_DIR}, capture_output=True, text=True, timeout=600)
    assert result.returncode == EXIT_CANNOT_RUN, result.stderr
    assert "kafka-listeners-audit: the audit failed: " in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.endswith("kafka-listeners-audit: run it again with --verbose for Spark's log and the whole "
                                  "traceback\n"), result.stderr


def test_the_spill_settings_are_asked_for_by_name_as_the_session_was_given_them(spark):
    """The test session is given spark.driver.extraJavaOptions and not spark.local.dir. Through spark.conf the value
    is the one given; the SparkContext's whole configuration holds it after the module options Spark adds itself,
    none of which names a folder, so both give the same spill folders."""
    assert spill_settings(spark) == {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1"}
    whole = dict(spark.sparkContext.getConf().getAll())
    assert whole["spark.driver.extraJavaOptions"].endswith(" -XX:TieredStopAtLevel=1")
    assert spark_local_dirs(spill_settings(spark), {}) == spark_local_dirs(
        {name: whole[name] for name in SPILL_SETTINGS if name in whole}, {})
