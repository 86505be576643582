# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Tests of the java.util.Properties parser and lossless editor."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import (
    PropertiesDocument,
    PropertiesError,
    edit_properties,
    format_property,
    parse_properties,
)

# one fixture for the unit tests, the integration target and the demo
FIXTURE = (Path(__file__).resolve().parents[3] / "integration" / "targets" / "kafka_properties" / "files"
           / "server.properties")
TERMINATORS = ("\n", "\r\n", "\r")
NATURAL_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")

# Characters that mean something to the format, plus characters that other
# line-splitting rules (str.splitlines) would wrongly treat as line breaks.
SPECIAL = [*"=:#! \t\f\r\n\\u0aFk", "\r\n", "\\u", "\\\n", "\x0b", "\x1c", "\x85", "\u2028", "\u00e9", "\U0001f600"]
RICH_CHARS = st.one_of(st.sampled_from(SPECIAL), st.characters())
RICH_TEXT = st.lists(RICH_CHARS, max_size=60).map("".join)
KEY_OR_VALUE_TEXT = st.text(st.one_of(st.sampled_from(list("=:#! \t\f\r\n\\u\x0b\x85\u2028")), st.characters()))

QUICK = settings(max_examples=300, deadline=None)
SLOWER = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def natural_lines(text):
    return [line for line in NATURAL_LINE.findall(text) if line]


# --------------------------------------------------------------------------
# Parsing rules, mostly the examples of the Properties.load(Reader) javadoc.

PARSE_CASES = [
    # separators and the whitespace around them
    ("key=value", {"key": "value"}),
    ("key:value", {"key": "value"}),
    ("key value", {"key": "value"}),
    ("key\tvalue", {"key": "value"}),
    ("key\fvalue", {"key": "value"}),
    ("key  =  value", {"key": "value"}),
    ("key\t:\fvalue", {"key": "value"}),
    ("Truth = Beauty", {"Truth": "Beauty"}),
    ("  Truth:Beauty", {"Truth": "Beauty"}),
    ("Truth                    :Beauty", {"Truth": "Beauty"}),
    ("key = = v", {"key": "= v"}),
    ("key==v", {"key": "=v"}),
    ("key:=v", {"key": "=v"}),
    ("key =:v", {"key": ":v"}),
    ("key value = x", {"key": "value = x"}),
    ("key=value  ", {"key": "value  "}),
    ("key=a=b:c d", {"key": "a=b:c d"}),
    ("cheeses", {"cheeses": ""}),
    ("cheeses   ", {"cheeses": ""}),
    ("key=", {"key": ""}),
    ("=value", {"": "value"}),
    (":", {"": ""}),
    ("  = v", {"": "v"}),
    # continuation lines
    (
        "fruits                           apple, banana, pear, \\\n"
        "                                  cantaloupe, watermelon, \\\n"
        "                                  kiwi, mango",
        {"fruits": "apple, banana, pear, cantaloupe, watermelon, kiwi, mango"},
    ),
    ("k=a\\\n   b", {"k": "ab"}),
    ("k=a\\\r\n\t\fb", {"k": "ab"}),
    ("k=a\\\r b", {"k": "ab"}),
    ("k=a\\\r\n\nb=1", {"k": "a", "b": "1"}),
    ("k=a\\\n\\\n\\\nb", {"k": "ab"}),
    ("k\\\n  =v", {"k": "v"}),
    ("k\\\n  e\\\n  y=v", {"key": "v"}),
    ("k=a\\\n#not a comment", {"k": "a#not a comment"}),
    ("k=a\\\n\nx=1", {"k": "a", "x": "1"}),
    ("k=a\\\n \t \nx=1", {"k": "a", "x": "1"}),
    ("k=a\\\n\rx=1", {"k": "a", "x": "1"}),
    ("k=a\\\\\nx=1", {"k": "a\\", "x": "1"}),
    ("k=a\\\\\\\n  b", {"k": "a\\b"}),
    ("k=\\u00\\\n   41", {"k": "A"}),
    # a backslash continuing into the end of the input is dropped
    ("k=a\\", {"k": "a"}),
    ("k=a\\\n", {"k": "a"}),
    ("k=a\\\n   ", {"k": "a"}),
    ("\\", {"": ""}),
    ("\\\n", {"": ""}),
    ("\\\r", {"": ""}),
    ("\\\r\n", {}),
    ("\\\n   ", {}),
    ("\\\n\nk=v", {"k": "v"}),
    # JDK 9+: a comment may follow the continuation of a still empty line
    ("\\\n#c\nk=v", {"k": "v"}),
    ("  \\\n  !c\\\nk=v", {"k": "v"}),
    # comments and blank lines
    ("# comment\nk=v", {"k": "v"}),
    ("! comment\nk=v", {"k": "v"}),
    ("  \t# indented comment\nk=v", {"k": "v"}),
    ("#c\\\nk=v", {"k": "v"}),
    ("!c\\\r\nk=v", {"k": "v"}),
    ("#", {}),
    ("k=v # not a comment", {"k": "v # not a comment"}),
    ("k=#v", {"k": "#v"}),
    ("\n\n \t\f\n\r\n\r", {}),
    ("", {}),
    # line terminators; other Unicode line breaks are ordinary characters
    ("a=1\rb=2\r\nc=3\nd=4", {"a": "1", "b": "2", "c": "3", "d": "4"}),
    ("a=1\x0bb=2\x85c\u2028d\x1c", {"a": "1\x0bb=2\x85c\u2028d\x1c"}),
    # escapes
    ("a\\=b=c", {"a=b": "c"}),
    ("a\\:b:c", {"a:b": "c"}),
    ("a\\ b c", {"a b": "c"}),
    ("\\#k=v", {"#k": "v"}),
    ("\\!k=v", {"!k": "v"}),
    ("k=\\t\\n\\r\\f", {"k": "\t\n\r\f"}),
    ("k=\\ lead", {"k": " lead"}),
    ("k=a\\\\b", {"k": "a\\b"}),
    ('k=\\q\\#\\=\\:\\"', {"k": 'q#=:"'}),
    ("k=\\u0041\\u00e9\\u00E9", {"k": "A\u00e9\u00e9"}),
    ("k=\\u00411", {"k": "A1"}),
    ("\\u006b\\u0020=v", {"k ": "v"}),
    ("k=\\uD83D\\uDE00", {"k": "\U0001f600"}),
    ("k=\\uD83D", {"k": "\ud83d"}),
    ("k=\\U0041", {"k": "U0041"}),
    ("k=\u00e9\U0001f600", {"k": "\u00e9\U0001f600"}),
    # duplicate keys: the last one wins
    ("a=1\na=2", {"a": "2"}),
    ("a=1\nb=0\na\\\n=3\n", {"a": "3", "b": "0"}),
]


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES)
def test_parse_follows_java(text, expected):
    document = parse_properties(text)
    assert document.to_dict() == expected
    assert document.render() == text


def test_duplicate_keys_keep_first_position_and_last_value():
    document = parse_properties("b=0\na=1\nc=2\na=3\n")
    assert document.to_dict() == {"b": "0", "a": "3", "c": "2"}
    assert document.keys() == ["b", "a", "c"]
    assert document.get("a") == "3"
    assert document.get("missing") is None
    assert document.get("missing", "dflt") == "dflt"


def test_entries_split_logical_lines_with_their_terminators():
    text = "# c \\\r\n\r\n  k = a\\\n   b\rx\n\\\n!c\ny"
    document = parse_properties(text)
    summary = [(e.raw, e.kind, e.lineno, e.key, e.value, e.terminator) for e in document.entries]
    assert summary == [
        ("# c \\\r\n", "comment", 1, None, None, "\r\n"),
        ("\r\n", "blank", 2, None, None, "\r\n"),
        ("  k = a\\\n   b\r", "property", 3, "k", "ab", "\r"),
        ("x\n", "property", 5, "x", "", "\n"),
        ("\\\n!c\n", "comment", 6, None, None, "\n"),
        ("y", "property", 8, "y", "", ""),
    ]
    assert document.entries[2].logical_line == "k = ab"


@pytest.mark.parametrize(
    ("text", "lineno", "part"),
    [
        ("a=1\nb=\\u12G4\n", 2, "value"),
        ("a=1\r\n\r\n# c\r\nb=\\u12\r\n", 4, "value"),
        ("a=1\rb=ok\\uXYZW", 2, "value"),
        ("\n\n\\uZZZZ=1", 3, "key"),
        ("\\u=1", 1, "key"),
        ("k=\\u", 1, "value"),
        ("k=\\u+123", 1, "value"),
        ("k=\\u1_23", 1, "value"),
        ("a=1\nb=x\\\n  \\u00\n", 2, "value"),
        ("a=1\n#\\uZZZZ\nb=\\\n  \\uZZZZ", 3, "value"),
    ],
)
def test_malformed_unicode_escape_names_the_line(text, lineno, part):
    with pytest.raises(PropertiesError, match=rf"^line {lineno}: malformed \\uxxxx escape in the {part}") as info:
        parse_properties(text)
    assert info.value.lineno == lineno
    assert isinstance(info.value, ValueError)


def test_malformed_escape_in_a_comment_is_ignored():
    assert parse_properties("# \\uZZZZ\n! \\u\n").to_dict() == {}


def test_text_must_be_str():
    with pytest.raises(TypeError):
        parse_properties(b"a=1")


@given(RICH_TEXT)
@QUICK
def test_render_is_identity_and_only_properties_error_escapes(text):
    try:
        document = parse_properties(text)
    except PropertiesError as error:
        assert 1 <= error.lineno <= len(natural_lines(text))
        assert str(error).startswith(f"line {error.lineno}: ")
        return
    assert document.render() == text
    # The entries partition the natural lines, and their numbering adds up.
    lineno = 1
    for index, entry in enumerate(document.entries):
        assert entry.raw
        assert entry.lineno == lineno
        lineno += len(natural_lines(entry.raw))
        if index < len(document.entries) - 1:
            assert entry.terminator
        assert (entry.key is None) == (entry.kind != "property")
    assert lineno == len(natural_lines(text)) + 1


# --------------------------------------------------------------------------
# format_property


@pytest.mark.parametrize(
    ("key", "value", "line"),
    [
        ("key", "value", "key=value"),
        ("a b", " x", "a\\ b=\\ x"),
        ("a b", "x  y ", "a\\ b=x  y "),
        ("k=:#!", "=:#!", "k\\=\\:\\#\\!==:#!"),
        ("back\\slash", "a\\b\\", "back\\\\slash=a\\\\b\\\\"),
        ("tab\tkey\f", "l1\nl2\r\f\t", "tab\\tkey\\f=l1\\nl2\\r\\f\\t"),
        ("\tk", "\tv", "\\tk=\\tv"),
        ("caf\u00e9", "\u00ff\u0100", "caf\\u00E9=\\u00FF\\u0100"),
        ("smile", "\U0001f600", "smile=\\uD83D\\uDE00"),
        ("ctl", "\x00\x1f\x7f\x85\u2028", "ctl=\\u0000\\u001F\\u007F\\u0085\\u2028"),
        ("", "v", "=v"),
        ("k", "", "k="),
        ("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093", "listeners=PLAINTEXT://:9092,CONTROLLER://:9093"),
    ],
)
def test_format_property(key, value, line):
    assert format_property(key, value) == line
    assert parse_properties(line).to_dict() == {key: value}


def test_format_property_needs_str():
    with pytest.raises(TypeError):
        format_property("k", 1)
    with pytest.raises(TypeError):
        format_property(None, "v")


@given(key=KEY_OR_VALUE_TEXT.filter(bool), value=KEY_OR_VALUE_TEXT, terminator=st.sampled_from(TERMINATORS))
@QUICK
def test_format_property_round_trips(key, value, terminator):
    line = format_property(key, value)
    assert re.fullmatch(r"[\x20-\x7e]*", line)
    assert parse_properties(line + "\n").to_dict() == {key: value}
    # Also where an edit puts it: after other lines, with any terminator, at the end.
    assert parse_properties("a=1" + terminator + line + terminator).to_dict() == {"a": "1", key: value}
    assert parse_properties("a=1" + terminator + line).to_dict() == {"a": "1", key: value}


# --------------------------------------------------------------------------
# Editing: examples of each rule


def edited(text, changes):
    document = parse_properties(text)
    changed = document.apply(changes)
    return document.render(), changed


def test_set_to_the_current_value_changes_nothing():
    text = "  my\\ key  :  v\\\n     al\\u0075e \r\n"
    assert edited(text, {"my key": "value "}) == (text, False)
    text = "a=1\na=2\n"
    assert edited(text, {"a": "2"}) == (text, False)


def test_set_rewrites_the_last_occurrence_in_place_and_drops_dead_duplicates():
    text = "a=1\n# a comment\na : 2 \\\n   more\r\nb=3\n"
    assert edited(text, {"a": "x"}) == ("# a comment\na=x\r\nb=3\n", True)


def test_set_matches_decoded_keys():
    assert edited("my\\ key=1\n", {"my key": "2"}) == ("my\\ key=2\n", True)
    assert edited("\\u0061 1\n", {"a": "2"}) == ("a=2\n", True)
    assert edited("a\\\n  b=1\n", {"ab": "2"}) == ("ab=2\n", True)


def test_set_keeps_a_missing_final_newline_of_a_rewritten_last_line():
    assert edited("a=1\nb=2", {"b": "3"}) == ("a=1\nb=3", True)


@pytest.mark.parametrize(
    ("text", "result"),
    [
        ("", "new=v\n"),
        ("a=1\n", "a=1\nnew=v\n"),
        ("a=1", "a=1\nnew=v\n"),
        ("# only a comment", "# only a comment\nnew=v\n"),
        ("a=1\r\nb=2\r\n", "a=1\r\nb=2\r\nnew=v\r\n"),
        ("a=1\r\nb=2", "a=1\r\nb=2\r\nnew=v\r\n"),
        ("a=1\rb=2\r", "a=1\rb=2\rnew=v\r"),
        ("a=1\r\nb=2\n", "a=1\r\nb=2\nnew=v\n"),
        ("a=1\r\nb=2\r\nc=3\n", "a=1\r\nb=2\r\nc=3\nnew=v\r\n"),
        ("a=1\rb=2\r\n", "a=1\rb=2\r\nnew=v\r\n"),
        # Ending inside a continuation: an empty line closes it first.
        ("a=b\\", "a=b\\\n\nnew=v\n"),
        ("a=b\\\n", "a=b\\\n\nnew=v\n"),
        ("x=1\r\na=b\\\r", "x=1\r\na=b\\\r\rnew=v\r\n"),
        ("\\\r\n", "\\\r\n\r\nnew=v\r\n"),
        # ... unless Java loads that empty logical line as the key "".
        ("\\", "\\\n=\nnew=v\n"),
        ("\\\n", "\\\n=\nnew=v\n"),
        ("\\\r", "\\\r=\rnew=v\r"),
        # A comment ending in a backslash does not continue.
        ("#c\\", "#c\\\nnew=v\n"),
    ],
)
def test_set_appends_a_new_key(text, result):
    before = parse_properties(text).to_dict()
    assert edited(text, {"new": "v"}) == (result, True)
    assert parse_properties(result).to_dict() == {**before, "new": "v"}


def test_remove_drops_every_occurrence_and_nothing_else():
    text = "a=1\n#a=0\nb=2\n  a \\\n 3\r\n\nc=4"
    assert edited(text, {"a": None}) == ("#a=0\nb=2\n\nc=4", True)
    assert edited(text, {"zzz": None}) == (text, False)
    assert edited("a=1", {"a": None}) == ("", True)


def test_remove_can_fuse_a_lone_cr_with_a_following_empty_lf_line():
    # Documented limitation: "\r" and "\n" meet and read as one "\r\n".
    document = parse_properties("a=1\rb=2\n\nc=3\n")
    assert document.remove("b")
    assert document.render() == "a=1\r\nc=3\n"
    assert [entry.raw for entry in document.entries] == ["a=1\r\n", "c=3\n"]
    assert document.to_dict() == {"a": "1", "c": "3"}


def test_apply_mixes_sets_and_removals_and_reports_change():
    document = PropertiesDocument("# head\na=1\nb=2\n")
    assert document.apply({"a": None, "b": "20", "c": "3"})
    assert document.render() == "# head\nb=20\nc=3\n"
    assert not document.apply({"a": None, "b": "20", "c": "3"})
    assert not document.apply({})
    assert document.render() == "# head\nb=20\nc=3\n"


def test_apply_checks_types_before_changing_anything():
    document = parse_properties("a=1\n")
    with pytest.raises(TypeError):
        document.apply({"a": "2", "b": 3})
    with pytest.raises(TypeError):
        document.apply({1: "2"})
    assert document.render() == "a=1\n"


def test_edit_properties():
    assert edit_properties("a=1\n", {"a": "2", "b": None}) == "a=2\n"


def test_document_is_reparsed_after_edits():
    document = parse_properties("# c\na=1\n")
    document.set("b", "2")
    reparsed = parse_properties(document.render())
    assert document.entries == reparsed.entries
    assert [entry.lineno for entry in document.entries] == [1, 2, 3]


# --------------------------------------------------------------------------
# Editing: properties over generated files


def _unicode_escape(char, upper):
    code = ord(char)
    units = [code] if code <= 0xFFFF else [0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)]
    return "".join(f"\\u{unit:04X}" if upper else f"\\u{unit:04x}" for unit in units)


@st.composite
def spelled(draw, text, in_key):
    """Tokens spelling text, each escaped in one of the ways Java accepts."""
    tokens = []
    for index, char in enumerate(text):
        how = draw(st.integers(0, 3))
        if how == 0:
            tokens.append(_unicode_escape(char, draw(st.booleans())))
        elif char in "\t\n\r\f":
            tokens.append("\\" + "tnrf"["\t\n\r\f".index(char)])
        elif (
            char == "\\"
            or (in_key and char in "=: ")
            or (in_key and index == 0 and char in "#!")
            or (not in_key and index == 0 and char in "=: ")
            or (how == 1 and char in "=:#! ")
        ):
            tokens.append("\\" + char)
        else:
            tokens.append(char)
    return tokens


KEYS = st.text(st.one_of(st.sampled_from(list("abcdef.=:#! \t\\")), st.characters()), max_size=8)
VALUES = st.text(st.one_of(st.sampled_from(list("ab:/,=#! \t\\\n")), st.characters()), max_size=12)


@st.composite
def property_lines(draw):
    key = draw(KEYS)
    value = draw(VALUES)
    separators = ["=", ":", " = ", "\t:  ", "  ="] + ([" ", "\t", "\f "] if key else [])
    tokens = [*draw(spelled(key, True)), draw(st.sampled_from(separators)), *draw(spelled(value, False))]
    # Continuations may go before any token that does not start with whitespace.
    cuts = draw(st.sets(st.integers(1, max(1, len(tokens) - 1)), max_size=3))
    pieces = []
    for index, token in enumerate(tokens):
        if index in cuts and token[0] not in " \t\f":
            pieces.append(("\\", draw(st.sampled_from(["", " ", "\t", "    "]))))
        pieces.append(token)
    indent = draw(st.sampled_from(["", " ", "\t", "  \f"]))
    return key, value, indent, pieces


@st.composite
def properties_files(draw):
    """(text, expected dict) of a file made of properties, comments and blank lines."""
    mode = draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"]))
    lines = draw(
        st.lists(
            st.one_of(
                property_lines(),
                # comments whose text starts with a blank: prose, never a commented template line (#key=...)
                # below which a new key would go; that placement has tests of its own with Kafka's shipped lines
                st.tuples(
                    st.sampled_from(["# ", "! ", " # ", "\t!\t"]),
                    st.text(st.characters(exclude_characters="\r\n"), max_size=10),
                    st.sampled_from(["", "\\"]),
                ).map("".join),
                st.sampled_from(["", " ", "\t\f "]),
            ),
            max_size=12,
        )
    )
    expected = {}
    out = []
    for position, line in enumerate(lines):
        terminator = draw(st.sampled_from(["\n", "\r\n"])) if mode == "mixed" else mode
        if position == len(lines) - 1 and draw(st.booleans()):
            terminator = ""
        if isinstance(line, str):
            out.append(line + terminator)
            continue
        key, value, indent, pieces = line
        expected[key] = value
        text = indent
        for piece in pieces:
            if isinstance(piece, tuple):
                inner = draw(st.sampled_from(["\n", "\r\n"])) if mode == "mixed" else mode
                text += piece[0] + inner + piece[1]
            else:
                text += piece
        out.append(text + terminator)
    return "".join(out), expected


@st.composite
def files_and_changes(draw):
    text, expected = draw(properties_files())
    names = st.sampled_from(sorted(expected)) | KEYS if expected else KEYS
    changes = draw(st.dictionaries(names, st.none() | VALUES, min_size=1, max_size=4))
    return text, expected, changes


@given(files_and_changes())
@SLOWER
def test_edits_change_only_the_edited_keys(case):
    text, original, changes = case
    document = parse_properties(text)
    assert document.to_dict() == original
    assert document.render() == text

    expected = dict(original)
    for key, value in changes.items():
        if value is None:
            expected.pop(key, None)
        else:
            expected[key] = value
    touched = {
        key for key, value in changes.items() if original.get(key) != value and (value is not None or key in original)
    }
    added = [key for key, value in changes.items() if value is not None and key not in original]

    assert document.apply(changes) == bool(touched)
    result = document.render()
    reparsed = parse_properties(result)
    assert reparsed.to_dict() == expected
    assert reparsed.entries == document.entries
    if not touched:
        assert result == text

    # Untouched entries (other keys, comments, blank lines) are kept verbatim and in order.
    before = [entry.raw for entry in parse_properties(text).entries if entry.key not in touched]
    after = [entry.raw for entry in reparsed.entries if entry.key not in touched]
    if added and before and not text.endswith(TERMINATORS) and parse_properties(text).entries[-1].key not in touched:
        # The last line had no terminator and a new line was appended after it.
        assert after[-1] in {before[-1] + terminator for terminator in TERMINATORS}
        before, after = before[:-1], after[:-1]
    assert after == before

    # Each set key is one line, spelled by format_property, where its last
    # occurrence was or, for new keys, appended at the end in order.
    old_entries = parse_properties(text).entries
    last_seen = {entry.key: index for index, entry in enumerate(old_entries) if entry.kind == "property"}
    layout = []
    for index, entry in enumerate(old_entries):
        kept = entry.key not in touched
        rewritten = not kept and last_seen[entry.key] == index and changes[entry.key] is not None
        if kept or rewritten:
            layout.append(entry.key)
    layout += added
    assert [entry.key for entry in reparsed.entries] == layout
    for entry in reparsed.entries:
        if entry.key in touched:
            assert entry.raw in {format_property(entry.key, changes[entry.key]) + t for t in ("", *TERMINATORS)}


def _parses(text):
    try:
        parse_properties(text)
    except PropertiesError:
        return False
    return True


PARSEABLE_RICH_TEXT = RICH_TEXT.filter(_parses)


@given(PARSEABLE_RICH_TEXT, st.data())
@SLOWER
def test_edits_of_arbitrary_text_load_as_expected_and_are_idempotent(text, data):
    document = parse_properties(text)
    original = document.to_dict()
    names = st.sampled_from(sorted(original)) | KEYS if original else KEYS
    changes = data.draw(st.dictionaries(names, st.none() | VALUES, min_size=1, max_size=4))
    expected = dict(original)
    for key, value in changes.items():
        if value is None:
            expected.pop(key, None)
        else:
            expected[key] = value
    document.apply(changes)
    result = document.render()
    assert parse_properties(result).to_dict() == expected
    assert edit_properties(result, changes) == result
    assert not parse_properties(result).apply(changes)


@given(PARSEABLE_RICH_TEXT, st.data())
@SLOWER
def test_one_apply_of_many_keys_equals_one_key_at_a_time(text, data):
    # apply() parses once after all its keys; each key then sees the text the keys before it made
    original = parse_properties(text).to_dict()
    names = st.sampled_from(sorted(original)) | KEYS if original else KEYS
    changes = data.draw(st.dictionaries(names, st.none() | VALUES, min_size=2, max_size=5))
    batched = parse_properties(text)
    batched.apply(changes)
    one_by_one = parse_properties(text)
    for key, value in changes.items():
        one_by_one.apply({key: value})
    assert batched.render() == one_by_one.render()
    assert batched.entries == one_by_one.entries


def test_apply_parses_the_text_once_whatever_the_number_of_keys(monkeypatch):
    from ansible_collections.kafkaops.listeners.plugins.module_utils import _properties

    document = parse_properties("".join("k%d=%d\n" % (n, n) for n in range(100)))
    parses = []
    real = _properties._parse_entries
    monkeypatch.setattr(_properties, "_parse_entries", lambda text: parses.append(len(text)) or real(text))
    assert document.apply({**{"k%d" % n: "new" for n in range(0, 100, 2)}, "k1": None, "added": "x"})
    assert parses == []  # rendering the result does not need it parsed
    assert document.render().startswith("k0=new\nk2=new\nk3=3\n") and document.render().endswith("k99=99\nadded=x\n")
    assert document.to_dict()["k0"] == "new" and "k1" not in document.to_dict()
    assert len(parses) == 1

# --------------------------------------------------------------------------
# A realistic server.properties


def test_fixture_parses_like_a_kraft_server_properties():
    text = FIXTURE.read_text(encoding="latin-1")
    assert len(natural_lines(text)) >= 100
    document = parse_properties(text)
    assert document.render() == text
    properties = document.to_dict()
    assert properties["listeners"] == "PLAINTEXT://:9092,CONTROLLER://:9093"
    assert properties["inter.broker.listener.name"] == "PLAINTEXT"
    assert properties["listener.security.protocol.map"].startswith("CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,")
    assert properties["log.dirs"] == "/tmp/kraft-combined-logs"
    assert properties["num.partitions"] == "1"
    assert "advertised.listeners" not in properties
    assert "log.flush.interval.ms" not in properties
    kinds = [entry.kind for entry in document.entries]
    assert kinds.count("comment") > kinds.count("property") > 20


def test_fixture_edit_touches_only_the_listener_lines():
    text = FIXTURE.read_text(encoding="latin-1")
    changes = {
        "listeners": "INTERNAL://:9092,EXTERNAL://:9094,CONTROLLER://:9093",
        "advertised.listeners": "INTERNAL://broker1.internal:9092,EXTERNAL://broker1.example.com:9094",
        "inter.broker.listener.name": "INTERNAL",
    }
    result = edit_properties(text, changes)
    diff = list(difflib.unified_diff(text.splitlines(True), result.splitlines(True), n=0))
    removed = [line for line in diff[2:] if line.startswith("-")]
    added = [line for line in diff[2:] if line.startswith("+")]
    assert removed == [
        "-listeners=PLAINTEXT://:9092,CONTROLLER://:9093\n",
        "-inter.broker.listener.name=PLAINTEXT\n",
    ]
    assert added == [
        "+listeners=INTERNAL://:9092,EXTERNAL://:9094,CONTROLLER://:9093\n",
        "+inter.broker.listener.name=INTERNAL\n",
        "+advertised.listeners=INTERNAL://broker1.internal:9092,EXTERNAL://broker1.example.com:9094\n",
    ]
    # the new key sits just below the file's commented template line of it
    assert "#advertised.listeners=PLAINTEXT://your.host.name:9092\n" + added[-1][1:] in result
    properties = parse_properties(result).to_dict()
    assert {key: properties[key] for key in changes} == changes
    assert edit_properties(result, changes) == result


# Apache Kafka 3.x's shipped config/server.properties (ZooKeeper mode), its socket server section as released
KAFKA_3_SOCKET_SERVER = """\
############################# Socket Server Settings #############################

# The address the socket server listens on. If not configured, the host name will be equal to the value of
# java.net.InetAddress.getCanonicalHostName(), with PLAINTEXT listener name, and port 9092.
#   FORMAT:
#     listeners = listener_name://host_name:port
#   EXAMPLE:
#     listeners = PLAINTEXT://your.host.name:9092
#listeners=PLAINTEXT://:9092

# Listener name, hostname and port the broker will advertise to clients.
# If not set, it uses the value for "listeners".
#advertised.listeners=PLAINTEXT://your.host.name:9092

# Maps listener names to security protocols, the default is for them to be the same. See the config documentation for more details
#listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL

# The number of threads that the server uses for receiving requests from the network and sending responses to the network
num.network.threads=3
"""  # noqa: E501 - Kafka's own lines, as long as it ships them


def test_new_keys_go_just_below_kafkas_commented_template_lines():
    result = edit_properties(KAFKA_3_SOCKET_SERVER, {
        "listeners": "INTERNAL://:19092,EXTERNAL://:9092",
        "advertised.listeners": "INTERNAL://ip-10-0-0-1.ec2.internal:19092,EXTERNAL://ec2-1.example.com:9092",
        "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
        "inter.broker.listener.name": "INTERNAL",
    })
    lines = result.splitlines()
    after = {line: lines[index + 1] for index, line in enumerate(lines[:-1])}
    # below the template, not below the prose example (#     listeners = ...) above it
    assert after["#listeners=PLAINTEXT://:9092"] == "listeners=INTERNAL://:19092,EXTERNAL://:9092"
    assert after["#     listeners = PLAINTEXT://your.host.name:9092"] == "#listeners=PLAINTEXT://:9092"
    assert after["#advertised.listeners=PLAINTEXT://your.host.name:9092"] == (
        "advertised.listeners=INTERNAL://ip-10-0-0-1.ec2.internal:19092,EXTERNAL://ec2-1.example.com:9092")
    assert after["#listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                 "SASL_SSL:SASL_SSL"] == "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT"
    # no template: at the end
    assert lines[-2:] == ["num.network.threads=3", "inter.broker.listener.name=INTERNAL"]
    # every original line kept, in order
    assert [line for line in lines if line in KAFKA_3_SOCKET_SERVER.splitlines()] == \
        KAFKA_3_SOCKET_SERVER.splitlines()


@pytest.mark.parametrize("text, expected", [
    # the last template line wins; its own terminator ends the new line
    ("#a=1\r\nb=2\r\n#a=2\r\nc=3\r\n", "#a=1\r\nb=2\r\n#a=2\r\na=9\r\nc=3\r\n"),
    ("!a: x\nb=2\n", "!a: x\na=9\nb=2\n"),
    # prose, a space after the comment character, or no separator: appended instead
    ("# a=1\nb=2\n", "# a=1\nb=2\na=9\n"),
    ("#a is set below\nb=2\n", "#a is set below\nb=2\na=9\n"),
    ("#ab=1\nb=2\n", "#ab=1\nb=2\na=9\n"),
    # a template on the last line without a terminator: appended after it, closed first
    ("b=2\n#a=1", "b=2\n#a=1\na=9\n"),
])
def test_template_line_placement(text, expected):
    assert edit_properties(text, {"a": "9"}) == expected
    assert parse_properties(expected).get("a") == "9"


def test_a_line_below_a_lone_cr_template_does_not_fuse_with_an_empty_line():
    # removing x leaves the template's lone \r before the empty \n line: the new line ends with \r\n instead
    for changes in ({"a": "9", "x": None}, {"x": None, "a": "9"}):
        result = edit_properties("#a=1\rx=1\n\nb=2\n", changes)
        assert result == "#a=1\ra=9\r\n\nb=2\n"
        kinds = [entry.kind for entry in parse_properties(result).entries]
        assert kinds == ["comment", "property", "blank", "property"]
