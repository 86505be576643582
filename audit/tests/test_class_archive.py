# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The driver JVM's class-data sharing archive: written once, read afterwards, never read half-written."""

import os
import subprocess
import sys
import time

import pytest

from kafka_listeners_audit import class_archive


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setattr(class_archive, "_runtime_key", lambda: "k1")
    return str(tmp_path)


def _ended_pid():
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_the_first_run_writes_the_archive_at_exit_to_a_part_file_of_its_own(folder):
    options, part = class_archive.java_options(folder)
    assert part == os.path.join(folder, "spark-k1.jsa.%d.part" % os.getpid())
    assert options.startswith("-XX:ArchiveClassesAtExit=%s " % part)


def test_a_finished_part_becomes_the_archive_that_later_runs_read(folder):
    part = os.path.join(folder, "spark-k1.jsa.1.part")
    with open(part, "wb") as handle:
        handle.write(b"archive")
    class_archive.note_writer(part, _ended_pid())
    options, new_part = class_archive.java_options(folder)
    archive = os.path.join(folder, "spark-k1.jsa")
    assert (options.split()[0], new_part) == ("-XX:SharedArchiveFile=" + archive, None)
    assert sorted(os.listdir(folder)) == ["spark-k1.jsa"]


def test_no_archive_is_used_or_started_while_another_jvm_may_still_write_one(folder):
    part = os.path.join(folder, "spark-k1.jsa.1.part")
    class_archive.note_writer(part, os.getpid())  # alive, and its part file not even started
    assert class_archive.java_options(folder) == ("", None)
    assert not os.path.exists(os.path.join(folder, "spark-k1.jsa"))


def test_an_empty_part_of_a_run_that_ended_is_dropped(folder):
    part = os.path.join(folder, "spark-k1.jsa.%d.part" % _ended_pid())
    open(part, "wb").close()
    options, new_part = class_archive.java_options(folder)
    assert new_part is not None and options.startswith("-XX:ArchiveClassesAtExit=")
    assert os.listdir(folder) == []


def test_spark_jars_at_another_path_get_an_archive_of_their_own(tmp_path, monkeypatch):
    # the JVM refuses an archive written with another class path: one per Spark installation, not per version
    keys = []
    for name in ("venv-a", "venv-b"):
        jars = tmp_path / name / "jars"
        jars.mkdir(parents=True)
        (jars / "spark-core.jar").write_bytes(b"same jar")
        monkeypatch.setenv("SPARK_HOME", str(tmp_path / name))
        keys.append(class_archive._runtime_key())
    assert None not in keys and keys[0] != keys[1]


def test_archives_unused_for_a_month_are_removed_and_the_one_in_use_is_marked_used(folder):
    archive, recent, stale = (os.path.join(folder, "spark-%s.jsa" % key) for key in ("k1", "k2", "k3"))
    month = class_archive.UNUSED_DAYS * 86400
    for path, age in ((archive, month + 60), (recent, month - 3600), (stale, month + 60)):
        with open(path, "wb") as handle:
            handle.write(b"archive")
        os.utime(path, (time.time() - age, time.time() - age))
    options, part = class_archive.java_options(folder)
    assert (options.split()[0], part) == ("-XX:SharedArchiveFile=" + archive, None)
    assert sorted(os.listdir(folder)) == ["spark-k1.jsa", "spark-k2.jsa"]
    assert os.path.getmtime(archive) > time.time() - 60
