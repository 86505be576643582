"""Structure of the kafka-listeners Terraform module and its AWS example, read with python-hcl2 (no Terraform here)."""

from __future__ import annotations

import ast
import re

import pytest
import tfmodule

HOOK_INPUT_NAMES = ast.literal_eval(
    re.search(r"TERRAFORM_NAMES = (\{.*?\n\})", (tfmodule.MODULE_DIR / "hook.py").read_text(), re.S)[1])


def _var_refs(text: str) -> set[str]:
    return set(re.findall(r"\bvar\.(\w+)", text))


def test_module_needs_no_provider():
    parsed = tfmodule.module()
    assert "provider" not in parsed
    assert "data" not in parsed, "a data source needs a provider"
    for terraform_block in parsed.get("terraform", []):
        assert "required_providers" not in terraform_block
    resource_types = {kind for entry in parsed["resource"] for kind in entry}
    assert resource_types == {"terraform_data"}


def test_triggers_cover_instance_ids_and_public_addresses():
    triggers = tfmodule.hook_resource()["triggers_replace"]
    expressions = " ".join(triggers.values())
    for attribute in ("id", "public_ip", "public_dns"):
        assert re.search(rf"for (\w+) in var\.brokers : \1\.{attribute}\]", expressions), attribute


def test_a_stop_start_changes_the_triggers():
    fixture = {"cluster_name": "c", "ssh_private_key_path": "/k", "brokers": [
        {"name": "b1", "id": "i-1", "private_ip": "10.0.0.1", "public_ip": "54.0.0.1", "public_dns": "ec2-54-0-0-1"}]}
    before = tfmodule.triggers(fixture)
    moved = {**fixture, "brokers": [{**fixture["brokers"][0], "public_ip": "54.0.0.9", "public_dns": "ec2-54-0-0-9"}]}
    replaced = {**fixture, "brokers": [{**fixture["brokers"][0], "id": "i-2"}]}
    renamed_privately = {**fixture, "brokers": [{**fixture["brokers"][0], "private_dns": "ip-10-0-0-1.internal"}]}
    assert tfmodule.triggers(moved) != before
    assert tfmodule.triggers(replaced) != before
    assert tfmodule.triggers(renamed_privately) == before


def test_local_exec_runs_the_script_with_bash():
    argv = tfmodule.command_argv()
    assert argv == ["bash", str(tfmodule.SCRIPT)]
    assert tfmodule.SCRIPT.is_file()


def test_every_input_the_hook_reads_is_set_by_terraform():
    environment = tfmodule.local_exec()["environment"]
    script_reads = set(re.findall(r"\$\{?(KL_\w+)", tfmodule.SCRIPT.read_text()))
    assert script_reads | set(HOOK_INPUT_NAMES) <= set(environment)
    for env_name, variable in HOOK_INPUT_NAMES.items():
        assert variable in _var_refs(environment[env_name]) or env_name == "KL_SECRET_EXTRA_VARS", env_name


def test_every_variable_is_declared_and_used():
    declared = set(tfmodule.module_variables())
    main_text = (tfmodule.MODULE_DIR / "main.tf").read_text()
    assert _var_refs(main_text) == declared


def test_secrets_are_sensitive_and_stay_out_of_state_and_outputs():
    variables = tfmodule.module_variables()
    sensitive = {name for name, body in variables.items() if body.get("sensitive") is True}
    assert sensitive == {"secret_extra_vars"}
    # triggers_replace and outputs are stored in the state
    stored = " ".join(tfmodule.hook_resource()["triggers_replace"].values())
    stored += " ".join(str(body) for body in tfmodule.blocks(tfmodule.module(), "output").values())
    assert not _var_refs(stored) & sensitive
    # the secret reaches the script only through the environment, and only when there is one
    environment = tfmodule.local_exec()["environment"]
    assert environment["KL_SECRET_EXTRA_VARS"] == "${local.secret_extra_vars_json}"
    assert tfmodule.terraform_environment({"cluster_name": "c", "ssh_private_key_path": "/k", "brokers": [
        {"name": "b", "id": "i", "private_ip": "10.0.0.1"}]})["KL_SECRET_EXTRA_VARS"] == ""
    assert "var.secret_extra_vars" not in tfmodule.local_exec()["command"]


def test_the_key_is_passed_by_path():
    variables = tfmodule.module_variables()
    assert not [name for name in variables if "private_key" in name and not name.endswith("_path")]
    validations = variables["ssh_private_key_path"]["validation"]
    assert any("-----BEGIN" in rule["condition"] for rule in validations)


@pytest.mark.parametrize("name", ["ssh_address", "ssh_strict_host_key_checking", "ssh_wait_attempts", "brokers"])
def test_closed_inputs_are_validated(name):
    assert tfmodule.module_variables()[name].get("validation"), f"variable {name} has no validation block"


def test_defaults_match_the_collection():
    variables = tfmodule.module_variables()
    assert variables["playbook"]["default"] == "kafkaops.listeners.site"
    assert variables["ansible_playbook_path"]["default"] == "ansible-playbook"
    assert variables["ssh_strict_host_key_checking"]["default"] != "no"


def test_aws_example_wires_three_instances_into_the_hook():
    parsed = tfmodule.load_folder(tfmodule.EXAMPLE_DIR)
    providers = {name for entry in parsed["provider"] for name in entry}
    assert providers == {"aws"}
    instances = [entry["aws_instance"] for entry in parsed["resource"] if "aws_instance" in entry]
    assert len(instances) == 1 and instances[0]["broker"]["count"] == 3
    hook = tfmodule.blocks(parsed, "module")["kafka_listeners"]
    assert hook["source"] == "../../modules/kafka-listeners"
    required = {name for name, body in tfmodule.module_variables().items() if "default" not in body}
    assert required <= set(hook)
    assert set(hook) - {"source"} <= set(tfmodule.module_variables())
    for attribute in ("id", "private_ip", "private_dns", "public_ip", "public_dns"):
        assert f"instance.{attribute}" in hook["brokers"], attribute
