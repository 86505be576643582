# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The broker's pre-start program as one self-contained Python script: _prestart.py and every collection
module_utils module it imports, as source text served to ``import`` by a finder of its own. Built on the controller
by the prestart_program filter, and by broker_start_files to compare the installed program with it."""

from __future__ import annotations

import os
import re

PACKAGE = "ansible_collections.kafkaops.listeners.plugins.module_utils"
MODULE_UTILS = os.path.dirname(os.path.abspath(__file__))
ENTRY = PACKAGE + "._prestart"

# Serves the bundled sources to `import`: a finder on sys.meta_path, so the modules import each other by their
# collection names as they do under Ansible
_LOADER = '''
import importlib.abc
import importlib.util
import sys


class _Bundled(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name in _PACKAGES or name in _SOURCES:
            return importlib.util.spec_from_loader(name, self, is_package=name in _PACKAGES)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        code = compile(_SOURCES.get(module.__name__, ""), "<kafkaops.listeners %s>" % module.__name__, "exec")
        exec(code, module.__dict__)


sys.meta_path.insert(0, _Bundled())
from @ENTRY@ import main  # noqa: E402

sys.exit(main())
'''


# The collection's imports in a module's source, read line by line (an ast.parse of the 35 files cost 120 ms a build,
# in every Ansible worker that rendered the program): `from PACKAGE... import a, b` (its names in parentheses over
# several lines, or continued with a backslash) and `import PACKAGE...[, ...]`, indented too (inside a function).
# Only statements that start a line: tests/unit/plugins/module_utils/test_prestart_bundle.py checks the result
# against an ast walk over every module_utils file.
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(%s(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\n)*)"
                          % re.escape(PACKAGE), re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+((?:[^\n\\]|\\\n)*)", re.MULTILINE)


def _names(clause: str) -> list:
    """The imported names of an import clause (``a as b, c`` or its parenthesised, commented, continued form)."""
    clause = re.sub(r"#[^\n]*", "", clause).replace("\\\n", " ").strip("() \t\n")
    return [item.split()[0] for item in clause.split(",") if item.strip()]


def collection_imports(source: str) -> list:
    """The collection module_utils modules ``source`` may import: each ``from`` module and each name it imports as
    a possible submodule (as Ansible's module packer reads them), and each module of a plain ``import``."""
    found = []
    for match in _FROM_IMPORT.finditer(source):
        found.append(match.group(1))
        found.extend("%s.%s" % (match.group(1), name) for name in _names(match.group(2)))
    for match in _IMPORT.finditer(source):
        found.extend(name for name in _names(match.group(1)) if name.startswith(PACKAGE + "."))
    return found


def _path_of(module: str) -> str | None:
    """The file of a collection module_utils module (a package's __init__.py), or None."""
    relative = module[len(PACKAGE) + 1:].split(".")
    base = os.path.join(MODULE_UTILS, *relative)
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None


def bundled_sources(entry: str = ENTRY) -> dict:
    """{module name: source} of ``entry`` and every collection module_utils module it imports, transitively
    (imports inside functions included, as Ansible's module packer reads them)."""
    sources, pending = {}, [entry]
    while pending:
        module = pending.pop()
        path = _path_of(module)
        if module in sources or path is None:
            continue
        with open(path, encoding="utf-8") as handle:
            sources[module] = handle.read()
        pending.extend(collection_imports(sources[module]))
    return sources


def program_text(interpreter) -> str:
    """The pre-start program's text for ``interpreter``, the absolute path of the Python 3 on the broker that runs
    it (its ``#!`` line); ValueError for anything else."""
    if not isinstance(interpreter, str) or not interpreter.startswith("/") or any(c.isspace() for c in interpreter):
        raise ValueError("expected the absolute path of a Python interpreter, got %r" % (interpreter,))
    sources = bundled_sources()
    packages = sorted({".".join(name.split(".")[:depth]) for name in sources
                       for depth in range(1, name.count(".") + 1)}
                      | {name for name in sources if _path_of(name).endswith("__init__.py")})
    lines = ["#!%s" % interpreter,
             "# kafka-listeners-prestart: installed by the kafkaops.listeners broker role; generated from the",
             "# collection's module_utils (do not edit: the role writes it again). See its --help.",
             "_PACKAGES = frozenset(%r)" % (packages,),
             "_SOURCES = {"]
    lines.extend("    %r: %r," % (name, sources[name]) for name in sorted(sources))
    lines.append("}")
    return "\n".join(lines) + "\n" + _LOADER.replace("@ENTRY@", ENTRY)
