# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Parse and losslessly edit Kafka ``server.properties`` files.

Private to kafkaops.listeners: no compatibility promise.

Parsing follows ``java.util.Properties.load`` as implemented by JDK 9 and
later (Kafka 3.x/4.x need Java 11+/17+):

* Natural lines end at ``\\n``, ``\\r`` or ``\\r\\n``.  A natural line whose
  content ends with an odd number of backslashes continues on the next one;
  that backslash is dropped and so is the leading whitespace (space, tab,
  form feed) of the continuation line.  A continuation line holding only
  whitespace ends the logical line.  A backslash continuing into the end of
  the input is dropped.
* A line that is blank, or whose first non-whitespace character is ``#`` or
  ``!``, is ignored; a comment line never continues, whatever it ends with.
  As in JDK 9+, a ``#``/``!`` line that follows a continuation of a still
  empty logical line (a line holding only ``\\``) is a comment too.
* The key ends at the first unescaped ``=``, ``:`` or whitespace.  Whitespace
  after it is skipped, and at most one ``=``/``:`` among it.
* In keys and values ``\\t \\n \\r \\f`` and ``\\uXXXX`` (exactly four hex
  digits) are decoded, any other escaped character stands for itself.  A
  malformed ``\\u`` escape raises :class:`PropertiesError`, as Java refuses
  the whole file.  UTF-16 surrogate pairs written as two ``\\u`` escapes are
  joined into one code point, as a Java string would hold them.
* The last occurrence of a duplicate key wins.

This module works on ``str``.  Kafka reads the file through
``Properties.load(InputStream)``, that is as ISO-8859-1; decoding the bytes
as ``latin-1`` (and encoding back the same way) is both what Kafka sees and
byte-for-byte lossless.

A document is kept as the sequence of its entries, one per logical line
(a property, a comment or a blank line, each with its line terminators), and
renders back to exactly the parsed text.  Editing is lossless in this sense:

* Every entry that does not hold an edited key keeps its exact text and its
  place: comments, blank lines, other keys with whatever separators,
  escapes and continuations they use.
* Setting a key to the value it already has changes nothing.
* Setting a key to another value rewrites its last occurrence in place (as
  :func:`format_property` spells it, with that entry's own line terminator)
  and drops its earlier, dead, duplicates.
* Setting a new key writes ``key=value`` just after the key's commented
  template line when the file has one (a comment line ``#key=...`` or
  ``!key:...``, the comment character directly followed by the key and a
  separator, as Kafka ships ``#advertised.listeners=PLAINTEXT://your.host.name:9092``;
  the last such line, with that line's terminator).  Prose comments
  (``#     listeners = PLAINTEXT://...``, after a blank) are not templates.
* Otherwise it appends ``key=value`` and a line terminator: the file's
  most frequent one, ``\\n`` if it has none.  If the text did not end with a
  terminator, one is added first.  If it ended inside a line continuation
  (which Java drops at the end of input), an empty line is added first so
  that the continuation does not swallow the new line (a line holding only
  ``=`` instead when that dangling logical line is empty, which Java loads
  as the key ``""``: an empty line would make it vanish).
* Removing a key drops every entry of that key and nothing else.

One consequence cannot be avoided: when a removed entry sat between a line
ending in a lone ``\\r`` and an empty line ending in ``\\n``, these two now
touch and read as one ``\\r\\n``.  No property changes, but that empty line
is gone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

__all__ = [
    "PropertiesDocument",
    "PropertiesEntry",
    "PropertiesError",
    "edit_properties",
    "format_property",
    "parse_properties",
]

_WHITESPACE = " \t\f"
_COMMENT_START = "#!"
_SEPARATORS = "=:"
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_NAMED_ESCAPES = {decoded: "\\" + letter for letter, decoded in _SIMPLE_ESCAPES.items()}
_TERMINATOR_SPLIT = re.compile(r"(\r\n|\r|\n)")
# key and value of a logical line without backslashes (the common case, split by the regex engine)
_PLAIN_KEY_VALUE = re.compile(r"([^=: \t\f]*)[ \t\f]*(?:[=:][ \t\f]*)?")
_TERMINATOR = re.compile(r"\r\n|\r|\n")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
# Ties between equally frequent terminators go to the first of these.
_TERMINATOR_PREFERENCE = ("\n", "\r\n", "\r")

PROPERTY = "property"
COMMENT = "comment"
BLANK = "blank"


class PropertiesError(ValueError):
    """The text is not a properties file Java would load.

    ``lineno`` is the 1-based number of the natural line where the offending
    logical line starts.
    """

    def __init__(self, message: str, lineno: int | None = None) -> None:
        super().__init__(message)
        self.lineno = lineno


class PropertiesEntry(NamedTuple):
    """One logical line of a properties file.

    ``raw`` is its exact text, line terminators included.  ``kind`` is
    ``"property"``, ``"comment"`` or ``"blank"``.  For a property, ``key``
    and ``value`` are the decoded strings and ``logical_line`` is the line
    as Java assembles it (continuations joined, escapes not yet decoded);
    for other kinds the three are None.  ``lineno`` is the 1-based number of
    the natural line where the entry starts.  (A named tuple: a file has
    one entry a line, and a tuple is the smallest and quickest to make.)  A line holding only ``\\``
    continues into the comment or blank line after it, and forms one entry
    with it.
    """

    raw: str
    kind: str
    lineno: int
    key: str | None = None
    value: str | None = None
    logical_line: str | None = None

    @property
    def terminator(self) -> str:
        """The line terminator ending ``raw``, or ``""`` at end of input."""
        return _terminator(self.raw)


def _natural_lines(text: str) -> list[tuple[str, str]]:
    """Split text into (content, terminator) pairs whose concatenation is text."""
    contents, terminators = _split_lines(text)
    return list(zip(contents, terminators))  # noqa: B905 - lists of one length; strict= is 3.10+


def _split_lines(text: str) -> tuple[list[str], list[str]]:
    """The contents of text's natural lines and their terminators (``""`` for a last line without one), in two
    lists of one length."""
    if "\r" in text:
        parts = _TERMINATOR_SPLIT.split(text)
        contents, terminators = parts[0::2], parts[1::2]
    else:  # str.split is several times quicker than the regex, and most files end lines in "\n" only
        contents = text.split("\n")
        terminators = ["\n"] * (len(contents) - 1)
    if contents[-1]:
        terminators.append("")
    else:
        contents.pop()
    return contents, terminators


def _continues(content: str) -> bool:
    """Whether a natural line's content ends with an odd number of backslashes."""
    return (len(content) - len(content.rstrip("\\"))) % 2 == 1


def _split_key_value(logical: str) -> tuple[str, str]:
    """Split an assembled logical line into its still escaped key and value."""
    if "\\" not in logical:
        match = _PLAIN_KEY_VALUE.match(logical)
        return match.group(1), logical[match.end():]
    end = len(logical)
    key_end = value_start = end
    has_separator = False
    escaped = False
    for index, char in enumerate(logical):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in _SEPARATORS or char in _WHITESPACE:
            key_end = value_start = index
            break
    if value_start < end and logical[value_start] in _SEPARATORS:
        has_separator = True
        value_start += 1
    while value_start < end:
        char = logical[value_start]
        if char in _SEPARATORS and not has_separator:
            has_separator = True
        elif char not in _WHITESPACE:
            break
        value_start += 1
    return logical[:key_end], logical[value_start:]


def _join_surrogates(match: re.Match) -> str:
    high, low = match.group(0)
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def _unescape(escaped: str, lineno: int, part: str) -> str:
    """Decode the escapes of a key or value."""
    if "\\" not in escaped:
        return escaped
    out = []
    index = 0
    end = len(escaped)
    while index < end:
        char = escaped[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 == end:
            # Unreachable: an assembled logical line never ends inside an escape.
            break
        char = escaped[index + 1]
        if char == "u":
            first, last = index + 2, index + 6
            digits = escaped[first:last]
            if len(digits) != 4 or not _HEX_DIGITS.issuperset(digits):
                raise PropertiesError(
                    f"line {lineno}: malformed \\uxxxx escape in the {part}: \\u{digits}",
                    lineno,
                )
            out.append(chr(int(digits, 16)))
            index += 6
        else:
            out.append(_SIMPLE_ESCAPES.get(char, char))
            index += 2
    return _SURROGATE_PAIR.sub(_join_surrogates, "".join(out))


def _parse_entries(text: str) -> list[PropertiesEntry]:
    """The entries of text, in one pass: its cost is linear in the text's size."""
    contents, terminators = _split_lines(text)
    entries = []
    index = 0
    lineno = 1
    while index < len(contents):
        start = index
        content, terminator = contents[index], terminators[index]
        index += 1
        segment = content.lstrip(_WHITESPACE)
        if segment and segment[0] not in _COMMENT_START and "\\" not in segment:
            # the common line: one natural line, no escapes, no continuation
            match = _PLAIN_KEY_VALUE.match(segment)
            entries.append(PropertiesEntry(content + terminator, PROPERTY, lineno, match.group(1),
                                           segment[match.end():], segment))
            lineno += 1
            continue
        if not segment or segment[0] in _COMMENT_START:
            kind = COMMENT if segment else BLANK
            logical = None
        else:
            kind = PROPERTY
            parts = []
            while True:
                if not _continues(segment):
                    parts.append(segment)
                    break
                parts.append(segment[:-1])
                if index == len(contents):
                    # Continuation into the end of input: Java drops the backslash.
                    # It sees the end right after a "\n" or lone "\r", and keeps even
                    # an empty line then (the key ""); after "\r\n" it first takes
                    # the "\n", then finds the end with nothing gathered, and nothing
                    # is loaded.
                    if terminator == "\r\n" and not any(parts):
                        kind = BLANK
                    break
                content, terminator = contents[index], terminators[index]
                index += 1
                segment = content.lstrip(_WHITESPACE)
                if not segment:
                    # A whitespace-only continuation line ends the logical line;
                    # if nothing was gathered Java skips it like a blank line.
                    if not any(parts):
                        kind = BLANK
                    break
                if not any(parts) and segment[0] in _COMMENT_START:
                    # JDK 9+ looks for comments while the logical line is empty.
                    kind = COMMENT
                    break
            logical = "".join(parts) if kind == PROPERTY else None
        raw = "".join(c + t for c, t in zip(contents[start:index], terminators[start:index]))  # noqa: B905
        if logical is None:
            entries.append(PropertiesEntry(raw=raw, kind=kind, lineno=lineno))
        else:
            key, value = _split_key_value(logical)
            entries.append(
                PropertiesEntry(
                    raw=raw,
                    kind=kind,
                    lineno=lineno,
                    key=_unescape(key, lineno, "key"),
                    value=_unescape(value, lineno, "value"),
                    logical_line=logical,
                )
            )
        lineno += index - start
    return entries


def _escape_char(char: str, out: list[str]) -> None:
    """Append char as ASCII: named escapes for tab/LF/CR/FF, else \\uXXXX outside 0x20-0x7E."""
    code = ord(char)
    if char in _NAMED_ESCAPES:
        out.append(_NAMED_ESCAPES[char])
    elif 0x20 <= code <= 0x7E:
        out.append(char)
    elif code > 0xFFFF:
        code -= 0x10000
        out.append(f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}")
    else:
        out.append(f"\\u{code:04X}")


def format_property(key: str, value: str) -> str:
    """Spell one property as a single ``key=value`` line, without terminator.

    Promises: the result is printable ASCII (so its meaning does not depend on
    the file's encoding: Kafka reads ISO-8859-1), holds no line break, does
    not end in a continuation, and ``parse_properties(result).to_dict() ==
    {key: value}`` for any key and value without lone UTF-16 surrogates.

    ``\\`` is doubled everywhere.  In the key, ``=``, ``:``, ``#``, ``!`` and
    space are escaped with a backslash.  Tab, LF, CR and FF become ``\\t``,
    ``\\n``, ``\\r``, ``\\f``; a leading space of the value becomes ``\\ ``;
    every other character outside 0x20-0x7E becomes ``\\uXXXX`` (characters
    beyond U+FFFF as a surrogate pair), as ``Properties.store`` does.
    """
    if not isinstance(key, str) or not isinstance(value, str):
        raise TypeError(f"property keys and values must be str, got {key!r}={value!r}")
    out: list[str] = []
    for char in key:
        if char in "\\=:#! ":
            out.append("\\" + char)
        else:
            _escape_char(char, out)
    out.append("=")
    for index, char in enumerate(value):
        if char == "\\" or (char == " " and index == 0):
            out.append("\\" + char)
        else:
            _escape_char(char, out)
    return "".join(out)


class PropertiesDocument:
    """A parsed properties file that renders back to exactly its text.

    ``PropertiesDocument(text)`` is ``parse_properties(text)``.  After any
    edit the document is exactly what parsing its new text would give.
    """

    def __init__(self, text: str = "") -> None:
        if not isinstance(text, str):
            raise TypeError(f"properties text must be str, got {type(text).__name__}")
        self._text = text
        self._parsed = tuple(_parse_entries(text))

    @property
    def _entries(self) -> tuple[PropertiesEntry, ...]:
        # an edit keeps only its text: a caller that just renders it never pays for parsing it again
        if self._parsed is None:
            self._parsed = tuple(_parse_entries(self._text))
        return self._parsed

    @property
    def entries(self) -> tuple[PropertiesEntry, ...]:
        """The entries in file order; their ``raw`` texts concatenate to ``render()``."""
        return self._entries

    def render(self) -> str:
        """The document's text: for an unedited document, exactly the parsed text."""
        return self._text

    def to_dict(self) -> dict[str, str]:
        """The properties Java would load: decoded keys to decoded values, last duplicate wins.

        Keys are ordered by first appearance.
        """
        return {entry.key: entry.value for entry in self._entries if entry.kind == PROPERTY}

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value Java would load for key, else default."""
        return self.to_dict().get(key, default)

    def keys(self) -> list[str]:
        """The distinct decoded keys, in order of first appearance."""
        return list(self.to_dict())

    def set(self, key: str, value: str) -> bool:
        """Give key the value; return whether the text changed.

        Unchanged if the key's effective value already equals value.  Else its
        last occurrence is rewritten in place by :func:`format_property` with
        that entry's terminator, and its earlier occurrences are dropped; or,
        for a new key, one line is appended (see the module docstring).
        """
        format_property(key, value)  # its TypeError for a key or value that is not str
        return self.apply({key: value})

    def remove(self, key: str) -> bool:
        """Drop every entry of key; return whether there was any."""
        if not isinstance(key, str):
            raise TypeError(f"property keys must be str, got {key!r}")
        return self.apply({key: None})

    def apply(self, changes: Mapping[str, str | None]) -> bool:
        """Set each key to its str value, or remove it where the value is None.

        Changes are applied in the mapping's order, after checking all their
        types, each as :meth:`set` and :meth:`remove` describe.  The text is
        parsed again once after all of them, and only when its entries or
        properties are asked for: the cost is linear in the size of the file.
        Returns whether the text changed.
        """
        for key, value in changes.items():
            if not isinstance(key, str) or not (value is None or isinstance(value, str)):
                raise TypeError(f"changes must map str keys to str or None, got {key!r}: {value!r}")
        positions: dict[str, list[int]] = {}
        for index, entry in enumerate(self._entries):
            if entry.kind == PROPERTY and entry.key in changes:
                positions.setdefault(entry.key, []).append(index)
        templates = _template_lines(self._entries, [key for key, value in changes.items()
                                                    if value is not None and key not in positions])
        # the new text, one string an entry ("" for a dropped one), then the appended lines
        raws = [entry.raw for entry in self._entries]
        counts = None  # the text's terminator counts, made when a line is appended and kept up to date after
        below: dict[int, list[str]] = {}  # new lines that go below their template line (by its index)
        changed = False
        for key, value in changes.items():
            places = positions.get(key, [])
            if value is not None and places and self._entries[places[-1]].value == value:
                continue
            if value is not None and not places:
                if key in templates:
                    below.setdefault(templates[key], []).append(format_property(key, value))
                    changed = True
                    continue
                if counts is None:
                    counts = _terminator_counts("".join(raws))
                terminator = _dominant(counts)
                self._close_last_line(raws, counts)
                raws.append(format_property(key, value) + terminator)
                counts[terminator] += 1
                changed = True
                continue
            kept = format_property(key, value) + _terminator(raws[places[-1]]) if value is not None else ""
            for index in places:
                raws[index] = ""
            if kept:
                raws[places[-1]] = kept
            changed = changed or bool(places)
            counts = None
        for template, lines in below.items():
            # with the template line's terminator; a lone "\r" before a line starting with "\n" would fuse with it
            # into one "\r\n" (and that line would be gone), so these then end with "\r\n"
            terminator = _terminator(self._entries[template].raw)
            if terminator == "\r" and next((raw for raw in raws[template + 1:] if raw), "").startswith("\n"):
                terminator = "\r\n"
            raws[template] += "".join(line + terminator for line in lines)
        if changed:
            self._text = "".join(raws)
            self._parsed = None  # parsed again when asked for
        return changed

    def _close_last_line(self, raws: list[str], counts: dict[str, int]) -> None:
        """Make the last of ``raws`` (the document's entries as :meth:`apply` is editing them, then the lines it
        appended) end so that a line appended after it starts a logical line of its own; ``counts`` follow."""
        last = next((index for index in range(len(raws) - 1, -1, -1) if raws[index]), None)
        if last is None:
            return
        raw = raws[last]
        own = _terminator(raw)
        added = "" if own else _dominant(counts)
        entry = self._entries[last] if last < len(self._entries) else None
        if entry is not None and raw == entry.raw and entry.kind != COMMENT and _continues(
                _natural_lines(raw)[-1][0]):
            # The text ends inside a continuation.  Close it with an empty natural
            # line (with the entry's own terminator: a lone "\r" then "\n" would
            # fuse); but a still empty logical line that Java loads as the key ""
            # would then be skipped, so that one is closed with "=" instead.
            keep_empty_key = entry.kind == PROPERTY and entry.logical_line == ""
            added += ("=" if keep_empty_key else "") + (own or added)
        raws[last] = raw + added
        for terminator in _TERMINATOR.findall(added):
            counts[terminator] += 1


def _template_lines(entries: tuple[PropertiesEntry, ...], keys: list[str]) -> dict[str, int]:
    """For each of ``keys``, the index of its last commented template line (``#key=...``) that ends with a line
    terminator; keys without one are left out."""
    found: dict[str, int] = {}
    if not keys:
        return found
    wanted = set(keys)
    for index, entry in enumerate(entries):
        if entry.kind != COMMENT or not entry.terminator:
            continue
        content = entry.raw.lstrip(_WHITESPACE)[1:]
        if "\n" in content.rstrip("\r\n") or "\r" in content.rstrip("\r\n") or not content[:1].strip():
            continue  # a continued line, or prose after the comment character
        match = _PLAIN_KEY_VALUE.match(content)
        separator = content[len(match.group(1)):].lstrip(_WHITESPACE)[:1]
        if match.group(1) in wanted and separator in ("=", ":"):
            found[match.group(1)] = index
    return found


def _terminator(raw: str) -> str:
    """The line terminator ending ``raw``, or ``""``."""
    if raw.endswith("\r\n"):
        return "\r\n"
    if raw.endswith(("\r", "\n")):
        return raw[-1]
    return ""


def _terminator_counts(text: str) -> dict[str, int]:
    counts = {terminator: 0 for terminator in _TERMINATOR_PREFERENCE}
    for terminator in _TERMINATOR.findall(text):
        counts[terminator] += 1
    return counts


def _dominant(counts: dict[str, int]) -> str:
    """The most frequent terminator; ties go to the first of _TERMINATOR_PREFERENCE, "\n" if none."""
    return max(_TERMINATOR_PREFERENCE, key=counts.__getitem__)


def parse_properties(text: str) -> PropertiesDocument:
    """Parse text as ``java.util.Properties.load`` would.

    Raises :class:`PropertiesError` (a ValueError) for a malformed ``\\u``
    escape, the only error Java reports.  ``parse_properties(t).render() == t``
    for every text t that parses.
    """
    return PropertiesDocument(text)


def edit_properties(text: str, changes: Mapping[str, str | None]) -> str:
    """Return text with changes applied as :meth:`PropertiesDocument.apply` does."""
    document = parse_properties(text)
    document.apply(changes)
    return document.render()
