# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kafka-listeners-lint console script, run as users run it: the installed executable in the venv."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
LINT = Path(sys.executable).parent / "kafka-listeners-lint"


def lint(*args, stdin=None):
    assert LINT.exists(), "%s is missing: run `make venv` (pip install -e .)" % LINT
    return subprocess.run([str(LINT), *args], capture_output=True, text=True, input=stdin, timeout=60, check=False)


@pytest.mark.parametrize("name", [
    "single-listener.properties", "internal-external.properties", "kraft-combined.properties"])
def test_clean_files_exit_zero_and_print_nothing(name):
    result = lint(str(FIXTURES / name))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize(("name", "rule", "message"), [
    ("broken-option2-no-inter-broker.properties", "R11",
     "requirement failed: inter.broker.listener.name must be a listener name defined in advertised.listeners."),
    ("broken-wildcard-advertised.properties", "R13",
     "requirement failed: advertised.listeners cannot use the nonroutable meta-address 0.0.0.0."),
    ("broken-same-port.properties", "R5", "requirement failed: Each listener must have a different port"),
])
def test_broken_layouts_fire_the_right_rule(name, rule, message):
    path = str(FIXTURES / name)
    result = lint(path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("%s: %s: %s" % (path, rule, message))


def test_unreadable_input_exits_two_even_with_findings_elsewhere():
    result = lint(str(FIXTURES / "broken-same-port.properties"), str(FIXTURES / "unparseable.properties"),
                  str(FIXTURES / "does-not-exist.properties"))
    assert result.returncode == 2
    assert "unparseable.properties: cannot check:" in result.stderr
    assert "does-not-exist.properties: cannot check:" in result.stderr
    assert ": R5: " in result.stdout


def test_json_output_and_stdin():
    result = lint("--format", "json", "-", stdin=(FIXTURES / "broken-option2-no-inter-broker.properties").read_text())
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert [f["rule"] for f in report[0]["findings"]] == ["R11"]


def test_stdin_is_read_as_files_are_whatever_the_locale(tmp_path):
    # bytes as ISO-8859-1, as Kafka reads them: an e-acute byte in a comment and a key is no decoding error, and the
    # same bytes give the same answer from a file and from standard input
    data = b"# broker \xe9\n" + (FIXTURES / "broken-option2-no-inter-broker.properties").read_bytes() + b"k\xe9=\xff\n"
    env = dict(os.environ, LC_ALL="C", LANG="C", PYTHONIOENCODING="")
    from_stdin = subprocess.run([str(LINT), "-"], input=data, capture_output=True, timeout=60, check=False, env=env)
    assert (from_stdin.returncode, from_stdin.stderr) == (1, b"")
    assert from_stdin.stdout.startswith(b"-: R11: ")
    (tmp_path / "f").write_bytes(data)
    from_file = subprocess.run([str(LINT), str(tmp_path / "f")], capture_output=True, timeout=60, check=False, env=env)
    assert from_file.stdout.replace(str(tmp_path / "f").encode(), b"-") == from_stdin.stdout


def test_list_rules_names_all_24():
    result = lint("--list-rules")
    assert result.returncode == 0
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["R%d" % n for n in range(1, 25)]


def test_kafka_version_picks_that_releases_wording():
    path = str(FIXTURES / "broken-same-port.properties")
    old, new = lint(path), lint("--kafka-version", "4.4.0", path)
    assert (old.returncode, new.returncode) == (1, 1)
    assert ": R5: requirement failed: Each listener must have a different port" in old.stdout
    assert ": R5: Error creating broker listeners from '[" in new.stdout


def test_an_unknown_kafka_version_is_a_usage_error():
    result = lint("--kafka-version", "newest", str(FIXTURES / "broken-same-port.properties"))
    assert result.returncode == 2 and "kafka_version must look like 4.4 or 3.9.2" in result.stderr


def test_file_names_are_printed_escaped(tmp_path):
    # a name holding a line break that forges a clean line, and terminal escapes
    hostile = tmp_path / "x\nserver.properties: clean\x1b]0;pwned\x07.properties"
    hostile.write_bytes((FIXTURES / "broken-same-port.properties").read_bytes())
    missing = tmp_path / "gone\x1b[2J.properties"
    result = lint(str(hostile), str(missing))
    assert result.returncode == 2
    assert "\x1b" not in result.stdout + result.stderr and "\x07" not in result.stdout + result.stderr
    assert all(line.startswith(str(tmp_path)) for line in (result.stdout + result.stderr).splitlines())
    assert "x\\x0aserver.properties: clean\\x1b]0;pwned\\x07.properties: R5: " in result.stdout
    assert "gone\\x1b[2J.properties: cannot check:" in result.stderr
