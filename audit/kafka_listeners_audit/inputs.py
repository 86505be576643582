# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Where the audit's inputs are and what format they have, checked before Spark starts (standard library only, so
that a missing or misspelt path is reported without pyspark or Java)."""

from __future__ import annotations

import glob
import os
from urllib.parse import urlparse

FORMATS = ("auto", "json", "parquet")


class InputError(ValueError):
    """Audit input that cannot be used; the message names the input and what is wrong."""


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on or cannot show (control characters, such as the ESC of
    an escape sequence, and the other unprintable ones) written as its Python escape (``\\x1b``): a message that
    quotes a record or a path quotes untrusted input."""
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode("ascii") for char in text)


def is_local_path(path: str) -> bool:
    """True for a path on this machine's file system (no scheme, or ``file:``)."""
    scheme = urlparse(path).scheme
    return scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt")


def _local(path: str) -> str:
    return urlparse(path).path if path.startswith("file:") else path


def _is_pattern(path: str) -> bool:
    return any(char in path for char in "*?[")


def detect_format(path: str, fmt: str = "auto") -> str:
    """``json`` or ``parquet`` for ``path``: ``fmt`` unless it is ``auto``; then by the ``.parquet`` suffix of the
    path or, for a local folder, of the files in it. ``path`` may be a glob pattern (``records/brokers-*.jsonl``:
    the verify role writes both kinds of records into one folder). A missing local path, or a local pattern that
    matches nothing, raises InputError."""
    if fmt not in FORMATS:
        raise InputError("input format %r is not one of %s" % (fmt, ", ".join(FORMATS)))
    if is_local_path(path) and _is_pattern(path) and not glob.glob(_local(path)):
        raise InputError("%s matches no file" % path)
    if is_local_path(path) and not _is_pattern(path) and not os.path.exists(_local(path)):
        raise InputError("%s does not exist" % path)
    if fmt != "auto":
        return fmt
    if path.rstrip("/").endswith(".parquet"):
        return "parquet"
    if is_local_path(path) and os.path.isdir(_local(path)):
        for _root, _dirs, files in os.walk(_local(path)):
            if any(name.endswith(".parquet") for name in files):
                return "parquet"
    return "json"
