"""Fixtures for the lab's own tests (test_lab_*.py): bring labs up through the `lab` command, always tear down.

Only names starting with `lab_` are defined here, so the other test modules of this folder are unaffected.
Tests that need a lab need root: they skip with that reason when not root, and fail instead when CI is set.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys

import pytest

from kafkaops_lab.paths import LAB_COMMAND, REPO_ROOT

VENV_BIN = REPO_ROOT / ".venv" / "bin"
COMMAND_TIMEOUT = 180  # hang guard only


def lab_require_root() -> None:
    """Skip (or fail under CI) when the test cannot create namespaces."""
    if os.geteuid() == 0:
        return
    reason = "the lab needs root (network namespaces, mounts, iptables)"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI is set, so lab tests must run, not skip")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def lab_kcat_required() -> None:
    """Skip (or fail under CI) when kcat, the client most lab checks drive, is not installed."""
    if shutil.which("kcat") is not None:
        return
    reason = "kcat (Debian package kcat) is not installed"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI is set, so lab tests must run, not skip")
    pytest.skip(reason)


def lab_command(*args: str, check: bool = True, timeout: float = COMMAND_TIMEOUT,
                env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `lab/lab ARGS` with the interpreter running the tests; on `check`, fail with its output."""
    proc = subprocess.run([sys.executable, str(LAB_COMMAND), *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        pytest.fail(f"lab {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


class RunningLab:
    """A lab brought up for a test, with helpers that run things on its nodes."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.status: dict = {}
        self.refresh()

    def refresh(self) -> dict:
        self.status = json.loads(lab_command("status", "--json", "--prefix", self.prefix).stdout)
        return self.status

    def node(self, name: str) -> dict:
        for node in self.status["nodes"]:
            if node["name"] == name:
                return node
        raise KeyError(f"lab {self.prefix} has no node {name}")

    def run(self, subcommand: str, *args: str, check: bool = True,
            timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess:
        """`lab SUBCOMMAND --prefix PREFIX ARGS...`: the prefix goes first, as anything after `--` is the node's."""
        return lab_command(subcommand, "--prefix", self.prefix, *args, check=check, timeout=timeout)

    def exec(self, node: str, *argv: str, check: bool = False, timeout: float = 60,
             input_text: str | None = None) -> subprocess.CompletedProcess:
        """Run argv on `node` (through `lab exec`); output captured as text."""
        proc = subprocess.run([sys.executable, str(LAB_COMMAND), "exec", node, "--prefix", self.prefix, "--", *argv],
                              capture_output=True, text=True, timeout=timeout, input=input_text)
        if check and proc.returncode != 0:
            pytest.fail(f"on {node}: {' '.join(argv)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def kcat(self, node: str, *args: str, input_text: str | None = None, timeout: float = 60):
        """Run kcat on `node`; stdout and stderr captured."""
        return subprocess.run([sys.executable, str(LAB_COMMAND), "kcat", node, "--prefix", self.prefix, "--", *args],
                              capture_output=True, text=True, timeout=timeout, input=input_text)

    def python(self, node: str, code: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """Run a Python snippet on `node` with the project's interpreter."""
        return self.exec(node, str(VENV_BIN / "python"), "-c", code, timeout=timeout)

    def down(self) -> subprocess.CompletedProcess:
        return lab_command("down", "--prefix", self.prefix)


def lab_new_prefix() -> str:
    return "kt" + secrets.token_hex(3)


class LabCli:
    """What tests need beyond a running lab: the raw command, fresh prefixes, attaching to a lab by prefix."""

    command = staticmethod(lab_command)
    new_prefix = staticmethod(lab_new_prefix)

    @staticmethod
    def attach(prefix: str) -> RunningLab:
        return RunningLab(prefix)


@pytest.fixture
def lab_cli() -> LabCli:
    """The `lab` command for tests that drive it directly (root required)."""
    lab_require_root()
    return LabCli()


@pytest.fixture
def lab_factory():
    """Call it with a scenario name (and brokers=N) to get a RunningLab; every lab is torn down afterwards."""
    lab_require_root()
    started: list[str] = []

    def up(scenario: str, brokers: int | None = None, prefix: str | None = None) -> RunningLab:
        prefix = prefix or lab_new_prefix()
        args = ["up", "--scenario", scenario, "--prefix", prefix]
        if brokers is not None:
            args += ["--brokers", str(brokers)]
        started.append(prefix)
        lab_command(*args)
        return RunningLab(prefix)

    yield up
    for prefix in started:
        lab_command("down", "--prefix", prefix, check=False)


def _module_lab(request, scenario: str, brokers: int | None = None):
    lab_require_root()
    prefix = lab_new_prefix()
    args = ["up", "--scenario", scenario, "--prefix", prefix]
    if brokers is not None:
        args += ["--brokers", str(brokers)]
    try:
        lab_command(*args)
        yield RunningLab(prefix)
    finally:
        lab_command("down", "--prefix", prefix, check=False)


@pytest.fixture(scope="module")
def lab_aws_private(request):
    """A 3-broker aws-private-dns-only lab shared by a module (tests must leave it as they found it)."""
    yield from _module_lab(request, "aws-private-dns-only")


@pytest.fixture(scope="module")
def lab_aws_split(request):
    """A 3-broker aws-split-horizon lab shared by a module."""
    yield from _module_lab(request, "aws-split-horizon")


@pytest.fixture(scope="session")
def lab_session_cli() -> LabCli:
    """The `lab` command for module- and session-scoped fixtures that bring labs up themselves (root required)."""
    lab_require_root()
    return LabCli()
