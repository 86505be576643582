# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How the collection reads and replaces a broker's configuration file on the managed node, as the file tools
Ansible users trust do: a symbolic link is followed (the file Kafka reads is the one changed, the link stays), only
a regular file is read (a FIFO or a device is refused, never opened for reading), one writer at a time (an exclusive
``flock`` on the file's directory, which the kafka_properties module and the broker's pre-start program both take
for their whole read-edit-replace), and a backup is complete or absent.

Private to kafkaops.listeners: no compatibility promise outside the collection.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import tempfile
import time

# how long a writer waits for another to finish with the same directory
LOCK_WAIT = 30.0
_LOCK_POLL = 0.05
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


class ConfigFileError(OSError):
    """The file cannot be read or replaced as asked; the message names it and says why."""


def target_path(path: str) -> str:
    """The file a write to ``path`` changes: ``path`` itself, or where its symbolic links lead."""
    return os.path.realpath(path)


def _not_regular(path: str, mode: int) -> ConfigFileError:
    kind = next((name for test, name in _KINDS if test(mode)), "of another kind")
    return ConfigFileError("%s is %s, not a regular file: refusing to read or replace it" % (path, kind))


def check_regular(path: str) -> os.stat_result | None:
    """The status of the file at ``path`` (links followed); None when it does not exist. ConfigFileError when it is
    not a regular file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigFileError("cannot read %s: %s" % (path, exc.strerror)) from None
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path, info.st_mode)
    return info


def read_regular(path: str) -> bytes | None:
    """The bytes of the regular file at ``path`` (links followed); None when it does not exist. ConfigFileError
    when it is not a regular file (opened without blocking, so a FIFO never hangs the reader) or cannot be read."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigFileError("cannot read %s: %s" % (path, exc.strerror)) from None
    mode = os.fstat(handle).st_mode
    if not stat.S_ISREG(mode):
        os.close(handle)
        raise _not_regular(path, mode)
    with os.fdopen(handle, "rb") as stream:
        try:
            return stream.read()
        except OSError as exc:
            raise ConfigFileError("cannot read %s: %s" % (path, exc.strerror)) from None


def check_writable_directory(path: str) -> str:
    """The directory a replacement of ``path`` is made in; ConfigFileError when it is missing or not writable (so
    that check mode predicts what the real run finds)."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ConfigFileError("cannot write %s: directory %s does not exist" % (path, directory))
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ConfigFileError("cannot write %s: directory %s is not writable by this user" % (path, directory))
    return directory


@contextlib.contextmanager
def locked(path: str, wait: float | None = None):
    """Hold the exclusive lock that writers of ``path`` (after its links) take on its directory. ConfigFileError
    when another writer keeps it longer than ``wait`` seconds (LOCK_WAIT when None)."""
    directory = os.path.dirname(target_path(path))
    try:
        handle = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise ConfigFileError("cannot lock %s: directory %s: %s" % (path, directory, exc.strerror)) from None
    try:
        wait = LOCK_WAIT if wait is None else wait
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise ConfigFileError("cannot lock %s: %s" % (directory, exc.strerror)) from None
                if time.monotonic() >= deadline:
                    raise ConfigFileError("another writer of %s held the lock on %s for more than %g s" % (
                        path, directory, wait)) from None
                time.sleep(_LOCK_POLL)
        yield
    finally:
        os.close(handle)  # releases the lock


def _put(path: str, data: bytes, destination: str) -> None:
    """Write ``data`` to a temporary file in ``path``'s directory, on disk, with ``path``'s mode and owner (when
    it exists), then rename it to ``destination``: ``destination`` is complete or untouched."""
    like = check_regular(path)
    handle, temporary = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if like is not None:
            os.chmod(temporary, stat.S_IMODE(like.st_mode))
            if (like.st_uid, like.st_gid) != (os.getuid(), os.getgid()):
                os.chown(temporary, like.st_uid, like.st_gid)
        os.replace(temporary, destination)
    except BaseException:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise


def replace_atomically(path: str, data: bytes) -> None:
    """Replace ``path`` (after its links) with ``data`` by a rename in its directory, keeping its mode and owner: a
    crash leaves the old file or the new one, never a part."""
    path = target_path(path)
    _put(path, data, path)


def write_backup(path: str, data: bytes) -> str:
    """Keep ``data`` (the file's content before a change) as ``<path>.<pid>.<time>~`` (the name Ansible's backups
    have), with the file's mode and owner; return that name. It is written under a temporary name and renamed when
    complete: a failure leaves no file that looks like a backup. ConfigFileError naming the backup otherwise."""
    backup = "%s.%s.%s" % (path, os.getpid(), time.strftime("%Y-%m-%d@%H:%M:%S~"))
    try:
        _put(path, data, backup)
    except OSError as exc:
        raise ConfigFileError("cannot back %s up as %s: %s" % (path, backup, exc)) from None
    return backup
