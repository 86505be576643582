# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Environment files (Compose ``env_file``, ``docker run --env-file``): read them, and edit single variables.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Read as Docker Compose reads them: ``KEY=value`` (or ``KEY: value``), an optional ``export``, blank lines and
``#`` comments, unquoted values ending at `` #`` with trailing blanks dropped, single-quoted values taken as they
are, double-quoted values with backslash escapes, quoted values that span lines, and a lone ``KEY`` that takes its
value from the environment Compose runs in. ``${VAR}`` interpolation is not evaluated: a value is read as written.

An edit changes only the lines of the variables it names; every other byte, line endings included, stays. A value
is written bare when Compose and ``docker run`` read it alike; otherwise in single quotes (Compose's literal form,
which ``docker run --env-file`` would keep as part of the value); a value neither form can hold is refused with
an :class:`EnvFileError` naming the variable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Text form of the file's bytes: UTF-8, with any other byte carried through unchanged
ENCODING = "utf-8"
ENCODING_ERRORS = "surrogateescape"

_NAME = re.compile(r"[A-Za-z0-9_.]+")
_WRITABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# what Compose skips around names and values: white space other than the line feed
_BLANKS = " \t\v\f\r\x85\xa0"
# not written bare: what Compose would read as a quote, comment, escape or variable, or a control character
_NOT_BARE = re.compile(r"[\x00-\x1f\x7f#$'\"\\`]")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_DOUBLE_QUOTED_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"'}


class EnvFileError(ValueError):
    """A file that is not an environment file, or a variable or value that cannot be written to one."""


class _Entry:
    """One statement of the file: ``raw`` is its exact text (with its line ending); ``key`` is None for blank and
    comment lines; ``value`` is None for a variable taken from the environment (a lone ``KEY``)."""

    __slots__ = ("key", "raw", "value")

    def __init__(self, raw: str, key: str | None = None, value: str | None = None) -> None:
        self.raw, self.key, self.value = raw, key, value


def _line_end(text: str, pos: int) -> int:
    """The position just past the line that holds ``pos`` (its newline included)."""
    end = text.find("\n", pos)
    return len(text) if end < 0 else end + 1


def _lineno(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _skip_blanks(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _BLANKS:
        pos += 1
    return pos


def _rest_of_line_is_comment(text: str, pos: int, end: int) -> bool:
    rest = text[pos:end].rstrip("\r\n")
    return not rest.strip(_BLANKS) or rest[:1] in _BLANKS and rest.lstrip(_BLANKS).startswith("#")


def _unescape_double_quoted(body: str) -> str:
    return re.sub(r"\\(.)", lambda match: _DOUBLE_QUOTED_ESCAPES.get(match.group(1), match.group(0)), body,
                  flags=re.DOTALL)


def _parse_value(text: str, pos: int, lineno: int) -> tuple[str, int]:
    """The value starting at ``pos`` and the position after its statement."""
    quote = text[pos:pos + 1]
    if quote not in ("'", '"'):
        end = _line_end(text, pos)
        value = text[pos:end].rstrip("\r\n")
        comment = re.search(r"[ \t]#", value)
        value = value[:comment.start()] if comment else value
        return value.rstrip(), end
    close = pos + 1
    while True:
        close = text.find(quote, close)
        if close < 0:
            raise EnvFileError("line %d: the quoted value has no closing %s" % (lineno, quote))
        if text[close - 1] != "\\":
            break
        close += 1
    end = _line_end(text, close)
    if not _rest_of_line_is_comment(text, close + 1, end):
        raise EnvFileError("line %d: unexpected text after the closing %s" % (_lineno(text, close), quote))
    body = text[pos + 1:close]
    return (_unescape_double_quoted(body) if quote == '"' else body), end


def _parse_entries(text: str) -> list[_Entry]:
    entries = []
    pos = 0
    while pos < len(text):
        lineno = _lineno(text, pos)
        start = _skip_blanks(text, pos)
        if text.startswith(("\n", "\r\n", "#"), start) or start == len(text):
            end = _line_end(text, start)
            entries.append(_Entry(text[pos:end]))
            pos = end
            continue
        if text.startswith("export", start) and text[start + 6:start + 7] in tuple(_BLANKS):
            start = _skip_blanks(text, start + 6)
        name = _NAME.match(text, start)
        if name is None:
            raise EnvFileError("line %d: expected a variable name, a comment or a blank line" % lineno)
        after = _skip_blanks(text, name.end())
        if text.startswith(("\n", "\r\n"), after) or after == len(text):
            end = _line_end(text, after)
            entries.append(_Entry(text[pos:end], name.group(0)))
            pos = end
            continue
        if text[after] not in "=:":
            raise EnvFileError("line %d: expected = after the variable name %s" % (lineno, name.group(0)))
        value, end = _parse_value(text, _skip_blanks(text, after + 1), lineno)
        entries.append(_Entry(text[pos:end], name.group(0), value))
        pos = end
    return entries


def format_env_value(key: str, value: str) -> str:
    """The ``KEY=value`` text of one variable (no line ending); raises :class:`EnvFileError` naming ``key`` when
    the name is not a variable name or no form of the value reads back as ``value``."""
    if not isinstance(key, str) or not _WRITABLE_NAME.match(key):
        raise EnvFileError("%r is not an environment variable name (letters, digits and _, not first a digit)"
                           % (key,))
    if not isinstance(value, str):
        raise EnvFileError("%s: expected a string value, got %s" % (key, type(value).__name__))
    # Compose trims white space (Unicode's) around a bare value
    if not _NOT_BARE.search(value) and value == value.strip():
        return "%s=%s" % (key, value)
    if _CONTROL.search(value):
        raise EnvFileError("%s: the value holds a line break or control character, which an env file cannot "
                           "hold on one line: %r" % (key, value))
    if "'" in value or value.endswith("\\"):
        raise EnvFileError("%s: the value needs quotes (it has blanks at an end, or one of # $ \" \\ `) and holds "
                           "a ' or ends in \\, which Compose's single quotes cannot hold: %r" % (key, value))
    return "%s='%s'" % (key, value)


class EnvFileDocument:
    """An environment file's text and its statements; :meth:`render` gives the text back exactly as parsed."""

    def __init__(self, text: str = "") -> None:
        self._entries = _parse_entries(text)

    def render(self) -> str:
        return "".join(entry.raw for entry in self._entries)

    def to_dict(self) -> dict[str, str]:
        """The variables the file sets, the last of repeated ones winning (those taken from the environment left
        out: their value is not in the file)."""
        values = {}
        for entry in self._entries:
            if entry.key is not None:
                values.pop(entry.key, None)
                if entry.value is not None:
                    values[entry.key] = entry.value
        return values

    def _line_ending(self) -> str:
        return "\r\n" if any(entry.raw.endswith("\r\n") for entry in self._entries) else "\n"

    def set(self, key: str, value: str) -> bool:
        """Set ``key``: its last statement is rewritten in place (earlier ones, which it overrides, are removed)
        unless it already reads as ``value``; a new variable is appended. Returns whether the text changed."""
        line = format_env_value(key, value)
        places = [index for index, entry in enumerate(self._entries) if entry.key == key]
        if places:
            last = self._entries[places[-1]]
            if last.value == value and len(places) == 1:
                return False
            if last.value != value:
                own_ending = "\r\n" if last.raw.endswith("\r\n") else "\n" if last.raw.endswith("\n") else ""
                self._entries[places[-1]] = _Entry(line + own_ending, key, value)
            self._entries = [entry for index, entry in enumerate(self._entries) if index not in places[:-1]]
            return True
        ending = self._line_ending()
        if self._entries and not self._entries[-1].raw.endswith("\n"):
            self._entries[-1] = _Entry(self._entries[-1].raw + ending, self._entries[-1].key,
                                       self._entries[-1].value)
        self._entries.append(_Entry(line + ending, key, value))
        return True

    def remove(self, key: str) -> bool:
        """Remove every statement of ``key``; returns whether there was one."""
        kept = [entry for entry in self._entries if entry.key != key]
        changed = len(kept) != len(self._entries)
        self._entries = kept
        return changed

    def apply(self, changes: Mapping[str, str | None]) -> bool:
        """Set each variable to its str value, or remove it where the value is None; nothing changes when one of
        them cannot be written (:class:`EnvFileError`). Returns whether the text changed."""
        for key, value in changes.items():
            if value is not None:
                format_env_value(key, value)
        changed = False
        for key, value in changes.items():
            if self.remove(key) if value is None else self.set(key, value):
                changed = True
        return changed


def parse_env_file(text: str) -> EnvFileDocument:
    """Parse ``text`` as Compose reads an env file; raises :class:`EnvFileError` naming the line it cannot read.
    ``parse_env_file(t).render() == t`` for every text that parses."""
    return EnvFileDocument(text)
