"""The lab's pytest plugin: the one set of fixtures every suite that needs a lab uses.

Loaded in the repository's venv by the `pytest11` entry point of lab/pyproject.toml, so the lab suites
(lab/tests), the Molecule suite, tests/terraform and tests/release get the same fixtures without a conftest.
Every lab a fixture brings up has a fresh prefix and is torn down afterwards, also when the test fails. Before
that, when the test passed, a real-Kafka lab's seeded topic (kafkaops_lab/seeded.py) must be intact: every message
read back once and every partition in its full ISR (RunningLab.assert_seeded_intact), so every rollout suite checks
its data without saying so. A test that leaves its cluster broken on purpose passes `unchecked="why"`.

The skip policy: a test that needs root or a tool the machine lacks skips with the reason, and fails instead when
CI is set, because in CI lab tests never skip.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager

import pytest

from .paths import LAB_COMMAND, VENV_BIN

COMMAND_TIMEOUT = 300  # hang guard only: `lab up` of a 3-broker lab takes 20 s to 2 min on a loaded 2-core machine
REAL_KAFKA_UP_TIMEOUT = 400  # hang guard only: two labs at once, one of them starting real Kafka on the JVM
LAB_NOT_FOUND = 3  # the lab command's exit status when no lab has the prefix (cli.py: state.LabNotFound)


def must_run(reason: str) -> None:
    """Skip the test for `reason`, or fail it when CI is set: there every lab test must run."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI is set, so lab tests must run, not skip")
    pytest.skip(reason)


def require_root() -> None:
    """Skip (or fail under CI) when the test cannot create namespaces."""
    if os.geteuid() != 0:
        must_run("the lab needs root (network namespaces, mounts, iptables)")


def lab_command(*args: str, check: bool = True, timeout: float = COMMAND_TIMEOUT, env: dict | None = None,
                input_text: str | None = None) -> subprocess.CompletedProcess:
    """Run `lab/lab ARGS` with the interpreter running the tests; on `check`, fail the test with its output."""
    proc = subprocess.run([sys.executable, str(LAB_COMMAND), *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, input=input_text)
    if check and proc.returncode != 0:
        pytest.fail(f"lab {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def new_prefix() -> str:
    """A prefix no other lab on this machine has (labs of several suites and engineers run side by side)."""
    return "kt" + secrets.token_hex(3)


class RunningLab:
    """A lab that is up, with what tests do on it; `status` is `lab status --json` as of the last refresh."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.status: dict = {}
        self.refresh()

    def refresh(self) -> dict:
        self.status = json.loads(self.run("status", "--json").stdout)
        return self.status

    def node(self, name: str) -> dict:
        for node in self.status["nodes"]:
            if node["name"] == name:
                return node
        raise KeyError(f"lab {self.prefix} has no node {name}")

    def nodes(self, role: str) -> list[dict]:
        """The nodes of `role` (broker, controller, client, ...) as they are now (the status is refreshed)."""
        return [node for node in self.refresh()["nodes"] if node["role"] == role]

    def run(self, subcommand: str, *args: str, check: bool = True,
            timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess:
        """`lab SUBCOMMAND --prefix PREFIX ARGS...`: the prefix goes first, as anything after `--` is the node's."""
        return lab_command(subcommand, "--prefix", self.prefix, *args, check=check, timeout=timeout)

    def exec(self, node: str, *argv: str, check: bool = False, timeout: float = 60,
             input_text: str | None = None) -> subprocess.CompletedProcess:
        """Run argv on `node` (through `lab exec`); output captured as text."""
        proc = lab_command("exec", node, "--prefix", self.prefix, "--", *argv, check=False, timeout=timeout,
                           input_text=input_text)
        if check and proc.returncode != 0:
            pytest.fail(f"on {node}: {' '.join(argv)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def kcat(self, node: str, *args: str, input_text: str | None = None,
             timeout: float = 60) -> subprocess.CompletedProcess:
        """Run kcat on `node`; stdout and stderr captured."""
        return lab_command("kcat", node, "--prefix", self.prefix, "--", *args, check=False, timeout=timeout,
                           input_text=input_text)

    def python(self, node: str, code: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """Run a Python snippet on `node` with the project's interpreter."""
        return self.exec(node, str(VENV_BIN / "python"), "-c", code, timeout=timeout)

    def inventory_path(self) -> str:
        """The lab's Ansible inventory file."""
        return self.run("inventory").stdout.strip()

    def inventory(self) -> dict:
        """The lab's Ansible inventory, parsed."""
        import yaml  # the venv has it; the lab itself is standard library only

        with open(self.inventory_path(), encoding="utf-8") as handle:
            return yaml.safe_load(handle)

    def assert_seeded_intact(self) -> None:
        """Fail naming the partitions out of their ISR and the messages missing or duplicated unless the seeded
        topic `lab up` wrote is read back whole, each message once, from a client network that can use the
        cluster now (`lab seeded`); a lab without it (the stand-in, `--empty`, secured) passes, and so does a lab the
        test took down itself (`lab seeded` exits 3: no such lab), which has nothing left to check."""
        proc = self.run("seeded", check=False, timeout=COMMAND_TIMEOUT)
        if proc.returncode == LAB_NOT_FOUND:
            return
        if proc.returncode != 0:
            pytest.fail(f"lab {self.prefix}: the seeded data is not intact (`lab seeded` exited {proc.returncode}):\n"
                        f"{proc.stdout}\n{proc.stderr}")

    def down(self) -> subprocess.CompletedProcess:
        return self.run("down")


class LabCli:
    """What tests need beyond a running lab: the raw command, fresh prefixes, attaching to a lab by prefix."""

    command = staticmethod(lab_command)
    new_prefix = staticmethod(new_prefix)

    @staticmethod
    def attach(prefix: str) -> RunningLab:
        return RunningLab(prefix)


def _up_args(scenario: str, prefix: str, brokers: int | None, kafka: str | None, empty: str | None) -> list[str]:
    args = ["up", "--scenario", scenario, "--prefix", prefix]
    if brokers is not None:
        args += ["--brokers", str(brokers)]
    if kafka is not None:
        args += ["--kafka", kafka]
    if empty is not None:
        args.append("--empty")
    return args


@contextmanager
def scenario_lab(scenario: str, brokers: int | None = None, prefix: str | None = None, kafka: str | None = None,
                 timeout: float = COMMAND_TIMEOUT, unchecked: str | None = None,
                 empty: str | None = None) -> Iterator[RunningLab]:
    """A lab of `scenario` (under `prefix`, else a fresh one; `kafka`: `standin` or `real[:VERSION]`, else the
    scenario's or the environment's choice; `timeout`: how long `up` may take), torn down on leaving, also after a
    failed `up`; when the block ends without an error, its seeded data is checked first unless `unchecked` says
    why not. `empty`: why the test needs real Kafka without the seeded topic (`lab up --empty`)."""
    require_root()
    prefix = prefix or new_prefix()
    try:
        lab_command(*_up_args(scenario, prefix, brokers, kafka, empty), timeout=timeout)
        running = RunningLab(prefix)
        yield running
        if unchecked is None:
            running.assert_seeded_intact()
    finally:
        lab_command("down", "--prefix", prefix, check=False)


@contextmanager
def scenario_labs(scenario: str, kafka: dict[str, str], unchecked: str | None = None,
                  empty: str | None = None) -> Iterator[dict[str, RunningLab]]:
    """`scenario` once per entry of `kafka` (a name -> its `--kafka` choice), brought up in parallel, each under a
    fresh prefix; every one is torn down on leaving, also when another failed to come up. As scenario_lab, each
    one's seeded data is checked first when the block ends without an error, unless `unchecked` says why not, and
    `empty` says why the labs come up without it."""
    require_root()
    prefixes = {name: new_prefix() for name in kafka}
    try:
        with ThreadPoolExecutor(len(prefixes)) as pool:
            ups = {name: pool.submit(lab_command, *_up_args(scenario, prefix, None, kafka[name], empty), check=False,
                                     timeout=REAL_KAFKA_UP_TIMEOUT)
                   for name, prefix in prefixes.items()}
        failed = [f"{name}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
                  for name, proc in ((name, future.result()) for name, future in ups.items()) if proc.returncode]
        if failed:
            pytest.fail(f"lab up --scenario {scenario} failed:\n" + "\n".join(failed))
        running = {name: RunningLab(prefix) for name, prefix in prefixes.items()}
        yield running
        for lab in running.values() if unchecked is None else ():
            lab.assert_seeded_intact()
    finally:
        for prefix in prefixes.values():
            lab_command("down", "--prefix", prefix, check=False)


@pytest.fixture(scope="session")
def lab_kcat_required() -> None:
    """Skip (or fail under CI) when kcat, the client most lab checks drive, is not installed."""
    if shutil.which("kcat") is None:
        must_run("kcat (Debian package kcat) is not installed")


@pytest.fixture
def lab_cli() -> LabCli:
    """The `lab` command for tests that drive it directly (root required)."""
    require_root()
    return LabCli()


@pytest.fixture(scope="session")
def lab_session_cli() -> LabCli:
    """The `lab` command for module- and session-scoped fixtures that bring labs up themselves (root required)."""
    require_root()
    return LabCli()


@pytest.fixture
def lab_factory():
    """Call it with a scenario name (and brokers=N, prefix=P) to get a RunningLab; every lab is torn down
    afterwards."""
    require_root()
    with ExitStack() as labs:
        yield lambda scenario, brokers=None, prefix=None: labs.enter_context(scenario_lab(scenario, brokers, prefix))


@pytest.fixture(scope="module")
def lab_aws_private():
    """A 3-broker aws-private-dns-only lab shared by a module (the laptop cannot resolve the brokers' private
    names); tests must leave it as they found it."""
    with scenario_lab("aws-private-dns-only") as lab:
        yield lab


@pytest.fixture(scope="module")
def lab_aws_split():
    """A 3-broker aws-split-horizon lab (public names resolve to private addresses inside the VPC) shared by a
    module."""
    with scenario_lab("aws-split-horizon") as lab:
        yield lab
