# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Tests of the environment-file reader and editor (Compose env_file syntax)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.kafkaops.listeners.plugins.module_utils._env_file import (
    EnvFileError,
    format_env_value,
    parse_env_file,
)

# A file with every statement form Compose reads, each line's value as Compose's documentation gives it
COMPOSE_FORMS = (
    "# the broker container\n"
    "\n"
    "KAFKA_NODE_ID=1\n"
    "  export KAFKA_PROCESS_ROLES=broker,controller   \n"
    "KAFKA_LISTENERS=PLAINTEXT://:9092 # inline comment\n"
    "KAFKA_HASH=a#b\n"
    "KAFKA_SINGLE='literal $HOME \\n'\n"
    'KAFKA_DOUBLE="tab\\there \\"q\\""  # after quotes\n'
    "KAFKA_MULTI='one\r\ntwo'\r\n"
    "KAFKA_YAML: spaced value\n"
    "KAFKA_EMPTY=\n"
    "KAFKA_FROM_SHELL\n"
    "\t# indented comment"
)
COMPOSE_VALUES = {
    "KAFKA_NODE_ID": "1",
    "KAFKA_PROCESS_ROLES": "broker,controller",
    "KAFKA_LISTENERS": "PLAINTEXT://:9092",
    "KAFKA_HASH": "a#b",
    "KAFKA_SINGLE": "literal $HOME \\n",
    "KAFKA_DOUBLE": 'tab\there "q"',
    "KAFKA_MULTI": "one\r\ntwo",
    "KAFKA_YAML": "spaced value",
    "KAFKA_EMPTY": "",
}

HOSTILE = [
    "", " leading", "trailing ", "a b", "x #not a comment", "#start", "$HOME", "${KAFKA_NODE_ID}", "'", '"', "\\",
    "ends\\", "a'b c", "back`tick`", "tab\there", "é ü 😀", "=", "a=b=c", "KEY2=injected", "line\nKEY2=injected",
    "cr\r", "nul\x00", "del\x7f", "\u2028", "\xa0nbsp\xa0", "x\x85", "[::1]:9092",
    "INTERNAL://[fe80::1%eth0]:19092,EXTERNAL://h:9092",
]


def test_every_compose_form_is_read_as_compose_reads_it():
    document = parse_env_file(COMPOSE_FORMS)
    assert document.to_dict() == COMPOSE_VALUES
    assert document.render() == COMPOSE_FORMS


def test_an_edit_changes_only_its_lines_and_keeps_the_rest_byte_for_byte():
    document = parse_env_file(COMPOSE_FORMS)
    assert document.apply({"KAFKA_LISTENERS": "INTERNAL://:19092", "KAFKA_DOUBLE": None, "KAFKA_NEW": "x y"})
    assert document.render() == COMPOSE_FORMS.replace(
        "KAFKA_LISTENERS=PLAINTEXT://:9092 # inline comment\n", "KAFKA_LISTENERS=INTERNAL://:19092\n").replace(
        'KAFKA_DOUBLE="tab\\there \\"q\\""  # after quotes\n', "") + "\r\nKAFKA_NEW=x y\r\n"
    assert parse_env_file(document.render()).to_dict() == dict(
        {key: value for key, value in COMPOSE_VALUES.items() if key != "KAFKA_DOUBLE"},
        KAFKA_LISTENERS="INTERNAL://:19092", KAFKA_NEW="x y")


def test_a_value_that_already_reads_the_same_leaves_its_line_as_written():
    text = "KAFKA_A='x'  # quoted on purpose\nKAFKA_B=1\n"
    document = parse_env_file(text)
    assert not document.apply({"KAFKA_A": "x", "KAFKA_C": None})
    assert document.render() == text


def test_repeated_variables_keep_the_last_place_and_lose_the_others():
    document = parse_env_file("A=1\nB=2\nA=3\n")
    assert document.to_dict() == {"A": "3", "B": "2"}
    assert document.apply({"A": "3"})
    assert document.render() == "B=2\nA=3\n"
    assert document.apply({"B": "4"}) and document.render() == "B=4\nA=3\n"


def test_an_empty_file_and_a_file_without_a_final_newline_get_whole_lines():
    document = parse_env_file("")
    document.apply({"A": "1"})
    assert document.render() == "A=1\n"
    document = parse_env_file("# c")
    document.apply({"A": "1"})
    assert document.render() == "# c\nA=1\n"


@pytest.mark.parametrize("value", HOSTILE)
def test_a_hostile_value_is_written_so_that_it_reads_back_or_refused_naming_the_variable(value):
    try:
        line = format_env_value("KAFKA_X", value)
    except EnvFileError as exc:
        assert str(exc).startswith("KAFKA_X: "), exc
        assert any(char in value for char in "\r\n\x00\x7f\u2028'") or value.endswith("\\"), value
        return
    # one line, one variable, and it reads back as given
    assert "\n" not in line and "\r" not in line
    assert parse_env_file(line + "\n").to_dict() == {"KAFKA_X": value}
    # a bare value is what `docker run --env-file` takes too: everything after the first "="
    if not line.startswith("KAFKA_X='"):
        assert line.split("=", 1)[1] == value


@pytest.mark.parametrize("value", ["line\nKEY2=injected", "cr\r", "nul\x00", "a'b c", " ends\\"])
def test_a_refused_value_leaves_the_document_unchanged(value):
    document = parse_env_file("A=1\n")
    with pytest.raises(EnvFileError, match="^B: "):
        document.apply({"A": "2", "B": value})
    assert document.render() == "A=1\n"


@pytest.mark.parametrize("key", ["", "1ABC", "A-B", "A.B", "A B", "A=B", "A\nB", None, 3])
def test_a_name_that_is_not_a_variable_name_is_refused(key):
    with pytest.raises(EnvFileError, match="not an environment variable name"):
        format_env_value(key, "x")


@pytest.mark.parametrize(("text", "message"), [
    ("A=1\nnot a line\n", "^line 2: expected = after the variable name not"),
    ("A=1\n-B=2\n", "^line 2: expected a variable name"),
    ("A='open\nB=2\n", "^line 1: the quoted value has no closing '"),
    ('A="x" y\n', '^line 1: unexpected text after the closing "'),
])
def test_a_file_compose_cannot_read_is_refused_naming_the_line(text, message):
    with pytest.raises(EnvFileError, match=message):
        parse_env_file(text)


@settings(max_examples=300, deadline=None)
@given(st.text(st.one_of(st.sampled_from(list(" \t#$'\"\\`=:\r\n")), st.characters(exclude_categories=["Cs"]))))
def test_any_value_reads_back_or_is_refused(value):
    try:
        line = format_env_value("KAFKA_X", value)
    except EnvFileError:
        return
    assert parse_env_file("A=1\n" + line + "\nB=2\n").to_dict() == {"A": "1", "KAFKA_X": value, "B": "2"}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(COMPOSE_FORMS.splitlines(keepends=True)), max_size=12).map("".join))
def test_every_readable_text_renders_back_unchanged(text):
    try:
        document = parse_env_file(text)
    except EnvFileError:
        return
    assert document.render() == text
