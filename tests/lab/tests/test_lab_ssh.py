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
    """The broker service script answers like an LSB init script when run over SSH."""
    config = lab_aws_private.status["ssh_config"]

    def service(action: str) -> subprocess.CompletedProcess:
        return subprocess.run(["ssh", "-F", config, "b3", str(KAFKA_SERVICE), action],
                              capture_output=True, text=True, timeout=120)

    assert service("status").returncode == 0
    assert service("stop").returncode == 0
    stopped = service("status")
    assert stopped.returncode == 3 and "not running" in stopped.stdout
    started = service("start")
    assert started.returncode == 0, started.stderr
    assert "listening on 9092, 9093" in started.stdout
    assert service("status").returncode == 0
