"""`terraform apply` of tests/terraform/root (the kafka-listeners module) against a lab on aws-private-dns-only.

The real Terraform runs the module's local-exec provisioner, which runs the site playbook. The brokers are the lab's
instances, reached like instances behind a bastion: by private IP through the lab's ProxyCommand, host keys pinned
in the lab's known_hosts. The tests of this module share one lab and one Terraform state, in file order: first apply,
unchanged apply, stop/start and re-apply, failing playbook.
"""

from __future__ import annotations

import json
import stat
import sys
import uuid
from pathlib import Path

import pytest
import yaml
from terraform_root import RESOURCE, TerraformRoot

pytestmark = pytest.mark.lab

VENV_BIN = Path(sys.executable).parent
BROKER_SPEC = Path(__file__).resolve().parents[2] / "roles" / "broker" / "meta" / "argument_specs.yml"
SECRET = "lab-secret-9d1c"
PROVISIONER_OUTPUT = f"{RESOURCE} (local-exec): "


def lab_variables(lab, **overrides) -> dict:
    """Module variables for the lab's brokers, with the lab's stand-ins for systemd and /sys/class/dmi."""
    status = lab.refresh()
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
        # what lab/site-vars.yml sets, with the lab inventory's values filled in
        "extra_vars": {
            "ansible_python_interpreter": group_vars["ansible_python_interpreter"],
            "broker_restart_method": "command",
            "broker_restart_command": f"{group_vars['kafka_service_command']} restart",
            "broker_metadata_dmi_path": dmi_path,
            "broker_health_delay": 1,
            "broker_start_program": "/etc/kafka/kafka-listeners-prestart",
            "broker_start_rediscover": False,
        },
        "ansible_playbook_path": str(VENV_BIN / "ansible-playbook"),
        "python": sys.executable,
    }
    values.update(overrides)
    return values


def advertised(lab, bootstrap: str) -> list[str]:
    """The broker endpoints `kcat -L` lists from the laptop (on the internet side)."""
    proc = lab.kcat("laptop", "-L", "-b", bootstrap)
    assert proc.returncode == 0, proc.stderr
    return sorted(line.split(" at ")[1].split()[0] for line in proc.stdout.splitlines()
                  if line.strip().startswith("broker ") and " at " in line)


def round_trip_from_the_laptop(lab, bootstrap: str) -> None:
    """Produce a message with kcat on the laptop and read it back from the start of a fresh topic."""
    topic = f"tf-{uuid.uuid4().hex[:8]}"
    message = f"via-terraform-{uuid.uuid4().hex[:8]}"
    produced = lab.kcat("laptop", "-P", "-b", bootstrap, "-t", topic, input_text=message + "\n")
    assert produced.returncode == 0, produced.stderr
    consumed = lab.kcat("laptop", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-c", "1", "-e", "-q")
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.splitlines() == [message], consumed.stdout + consumed.stderr


def provisioner_lines(proc) -> list[str]:
    """What the playbook printed, as Terraform streams it."""
    return [line.removeprefix(PROVISIONER_OUTPUT) for line in proc.stdout.splitlines()
            if line.startswith(PROVISIONER_OUTPUT)]


def words(text: str) -> str:
    """Text with its line breaks and runs of spaces made single spaces (Terraform wraps error details)."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def lab_root(tmp_path_factory) -> TerraformRoot:
    """The Terraform state the tests of this file share, in the order they are written."""
    return TerraformRoot(tmp_path_factory.mktemp("terraform-lab"))


def test_hook_configures_the_brokers(lab_aws_private, lab_root):
    given = lab_variables(lab_aws_private, secret_extra_vars={"kafka_sasl_password": SECRET},
                          inventory_file=str(lab_root.workdir / "kept" / "inventory.yml"))
    brokers = given["brokers"]
    bootstrap = f"{brokers[0]['public_dns']}:9092"
    # the failure first: the laptop is told private names it cannot resolve
    assert advertised(lab_aws_private, bootstrap) == sorted(f"{b['private_dns']}:9092" for b in brokers)

    proc = lab_root.apply(given)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert f"{RESOURCE}: Provisioning with 'local-exec'..." in proc.stdout
    assert "Apply complete! Resources: 1 added, 0 changed, 0 destroyed." in proc.stdout
    # a secret in the provisioner's configuration makes Terraform hide the playbook's output
    assert f"{PROVISIONER_OUTPUT}(output suppressed due to sensitive value in config)" in proc.stdout
    assert advertised(lab_aws_private, bootstrap) == sorted(f"{b['public_dns']}:9092" for b in brokers)
    round_trip_from_the_laptop(lab_aws_private, bootstrap)
    properties = lab_aws_private.run("exec", "b1", "--", "cat", "/etc/kafka/server.properties").stdout
    assert f"EXTERNAL://{brokers[0]['public_dns']}:9092" in properties
    # the secret is in no output, not in the state (file or `terraform show -json`), not in the kept inventory
    assert SECRET not in output
    state = lab_root.state_text()
    assert brokers[0]["id"] in state and SECRET not in state
    assert SECRET not in (lab_root.workdir / "kept" / "inventory.yml").read_text()
    assert list(lab_root.tmpdir.iterdir()) == [], "the hook's private work folder must be removed"


def test_an_unchanged_apply_does_nothing(lab_aws_private, lab_root):
    run_id = lab_root.outputs()["run_id"]
    given = lab_variables(lab_aws_private, secret_extra_vars={"kafka_sasl_password": SECRET},
                          inventory_file=str(lab_root.workdir / "kept" / "inventory.yml"))
    plan = lab_root.plan_changes(given)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    proc = lab_root.apply(given)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No changes." in proc.stdout
    assert "Apply complete! Resources: 0 added, 0 changed, 0 destroyed." in proc.stdout
    assert "Provisioning with 'local-exec'" not in proc.stdout
    assert lab_root.outputs()["run_id"] == run_id
    assert SECRET not in proc.stdout + proc.stderr + lab_root.state_text()


def test_stop_start_replaces_the_resource_and_the_playbook_fixes_the_advertised_name(lab_aws_private, lab_root):
    run_id = lab_root.outputs()["run_id"]
    moved = json.loads(lab_aws_private.run("restart-instance", "b2").stdout)
    # without secrets this time: Terraform then shows the playbook's output
    given = lab_variables(lab_aws_private)
    bootstrap = f"{given['brokers'][0]['public_dns']}:9092"
    new_b2 = next(b for b in given["brokers"] if b["name"] == "b2")
    assert new_b2["public_dns"] == moved["public_dns"] != moved["old_public_dns"]
    # b2 still advertises the name the stop/start took away, so nobody lists it under its new name
    assert f"{moved['public_dns']}:9092" not in advertised(lab_aws_private, bootstrap)

    plan = lab_root.plan_changes(given)
    assert plan.returncode == 2, plan.stdout + plan.stderr
    assert f"# {RESOURCE} must be replaced" in plan.stdout
    # (Terraform 1.5 shows the change as - old / + new lines, later releases as old -> new)
    assert f'"{moved["old_public_dns"]}"' in plan.stdout and f'"{moved["public_dns"]}"' in plan.stdout, plan.stdout

    proc = lab_root.apply(given)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Apply complete! Resources: 1 added, 0 changed, 1 destroyed." in proc.stdout
    played = provisioner_lines(proc)
    assert f"kafka-listeners: SSH to b2 ({new_b2['private_ip']}) answers (attempt 1 of 3)" in played, proc.stdout
    recap = [line for line in played if " : ok=" in line]
    assert sorted(line.split()[0] for line in recap) == ["b1", "b2", "b3"], proc.stdout
    assert all("unreachable=0" in line and "failed=0" in line for line in recap), recap
    assert lab_root.outputs()["run_id"] != run_id
    assert advertised(lab_aws_private, bootstrap) == sorted(f"{b['public_dns']}:9092" for b in given["brokers"])
    round_trip_from_the_laptop(lab_aws_private, f"{moved['public_dns']}:9092")


def test_a_failing_playbook_fails_the_apply_with_its_message(lab_aws_private, lab_root):
    given = lab_variables(lab_aws_private)
    given["extra_vars"]["broker_mode"] = "bogus"  # the broker role's argument spec refuses it
    proc = lab_root.apply(given)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    choices = yaml.safe_load(BROKER_SPEC.read_text())["argument_specs"]["main"]["options"]["broker_mode"]["choices"]
    message = f"value of broker_mode must be one of: {', '.join(choices)}, got: bogus"
    assert any(message in line for line in provisioner_lines(proc)), proc.stdout
    assert "Error: local-exec provisioner error" in proc.stderr
    assert message in words(proc.stderr), proc.stderr
    # the failed run is tainted: the next apply runs the playbook again
    assert "tainted" in lab_root.run("show").stdout


@pytest.mark.parametrize(("where", "change"), [
    ("a port with nothing behind it", {"ssh_port": 2}),
    ("an address where no machine answers", {"brokers": [{"name": "ghost", "id": "i-0ghost",
                                                          "private_ip": "198.18.0.250"}]}),
])
def test_ssh_that_never_comes_up_fails_with_the_host_and_attempts(lab_aws_private, tmp_path, where, change):
    given = lab_variables(lab_aws_private, **change)
    first = given["brokers"][0]
    proc = TerraformRoot(tmp_path).apply(given)
    assert proc.returncode == 1, f"{where}: {proc.stdout}{proc.stderr}"
    expected = (f"kafka-listeners: SSH to broker {first['name']} (root@{first['private_ip']} "
                f"port {given.get('ssh_port', 22)}) never came up: 3 attempts, 1 s apart")
    assert any(line.startswith(expected) for line in provisioner_lines(proc)), proc.stdout
    assert "PLAY" not in proc.stdout, "the playbook must not start"


def test_the_playbook_gets_secrets_in_an_owner_only_file_and_not_in_its_environment(lab_aws_private, tmp_path):
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
    given = lab_variables(lab_aws_private, ansible_playbook_path=str(recorder), ansible_playbook_args=["--diff"],
                          secret_extra_vars={"kafka_sasl_password": SECRET})
    root = TerraformRoot(tmp_path / "terraform")
    proc = root.apply(given)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    seen = json.loads(record.read_text())
    assert not seen["env_has_secret"]
    assert seen["args"][-2:] == ["--diff", "kafkaops.listeners.site"]
    secret_files = {path: mode_text for path, mode_text in seen["files"].items() if SECRET in mode_text[1]}
    assert len(secret_files) == 1
    assert [mode for mode, _ in secret_files.values()] == [stat.S_IRUSR | stat.S_IWUSR]
    assert SECRET not in proc.stdout + proc.stderr + root.state_text()
    assert list(root.tmpdir.iterdir()) == [], "the hook's private work folder must be removed"
