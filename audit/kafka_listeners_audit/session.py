# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The Spark session of kafka-listeners-audit: what this machine lacks to start one, the settings of a session the
command starts (every one, and those of a ``local[...]`` master, sized by the input), Spark's log level, and
starting and stopping it.

Standard library only at the top: :func:`missing_runtime` runs before pyspark may be imported.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import select
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

APP_NAME = "kafka-listeners-audit"

SESSION_DEFAULTS = {
    "spark.sql.session.timeZone": "UTC",
    # PySpark records the Python call site of every DataFrame and column operation for its error messages: about
    # ten round trips to the JVM each, half of all the audit's calls. The operations are this package's, not the
    # user's: a failure still names the query and this package's stack
    "spark.python.sql.dataFrameDebugging.enabled": "false",
    # Spark keeps the classes it generates and compiles for queries in a cache of 100 by default; one audit of
    # compiled expressions makes about 270 distinct ones, so a later run() in the same JVM found none of them left
    # and compiled and warmed up every one again (1M probe records: later runs 16.7-21.6 s with 100 in two sessions,
    # 10.8-13.4 s with this in three)
    "spark.sql.codegen.cache.maxEntries": "1000",
}
"""Settings of every session the command starts; ``--conf`` overrides any of them."""

LOCAL_DEFAULTS = {
    "spark.ui.showConsoleProgress": "false",
    # a one-shot local run on few cores: the web UI and its event bookkeeping only take CPU from the job
    "spark.ui.enabled": "false",
    # re-planning after every stage costs more than it finds on one machine: the joins are sized by hints
    "spark.sql.adaptive.enabled": "false",
    # no concurrent collector threads competing with the tasks for the cores; a batch job wants throughput. A
    # one-shot JVM spent a third of its CPU in the optimising JIT compiler: only really hot code is worth it here
    "spark.driver.extraJavaOptions": "-XX:+UseParallelGC -XX:Tier4InvocationThreshold=40000 "
                                     "-XX:Tier4CompileThreshold=50000 -XX:Tier4BackEdgeThreshold=400000",
    # cached frames live for one run in local memory: compressing them costs CPU and saves nothing that matters
    "spark.sql.inMemoryColumnarStorage.compressed": "false",
    # the brokers' evaluation runs beside the pass over the probe history: on a few cores its small broadcasts may
    # wait for that pass's tasks longer than the default 5 minutes (100M probe records), which is not a failure
    "spark.sql.broadcastTimeout": "3600",
}
"""Settings of a session the command starts on ``local[...]``; ``--conf`` overrides any of them."""

SMALL_INPUT_BYTES = 256 * 2**20
SMALL_INPUT_DEFAULTS = {
    # a few MB of records: one task per stage, not one per core, and expressions interpreted rather than compiled
    # (generating and compiling Java for each of the job's ~50 stages took longer than running them)
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}
QUICK_JIT_BYTES = 64 * 2**20
QUICK_JIT_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"
"""Added to the driver JVM's options of a local session when both inputs are local and together smaller than
:data:`QUICK_JIT_BYTES` (about 130,000 probe records): the JVM compiles with its quick compiler only. In such short
runs the optimising compiler costs more than it gains: the default fleet (2 MB) took 33-36 s of CPU with the quick
compiler alone and 45-51 s with both (three alternating pairs), 100,000 probe records (51 MB) 60 s with either. From
there on the checking pass's code (each text field's JSON kind) runs hot enough to pay: 300,000 records (153 MB)
took 104-111 s of CPU with the quick compiler alone and 70-76 s with both, 1M (533 MB) 173-187 s and 100 s (the
probes' checking pass 125 and 24 s of executor CPU). It was 1 GB until 2026-11-30."""


def small_input(input_size: int | None) -> bool:
    """True when ``input_size`` (bytes of records as JSON lines, None: unknown) is below :data:`SMALL_INPUT_BYTES`."""
    return input_size is not None and input_size < SMALL_INPUT_BYTES


def local_settings(input_size: int | None, java_options: str = "") -> dict:
    """The settings of a session on ``local[...]``: :data:`LOCAL_DEFAULTS`, shuffle partitions twice the cores,
    :data:`SMALL_INPUT_DEFAULTS` when ``input_size`` (bytes of records, None: unknown) is below
    :data:`SMALL_INPUT_BYTES`, :data:`QUICK_JIT_JAVA_OPTIONS` when it is below :data:`QUICK_JIT_BYTES`, and
    ``java_options`` added to the driver JVM's options."""
    settings = dict(LOCAL_DEFAULTS)
    # few, larger shuffle partitions: a local run has only this machine's cores
    settings["spark.sql.shuffle.partitions"] = str(2 * (os.cpu_count() or 2))
    extra = [java_options] if java_options else []
    if small_input(input_size):
        settings.update(SMALL_INPUT_DEFAULTS)
    if input_size is not None and input_size < QUICK_JIT_BYTES:
        extra.insert(0, QUICK_JIT_JAVA_OPTIONS)
    settings["spark.driver.extraJavaOptions"] = " ".join([settings["spark.driver.extraJavaOptions"], *extra])
    return settings


def spark_session(master: str | None, confs: list, code_dir: str | None, progress: Callable[[str], None],
                  input_size: int | None = None) -> tuple:
    """Return (session, created): the active session if there is one, else a new one.

    Without ``master`` the job runs on ``local[*]``, unless spark-submit launched it (then its master stands).
    Local runs use this interpreter for the Python workers, a class-data sharing archive for the driver JVM
    (:mod:`~kafka_listeners_audit.class_archive`) and :data:`SMALL_INPUT_DEFAULTS` when ``input_size`` (bytes of
    records) is below :data:`SMALL_INPUT_BYTES`. With ``code_dir``, a new session sends the code zip
    (this package and the collection's module_utils, written there) to the executors with ``addPyFile``.
    """
    from pyspark.sql import SparkSession

    from kafka_listeners_audit import class_archive
    from kafka_listeners_audit.pyfiles import build_code_zip, shippable

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ  # the JVM of spark-submit started this interpreter
    if under_submit and master:
        progress("--master %s ignored: spark-submit already chose the master" % master)
    builder = SparkSession.builder.appName(APP_NAME)
    chosen = None if under_submit else (master or "local[*]")
    archive_part = None
    settings = dict(SESSION_DEFAULTS)
    if chosen is not None:
        builder = builder.master(chosen)
        if chosen.startswith("local"):
            archive_options, archive_part = class_archive.java_options()
            settings.update(local_settings(input_size, archive_options))
            # local Python workers must import pandas and the collection: run them on this interpreter
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    settings.update(dict(confs))
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if chosen is not None and chosen.startswith("local") and archive_part is not None:
        # spark-submit execs the JVM: the launched process is the driver JVM, which writes the archive as it exits
        process = getattr(spark.sparkContext._gateway, "proc", None)
        if process is not None:
            class_archive.note_writer(archive_part, process.pid)
    if code_dir is not None and shippable():
        spark.sparkContext.addPyFile(build_code_zip(os.path.join(code_dir, "kafka_listeners_audit_code.zip")))
        progress("sending the audit code and the collection's module_utils to the executors")
    elif code_dir is not None:
        progress("the audit code came in a zip (--py-files): Spark sends that one to the executors")
    return spark, True


INSTALL_AUDIT_EXTRA = ("install the audit's extra, pip install 'kafkaops-listeners-tools[audit]' (pyspark 4.3.0, "
                       "pandas, pyarrow; or pip install '.[audit]' in a checkout)")
"""How to install what the audit imports once it runs: pyproject.toml's extra ``audit``."""


def missing_runtime(environ=os.environ) -> str | None:
    """What this machine lacks to run the audit (pyspark, pandas, pyarrow, or a Java runtime), and how to install
    it; None when nothing. Under spark-submit (its JVM started this interpreter) no Java runtime is missing."""
    if importlib.util.find_spec("pyspark") is None:
        return ("pyspark is not installed for %s: %s, and a Java 17 or newer runtime" % (
            sys.executable, INSTALL_AUDIT_EXTRA))
    # pip install pyspark alone brings neither: without this check Spark would start and the audit fail on import
    absent = [name for name in ("pandas", "pyarrow") if importlib.util.find_spec(name) is None]
    if absent:
        return "%s %s not installed for %s (pyspark is, but the audit also needs pandas and pyarrow): %s" % (
            " and ".join(absent), "is" if len(absent) == 1 else "are", sys.executable, INSTALL_AUDIT_EXTRA)
    if "PYSPARK_GATEWAY_PORT" in environ:
        return None
    java_home = environ.get("JAVA_HOME")
    if java_home and not os.access(os.path.join(java_home, "bin", "java"), os.X_OK):
        return "JAVA_HOME is %s, which has no bin/java: point it at a Java 17 or newer runtime" % java_home
    if not java_home and shutil.which("java", path=environ.get("PATH")) is None:
        return ("no Java runtime: Spark needs Java 17 or newer (e.g. apt install openjdk-17-jre-headless, dnf "
                "install java-17-openjdk-headless), on PATH or named by JAVA_HOME")
    return None


QUIET_LOG4J2 = """# kafka-listeners-audit without --verbose: only Spark's errors, on stderr
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = stderr
appender.console.type = Console
appender.console.name = stderr
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
# PySpark's JVM starts Spark's logging as a shell's, which announces "Setting default log level to ..." on stderr
# whenever the gateway's logger is at another level than the root's: the same level here, so no announcement
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
"""
"""Spark's logging without ``--verbose``: its WARN lines (native libraries, loopback host names, retries) say
nothing about the fleet. log4j reads it from ``LOG4J_CONFIGURATION_FILE`` as the driver JVM starts."""


def quiet_log_file(folder: str) -> str:
    """Write :data:`QUIET_LOG4J2` into ``folder``; returns its path."""
    path = os.path.join(folder, "log4j2-quiet.properties")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(QUIET_LOG4J2)
    return path


JVM_NOTICES = (b"WARNING: Using incubator modules: ",)
"""Lines a driver JVM prints on stderr at every start, whatever the log configuration says: Spark's launcher adds the
module jdk.incubator.vector, and Java announces each incubator module it loads. Left out unless ``--verbose``."""


class JvmStderr:
    """The driver JVM's stderr without :data:`JVM_NOTICES`. While the JVM starts (:meth:`__init__` to
    :meth:`started`), this process's file descriptor 2 is a pipe, which the JVM inherits as its stderr; a thread
    copies every other line that comes through to the real stderr, for as long as the JVM (or a Python worker it
    starts) writes there. This process writes to the real stderr again once the JVM is started."""

    QUIET_S = 0.05

    def __init__(self) -> None:
        sys.stderr.flush()
        self._real = os.dup(2)
        self._pipe, write = os.pipe()
        os.dup2(write, 2)
        os.close(write)
        self._quiet = threading.Event()  # set whenever nothing came through for QUIET_S
        self._ended = threading.Event()  # the pipe's end: every process that held it has ended
        threading.Thread(target=self._copy, name="kafka-listeners-audit-jvm-stderr", daemon=True).start()

    def started(self) -> None:
        """Give this process its own stderr back (the JVM keeps the pipe)."""
        sys.stderr.flush()
        os.dup2(self._real, 2)

    def drain(self, timeout: float) -> None:
        """Wait until what the JVM wrote so far is copied (nothing came through for a moment), at most ``timeout``
        seconds: before this process writes a message that must come after the JVM's."""
        if not self._ended.is_set():
            self._quiet.clear()
            self._quiet.wait(timeout)

    def _write(self, data: bytes) -> None:
        while data:
            data = data[os.write(self._real, data):]

    def _copy(self) -> None:
        pending = b""
        while True:
            if not select.select([self._pipe], [], [], self.QUIET_S)[0]:
                if pending and not any(notice.startswith(pending) for notice in JVM_NOTICES):
                    self._write(pending)  # a line without its end yet: shown, not held back
                    pending = b""
                self._quiet.set()
                continue
            chunk = os.read(self._pipe, 65536)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                if not line.startswith(JVM_NOTICES):
                    self._write(line + b"\n")
        if pending and not pending.startswith(JVM_NOTICES):
            self._write(pending)
        os.close(self._pipe)
        self._ended.set()
        self._quiet.set()


@contextlib.contextmanager
def started_session(master: str | None, confs: list, code_dir: str, progress: Callable[[str], None],
                    input_size: int | None = None, verbose: bool = False, ship_code: bool = True
                    ) -> Iterator[SparkSession]:
    """The session of one run, as :func:`spark_session` gives it (``code_dir`` also holds the quiet log
    configuration; the code zip only with ``ship_code``), with Spark's log at errors only unless ``verbose``.
    Stopped on leaving when this run started it, not when it was already active (spark-submit's, a test's)."""
    from pyspark import SparkContext

    # the driver JVM reads it as it starts (a configuration the user named stands)
    quiet = not verbose and "LOG4J_CONFIGURATION_FILE" not in os.environ
    if quiet:
        os.environ["LOG4J_CONFIGURATION_FILE"] = quiet_log_file(code_dir)
    # a JVM this process starts (not spark-submit's, nor one already running here) prints its notices on stderr
    jvm_stderr = JvmStderr() if not verbose and "PYSPARK_GATEWAY_PORT" not in os.environ and \
        SparkContext._gateway is None else None
    try:
        spark, created = spark_session(master, confs, code_dir if ship_code else None, progress, input_size)
    except BaseException:
        if jvm_stderr is not None:
            jvm_stderr.started()
            jvm_stderr.drain(2.0)  # why the JVM did not start comes before the command's own message
        raise
    finally:
        if quiet:
            del os.environ["LOG4J_CONFIGURATION_FILE"]
    if jvm_stderr is not None:
        jvm_stderr.started()
    if not verbose:
        spark.sparkContext.setLogLevel("ERROR")  # under spark-submit the JVM was started without our file
    try:
        yield spark
    finally:
        if created:
            spark.stop()
        if jvm_stderr is not None:
            jvm_stderr.drain(1.0)
