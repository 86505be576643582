"""The hook's input checks and generated files (hook.py prepare, and run-playbook.sh before it reaches SSH).

No root and no lab: everything here stops before the first SSH attempt.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import stat
import subprocess

import pytest
import tfmodule

_spec = importlib.util.spec_from_file_location("kafka_listeners_hook", tfmodule.MODULE_DIR / "hook.py")
hook = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hook)

SECRET = "n0t-in-any-log-7f3a"


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "id_test"
    path.write_text("not a real key; only its path is used here\n")
    path.chmod(0o600)
    return path


def variables(key_file, **overrides) -> dict:
    """Module variables of a three-broker AWS cluster."""
    brokers = [{"name": f"kafka-{n}", "id": f"i-0{n}", "private_ip": f"10.0.0.1{n}",
                "private_dns": f"ip-10-0-0-1{n}.us-west-2.compute.internal", "public_ip": f"54.0.0.{n}",
                "public_dns": f"ec2-54-0-0-{n}.us-west-2.compute.amazonaws.com"} for n in (1, 2, 3)]
    return {"cluster_name": "orders", "brokers": brokers, "ssh_private_key_path": str(key_file), **overrides}


def prepare(tmp_path, given: dict) -> tuple[dict, list]:
    workdir = tmp_path / "run"
    workdir.mkdir()
    lines = hook.prepare(tfmodule.terraform_environment(given), workdir)
    return json.loads((workdir / "inventory.yml").read_text()), lines


def nul_list(path) -> list[str]:
    return path.read_bytes().split(b"\0")[:-1]


def test_inventory_from_terraform_values(tmp_path, key_file):
    inventory, lines = prepare(tmp_path, variables(key_file, ssh_proxy_command="ssh -W %h:%p bastion"))
    workdir = tmp_path / "run"
    group_vars = inventory["all"]["vars"]
    hosts = inventory["all"]["children"]["kafka_brokers"]["hosts"]
    assert list(hosts) == ["kafka-1", "kafka-2", "kafka-3"]
    assert hosts["kafka-2"]["ansible_host"] == "54.0.0.2"  # ssh_address defaults to public_ip
    assert hosts["kafka-2"]["kafka_instance_id"] == "i-02"
    assert "broker_static_facts" not in hosts["kafka-2"]
    assert lines == [("kafka-1", "54.0.0.1"), ("kafka-2", "54.0.0.2"), ("kafka-3", "54.0.0.3")]
    assert group_vars["ansible_user"] == "ec2-user" and group_vars["ansible_port"] == 22
    assert group_vars["ansible_ssh_private_key_file"] == str(key_file)
    assert group_vars["verify_cluster_name"] == "orders"
    common = shlex.split(group_vars["ansible_ssh_common_args"])
    assert "ProxyCommand=ssh -W %h:%p bastion" in common
    assert f"UserKnownHostsFile={workdir / 'known_hosts'}" in common
    assert "StrictHostKeyChecking=accept-new" in common
    probe = nul_list(workdir / "ssh-probe-args")
    assert [b"-i", str(key_file).encode()] == probe[probe.index(b"-i"):probe.index(b"-i") + 2]
    assert b"BatchMode=yes" in probe
    argv = nul_list(workdir / "playbook-args")
    assert argv[-1] == b"kafkaops.listeners.site"
    assert not (workdir / "secret-vars.json").exists()


def test_private_addresses_and_terraform_names(tmp_path, key_file):
    inventory, lines = prepare(tmp_path, variables(key_file, ssh_address="private_dns", use_terraform_names=True))
    host = inventory["all"]["children"]["kafka_brokers"]["hosts"]["kafka-1"]
    assert host["ansible_host"] == "ip-10-0-0-11.us-west-2.compute.internal"
    assert host["broker_static_facts"] == {"private_host": "ip-10-0-0-11.us-west-2.compute.internal",
                                           "public_dns": "ec2-54-0-0-1.us-west-2.compute.amazonaws.com",
                                           "public_ip": "54.0.0.1"}


def test_secrets_go_to_an_owner_only_file_and_nowhere_else(tmp_path, key_file):
    given = variables(key_file, secret_extra_vars={"kafka_sasl_password": SECRET}, extra_vars={"broker_mode": "dual"},
                      inventory_file=str(tmp_path / "kept" / "inventory.yml"))
    prepare(tmp_path, given)
    workdir = tmp_path / "run"
    secret_file = workdir / "secret-vars.json"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert json.loads(secret_file.read_text()) == {"kafka_sasl_password": SECRET}
    argv = nul_list(workdir / "playbook-args")
    assert f"@{secret_file}".encode() in argv
    others = [path for path in [*workdir.iterdir(), *(tmp_path / "kept").iterdir()] if path != secret_file]
    for path in others:
        assert SECRET not in path.read_text(errors="replace"), path
    # a kept inventory pins host keys beside it, so a re-run by hand checks the same keys
    kept = json.loads((tmp_path / "kept" / "inventory.yml").read_text())
    assert f"UserKnownHostsFile={tmp_path / 'kept' / 'inventory.yml'}.known_hosts" in \
        shlex.split(kept["all"]["vars"]["ansible_ssh_common_args"])


@pytest.mark.parametrize(("change", "message"), [
    (lambda v: v["brokers"][1].pop("id"), "KL_BROKERS (variable brokers), broker 2: id is missing or empty"),
    (lambda v: v["brokers"][2].update(name="kafka-1"), "broker 3: name 'kafka-1' is used twice"),
    (lambda v: v["brokers"][0].update(name="bad name"), "broker 1: name 'bad name' may only hold"),
    (lambda v: v["brokers"][0].update(public_ip=""), "broker 1 (kafka-1) has no public_ip, which ssh_address"),
    (lambda v: v.update(brokers=[]), "KL_BROKERS (variable brokers) lists no broker"),
    (lambda v: v.update(ssh_port=70000), "KL_SSH_PORT (variable ssh_port) must be a whole number from 1 to 65535"),
    (lambda v: v.update(ssh_address="elastic_ip"), "KL_SSH_ADDRESS (variable ssh_address) must be one of"),
    (lambda v: v.update(ssh_wait_attempts=0), "KL_SSH_WAIT_ATTEMPTS (variable ssh_wait_attempts) must be"),
    (lambda v: v.update(ssh_private_key_path="/nonexistent/id_rsa"), "/nonexistent/id_rsa is not a readable file"),
    (lambda v: v.update(ssh_strict_host_key_checking="yes", ssh_known_hosts_file="/nonexistent/known_hosts"),
     "/nonexistent/known_hosts does not exist"),
    (lambda v: v.update(extra_vars=["a"]), "KL_EXTRA_VARS (variable extra_vars) must be a JSON dict, got list"),
    (lambda v: v.update(cluster_name="a b"), "KL_CLUSTER_NAME (variable cluster_name) 'a b' may only hold"),
])
def test_bad_input_names_the_variable(tmp_path, key_file, change, message):
    given = variables(key_file)
    change(given)
    with pytest.raises(hook.HookInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        prepare(tmp_path, given)


def test_a_pasted_key_or_broken_secret_is_refused_without_echoing_it(tmp_path, key_file):
    env = tfmodule.terraform_environment(variables(key_file))
    pasted = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
    with pytest.raises(hook.HookInputError) as refused:
        hook.prepare({**env, "KL_SSH_PRIVATE_KEY_FILE": pasted}, tmp_path)
    assert "holds a key, not a path" in str(refused.value) and "b3BlbnNzaC1" not in str(refused.value)
    with pytest.raises(hook.HookInputError) as broken:
        hook.prepare({**env, "KL_SECRET_EXTRA_VARS": '{"password": "' + SECRET}, tmp_path)
    assert "KL_SECRET_EXTRA_VARS (variable secret_extra_vars) is not valid JSON" in str(broken.value)
    assert SECRET not in str(broken.value)


def run_script(env: dict, tmp_path) -> subprocess.CompletedProcess:
    """run-playbook.sh exactly as local-exec runs it (interpreter + command), in a private TMPDIR."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    return subprocess.run(tfmodule.command_argv(), env={**os.environ, **env, "TMPDIR": str(tmpdir)},
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)


def test_script_stops_on_bad_input_before_any_ssh(tmp_path, key_file):
    given = variables(key_file, secret_extra_vars={"password": SECRET})
    given["brokers"][0]["id"] = ""
    env = tfmodule.terraform_environment(given)
    proc = run_script({**env, "KL_ANSIBLE_PLAYBOOK": "true"}, tmp_path)
    assert proc.returncode == 2
    assert "kafka-listeners: KL_BROKERS (variable brokers), broker 1: id is missing or empty" in proc.stderr
    assert "SSH" not in proc.stderr and SECRET not in proc.stdout + proc.stderr
    assert list((tmp_path / "tmp").iterdir()) == [], "the private work folder must be removed"


def test_script_names_a_missing_ansible_playbook(tmp_path, key_file):
    env = tfmodule.terraform_environment(variables(key_file, ansible_playbook_path="/nonexistent/ansible-playbook"))
    proc = run_script(env, tmp_path)
    assert proc.returncode == 1
    assert "variable ansible_playbook_path" in proc.stderr and "/nonexistent/ansible-playbook" in proc.stderr
