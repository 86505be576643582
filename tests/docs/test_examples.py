"""Every code block of the docsite guides (docs/docsite/rst/*.rst) is checked, and says how.

Each `.. code-block::` must be preceded by a comment line `.. check: KIND [ARGS]` (an RST comment: invisible on
the site). The kinds, and what this module does with them:

- `yaml`                   parses as YAML.
- `playbook [PLAYBOOK...]`  parses, and `ansible-playbook --syntax-check` accepts it with this collection; each
                           PLAYBOOK (`namespace.collection.name`, another collection's playbook that is not
                           installed here) is stood in for by an empty play.
- `vars ROLE[,ROLE]`       a mapping of role variables, validated against the roles' meta/argument_specs.yml
                           (unknown names and wrong types fail), as the role's own argument validation would.
- `plan`                   YAML `{brokers: [...], options: {...}}`, run through the listener_plan filter.
- `plan-result NODE`       `key=value` lines: exactly the non-null properties the preceding `plan` gives NODE.
- `docker-env NODE`        `KEY=VALUE` lines: exactly what to_docker_env makes of NODE's plan.
- `cp-ansible NODE`        YAML: exactly the variables to_cp_ansible_vars makes of NODE's plan.
- `template NODE`          a Jinja template that, rendered for NODE (`inventory_hostname`) with the preceding plan as
                           `broker_listener_plan`, writes exactly the plan-result lines of NODE.
- `properties`             `kafka-listeners-lint` accepts the file (exit 0).
- `properties-broken RULE` `kafka-listeners-lint` refuses it (exit 1) naming RULE.
- `kafka-message RELEASE...` each line is one of the rule checker's messages for the `properties-broken` block above
                           it, under `kafka_version=RELEASE`, and together they are all of them, for each RELEASE.
- `hcl`                    python-hcl2 parses it; a `kafka-listeners` module block sets every required variable
                           and only variables the module declares.
- `transcript FILE`        every line (but `...`, which elides) appears, in order, in
                           docs/docsite/transcripts/FILE, the verbatim output of a real run.
- `make TARGET`            the line is `make TARGET` and the Makefile defines TARGET.
- `file PATH`              the block is the repository's file PATH, line for line.
- `run`                    each line is run here (repository root, the venv first on PATH) and must exit 0.
- `test PATH::FUNCTION`    that test exists, and it (or a conftest.py beside or above it, or the lab's pytest
                           plugin) runs each line's program with the line's first argument; other arguments are not
                           compared.

`hcl`, `playbook`, `yaml` and `vars` blocks are only parsed or syntax-checked, never executed; `transcript` blocks
are copied from real runs but not re-run here; `test` blocks are run by the named test, not by this module.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import hcl2
import jinja2
import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.kafkaops.listeners.plugins.filter.listener_plan import listener_plan
from ansible_collections.kafkaops.listeners.plugins.filter.to_cp_ansible_vars import to_cp_ansible_vars
from ansible_collections.kafkaops.listeners.plugins.filter.to_docker_env import to_docker_env
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import parse_properties
from kafkaops_lab import playbook_runs, pytest_plugin

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCSITE = REPO_ROOT / "docs" / "docsite"
GUIDES = sorted((DOCSITE / "rst").glob("*.rst"))
TRANSCRIPTS = DOCSITE / "transcripts"
VENV_BIN = Path(sys.executable).parent
KINDS = {"yaml", "playbook", "vars", "plan", "plan-result", "docker-env", "cp-ansible", "template", "properties",
         "properties-broken", "kafka-message", "hcl", "transcript", "make", "file", "run", "test"}
LABEL_PREFIX = "ansible_collections.kafkaops.listeners.docsite."
TIMEOUT = 300  # hang guard only


@dataclass
class Example:
    """One code block of a guide and the check its `.. check:` comment asks for."""

    guide: Path
    line: int
    kind: str
    args: list[str]
    body: str
    plan: dict | None = None  # the plan of the latest `plan` block above it in the same guide
    broken: str | None = None  # the latest `properties-broken` block above it in the same guide

    @property
    def where(self) -> str:
        return f"{self.guide.relative_to(REPO_ROOT)}:{self.line}"

    def lines(self) -> list[str]:
        return [line for line in self.body.splitlines() if line.strip()]


def _block_body(lines: list[str], start: int) -> str:
    """The content of the directive at lines[start]: the blank or indented lines after it, dedented."""
    body = []
    for line in lines[start + 1:]:
        if line.strip() and not line.startswith("   "):
            break
        body.append(line)
    return textwrap.dedent("\n".join(body)).strip("\n") + "\n"


def collect(guide: Path) -> list[Example]:
    """The guide's code blocks with their checks; an unmarked block becomes kind `missing`."""
    lines = guide.read_text(encoding="utf-8").splitlines()
    examples = []
    plan = broken = None
    for index, line in enumerate(lines):
        if not line.startswith(".. code-block::"):
            continue
        marker = lines[index - 1] if index else ""
        match = re.fullmatch(r"\.\. check: (\S+)(.*)", marker)
        kind, args = (match[1], match[2].split()) if match else ("missing", [])
        example = Example(guide, index + 1, kind, args, _block_body(lines, index))
        if kind == "plan":
            data = yaml.safe_load(example.body)
            plan = listener_plan(data["brokers"], data.get("options"))
        example.plan, example.broken = plan, broken
        if kind == "properties-broken":
            broken = example.body
        examples.append(example)
    return examples


EXAMPLES = [example for guide in GUIDES for example in collect(guide)]


def examples_of(*kinds: str):
    chosen = [example for example in EXAMPLES if example.kind in kinds]
    return pytest.mark.parametrize("example", chosen, ids=[example.where for example in chosen])


def node_plan(example: Example, name: str) -> dict:
    assert example.plan is not None, f"{example.where}: no `.. check: plan` block above this one"
    nodes = {node["name"]: node for node in example.plan["brokers"]}
    assert name in nodes, f"{example.where}: the plan above has no node {name} (it has {sorted(nodes)})"
    return nodes[name]


def key_values(example: Example) -> dict:
    pairs = {}
    for line in example.lines():
        key, sep, value = line.partition("=")
        assert sep, f"{example.where}: {line!r} is not key=value"
        assert key not in pairs, f"{example.where}: {key} is given twice"
        pairs[key] = value
    return pairs


def ansible_env() -> dict:
    return {**os.environ, "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
            "ANSIBLE_COLLECTIONS_PATH": str(REPO_ROOT / ".venv" / "collections"), "ANSIBLE_NOCOLOR": "1"}


def test_the_guides_exist_and_are_listed():
    listed = [entry for section in yaml.safe_load((DOCSITE / "extra-docs.yml").read_text())["sections"]
              for entry in section["toctree"]]
    assert sorted(listed) == sorted(guide.stem for guide in GUIDES)
    for guide in GUIDES:
        first = guide.read_text(encoding="utf-8").splitlines()[0]
        assert re.fullmatch(rf"\.\. _{re.escape(LABEL_PREFIX)}[a-z0-9_]+:", first), f"{guide.name}: {first!r}"
    assert EXAMPLES, "no code blocks found"


def test_every_code_block_says_how_it_is_checked():
    unmarked = [example.where for example in EXAMPLES if example.kind == "missing"]
    assert not unmarked, f"code blocks without a `.. check: KIND` line just above: {unmarked}"
    unknown = [f"{example.where}: {example.kind}" for example in EXAMPLES if example.kind not in KINDS | {"missing"}]
    assert not unknown, f"unknown check kinds: {unknown}"


@pytest.mark.parametrize("guide", GUIDES, ids=[guide.name for guide in GUIDES])
def test_no_literal_block_escapes_the_checks(guide):
    """A paragraph ending in `::` starts a literal block that the check markers would not see."""
    for number, line in enumerate(guide.read_text(encoding="utf-8").splitlines(), start=1):
        if line.rstrip().endswith("::") and not line.lstrip().startswith(".. "):
            pytest.fail(f"{guide.name}:{number}: literal block (`::`); use `.. code-block::` with `.. check:`")


@examples_of("yaml", "playbook", "vars", "plan")
def test_yaml_parses(example):
    assert yaml.safe_load(example.body) is not None, example.where


@examples_of("playbook")
def test_playbook_passes_syntax_check(example, tmp_path):
    playbook = tmp_path / "playbook.yml"
    playbook.write_text(example.body, encoding="utf-8")
    env = ansible_env()
    for stood_in in example.args:
        namespace, collection, name = stood_in.split(".")
        stub = tmp_path / "stubs" / "ansible_collections" / namespace / collection / "playbooks" / f"{name}.yml"
        stub.parent.mkdir(parents=True)
        stub.write_text(f"- name: Stands in for {stood_in}\n  hosts: all\n  tasks: []\n", encoding="utf-8")
        env["ANSIBLE_COLLECTIONS_PATH"] += os.pathsep + str(tmp_path / "stubs")
    proc = subprocess.run([str(VENV_BIN / "ansible-playbook"), "--syntax-check", "-i", "localhost,", str(playbook)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=TIMEOUT)
    assert proc.returncode == 0, f"{example.where}:\n{proc.stdout}{proc.stderr}"


@examples_of("vars")
def test_role_variables_pass_the_roles_argument_specs(example):
    assert len(example.args) == 1, f"{example.where}: `vars` takes ROLE[,ROLE]"
    spec = {}
    for role in example.args[0].split(","):
        specs = yaml.safe_load((REPO_ROOT / "roles" / role / "meta" / "argument_specs.yml").read_text())
        spec.update(specs["argument_specs"]["main"]["options"])
    values = yaml.safe_load(example.body)
    assert isinstance(values, dict), example.where
    result = ArgumentSpecValidator(spec).validate(values)
    assert not result.error_messages, f"{example.where}: {result.error_messages}"


@examples_of("plan-result")
def test_plan_results_are_what_the_filter_computes(example):
    node = node_plan(example, example.args[0])
    expected = {key: str(value) for key, value in node["properties"].items() if value is not None}
    assert key_values(example) == expected, example.where


@examples_of("docker-env")
def test_docker_env_is_what_the_filter_renders(example):
    assert key_values(example) == to_docker_env(node_plan(example, example.args[0])), example.where


@examples_of("cp-ansible")
def test_cp_ansible_variables_are_what_the_filter_renders(example):
    assert yaml.safe_load(example.body) == to_cp_ansible_vars(node_plan(example, example.args[0])), example.where


@examples_of("template")
def test_templates_write_the_plan(example):
    name = example.args[0]
    environment = jinja2.Environment(trim_blocks=True, undefined=jinja2.StrictUndefined)  # as ansible.builtin.template
    rendered = environment.from_string(example.body).render(broker_listener_plan=example.plan, inventory_hostname=name)
    lines = [line for line in rendered.splitlines() if line.strip()]
    expected = {key: str(value) for key, value in node_plan(example, name)["properties"].items() if value is not None}
    assert lines == ["%s=%s" % item for item in expected.items()], example.where


def lint(example: Example, tmp_path: Path) -> subprocess.CompletedProcess:
    path = tmp_path / "server.properties"
    path.write_text(example.body, encoding="utf-8")
    return subprocess.run([str(VENV_BIN / "kafka-listeners-lint"), str(path)], capture_output=True, text=True,
                          timeout=TIMEOUT)


@examples_of("properties")
def test_properties_pass_kafkas_rules(example, tmp_path):
    proc = lint(example, tmp_path)
    assert proc.returncode == 0, f"{example.where}:\n{proc.stdout}{proc.stderr}"


@examples_of("properties-broken")
def test_broken_properties_fail_with_the_named_rule(example, tmp_path):
    proc = lint(example, tmp_path)
    assert proc.returncode == 1, f"{example.where}:\n{proc.stdout}{proc.stderr}"
    assert f": {example.args[0]}: " in proc.stdout, f"{example.where}: {proc.stdout}"


@examples_of("kafka-message")
def test_kafka_messages_are_the_checkers_for_each_release(example):
    assert example.broken is not None, f"{example.where}: no `.. check: properties-broken` block above this one"
    assert example.args, f"{example.where}: `kafka-message` names the releases it quotes"
    props = parse_properties(example.broken).to_dict()
    for release in example.args:
        messages = [finding["message"] for finding in check_kafka_config(props, kafka_version=release)]
        assert example.lines() == messages, f"{example.where}: Kafka {release}"


@examples_of("hcl")
def test_hcl_parses_and_uses_the_modules_variables(example):
    parsed = hcl2.loads(example.body, serialization_options=hcl2.SerializationOptions(
        with_comments=False, explicit_blocks=False, strip_string_quotes=True))
    module_dir = REPO_ROOT / "terraform" / "modules" / "kafka-listeners"
    declared = {}
    for path in module_dir.glob("*.tf"):
        with path.open(encoding="utf-8") as handle:
            tf = hcl2.load(handle, serialization_options=hcl2.SerializationOptions(
                with_comments=False, explicit_blocks=False, strip_string_quotes=True))
        for entry in tf.get("variable", []):
            declared.update(entry)
    required = {name for name, body in declared.items() if "default" not in body}
    blocks = [body for entry in parsed.get("module", []) for body in entry.values()
              if str(body.get("source", "")).endswith("modules/kafka-listeners")]
    assert blocks, f"{example.where}: no module block with source .../modules/kafka-listeners"
    for block in blocks:
        given = set(block) - {"source"}
        assert given <= set(declared), f"{example.where}: unknown variables {sorted(given - set(declared))}"
        assert required <= given, f"{example.where}: missing required variables {sorted(required - given)}"


@examples_of("transcript")
def test_transcript_lines_come_from_a_real_run(example):
    source = TRANSCRIPTS / example.args[0]
    recorded = [line.rstrip() for line in source.read_text(encoding="utf-8").splitlines()]
    position = 0
    for line in example.body.splitlines():
        if not line.strip() or line.strip() == "...":
            continue
        try:
            position = recorded.index(line.rstrip(), position) + 1
        except ValueError:
            pytest.fail(f"{example.where}: not in {source.name} (after line {position}): {line!r}")


@examples_of("make")
def test_make_targets_exist(example):
    target = example.args[0]
    assert example.lines() == [f"make {target}"], example.where
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(rf"^{re.escape(target)}:", makefile, re.M), f"{example.where}: the Makefile has no {target}"


@examples_of("file")
def test_file_blocks_are_the_files(example):
    path = REPO_ROOT / example.args[0]
    assert path.is_file(), f"{example.where}: {example.args[0]} does not exist"
    assert example.body == path.read_text(encoding="utf-8").strip("\n") + "\n", \
        f"{example.where}: the block is not {example.args[0]} as it is now"


@examples_of("run")
def test_commands_run(example):
    env = {**ansible_env(), "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    for line in example.lines():
        proc = subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd=REPO_ROOT, env=env,
                              timeout=TIMEOUT)
        assert proc.returncode == 0, f"{example.where}: {line}\n{proc.stdout}{proc.stderr}"


def _test_sources(test_file: Path) -> str:
    """The test module, every conftest.py from its folder up to tests/, the lab's pytest plugin (its fixtures) and
    its playbook runner."""
    texts = [test_file.read_text(encoding="utf-8")]
    texts += [Path(module.__file__).read_text(encoding="utf-8") for module in (pytest_plugin, playbook_runs)]
    folder = test_file.parent
    while folder != REPO_ROOT:
        if (folder / "conftest.py").is_file():
            texts.append((folder / "conftest.py").read_text(encoding="utf-8"))
        folder = folder.parent
    return "\n".join(texts)


# options whose value is the next word, so that word is not taken for the subcommand or playbook
_VALUE_OPTIONS = {"-i", "--inventory", "-e", "--extra-vars", "--scenario", "--prefix", "-b"}


def _first_argument(words: list[str]) -> str:
    """The first word that is neither an option nor an option's value: the subcommand or the playbook."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _VALUE_OPTIONS:
            skip = True
        elif not word.startswith("-"):
            return word
    return ""


@examples_of("test")
def test_commands_are_run_by_the_named_test(example):
    path, _, function = example.args[0].partition("::")
    test_file = REPO_ROOT / path
    assert test_file.is_file(), f"{example.where}: {path} does not exist"
    functions = {node.name for node in ast.walk(ast.parse(test_file.read_text(encoding="utf-8")))
                 if isinstance(node, ast.FunctionDef)}
    assert function in functions, f"{example.where}: {path} has no {function}"
    sources = _test_sources(test_file)
    for line in example.lines():
        words = shlex.split(line)
        program = Path(words[0]).name
        first_argument = _first_argument(words[1:])
        alternatives = {first_argument}
        if first_argument.startswith("kafkaops.listeners."):  # a collection playbook runs as playbooks/NAME.yml
            alternatives.add(first_argument.removeprefix("kafkaops.listeners.") + ".yml")
        assert program in sources, f"{example.where}: {path} never runs {program}"
        assert any(f'"{alt}' in sources or f"'{alt}" in sources or f" {alt}" in sources for alt in alternatives), \
            f"{example.where}: {path} never runs {program} {first_argument}"
