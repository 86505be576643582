# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The pre-start program's build finds the collection's imports line by line, as an ast walk (Ansible's module packer)
would (the prestart_program filter's own tests are in tests/unit/plugins/filter: module_utils tests run without
Ansible's controller code)."""

from __future__ import annotations

import ast
import pathlib

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils import _prestart_bundle as program

PACKAGE = program.PACKAGE
MODULE_UTILS_FILES = sorted(pathlib.Path(program.MODULE_UTILS).rglob("*.py"))


def imports_by_ast(source):
    """The build's former reading of ``source``'s collection imports: an ast walk, imports in functions included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
            found.append(node.module)
            found.extend("%s.%s" % (node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names if alias.name.startswith(PACKAGE + "."))
    return found


def test_every_module_utils_file_is_read_there():
    assert len(MODULE_UTILS_FILES) > 30


@pytest.mark.parametrize("path", MODULE_UTILS_FILES, ids=lambda path: path.name)
def test_the_line_scan_finds_what_an_ast_walk_finds_in_each_module_utils_file(path):
    source = path.read_text(encoding="utf-8")
    assert sorted(program.collection_imports(source)) == sorted(imports_by_ast(source))


@pytest.mark.parametrize("source", [
    "from %s._endpoints import (\n    endpoint,  # the one\n    Endpoint as E,\n)\n" % PACKAGE,
    "from %s._endpoints import endpoint, \\\n    Endpoint\n" % PACKAGE,
    "def f():\n    if True:\n        from %s._metadata import aws as cloud  # noqa\n" % PACKAGE,
    "import %s._hostport as hp, os, %s._metadata.gcp\n" % (PACKAGE, PACKAGE),
    "from %s import _records\n" % PACKAGE,
    '"""from elsewhere import nothing"""\nimport os\nfrom json import loads\n',
], ids=["parenthesised", "continued", "in-a-function", "plain-imports", "package", "none"])
def test_the_line_scan_reads_each_form_of_import_as_an_ast_walk_does(source):
    assert sorted(program.collection_imports(source)) == sorted(imports_by_ast(source))


def test_the_program_is_the_same_text_as_built_with_an_ast_walk(monkeypatch):
    new = program.program_text("/usr/bin/python3")
    monkeypatch.setattr(program, "collection_imports", imports_by_ast)
    assert new == program.program_text("/usr/bin/python3")
    assert new.startswith("#!/usr/bin/python3\n") and "%s._prestart" % PACKAGE in new


@pytest.mark.parametrize("interpreter", ["python3", "/usr/bin/python 3", None, ["/usr/bin/python3"]])
def test_anything_but_an_absolute_interpreter_path_is_refused(interpreter):
    with pytest.raises(ValueError, match="expected the absolute path of a Python interpreter, got"):
        program.program_text(interpreter)
