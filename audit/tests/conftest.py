# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""One local SparkSession for the whole audit test session (as chispa's tests/conftest.py does)."""

import os
import sys

import pytest

AUDIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the package may not be installed: import it from the checkout, here and in the Python workers Spark starts
if AUDIT_DIR not in sys.path:
    sys.path.insert(0, AUDIT_DIR)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (AUDIT_DIR, os.environ.get("PYTHONPATH"))))
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


@pytest.fixture(scope="session")
def spark():
    """A local two-core session in UTC, tuned for tiny frames: few shuffle partitions, and expressions
    interpreted rather than compiled (compiling costs more than it saves on a few rows)."""
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("kafka-listeners-audit-tests")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.codegen.wholeStage", "false")
               .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
               .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .getOrCreate())
    yield session
    session.stop()


@pytest.fixture(scope="session")
def small_fleet(tmp_path_factory):
    """The default synthetic fleet (one cluster per scenario) as JSON lines, with its truth table."""
    from synthetic_fleet import FleetSpec, write_fleet

    return write_fleet(FleetSpec(), str(tmp_path_factory.mktemp("fleet")), "json")


@pytest.fixture(scope="session")
def audited_fleet(spark, small_fleet, tmp_path_factory):
    """``kafka-listeners-audit --fail-on critical`` run once (in this process) on the small fleet: its exit status,
    output folder and stdout."""
    import contextlib
    import io

    from kafka_listeners_audit.cli import main

    out = str(tmp_path_factory.mktemp("audit") / "out")
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        status = main(["--brokers", small_fleet["brokers"], "--probes", small_fleet["probes"], "--out", out,
                       "--fail-on", "critical", "--quiet"])
    return {"status": status, "out": out, "stdout": stdout.getvalue()}
