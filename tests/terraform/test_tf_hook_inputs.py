"""The hook's inputs through the real Terraform: `terraform apply` of tests/terraform/root with values no lab serves.

No root and no lab: every run here stops before the first SSH attempt, either refused (by Terraform's variable
validation or by hook.py) or cut short by a stand-in for the `python` variable that runs the real `hook.py prepare`,
keeps what it wrote and stops the script. As a further guard, SSH goes through `ProxyCommand=false`, so not even a
connection attempt could leave this machine.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import stat
import sys
from pathlib import Path

import pytest
import yaml
from terraform_root import MODULE_DIR, RESOURCE, TerraformRoot

_spec = importlib.util.spec_from_file_location("kafka_listeners_hook", MODULE_DIR / "hook.py")
hook = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hook)

SECRET = "n0t-in-any-log-7f3a"
STOPPED = 3  # the exit status of the `python` stand-in once it has kept hook.py's files
KEPT = "kept hook.py's files; stopping before SSH"


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "id_test"
    path.write_text("not a real key; only its path is used here\n")
    path.chmod(0o600)
    return path


def variables(key_file, **overrides) -> dict:
    """Module variables of a three-broker AWS cluster, with SSH that can never connect."""
    brokers = [{"name": f"kafka-{n}", "id": f"i-0{n}", "private_ip": f"10.0.0.1{n}",
                "private_dns": f"ip-10-0-0-1{n}.us-west-2.compute.internal", "public_ip": f"54.0.0.{n}",
                "public_dns": f"ec2-54-0-0-{n}.us-west-2.compute.amazonaws.com"} for n in (1, 2, 3)]
    return {"cluster_name": "orders", "brokers": brokers, "ssh_private_key_path": str(key_file),
            "ssh_proxy_command": "false", "ssh_wait_attempts": 1, "ssh_wait_delay_seconds": 0,
            "ansible_playbook_path": str(Path(sys.executable).parent / "ansible-playbook"), **overrides}


def words(text: str) -> str:
    """Text with its line breaks and runs of spaces made single spaces (Terraform wraps diagnostics)."""
    return " ".join(text.split())


class Prepared:
    """What hook.py prepare wrote for one `terraform apply`, and the environment Terraform gave it."""

    def __init__(self, kept: Path):
        self.files = kept / "files"
        self.workdir = Path((kept / "workdir").read_text().strip())
        self.environment = {name: value for name, value in json.loads((kept / "environment.json").read_text()).items()
                            if name.startswith("KL_")}
        self.inventory = json.loads((self.files / "inventory.yml").read_text())

    def nul_list(self, name: str) -> list[str]:
        return (self.files / name).read_bytes().decode().split("\0")[:-1]


def prepare(tmp_path: Path, given: dict) -> Prepared:
    """`terraform apply` with a `python` that runs the real `hook.py prepare`, keeps its files, and stops there."""
    kept = tmp_path / "kept"
    (kept / "files").mkdir(parents=True)
    stand_in = tmp_path / "python"
    stand_in.write_text(f"""#!/bin/bash
"{sys.executable}" "$@" || exit $?
# "$@" is hook.py prepare WORKDIR
printf '%s\\n' "$3" > "{kept}/workdir"
cp -a "$3"/. "{kept}/files/"
"{sys.executable}" -c 'import json, os; print(json.dumps(dict(os.environ)))' > "{kept}/environment.json"
echo "{KEPT}" >&2
exit {STOPPED}
""")
    stand_in.chmod(0o755)
    root = TerraformRoot(tmp_path / "terraform")
    proc = root.apply({**given, "python": str(stand_in)})
    assert proc.returncode == 1 and f"exit status {STOPPED}" in proc.stderr, proc.stdout + proc.stderr
    # Terraform hides a provisioner's output when its configuration holds a sensitive value: only with secrets
    shown = f"{RESOURCE} (local-exec): {KEPT}" in proc.stdout
    suppressed = f"{RESOURCE} (local-exec): (output suppressed due to sensitive value in config)" in proc.stdout
    assert (shown, suppressed) == ((False, True) if given.get("secret_extra_vars") else (True, False)), proc.stdout
    assert list(root.tmpdir.iterdir()) == [], "the hook's private work folder must be removed"
    return Prepared(kept)


def test_inventory_from_terraform_values(tmp_path, key_file):
    prepared = prepare(tmp_path, variables(key_file, ssh_proxy_command="ssh -W %h:%p bastion"))
    group_vars = prepared.inventory["all"]["vars"]
    hosts = prepared.inventory["all"]["children"]["kafka_brokers"]["hosts"]
    assert list(hosts) == ["kafka-1", "kafka-2", "kafka-3"]
    assert hosts["kafka-2"]["ansible_host"] == "54.0.0.2"  # ssh_address defaults to public_ip
    # only variables a role reads (an option of a role's argument spec) and Ansible's own connection variables
    assert hosts["kafka-2"] == {"ansible_host": "54.0.0.2"}
    role_options = {name for spec in (MODULE_DIR.parents[2] / "roles").glob("*/meta/argument_specs.yml")
                    for name in yaml.safe_load(spec.read_text())["argument_specs"]["main"]["options"]}
    given = set(group_vars) | {name for host in hosts.values() for name in host}
    assert {name for name in given if not name.startswith("ansible_")} <= role_options
    assert (prepared.files / "hosts.tsv").read_text() == "kafka-1\t54.0.0.1\nkafka-2\t54.0.0.2\nkafka-3\t54.0.0.3\n"
    # the module's defaults, as Terraform applies them
    assert group_vars["ansible_user"] == "ec2-user" and group_vars["ansible_port"] == 22
    assert group_vars["ansible_ssh_private_key_file"] == str(key_file)
    assert group_vars["verify_cluster_name"] == group_vars["broker_cluster_name"] == "orders"
    assert group_vars["broker_become"] is True  # the module's default: cloud images log in as a sudo user
    common = shlex.split(group_vars["ansible_ssh_common_args"])
    assert "ProxyCommand=ssh -W %h:%p bastion" in common
    assert f"UserKnownHostsFile={prepared.workdir / 'known_hosts'}" in common
    assert "StrictHostKeyChecking=accept-new" in common
    probe = prepared.nul_list("ssh-probe-args")
    assert ["-i", str(key_file)] == probe[probe.index("-i"):probe.index("-i") + 2]
    assert "BatchMode=yes" in probe
    assert prepared.nul_list("playbook-args")[-1] == "kafkaops.listeners.site"
    assert not (prepared.files / "secret-vars.json").exists()
    assert prepared.environment["KL_SECRET_EXTRA_VARS"] == ""
    # every KL_* variable the script and hook.py read is one Terraform sets
    script_reads = set(re.findall(r"\$\{?(KL_\w+)", (MODULE_DIR / "run-playbook.sh").read_text()))
    assert script_reads | set(hook.TERRAFORM_NAMES) <= set(prepared.environment)


def test_private_addresses_and_terraform_names(tmp_path, key_file):
    given = variables(key_file, ssh_address="private_dns", use_terraform_names=True)
    given["brokers"][0].pop("public_dns")  # an optional attribute: Terraform makes it ""
    prepared = prepare(tmp_path, given)
    host = prepared.inventory["all"]["children"]["kafka_brokers"]["hosts"]["kafka-1"]
    assert host["ansible_host"] == "ip-10-0-0-11.us-west-2.compute.internal"
    assert host["broker_static_facts"] == {"private_host": "ip-10-0-0-11.us-west-2.compute.internal",
                                           "public_dns": None, "public_ip": "54.0.0.1"}


def test_secrets_go_to_an_owner_only_file_and_nowhere_else(tmp_path, key_file):
    given = variables(key_file, secret_extra_vars={"kafka_sasl_password": SECRET}, extra_vars={"broker_mode": "dual"},
                      inventory_file=str(tmp_path / "kept-inventory" / "inventory.yml"))
    prepared = prepare(tmp_path, given)
    secret_file = prepared.files / "secret-vars.json"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert json.loads(secret_file.read_text()) == {"kafka_sasl_password": SECRET}
    assert f"@{prepared.workdir / 'secret-vars.json'}" in prepared.nul_list("playbook-args")
    others = [path for path in [*prepared.files.iterdir(), *(tmp_path / "kept-inventory").iterdir()]
              if path != secret_file]
    for path in others:
        assert SECRET not in path.read_text(errors="replace"), path
    state = (tmp_path / "terraform" / "terraform.tfstate").read_text()
    assert "i-01" in state and SECRET not in state
    # a kept inventory pins host keys beside it, so a re-run by hand checks the same keys
    kept = json.loads((tmp_path / "kept-inventory" / "inventory.yml").read_text())
    assert f"UserKnownHostsFile={tmp_path / 'kept-inventory' / 'inventory.yml'}.known_hosts" in \
        shlex.split(kept["all"]["vars"]["ansible_ssh_common_args"])


def _set_broker(index: int, **values):
    return lambda given: given["brokers"][index].update(values)


# Each bad value is refused by the first layer that sees it: Terraform's own checks of the variables (type,
# validation blocks) or hook.py; either way the message names the variable, and nothing reaches SSH.
@pytest.mark.parametrize(("change", "message"), [
    (_set_broker(1, id=""), "KL_BROKERS (variable brokers), broker 2: id is missing or empty"),
    (lambda v: v["brokers"][1].pop("id"), 'attribute "id" is required'),
    (_set_broker(2, name="kafka-1"), "brokers: every broker needs a different name"),
    (_set_broker(0, name="bad name"), "brokers: a name may only hold letters, digits"),
    (_set_broker(0, public_ip=""), "broker 1 (kafka-1) has no public_ip, which ssh_address=public_ip connects to"),
    (lambda v: v.update(brokers=[]), "brokers: give at least one broker instance."),
    (lambda v: v.update(ssh_port=70000), "KL_SSH_PORT (variable ssh_port) must be a whole number from 1 to 65535"),
    (lambda v: v.update(ssh_address="elastic_ip"), "ssh_address: choose one of public_ip, public_dns"),
    (lambda v: v.update(ssh_wait_attempts=0), "ssh_wait_attempts: a whole number from 1 to 1000."),
    (lambda v: v.update(ssh_private_key_path="/nonexistent/id_rsa"), "/nonexistent/id_rsa is not a readable file"),
    (lambda v: v.update(ssh_strict_host_key_checking="yes", ssh_known_hosts_file="/nonexistent/known_hosts"),
     "/nonexistent/known_hosts does not exist"),
    (lambda v: v.update(extra_vars=["a"]), "extra_vars: give a map of variable names to values."),
    (lambda v: v.update(cluster_name="a b"), "cluster_name: use letters, digits"),
    (lambda v: v.update(ansible_playbook_path="/nonexistent/ansible-playbook"),
     "variable ansible_playbook_path): '/nonexistent/ansible-playbook' is not an executable command"),
])
def test_bad_input_fails_the_apply_naming_the_variable(tmp_path, key_file, change, message):
    given = variables(key_file, secret_extra_vars={"password": SECRET})
    change(given)
    root = TerraformRoot(tmp_path)
    proc = root.apply(given)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert words(message) in words(output), output
    assert "SSH to" not in output and SECRET not in output
    assert list(root.tmpdir.iterdir()) == [], "the hook's private work folder must be removed"


def test_a_pasted_key_is_refused_by_terraform(tmp_path, key_file):
    pasted = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
    root = TerraformRoot(tmp_path)
    proc = root.apply(variables(key_file, ssh_private_key_path=pasted))
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "ssh_private_key_path: give the path of the key file, not the key itself." in words(output)
    # refused while planning: nothing was created and the hook never ran. (Terraform's message quotes the value of
    # the caller's variable when that variable is not sensitive: the README says to keep keys in sensitive ones.)
    assert "Creating..." not in proc.stdout and not root.state_file.exists()


def test_hook_refuses_broken_secret_json_without_echoing_it(tmp_path, key_file):
    # Terraform always hands the hook valid JSON; a hand-made environment (a user running the script by hand) may not
    environment = prepare(tmp_path, variables(key_file)).environment
    with pytest.raises(hook.HookInputError) as broken:
        hook.prepare({**environment, "KL_SECRET_EXTRA_VARS": '{"password": "' + SECRET}, tmp_path)
    assert "KL_SECRET_EXTRA_VARS (variable secret_extra_vars) is not valid JSON" in str(broken.value)
    assert SECRET not in str(broken.value)
