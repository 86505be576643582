"""The per-lab state directory: where a lab's files live and how later commands find a running lab.

/run/kafkaops-lab/<prefix>/ (root KAFKAOPS_LAB_STATE_ROOT overrides /run/kafkaops-lab) holds
  state.json         the topology, the PIDs the lab started, the lab's status
  ssh/               the client key, authorized_keys, known_hosts, an ssh_config for humans
  dns/               resolver configs and hosts files
  nodes/<name>/      per node: etc/ (upper layer of its /etc), dmi/, sshd config and host key, metadata values
  cluster/           the Kafka stand-in's shared state directory
  inventory.yml      the Ansible inventory
Each node sees the lab directory at the same path (its private /run re-binds it).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
from pathlib import Path

DEFAULT_ROOT = Path("/run/kafkaops-lab")
PREFIX_ENV = "KAFKAOPS_LAB_PREFIX"


class LabNotFound(LookupError):
    """No lab matches what the command asked for; the message says what exists."""


def state_root() -> Path:
    return Path(os.environ.get("KAFKAOPS_LAB_STATE_ROOT", str(DEFAULT_ROOT)))


class LabDir:
    """Paths inside one lab's state directory."""

    def __init__(self, prefix: str, root: Path | None = None):
        self.prefix = prefix
        self.path = (root or state_root()) / prefix

    @property
    def state_file(self) -> Path:
        return self.path / "state.json"

    @property
    def ssh(self) -> Path:
        return self.path / "ssh"

    @property
    def dns(self) -> Path:
        return self.path / "dns"

    @property
    def cluster(self) -> Path:
        return self.path / "cluster"

    @property
    def inventory(self) -> Path:
        return self.path / "inventory.yml"

    def node(self, name: str) -> Path:
        return self.path / "nodes" / name

    def exists(self) -> bool:
        return self.state_file.is_file()

    def load(self) -> dict:
        """The saved state; LabNotFound if this lab has none."""
        try:
            return json.loads(self.state_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise LabNotFound(f"lab {self.prefix}: not running (no {self.state_file})") from None

    def save(self, state: dict) -> None:
        """Write the state atomically (a reader never sees half a file)."""
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(self.state_file)

    @contextlib.contextmanager
    def lock(self):
        """Hold the lab's lock: one changing command (up, down, restart-instance, fault) at a time."""
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / ".lock", "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield


def running_prefixes(root: Path | None = None) -> list[str]:
    """Prefixes of every lab with a state directory, sorted."""
    base = root or state_root()
    if not base.is_dir():
        return []
    return sorted(entry.name for entry in base.iterdir() if (entry / "state.json").is_file())


def new_prefix(taken: set[str]) -> str:
    """A fresh default prefix: 'kl' and four hex digits, not in `taken`."""
    while True:
        prefix = "kl" + secrets.token_hex(2)
        if prefix not in taken:
            return prefix


def resolve_prefix(requested: str | None, root: Path | None = None) -> str:
    """The lab a command means: --prefix, else $KAFKAOPS_LAB_PREFIX, else the only running lab."""
    if requested:
        return requested
    if os.environ.get(PREFIX_ENV):
        return os.environ[PREFIX_ENV]
    labs = running_prefixes(root)
    if not labs:
        raise LabNotFound("no lab is running (start one with `lab up --scenario NAME`)")
    if len(labs) > 1:
        raise LabNotFound(f"several labs are running ({', '.join(labs)}): choose one with --prefix")
    return labs[0]
