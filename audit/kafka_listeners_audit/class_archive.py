# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A class-data sharing archive (AppCDS) for the driver JVM of local runs.

Loading and verifying Spark's classes is a large part of a small audit's start. The JVM can map the classes a
previous run loaded from an archive instead: the first local run writes one when its JVM exits
(``-XX:ArchiveClassesAtExit``), later runs read it (``-XX:SharedArchiveFile``). The archive belongs to one Java
runtime and one set of Spark jars at one path (the JVM checks the class path): its name carries a hash of the
three, so an upgrade, or another virtualenv, starts a new one. It lives in
the user's cache (``$XDG_CACHE_HOME/kafkaops-listeners/audit-cds``), outside any checkout.

The JVM writes the archive as it exits, after this process has ended: it goes to a ``.part`` file named after this
process, and a later run that finds the part of a process that has ended renames it into place, so a half-written
archive is never read. A JVM that cannot use an archive (another runtime, a damaged file) runs without it.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import time

ARCHIVE_DIR = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                           "kafkaops-listeners", "audit-cds")
# the archive is an optimisation: its own notices (classes it cannot hold, a mismatch) are not the user's business
_QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"
# the classes an archive holds are those one run loaded: a change of what the audit runs (e.g. Arrow for the frames
# it makes in the driver, since generation 2) takes a new archive, or the new classes are loaded from the jars
_GENERATION = 2
UNUSED_DAYS = 30
"""An archive (each is about 190 MB) that no run has used for this many days is removed by the next local run:
every virtualenv, Spark installation and archive generation has one of its own."""


def _runtime_key() -> str | None:
    """A short hash of :data:`_GENERATION`, the Java runtime and the Spark jars a local session uses (their
    folder's path too: the JVM refuses an archive written with another class path, without a word under
    :data:`_QUIET`), or None when they are not found."""
    import pyspark

    java_home = os.environ.get("JAVA_HOME")
    java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
    jars = os.path.join(os.environ.get("SPARK_HOME") or os.path.dirname(pyspark.__file__), "jars")
    if not java or not os.path.isdir(jars):
        return None
    digest = hashlib.sha256(("%d:%s" % (_GENERATION, os.path.realpath(java))).encode())
    digest.update(os.path.realpath(jars).encode())
    for name in sorted(os.listdir(jars)):
        digest.update(("%s:%d" % (name, os.path.getsize(os.path.join(jars, name)))).encode())
    return digest.hexdigest()[:16]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _writer(part: str) -> int:
    """The process writing ``part``: the JVM named in its ``.pid`` file, else the run that asked for it."""
    try:
        with open(part + ".pid", encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return int(part.rsplit(".", 2)[1])


def java_options(folder: str = ARCHIVE_DIR) -> tuple:
    """Return (driver JVM options, part file): the options read the archive or, while there is none yet, write it
    at exit to the part file (then call :func:`note_writer` with the JVM's process id once it runs). Empty options
    when the runtime cannot be identified, the folder cannot be written or another run is writing the archive."""
    key = _runtime_key()
    if key is None:
        return "", None
    archive = os.path.join(folder, "spark-%s.jsa" % key)
    writing = False
    try:
        os.makedirs(folder, exist_ok=True)
        # a run's part file appears only when its JVM starts writing, at exit; its .pid file as soon as it runs
        parts = {name[:-len(".pid")] if name.endswith(".pid") else name
                 for name in glob.glob(archive + ".*.part") + glob.glob(archive + ".*.part.pid")}
        for part in parts:
            if _alive(_writer(part)):
                writing = True
                continue
            if os.path.exists(part) and os.path.getsize(part):  # that JVM is done writing
                os.replace(part, archive)
            for name in (part, part + ".pid"):
                if os.path.exists(name):
                    os.remove(name)
    except (OSError, ValueError):
        return "", None
    _prune(folder, archive)
    if os.path.exists(archive):
        return "-XX:SharedArchiveFile=%s %s" % (archive, _QUIET), None
    if writing:
        return "", None
    part = "%s.%d.part" % (archive, os.getpid())
    return "-XX:ArchiveClassesAtExit=%s %s" % (part, _QUIET), part


def _prune(folder: str, archive: str) -> None:
    """Mark ``archive`` used now; remove the other archives of ``folder`` unused for :data:`UNUSED_DAYS`."""
    horizon = time.time() - UNUSED_DAYS * 86400
    try:
        if os.path.exists(archive):
            os.utime(archive)
        for other in glob.glob(os.path.join(folder, "spark-*.jsa")):
            if other != archive and os.path.getmtime(other) < horizon:
                os.remove(other)
    except OSError:
        pass  # another run pruned it first, or the folder is read-only: the archive is an optimisation


def note_writer(part: str, pid: int) -> None:
    """Record that the JVM ``pid`` writes ``part`` when it exits (it outlives this process)."""
    try:
        with open(part + ".pid", "w", encoding="ascii") as handle:
            handle.write("%d\n" % pid)
    except OSError:
        pass
