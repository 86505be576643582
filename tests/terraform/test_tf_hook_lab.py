"""run-playbook.sh, exactly as Terraform's local-exec runs it, against a lab on aws-private-dns-only.

The environment is what Terraform would give the script for the module variables below (tfmodule plays Terraform's
part); the brokers are the lab's instances, reached like instances behind a bastion: by private IP through the
lab's ProxyCommand, host keys pinned in the lab's known_hosts.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import tfmodule

pytestmark = pytest.mark.lab

VENV_BIN = Path(sys.executable).parent
SECRET = "lab-secret-9d1c"
PLAYBOOK_TIMEOUT = 900  # hang guard only


def lab_variables(lab, **overrides) -> dict:
    """Module variables for the lab's brokers, with the lab's stand-ins for systemd and /sys/class/dmi."""
    status = lab.status()
    inventory = lab.inventory()["all"]
    group_vars = inventory["vars"]
    dmi_path = inventory["children"]["kafka_brokers"]["hosts"]["b1"]["kafka_dmi_path"]
    brokers = []
    for node in lab.nodes("broker"):
        instance = json.loads(Path(node["metadata_values"]).read_text())
        brokers.append({"name": node["name"], "id": instance["instance_id"], "private_ip": node["private_ip"],
                        "private_dns": node["private_dns"], "public_ip": node["public_ip"],
                        "public_dns": node["public_dns"]})
    values = {
        "cluster_name": lab.prefix,
        "brokers": brokers,
        "ssh_user": group_vars["ansible_user"],
        "ssh_private_key_path": group_vars["ansible_ssh_private_key_file"],
        "ssh_address": "private_ip",
        "ssh_proxy_command": status["proxy_command"],
        "ssh_known_hosts_file": str(Path(status["ssh_config"]).parent / "known_hosts"),
        "ssh_strict_host_key_checking": "yes",
        "ssh_wait_attempts": 3,
        "ssh_wait_delay_seconds": 1,
        "ssh_connect_timeout_seconds": 5,
        # what tests/lab/site-vars.yml sets, with the lab inventory's values filled in
        "extra_vars": {
            "ansible_python_interpreter": group_vars["ansible_python_interpreter"],
            "broker_restart_method": "command",
            "broker_restart_command": f"{group_vars['kafka_service_command']} restart",
            "broker_metadata_dmi_path": dmi_path,
            "broker_health_delay": 1,
        },
        "ansible_playbook_path": str(VENV_BIN / "ansible-playbook"),
        "python": sys.executable,
    }
    values.update(overrides)
    return values


def run_hook(given: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run the module's command with Terraform's environment for `given` (plus this checkout's Ansible config)."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(tfmodule.REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_COLLECTIONS_PATH": str(tfmodule.REPO_ROOT / ".venv" / "collections"),
        "ANSIBLE_FORCE_COLOR": "0",
        **tfmodule.terraform_environment(given),
        "TMPDIR": str(tmpdir),
    }
    return subprocess.run(tfmodule.command_argv(), env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=PLAYBOOK_TIMEOUT)


def advertised(lab, bootstrap: str) -> list[str]:
    """The broker endpoints `kcat -L` lists from the laptop (on the internet side)."""
    proc = lab.kcat("laptop", "-L", "-b", bootstrap)
    assert proc.returncode == 0, proc.stderr
    return sorted(line.split(" at ")[1].split()[0] for line in proc.stdout.splitlines()
                  if line.strip().startswith("broker ") and " at " in line)


def test_hook_configures_the_brokers(hook_lab, tmp_path):
    given = lab_variables(hook_lab, secret_extra_vars={"kafka_sasl_password": SECRET},
                          inventory_file=str(tmp_path / "kept" / "inventory.yml"))
    brokers = given["brokers"]
    bootstrap = f"{brokers[0]['public_dns']}:9092"
    # the seeds' failure first: the laptop is told private names it cannot resolve
    assert advertised(hook_lab, bootstrap) == sorted(f"{b['private_dns']}:9092" for b in brokers)

    proc = run_hook(given, tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    for broker in brokers:
        assert f"kafka-listeners: SSH to {broker['name']} ({broker['private_ip']}) answers" in proc.stderr
    assert "failed=0" in proc.stdout and "unreachable=0" in proc.stdout
    assert advertised(hook_lab, bootstrap) == sorted(f"{b['public_dns']}:9092" for b in brokers)
    properties = hook_lab.lab("exec", "b1", "--", "cat", "/etc/kafka/server.properties").stdout
    assert f"EXTERNAL://{brokers[0]['public_dns']}:9092" in properties
    # the secret reached no output, and the kept inventory holds no secret either
    assert SECRET not in output
    assert SECRET not in (tmp_path / "kept" / "inventory.yml").read_text()
    assert list((tmp_path / "tmp").iterdir()) == [], "the private work folder must be removed"


def test_stop_start_changes_the_triggers_and_a_rerun_advertises_the_new_name(hook_lab, tmp_path):
    before = lab_variables(hook_lab)
    moved = json.loads(hook_lab.lab("restart-instance", "b2").stdout)
    after = lab_variables(hook_lab)
    new_b2 = next(b for b in after["brokers"] if b["name"] == "b2")
    assert new_b2["public_dns"] == moved["public_dns"] != moved["old_public_dns"]
    assert tfmodule.triggers(after) != tfmodule.triggers(before), "Terraform would not re-run the playbook"

    proc = run_hook(after, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bootstrap = f"{after['brokers'][0]['public_dns']}:9092"
    assert advertised(hook_lab, bootstrap) == sorted(f"{b['public_dns']}:9092" for b in after["brokers"])
    assert f"{moved['public_dns']}:9092" in advertised(hook_lab, bootstrap)


@pytest.mark.parametrize(("where", "change"), [
    ("a port with nothing behind it", {"ssh_port": 2}),
    ("an address where no machine answers", {"brokers": [{"name": "ghost", "id": "i-0ghost",
                                                          "private_ip": "198.18.0.250"}]}),
])
def test_ssh_that_never_comes_up_fails_with_the_host_and_attempts(hook_lab, tmp_path, where, change):
    given = lab_variables(hook_lab, **change)
    first = given["brokers"][0]
    proc = run_hook(given, tmp_path)
    assert proc.returncode == 1, f"{where}: {proc.stdout}{proc.stderr}"
    expected = (f"kafka-listeners: SSH to broker {first['name']} (root@{first['private_ip']} "
                f"port {given.get('ssh_port', 22)}) never came up: 3 attempts, 1 s apart")
    assert expected in proc.stderr, proc.stderr
    assert "running" not in proc.stderr and "PLAY" not in proc.stdout, "the playbook must not start"


def test_the_playbook_gets_secrets_in_an_owner_only_file_and_not_in_its_environment(hook_lab, tmp_path):
    recorder = tmp_path / "ansible-playbook"
    record = tmp_path / "record.json"
    recorder.write_text(f"""#!{sys.executable}
import json, os, stat, sys
args = sys.argv[1:]
files = [a[1:] for a in args if a.startswith("@")]
json.dump({{"args": args, "env_has_secret": "KL_SECRET_EXTRA_VARS" in os.environ,
           "files": {{f: [stat.S_IMODE(os.stat(f).st_mode), open(f).read()] for f in files}}}},
          open({str(record)!r}, "w"))
""")
    recorder.chmod(0o755)
    given = lab_variables(hook_lab, ansible_playbook_path=str(recorder), ansible_playbook_args=["--diff"],
                          secret_extra_vars={"kafka_sasl_password": SECRET})
    proc = run_hook(given, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    seen = json.loads(record.read_text())
    assert not seen["env_has_secret"]
    assert seen["args"][-2:] == ["--diff", "kafkaops.listeners.site"]
    secret_files = {path: mode_text for path, mode_text in seen["files"].items() if SECRET in mode_text[1]}
    assert len(secret_files) == 1
    assert [mode for mode, _ in secret_files.values()] == [stat.S_IRUSR | stat.S_IWUSR]
    assert SECRET not in proc.stdout + proc.stderr
    assert list((tmp_path / "tmp").iterdir()) == [], "the private work folder must be removed"
