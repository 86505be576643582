"""A lab for the Terraform hook's tests: brought up through lab/lab, always torn down.

Tests that need it need root: they skip with that reason when not root, and fail instead when CI is set.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys

import pytest
import yaml
from terraform_root import must_have

from kafkaops_lab.paths import LAB_COMMAND

COMMAND_TIMEOUT = 300  # hang guard only


def require_root() -> None:
    """Skip (or, under CI, fail) when namespaces cannot be created."""
    if os.geteuid() == 0:
        return
    must_have("the lab needs root (network namespaces, mounts, iptables)")


class HookLab:
    """A running lab, with what the Terraform hook needs to know about it."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    def lab(self, *args: str, check: bool = True, timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess:
        """`lab/lab ARGS --prefix P`; on `check`, fail the test with the command's output."""
        # --prefix right after the subcommand: after `--` it would belong to the command run on the node
        proc = subprocess.run([sys.executable, str(LAB_COMMAND), args[0], "--prefix", self.prefix, *args[1:]],
                              capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            pytest.fail(f"lab {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def kcat(self, node: str, *args: str, input_text: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(LAB_COMMAND), "kcat", node, "--prefix", self.prefix, "--", *args],
                              input=input_text, capture_output=True, text=True, timeout=60)

    def status(self) -> dict:
        return json.loads(self.lab("status", "--json").stdout)

    def nodes(self, role: str) -> list[dict]:
        return [node for node in self.status()["nodes"] if node["role"] == role]

    def inventory(self) -> dict:
        with open(self.status()["inventory"], encoding="utf-8") as handle:
            return yaml.safe_load(handle)


@pytest.fixture(scope="module")
def hook_lab():
    """A 3-broker aws-private-dns-only lab shared by a test module (the laptop cannot resolve the brokers'
    private names)."""
    require_root()
    prefix = "tf" + secrets.token_hex(3)
    lab = HookLab(prefix)
    try:
        lab.lab("up", "--scenario", "aws-private-dns-only")
        yield lab
    finally:
        lab.lab("down", check=False)
