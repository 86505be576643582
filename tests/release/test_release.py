"""Release checks: the tarball `ansible-galaxy collection build` makes, installed the way users install it.

Built from this checkout, installed with `ansible-galaxy collection install --force -p <fresh empty path>` (never
~/.ansible), and used from there only: Ansible is told not to scan sys.path, where the venv links the checkout.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import tarfile
from pathlib import Path

import pytest
import yaml
from conftest import REPO_ROOT, VENV_BIN, release_env, run

from kafkaops_lab.playbook_runs import PlaybookRun, run_playbook

# Development and test material that must never ship: the lab (a test double of a cloud and of Kafka), the suites
# that need it, benchmarks, tools, the audit job and the lint CLI package (installed with pip, not Galaxy).
FORBIDDEN_PREFIXES = (
    "lab/", "tests/output/", "tests/cli/", "tests/terraform/", "tests/release/", "tests/docs/",
    "extensions/molecule/", "benchmarks/", "tools/", "audit/", "kafka_listeners/", "docs/build/", "build/", "dist/",
    ".venv/", ".ci/", ".pytest_cache/", ".ruff_cache/", ".hypothesis/",
)
FORBIDDEN_FILES = {"Makefile", "pyproject.toml", "setup.py", "MANIFEST.in", "requirements-dev.txt",
                   "changelogs/.plugin-cache.yaml"}
FORBIDDEN_PATTERN = re.compile(r"(^|/)([^/]+\.egg-info|__pycache__)(/|$)|\.pyc$|\.tar\.gz$")
REQUIRED_FILES = (
    "MANIFEST.json", "FILES.json", "README.md", "meta/runtime.yml", "playbooks/site.yml", "playbooks/verify.yml",
    "roles/broker/meta/argument_specs.yml", "roles/verify/meta/argument_specs.yml", "docs/docsite/extra-docs.yml",
    "docs/docsite/links.yml", "meta/execution-environment.yml", "requirements.txt", "bindep.txt",
    "terraform/modules/kafka-listeners/run-playbook.sh",
    "terraform/modules/kafka-listeners/hook.py",
)


def members(tarball: Path) -> list[str]:
    with tarfile.open(tarball) as archive:
        return [member.name.removeprefix("./") for member in archive.getmembers() if member.isfile()]


def source_filters() -> set[str]:
    """Every filter the checkout's filter plugins define (FilterModule().filters())."""
    names = set()
    for path in (REPO_ROOT / "plugins" / "filter").glob("*.py"):
        module = importlib.import_module(f"ansible_collections.kafkaops.listeners.plugins.filter.{path.stem}")
        names.update(module.FilterModule().filters())
    return names


def test_tarball_holds_the_collection_and_nothing_else(tarball):
    names = members(tarball)
    leaked = sorted(name for name in names if name.startswith(FORBIDDEN_PREFIXES) or name in FORBIDDEN_FILES
                    or FORBIDDEN_PATTERN.search(name))
    assert not leaked, f"{tarball.name} ships development files (add them to build_ignore in galaxy.yml): {leaked}"
    missing = [name for name in REQUIRED_FILES if name not in names]
    assert not missing, f"{tarball.name} lacks {missing}"
    shipped_modules = {Path(name).stem for name in names if re.fullmatch(r"plugins/modules/[^/]+\.py", name)}
    source_modules = {path.stem for path in (REPO_ROOT / "plugins" / "modules").glob("*.py")}
    assert shipped_modules == source_modules
    version = yaml.safe_load((REPO_ROOT / "galaxy.yml").read_text())["version"]
    assert tarball.name == f"kafkaops-listeners-{version}.tar.gz"


# What only a broker does, and so only the lab's stand-in may hold: read requests, write responses, handle record
# batches. A client writes requests and reads responses; the collection ships only a client.
SERVER_SIDE_NAME = re.compile(r"(?i)(decode|read|parse)_?\w*request|(encode|write)_?\w*response|batch|peek_request")
LAB_MODULE = re.compile(r"(^|\.)(kafkaops_lab|kafka_standin|lab)(\.|$)")


def shipped_python(tarball: Path) -> dict[str, ast.Module]:
    """{shipped .py file: its syntax tree}."""
    with tarfile.open(tarball) as archive:
        return {member.name.removeprefix("./"): ast.parse(archive.extractfile(member).read())
                for member in archive.getmembers() if member.isfile() and member.name.endswith(".py")}


def optional_imports(tree: ast.Module) -> set[int]:
    """The ids of the nodes inside a `try` whose handlers catch ImportError: code that runs without what it imports."""
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(handler.type is not None and "ImportError" in ast.unparse(handler.type)
                                             for handler in node.handlers):
            guarded.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return guarded


def test_tarball_holds_no_lab_or_server_code(tarball):
    shipped = shipped_python(tarball)
    assert "plugins/module_utils/_kafka_wire.py" in shipped, sorted(shipped)
    server_side, lab = {}, {}
    for name, tree in shipped.items():
        # the unit tests may use the lab's metadata emulator where the lab is installed; nothing may need the lab
        optional = optional_imports(tree) if name.startswith("tests/") else set()
        for node in ast.walk(tree):
            if id(node) in optional:
                continue
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and SERVER_SIDE_NAME.search(node.name) \
                    and name.startswith("plugins/"):  # tests/unit ships too, and its fake brokers read requests
                server_side.setdefault(name, []).append(node.name)
            modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            lab.setdefault(name, []).extend(module for module in modules if LAB_MODULE.search(module))
    assert not server_side, f"{tarball.name} ships server-side code (it belongs in lab/kafkaops_lab/kafka_standin): " \
                            f"{server_side}"
    assert not {name: modules for name, modules in lab.items() if modules}, f"{tarball.name} imports the lab: {lab}"


def test_installed_collection_is_the_only_one_ansible_sees(installed):
    folder, env = installed
    proc = run([VENV_BIN / "ansible-galaxy", "collection", "list", "kafkaops.listeners", "--format", "json"],
               env=env, cwd=folder.parents[2])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    listed = json.loads(proc.stdout)
    assert list(listed) == [str(folder.parents[1])], listed
    manifest = json.loads((folder / "MANIFEST.json").read_text())["collection_info"]
    assert manifest["version"] == listed[str(folder.parents[1])]["kafkaops.listeners"]["version"]


def test_collection_installs_from_a_git_url(tmp_path):
    """`ansible-galaxy collection install git+URL,REF` (the quick start's way until Galaxy) installs this
    repository's committed HEAD, with galaxy.yml's version, and no development files."""
    collections = tmp_path / "collections"
    config = tmp_path / "ansible.cfg"
    config.write_text("[defaults]\n", encoding="utf-8")
    env = release_env(collections, config)
    proc = run([VENV_BIN / "ansible-galaxy", "collection", "install", "-p", collections,
                f"git+file://{REPO_ROOT},HEAD"], env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = collections / "ansible_collections" / "kafkaops" / "listeners"
    manifest = json.loads((folder / "MANIFEST.json").read_text())["collection_info"]
    assert manifest["version"] == yaml.safe_load((REPO_ROOT / "galaxy.yml").read_text())["version"]
    assert not (folder / "lab").exists() and (folder / "playbooks" / "site.yml").is_file()


def ansible_doc(env: dict, cwd: Path, plugin_type: str, name: str) -> dict:
    proc = run([VENV_BIN / "ansible-doc", "--json", "-t", plugin_type, name], env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def listed_plugins(env: dict, cwd: Path, plugin_type: str) -> set[str]:
    proc = run([VENV_BIN / "ansible-doc", "--list", "--json", "-t", plugin_type, "kafkaops.listeners"], env=env,
               cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {name.removeprefix("kafkaops.listeners.") for name in json.loads(proc.stdout)}


def test_ansible_doc_documents_every_module_filter_and_callback_from_the_install(installed):
    folder, env = installed
    cwd = folder.parents[2]
    # the check below can fail: a name that does not exist gives {} with exit status 0
    assert ansible_doc(env, cwd, "module", "kafkaops.listeners.no_such_module") == {}
    modules = listed_plugins(env, cwd, "module")
    assert modules == {path.stem for path in (REPO_ROOT / "plugins" / "modules").glob("*.py")}
    filters = listed_plugins(env, cwd, "filter")
    assert filters == source_filters()
    callbacks = listed_plugins(env, cwd, "callback")
    assert callbacks == {path.stem for path in (REPO_ROOT / "plugins" / "callback").glob("*.py")} == {"preload"}
    undocumented = []
    for plugin_type, names in (("module", modules), ("filter", filters), ("callback", callbacks)):
        for name in sorted(names):
            doc = ansible_doc(env, cwd, plugin_type, f"kafkaops.listeners.{name}")
            entry = doc.get(f"kafkaops.listeners.{name}", {}).get("doc", {})
            if not entry.get("short_description") or not str(entry.get("filename", "")).startswith(str(folder)):
                undocumented.append(f"{plugin_type} {name}: {str(doc)[:200]}")
    assert not undocumented, undocumented


def test_ansible_doc_documents_every_role_from_the_install(installed):
    folder, env = installed
    roles = {path.parent.parent.name for path in folder.glob("roles/*/meta/argument_specs.yml")}
    assert {"broker", "verify"} <= roles
    for role in sorted(roles):
        doc = ansible_doc(env, folder.parents[2], "role", f"kafkaops.listeners.{role}")
        entry = doc[f"kafkaops.listeners.{role}"]
        assert entry["path"].startswith(str(folder)), entry["path"]
        assert entry["entry_points"]["main"]["short_description"], role


@pytest.mark.lab
def test_site_playbook_from_the_installed_collection(installed, lab_aws_split, tmp_path):
    """`ansible-playbook kafkaops.listeners.site` from the fresh install configures a split-horizon lab."""
    folder, env = installed
    lab = lab_aws_split
    brokers = lab.nodes("broker")
    # the installed collection's playbook by name, in its own environment and folder (not the checkout's)
    site = run_playbook(lab, "kafkaops.listeners.site", tmp_path, env=env, cwd=tmp_path)
    assert site.returncode == 0 and not site.failed(), site.explain()
    included = [line for line in site.stdout.splitlines() if line.startswith("included: ")]
    assert included and all(f"{folder}/roles/" in line for line in included), included[:3]
    assert {PlaybookRun.target(result) for result in site.changed()} >= {broker["name"] for broker in brokers}, \
        site.explain()
    # split horizon: every public name resolves inside, so one listener advertises the public names (option 1)
    assert "listener plan: single" in site.stdout
    kcat = lab.run("kcat", "laptop", "--", "-L", "-b", f"{brokers[0]['public_dns']}:9092")
    advertised = sorted(re.findall(r"broker \d+ at (\S+)", kcat.stdout))
    assert advertised == sorted(f"{broker['public_dns']}:9092" for broker in brokers), kcat.stdout
    properties = lab.run("exec", "b1", "--", "cat", "/etc/kafka/server.properties").stdout
    assert f"advertised.listeners=PLAINTEXT://{brokers[0]['public_dns']}:9092" in properties.splitlines()
