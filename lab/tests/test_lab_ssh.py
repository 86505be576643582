"""Ansible reaches the lab's nodes over real SSH, only through the control namespace's ProxyCommand."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from kafkaops_lab.paths import KAFKA_SERVICE, VENV_BIN

pytestmark = pytest.mark.lab



def ansible(inventory: str, pattern: str, *args: str, tree: Path) -> tuple[subprocess.CompletedProcess, dict]:
    """Run an ad-hoc command; return the process and {host: result} from the tree callback's files."""
    env = {**os.environ, "ANSIBLE_HOST_KEY_CHECKING": "True"}
    proc = subprocess.run([str(VENV_BIN / "ansible"), "-i", inventory, pattern, "--tree", str(tree), *args],
                          capture_output=True, text=True, timeout=300, env=env)
    results = {path.name: json.loads(path.read_text()) for path in tree.iterdir()} if tree.is_dir() else {}
    return proc, results


def test_ansible_ping_through_the_proxy_command(lab_aws_private, tmp_path):
    inventory = lab_aws_private.run("inventory").stdout.strip()
    text = Path(inventory).read_text()
    assert f"ProxyCommand=ip netns exec {lab_aws_private.prefix}-ctl nc %h %p" in text
    proc, results = ansible(inventory, "all", "-m", "ping", tree=tmp_path / "ping")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert set(results) == {"b1", "b2", "b3", "client", "laptop"}
    assert all(result.get("ping") == "pong" for result in results.values())


def test_ssh_sessions_see_the_node_as_a_machine(lab_aws_private, tmp_path):
    inventory = lab_aws_private.run("inventory").stdout.strip()
    proc, results = ansible(inventory, "kafka_brokers", "-m", "command", "-a",
                            "sh -c 'hostname; cat /sys/class/dmi/id/sys_vendor; test -d /run/sshd && echo private-run;"
                            " grep -c ^advertised.listeners= /etc/kafka/server.properties || true'",
                            tree=tmp_path / "command")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert set(results) == {"b1", "b2", "b3"}
    for host, result in results.items():
        index = int(host[1:])
        hostname, vendor, run_dir, advertised = result["stdout"].splitlines()
        assert hostname == f"ip-198-18-0-{10 + index}.us-west-2.compute.internal"
        assert (vendor, run_dir, advertised) == ("Amazon EC2", "private-run", "0")


def test_ssh_config_for_humans(lab_aws_private):
    config = lab_aws_private.status["ssh_config"]
    proc = subprocess.run(["ssh", "-F", config, "laptop", "hostname"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "laptop"


def test_kafka_service_over_ssh(lab_aws_private):
    """The broker service script answers like an LSB init script when run over SSH: the login user asks for the
    status itself and stops and starts Kafka with sudo; without sudo it is refused (4, insufficient privilege), as
    systemctl refuses a user without it."""
    config = lab_aws_private.status["ssh_config"]

    def ssh(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(["ssh", "-F", config, "b3", *argv], capture_output=True, text=True, timeout=120)

    assert ssh(str(KAFKA_SERVICE), "status").returncode == 0
    refused = ssh(str(KAFKA_SERVICE), "stop")
    assert refused.returncode == 4, refused.stdout + refused.stderr
    assert "kafka-service stop: needs root (run it with sudo); admin may only ask for the status" in refused.stderr
    assert ssh(str(KAFKA_SERVICE), "status").returncode == 0  # still running
    assert ssh("sudo", "-n", str(KAFKA_SERVICE), "stop").returncode == 0
    stopped = ssh(str(KAFKA_SERVICE), "status")
    assert stopped.returncode == 3 and "not running" in stopped.stdout
    started = ssh("sudo", "-n", str(KAFKA_SERVICE), "start")
    assert started.returncode == 0, started.stderr
    assert "listening on 9092, 9093" in started.stdout
    assert ssh(str(KAFKA_SERVICE), "status").returncode == 0


def test_kafka_machines_log_in_as_a_user_with_sudo_and_clients_as_root(lab_aws_private, tmp_path):
    """As on cloud images: the brokers' login user is not root, has a home of its own holding the lab's key, and
    becomes root with sudo and no password; the user exists in the nodes' own /etc only, never the host's."""
    inventory = lab_aws_private.run("inventory").stdout.strip()
    proc, results = ansible(inventory, "all", "-m", "command", "-a",
                            "sh -c 'id -un; echo $HOME; stat -c %U:%a $HOME/.ssh/authorized_keys 2>/dev/null "
                            "|| echo none'", tree=tmp_path / "who")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    seen = {host: result["stdout"].splitlines() for host, result in results.items()}
    assert seen == {**{broker: ["admin", "/home/admin", "admin:600"] for broker in ("b1", "b2", "b3")},
                    "client": ["root", "/root", "none"], "laptop": ["root", "/root", "none"]}
    proc, results = ansible(inventory, "kafka_brokers", "--become", "-m", "command", "-a", "id -un",
                            tree=tmp_path / "become")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {host: result["stdout"] for host, result in results.items()} == {"b1": "root", "b2": "root", "b3": "root"}
    # the host's own account files never carry the lab's user
    host_files = [Path("/etc", name) for name in ("passwd", "shadow", "group")]
    host_files += sorted(Path("/etc/sudoers.d").glob("*"))
    assert [path for path in host_files if "kafkaops lab" in path.read_text()] == []
