# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""spark-submit of the audit to a real Spark standalone cluster on loopback: one master, two workers.

The processes come from the installed pyspark (its bin/spark-class), listen on 127.0.0.1 only and are stopped by
the PIDs this test started. The event log proves the job ran distributed: executors from both workers, and tasks
finished on both.
"""

import glob
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pyspark
import pytest

AUDIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPARK_HOME = os.path.dirname(os.path.abspath(pyspark.__file__))
START_TIMEOUT_S = 180  # hang guards only: JVMs start slowly on a busy machine
JOB_TIMEOUT_S = 900


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _master_state(webui_port):
    with urllib.request.urlopen("http://127.0.0.1:%d/json/" % webui_port, timeout=5) as response:
        return json.load(response)


def _wait_for(what, check, processes, timeout=START_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, process in processes.items():
            if process.poll() is not None:
                pytest.fail("%s exited with %s while waiting for %s" % (name, process.returncode, what))
        try:
            if check():
                return
        except OSError:
            pass  # not listening yet
        time.sleep(1)
    pytest.fail("timed out after %d s waiting for %s" % (timeout, what))


def _stop(processes):
    for process in reversed(list(processes.values())):
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
    for process in processes.values():
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@pytest.fixture
def standalone_cluster(tmp_path):
    """A master and two one-core workers; yields (master URL, {worker web UI port}, env, processes)."""
    env = {**os.environ, "SPARK_HOME": SPARK_HOME, "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1",
           # master and workers only route messages here: small heaps and the quick JIT start faster
           "SPARK_DAEMON_MEMORY": "256m", "SPARK_DAEMON_JAVA_OPTS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
    env.pop("PYSPARK_GATEWAY_PORT", None)
    spark_class = os.path.join(SPARK_HOME, "bin", "spark-class")
    master_port, master_ui = _free_port(), _free_port()
    master_url = "spark://127.0.0.1:%d" % master_port
    processes = {}

    def start(name, *args):
        # spark-class execs java: the PID started here is the JVM's; the child keeps its own copy of the log fd
        with open(tmp_path / ("%s.log" % name), "wb") as log:
            processes[name] = subprocess.Popen([spark_class, *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                                               cwd=str(tmp_path))

    try:
        start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(master_port),
              "--webui-port", str(master_ui))
        # workers start alongside the master: they retry registering until it listens
        worker_uis = set()
        for number in (1, 2):
            worker_ui = _free_port()
            worker_uis.add(worker_ui)
            work_dir = tmp_path / ("work-%d" % number)
            work_dir.mkdir()
            start("worker-%d" % number, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                  "--cores", "1", "--memory", "1g", "--webui-port", str(worker_ui), "--work-dir", str(work_dir),
                  master_url)
        _wait_for("two workers", lambda: sum(worker["state"] == "ALIVE" for worker in
                                             _master_state(master_ui)["workers"]) == 2, processes)
        yield master_url, worker_uis, env, processes
    finally:
        _stop(processes)


def test_spark_submit_runs_the_audit_distributed_on_two_workers(standalone_cluster, small_fleet, tmp_path):
    master_url, worker_uis, env, processes = standalone_cluster
    events = tmp_path / "events"
    events.mkdir()
    out = tmp_path / "audit"
    command = [
        os.path.join(SPARK_HOME, "bin", "spark-submit"), "--master", master_url,
        "--conf", "spark.eventLog.enabled=true", "--conf", "spark.eventLog.dir=file://%s" % events,
        "--conf", "spark.eventLog.compress=false", "--conf", "spark.eventLog.rolling.enabled=false",
        "--conf", "spark.executor.memory=768m",
        # tiny data on a busy machine: interpret rather than compile (as the local test session does)
        "--conf", "spark.sql.codegen.wholeStage=false", "--conf", "spark.sql.codegen.factoryMode=NO_CODEGEN",
        "--conf", "spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1",
        "--conf", "spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1",
        # schedule only once both executors are up, so the work can spread over them
        "--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0",
        "--conf", "spark.scheduler.maxRegisteredResourcesWaitingTime=120s",
        "--conf", "spark.sql.shuffle.partitions=4",
        os.path.join(AUDIT_DIR, "spark_submit_entry.py"),
        "--brokers", small_fleet["brokers"], "--probes", small_fleet["probes"], "--out", str(out),
        "--fail-on", "critical",
    ]
    job = subprocess.run(command, env=env, capture_output=True, text=True, timeout=JOB_TIMEOUT_S, cwd=str(tmp_path))
    assert job.returncode == 1, "spark-submit failed:\n%s" % job.stderr[-4000:]
    assert "findings: 17 (critical 3, error 8, warning 6, info 0)" in job.stdout
    assert all(process.poll() is None for process in processes.values()), "a cluster process died during the job"

    (log,) = glob.glob(str(events / "*"))
    with open(log, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    executors = {item["Executor ID"]: item["Executor Info"] for item in records
                 if item["Event"] == "SparkListenerExecutorAdded"}
    # each executor's log URL is served by the web UI of the worker that launched it
    ui_ports = {int(info["Log Urls"]["stdout"].split("://127.0.0.1:")[1].split("/")[0])
                for info in executors.values()}
    assert ui_ports == worker_uis
    task_executors = {item["Task Info"]["Executor ID"] for item in records if item["Event"] == "SparkListenerTaskEnd"}
    assert task_executors == set(executors)
    assert len(task_executors) == 2
    with open(out / "summary.json", encoding="utf-8") as handle:
        assert json.load(handle)["findings"] == 17
