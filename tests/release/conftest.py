"""Fixtures of the release checks: the built tarball and a fresh install of it (the lab comes from the lab's pytest
plugin, kafkaops_lab.pytest_plugin)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
