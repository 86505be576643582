"""The Requirements page, the execution-environment files and the code say the same.

The page shows meta/execution-environment.yml, requirements.txt and bindep.txt as they are (test_examples.py's
`file` check); this module holds those files to the code: the Python packages are exactly the modules' documented
requirements, every other import of the plugins is the standard library, and each system package is a command the
collection runs.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

REPO_ROOT = Path(__file__).resolve().parents[2]
PAGE = REPO_ROOT / "docs" / "docsite" / "rst" / "requirements.rst"
PLUGINS = sorted((REPO_ROOT / "plugins").rglob("*.py"))
# the import name of each Python package requirements.txt names
IMPORT_NAMES = {"boto3": {"boto3", "botocore"}, "dnspython": {"dns"}, "cryptography": {"cryptography"}}
# managed nodes: the oldest Python the page promises
OLDEST_NODE_PYTHON = "3.8"


def python_requirements() -> dict[str, Requirement]:
    lines = (REPO_ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    requirements = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    return {requirement.name: requirement for requirement in requirements}


def documented_requirements() -> dict[str, str]:
    """{package: version specifier or ""} from the `requirements:` of every module's DOCUMENTATION."""
    found = {}
    for path in (REPO_ROOT / "plugins" / "modules").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "DOCUMENTATION":
                for entry in yaml.safe_load(node.value.value).get("requirements", []):
                    name, spec = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*([<>=!~]=?\s*[0-9.]+)?.*", entry).groups()
                    found[name] = (spec or "").replace(" ", "")
    return found


def test_execution_environment_metadata_names_the_files_and_they_ship():
    meta = yaml.safe_load((REPO_ROOT / "meta" / "execution-environment.yml").read_text(encoding="utf-8"))
    assert meta["dependencies"] == {"python": "requirements.txt", "system": "bindep.txt"}
    ignored = yaml.safe_load((REPO_ROOT / "galaxy.yml").read_text(encoding="utf-8"))["build_ignore"]
    for name in ("meta/execution-environment.yml", "requirements.txt", "bindep.txt"):
        assert (REPO_ROOT / name).is_file(), name
        assert not any(fnmatch.fnmatch(name, pattern) for pattern in ignored), f"build_ignore drops {name}"


def test_python_requirements_are_the_documented_ones():
    documented, required = documented_requirements(), python_requirements()
    assert set(required) == set(documented), (sorted(required), sorted(documented))
    for name, spec in documented.items():
        assert not spec or str(required[name].specifier) == spec, f"{name}: module docs {spec}, requirements.txt " \
                                                                   f"{required[name].specifier}"
    # the tests run with at least what users are asked for
    dev = {Requirement(line).name: Requirement(line) for line in
           (REPO_ROOT / "requirements-dev.txt").read_text(encoding="utf-8").splitlines()
           if line.strip() and not line.startswith("#")}
    assert {name: str(dev[name].specifier) for name in required} == \
           {name: str(requirement.specifier) for name, requirement in required.items()}


def guarded_imports(tree: ast.Module) -> set[int]:
    """The ids of the import nodes inside a `try` that catches ImportError."""
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(handler.type is not None and "ImportError" in ast.unparse(handler.type)
                                             for handler in node.handlers):
            guarded.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return guarded


def test_plugins_import_only_the_standard_library_and_the_optional_packages():
    allowed = set(sys.stdlib_module_names) | {"__future__", "ansible", "ansible_collections"}
    optional = set().union(*(IMPORT_NAMES[name] for name in python_requirements()))
    unguarded, unlisted = [], []
    for path in PLUGINS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded = guarded_imports(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                tops = {node.module.split(".")[0]}
            else:
                continue
            where = f"{path.relative_to(REPO_ROOT)}:{node.lineno}"
            for top in tops - allowed:
                (unlisted if top not in optional else unguarded if id(node) not in guarded else []).append(
                    f"{where} {top}")
    assert not unlisted, f"imports that are neither the standard library nor in requirements.txt: {unlisted}"
    assert not unguarded, f"optional packages imported outside try/except ImportError: {unguarded}"


def test_system_packages_are_commands_the_collection_runs_on_managed_nodes():
    entries = [line.split("#")[0].strip() for line in (REPO_ROOT / "bindep.txt").read_text(encoding="utf-8")
               .splitlines()]
    entries = [entry for entry in entries if entry]
    assert entries, "bindep.txt lists nothing"
    code = "\n".join(path.read_text(encoding="utf-8") for path in
                     PLUGINS + sorted((REPO_ROOT / "roles").rglob("*.yml")))
    for entry in entries:
        name, profiles = re.fullmatch(r"(\S+)\s*(\[.*\])?", entry).groups()
        assert profiles, f"bindep.txt: {name} has no profile, so ansible-builder would put it in every execution " \
                         "environment: the controller needs no system package"
        assert re.search(rf"\b{re.escape(name)}\b", code), f"bindep.txt: nothing in plugins/ or roles/ runs {name}"


def test_page_names_the_declared_ansible_core_range():
    requires = yaml.safe_load((REPO_ROOT / "meta" / "runtime.yml").read_text(encoding="utf-8"))["requires_ansible"]
    page = PAGE.read_text(encoding="utf-8")
    assert f"**ansible-core** ``{requires}``" in page
    assert f"**Python** {OLDEST_NODE_PYTHON} or later" in page


def test_module_utils_import_on_the_oldest_managed_node_python():
    """Every module_utils file imports on the oldest Python the page promises managed nodes (pyenv's)."""
    pythons = sorted(Path("/root/.pyenv/versions").glob(f"{OLDEST_NODE_PYTHON}.*/bin/python"))
    if not pythons:
        if os.environ.get("CI"):
            pytest.fail(f"no Python {OLDEST_NODE_PYTHON} under /root/.pyenv/versions")
        pytest.skip(f"no Python {OLDEST_NODE_PYTHON} under /root/.pyenv/versions")
    names = [".".join(("ansible_collections", "kafkaops", "listeners") + path.relative_to(REPO_ROOT)
                      .with_suffix("").parts).replace(".__init__", "")
             for path in sorted((REPO_ROOT / "plugins" / "module_utils").rglob("*.py"))]
    script = ("import importlib, sys\n"
              "for name in sys.argv[1:]:\n"
              "    try:\n"
              "        importlib.import_module(name)\n"
              "    except ImportError as error:\n"
              "        if (error.name or '').split('.')[0] not in ('ansible', 'dns', 'boto3', 'botocore'):\n"
              "            raise\n")
    collections = REPO_ROOT / ".venv" / "collections"
    proc = subprocess.run([str(pythons[-1]), "-c", script, *names], capture_output=True, text=True, timeout=120,
                          env={"PATH": os.environ["PATH"], "PYTHONPATH": str(collections),
                               "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
