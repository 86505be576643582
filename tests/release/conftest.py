"""Fixtures of the release checks: the built tarball, a fresh install of it, and a lab to run it against.

The lab needs root: its tests skip with that reason when not root, and fail instead when CI is set.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from kafkaops_lab.paths import LAB_COMMAND

REPO_ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
COMMAND_TIMEOUT = 300  # hang guard only


def release_env(collections_path: Path, config: Path) -> dict:
    """An environment in which Ansible sees only `collections_path`: not the checkout, not ~/.ansible."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    env.update({
        "ANSIBLE_CONFIG": str(config),
        "ANSIBLE_COLLECTIONS_PATH": str(collections_path),
        # the venv's .pth puts the checkout's collection tree on sys.path, which Ansible would scan otherwise
        "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "false",
        "ANSIBLE_NOCOLOR": "1",
    })
    return env


def run(argv: list, env: dict, cwd: Path, timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run([str(arg) for arg in argv], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout)


@pytest.fixture(scope="module")
def tarball(tmp_path_factory) -> Path:
    """The collection built with `ansible-galaxy collection build` from this checkout."""
    out = tmp_path_factory.mktemp("dist")
    proc = run([VENV_BIN / "ansible-galaxy", "collection", "build", "--output-path", out, REPO_ROOT],
               env=dict(os.environ), cwd=out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    built = list(out.glob("kafkaops-listeners-*.tar.gz"))
    assert len(built) == 1, proc.stdout
    return built[0]


@pytest.fixture(scope="module")
def installed(tarball, tmp_path_factory):
    """(collection folder, environment): the tarball installed with --force into a fresh, empty collections path."""
    root = tmp_path_factory.mktemp("release")
    collections = root / "collections"
    collections.mkdir()
    config = root / "ansible.cfg"
    config.write_text("[defaults]\nretry_files_enabled = false\n", encoding="utf-8")
    env = release_env(collections, config)
    proc = run([VENV_BIN / "ansible-galaxy", "collection", "install", "--force", "-p", collections, tarball],
               env=env, cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = collections / "ansible_collections" / "kafkaops" / "listeners"
    assert (folder / "MANIFEST.json").is_file(), proc.stdout
    return folder, env


def require_root() -> None:
    """Skip (or, under CI, fail) when namespaces cannot be created."""
    if os.geteuid() == 0:
        return
    reason = "the lab needs root (network namespaces, mounts, iptables)"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI is set, so lab tests must run, not skip")
    pytest.skip(reason)


class ReleaseLab:
    """A running lab and the few lab commands the release checks use."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    def lab(self, subcommand: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, str(LAB_COMMAND), subcommand, "--prefix", self.prefix, *args],
                              capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
        if check and proc.returncode != 0:
            pytest.fail(f"lab {subcommand} {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def nodes(self, role: str) -> list[dict]:
        status = json.loads(self.lab("status", "--json").stdout)
        return [node for node in status["nodes"] if node["role"] == role]

    def inventory(self) -> str:
        return self.lab("inventory").stdout.strip()


@pytest.fixture(scope="module")
def split_horizon_lab():
    """A 3-broker aws-split-horizon lab (public names resolve to private IPs inside the VPC)."""
    require_root()
    lab = ReleaseLab("rl" + secrets.token_hex(3))
    try:
        lab.lab("up", "--scenario", "aws-split-horizon")
        yield lab
    finally:
        lab.lab("down", check=False)
