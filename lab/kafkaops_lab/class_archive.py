"""A class-data sharing archive per Kafka JVM the lab starts: brokers, storage formats, ZooKeeper.

Most of a lab broker's start is the JVM loading and verifying Kafka's classes. Java 17 can map the classes one run
loaded from a dynamic archive instead: the first start writes it when its JVM exits (`-XX:ArchiveClassesAtExit`,
after the shutdown hooks of a SIGTERM), later starts read it (`-XX:SharedArchiveFile`). An archive belongs to one
Java runtime, one class path (the jars of one release at one path), one main class and one set of JVM options: its
name carries a hash of them, so an upgrade or another release starts a new one. The archives live beside the
releases, in `<kafka cache>/cds/` (kafka_real.cache_root()); removing that folder is always safe.

One start at a time writes an archive: it claims it with a `.writer` file naming its `.part` file, and the JVM
writes the part as it exits. The JVM writes the part's header last, so a part with a header is complete: a later
start renames it into place. A writer killed in its dump leaves a part without one, removed once no process writes
it. A start that finds the archive neither there nor claimable runs without one (the JVM's `-Xshare:auto`), and so
does a JVM that refuses an archive. Standard library only: kafka-service imports this on the lab's nodes.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import time
from pathlib import Path

from .kafka_real import cache_root

# the archive is an optimisation: its notices (classes it cannot hold, a mismatch) are not the lab's business
QUIET = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")
WRITE = "-XX:ArchiveClassesAtExit="
DYNAMIC_MAGIC = (0xF00BABA8).to_bytes(4, "little")  # a dynamic archive's first bytes, written last
DUMP_TIMEOUT = 120.0
"""Seconds kafka-service stop waits on top of its own bound for a JVM that writes its archive at exit: the dump took
9 s at a load of 14 and over 22 s at 20 (kafka_jvm_start.py; a real-Kafka rollout), and a JVM killed in its dump
leaves nothing the next start can use."""
CLAIM_GRACE = 180.0
"""Seconds a claim holds before its JVM runs: kafka-service composes the broker's command before it formats the
storage, and a start may take up to 150 s on a loaded machine."""


def folder() -> Path:
    """Where the archives are: beside the Kafka releases."""
    return cache_root() / "cds"


def with_archive(argv: list[str], where: Path | None = None) -> list[str]:
    """`argv` (`java OPTIONS -cp CLASSPATH MAIN ARGS`, kafka_real.java_command) reading its archive, or writing it
    at exit when there is none and no other start writes it; `argv` unchanged when that cannot be decided."""
    try:
        archive = (where or folder()) / _archive_name(argv)
        archive.parent.mkdir(parents=True, exist_ok=True)
        with open(archive.parent / ".lock", "a", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # starts at once (a lab's nodes, two labs) decide one after the other
            _finish(archive)
            if archive.exists():
                options = [f"-XX:SharedArchiveFile={archive}", *QUIET]
            else:
                part = _claim(archive)
                options = [f"{WRITE}{part}", *QUIET] if part else []
    except (OSError, ValueError):
        return argv
    return [argv[0], *options, *argv[1:]]


def discard(argv: list[str]) -> None:
    """Drop what the ended JVM of `argv` wrote (a start that failed loaded too few classes to be worth keeping)."""
    part = next((word[len(WRITE):] for word in argv if word.startswith(WRITE)), None)
    if part:
        for name in (Path(part), _claim_file(Path(part.rsplit(".", 2)[0]))):  # ARCHIVE.PID.part
            name.unlink(missing_ok=True)


def writes(pid: int) -> bool:
    """True if process `pid` writes a class archive when it exits."""
    return any(word.startswith(WRITE.encode()) for word in _arguments(str(pid)))


def _archive_name(argv: list[str]) -> str:
    """`<release>-<main class>-<hash>.jsa`: the hash of the Java runtime, the JVM options, the class path with its
    jars' names and sizes, and the main class. ValueError when `argv` has no `-cp CLASSPATH MAIN`."""
    cp = argv.index("-cp")
    classpath, main_class = argv[cp + 1], argv[cp + 2]
    java = os.path.realpath(shutil.which(argv[0]) or argv[0])
    stat = os.stat(java)  # a package upgrade replaces the runtime at the same path
    digest = hashlib.sha256(f"{java}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    for word in argv[1:cp]:
        if not word.startswith("-D"):  # system properties (the log4j file's path) do not bind an archive
            digest.update(word.encode() + b"\0")
    digest.update(f"{classpath}\0{main_class}".encode())
    libs = Path(classpath.removesuffix("*"))
    for jar in sorted(libs.glob("*.jar")):
        digest.update(f"{jar.name}:{jar.stat().st_size}".encode())
    return f"{libs.resolve().parent.name}-{main_class.rsplit('.', 1)[-1]}-{digest.hexdigest()[:16]}.jsa"


def _claim_file(archive: Path) -> Path:
    return archive.with_name(archive.name + ".writer")


def _claim(archive: Path) -> str | None:
    """The part file this start's JVM writes, once this start holds the claim; None when another start holds it."""
    part = f"{archive}.{os.getpid()}.part"
    try:
        handle = os.open(_claim_file(archive), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return None
    with os.fdopen(handle, "w", encoding="utf-8") as claim:
        claim.write(part)
    return part


def _finish(archive: Path) -> None:
    """Rename a complete part into place; drop the parts and the claim of writers that ended without completing."""
    for part in archive.parent.glob(f"{archive.name}.*.part"):
        if _complete(part):
            os.replace(part, archive)
        elif time.time() - part.stat().st_mtime > CLAIM_GRACE and not _writing(part):
            part.unlink(missing_ok=True)
    claim = _claim_file(archive)
    try:
        part = Path(claim.read_text(encoding="utf-8").strip())
        claimed = claim.stat().st_mtime
    except FileNotFoundError:
        return
    if archive.exists() or (time.time() - claimed > CLAIM_GRACE and not _writing(part)):
        claim.unlink()


def _complete(part: Path) -> bool:
    try:
        with open(part, "rb") as handle:
            return handle.read(4) == DYNAMIC_MAGIC
    except FileNotFoundError:
        return False


def _writing(part: Path) -> bool:
    """True while a process runs with `part` as its archive to write (the lab's nodes share the host's PIDs)."""
    flag = f"{WRITE}{part}".encode()
    return any(flag in _arguments(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit())


def _arguments(pid: str) -> list[bytes]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:  # gone meanwhile
        return []
