"""Who logs in to the lab's machines: a non-root user with passwordless sudo on the Kafka machines, as cloud images
have (Debian's `admin`, `ec2-user`, `ubuntu`), and root on the clients.

Every SSH node gets the user. Its /etc is an overlay whose upper layer is nodes/<name>/etc (nodes.py), so the user is
added to that layer's passwd, shadow, group, gshadow and sudoers.d (copies of the host's files plus one line each),
never to the host's. Its home is nodes/<name>/home/<user>, which the node's holder binds over /home: the machine
sees /home/<user>/.ssh/authorized_keys holding the lab's key (sshd reads a user's keys as that user, so the lab's
root-only ssh folder cannot serve them).

Clients keep root logins: their checks run Python clients (confluent-kafka) from the project's venv, whose
interpreter lives under /root, which only root may enter on this machine kind. The Kafka machines run Ansible's
modules with the system Python, as a cloud image does.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from .topology import Node

LOGIN_USER = "admin"
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian package python3 (tools/install-system-deps)
SUDOERS_FILE = "90-cloud-init-users"  # the name cloud-init gives it
FIRST_ID = 1000
HOST_ETC = Path("/etc")


def logs_in_as(node: Node) -> str:
    """The user Ansible and `ssh -F <lab>/ssh/config` log in as on `node`."""
    kafka_machine = bool(node.kafka_roles) and node.network == "vpc" or node.role == "docker-host"
    return LOGIN_USER if kafka_machine else "root"


def python_for(node: Node, root_python: str) -> str:
    """The interpreter Ansible runs modules with on `node` (`root_python`: the tests' own, for root logins)."""
    return SYSTEM_PYTHON if logs_in_as(node) != "root" else root_python


def _lines_without(path: Path, user: str) -> list[str]:
    """The lines of the host's `path` (empty when it does not exist), without an entry named `user`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [line for line in text.splitlines() if line.split(":", 1)[0] != user]


def _ids(lines: list[str], field: int) -> set[int]:
    ids = set()
    for line in lines:
        parts = line.split(":")
        if len(parts) > field and parts[field].isdigit():
            ids.add(int(parts[field]))
    return ids


def _write_like_host(name: str, etc: Path, lines: list[str]) -> None:
    """`etc`/`name` with `lines`, with the mode and owner of the host's /etc/`name` (0644 root when it has none)."""
    path = etc / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        host = os.stat(HOST_ETC / name)
        mode, uid, gid = host.st_mode & 0o7777, host.st_uid, host.st_gid
    except FileNotFoundError:
        mode, uid, gid = 0o644, 0, 0
    os.chown(path, uid, gid)
    os.chmod(path, mode)


def add_login_user(etc: Path, home_root: Path, public_key: str, user: str = LOGIN_USER) -> tuple[int, int]:
    """Add `user` to the node whose /etc upper layer is `etc` and whose /home is `home_root`: passwd, shadow, group
    and gshadow entries (the host's files copied, any host entry of that name replaced), passwordless sudo in
    sudoers.d, and a home holding `public_key` as its authorized key. Returns (uid, gid)."""
    passwd = _lines_without(HOST_ETC / "passwd", user)
    group = _lines_without(HOST_ETC / "group", user)
    taken = _ids(passwd, 2) | _ids(group, 2)
    uid = next(number for number in range(FIRST_ID, 60000) if number not in taken)
    home = f"/home/{user}"
    _write_like_host("passwd", etc, passwd + [f"{user}:x:{uid}:{uid}:kafkaops lab login:{home}:/bin/bash"])
    _write_like_host("group", etc, group + [f"{user}:x:{uid}:"])
    # "*": no password, so no password login, yet not locked ("!"), which sshd would refuse even for a key
    days = int(time.time() // 86400)
    _write_like_host("shadow", etc, _lines_without(HOST_ETC / "shadow", user) + [f"{user}:*:{days}:0:99999:7:::"])
    if (HOST_ETC / "gshadow").exists():
        _write_like_host("gshadow", etc, _lines_without(HOST_ETC / "gshadow", user) + [f"{user}:!::"])
    sudoers = etc / "sudoers.d" / SUDOERS_FILE
    sudoers.parent.mkdir(parents=True, exist_ok=True)
    sudoers.write_text(f"# kafkaops lab: the login user, as cloud-init writes it\n{user} ALL=(ALL) NOPASSWD:ALL\n",
                       encoding="utf-8")
    os.chmod(sudoers, 0o440)
    # sshd checks the owner and mode of the key file and of every folder above it
    home_root.mkdir(parents=True, exist_ok=True)
    os.chmod(home_root, 0o755)
    ssh = home_root / user / ".ssh"
    ssh.mkdir(parents=True, exist_ok=True)
    keys = ssh / "authorized_keys"
    keys.write_text(public_key, encoding="utf-8")
    for path, mode in ((home_root / user, 0o700), (ssh, 0o700), (keys, 0o600)):
        os.chown(path, uid, uid)
        os.chmod(path, mode)
    return uid, uid
