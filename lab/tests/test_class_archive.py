"""kafkaops_lab.class_archive: which start writes a Kafka JVM's class archive, which reads it (no JVM, no root)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from kafkaops_lab import class_archive


@pytest.fixture
def argv(tmp_path):
    libs = tmp_path / "4.4.0" / "libs"
    libs.mkdir(parents=True)
    (libs / "kafka_2.13-4.4.0.jar").write_bytes(b"jar")
    return ["java", "-Xmx256m", "-Dlog4j2.configurationFile=/x", "-cp", f"{libs}/*", "kafka.Kafka", "server.properties"]


def files(folder):
    return sorted(name for name in os.listdir(folder) if name != ".lock")


def options(command):
    return [word for word in command[1:command.index("-cp")] if word.startswith("-XX:")]


def test_the_first_start_writes_at_exit_the_next_runs_without_while_it_runs(argv, tmp_path):
    first = class_archive.with_archive(argv, tmp_path / "cds")
    [write] = options(first)
    assert write.startswith(class_archive.WRITE) and write.endswith(".part")
    assert "4.4.0-Kafka-" in write and first[-3:] == argv[-3:]
    assert class_archive.with_archive(argv, tmp_path / "cds") == argv


def test_a_complete_part_becomes_the_archive_later_starts_read(argv, tmp_path):
    part = options(class_archive.with_archive(argv, tmp_path / "cds"))[0][len(class_archive.WRITE):]
    with open(part, "wb") as handle:
        handle.write(class_archive.DYNAMIC_MAGIC + b"rest of the archive")
    [read] = options(class_archive.with_archive(argv, tmp_path / "cds"))
    archive = read.split("=", 1)[1]
    assert read.startswith("-XX:SharedArchiveFile=") and part.startswith(archive + ".")
    assert files(tmp_path / "cds") == [os.path.basename(archive)]


def test_a_part_cut_short_is_dropped_and_the_next_start_writes_again(argv, tmp_path):
    part = options(class_archive.with_archive(argv, tmp_path / "cds"))[0][len(class_archive.WRITE):]
    with open(part, "wb") as handle:
        handle.write(b"\0" * 64)  # killed in its dump: the header comes last
    assert class_archive.with_archive(argv, tmp_path / "cds") == argv  # its claim still holds
    past = time.time() - class_archive.CLAIM_GRACE - 1
    for name in files(tmp_path / "cds"):
        os.utime(tmp_path / "cds" / name, (past, past))
    [write] = options(class_archive.with_archive(argv, tmp_path / "cds"))
    assert write.startswith(class_archive.WRITE) and not os.path.exists(part)


def test_a_failed_start_gives_up_its_claim(argv, tmp_path):
    failed = class_archive.with_archive(argv, tmp_path / "cds")
    class_archive.discard(failed)
    assert files(tmp_path / "cds") == []
    assert options(class_archive.with_archive(argv, tmp_path / "cds"))[0].startswith(class_archive.WRITE)


def test_other_jvm_options_or_jars_take_another_archive(argv, tmp_path):
    class_archive.with_archive(argv, tmp_path / "cds")
    assert options(class_archive.with_archive(["java", "-Xmx1g", *argv[2:]], tmp_path / "cds"))
    (tmp_path / "4.4.0" / "libs" / "extra.jar").write_bytes(b"jar")
    assert options(class_archive.with_archive(argv, tmp_path / "cds"))
    assert len(files(tmp_path / "cds")) == 3


def test_a_folder_that_cannot_be_made_leaves_the_command_alone(argv, tmp_path):
    (tmp_path / "file").write_text("")
    assert class_archive.with_archive(argv, tmp_path / "file" / "cds") == argv


def test_a_claim_holds_while_its_writer_runs_past_the_grace(argv, tmp_path):
    part = options(class_archive.with_archive(argv, tmp_path / "cds"))[0][len(class_archive.WRITE):]
    past = time.time() - class_archive.CLAIM_GRACE - 1
    for name in files(tmp_path / "cds"):
        os.utime(tmp_path / "cds" / name, (past, past))
    writer = subprocess.Popen([sys.executable, "-c", "import time; print(flush=True); time.sleep(30)",
                               f"{class_archive.WRITE}{part}"], stdout=subprocess.PIPE)
    try:
        writer.stdout.readline()  # it runs with its own command line
        assert class_archive.writes(writer.pid) and not class_archive.writes(os.getpid())
        assert class_archive.with_archive(argv, tmp_path / "cds") == argv
    finally:
        writer.kill()
        writer.communicate()
