"""What the kafka-listeners module is, as Terraform plans it (`terraform show -json` of a saved plan), and the two
things Terraform cannot check here, read with python-hcl2: the README's inputs table against variables.tf, and the
AWS example's wiring (`terraform validate` of the example needs the AWS provider, which cannot be installed offline).

No root and no lab: `terraform plan` runs no provisioner.
"""

from __future__ import annotations

import json
import re

import hcl2
import pytest
from terraform_root import EXAMPLE_DIR, MODULE_DIR, RESOURCE, TerraformRoot

SECRET = "pl4n-s3cret-51b0"
HCL_OPTIONS = hcl2.SerializationOptions(with_comments=False, explicit_blocks=False, strip_string_quotes=True,
                                        preserve_heredocs=False)


def variables(**overrides) -> dict:
    broker = {"name": "b1", "id": "i-1", "private_ip": "10.0.0.1", "private_dns": "ip-10-0-0-1.internal",
              "public_ip": "54.0.0.1", "public_dns": "ec2-54-0-0-1.example.com"}
    return {"cluster_name": "c", "ssh_private_key_path": "/k", "brokers": [broker], **overrides}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> TerraformRoot:
    return TerraformRoot(tmp_path_factory.mktemp("terraform-plan"))


def planned(root: TerraformRoot, given: dict) -> dict:
    """`terraform show -json` of `terraform plan -out` for the variable values `given`."""
    plan_file = root.workdir / "plan.bin"
    proc = root.run("plan", f"-out={plan_file}", variables=given)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shown = root.run("show", "-json", str(plan_file))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    return json.loads(shown.stdout)


def triggers(root: TerraformRoot, given: dict) -> dict:
    [change] = [c for c in planned(root, given)["resource_changes"] if c["address"] == RESOURCE]
    return change["change"]["after"]["triggers_replace"]


def test_module_needs_no_provider(root):
    plan = planned(root, variables())
    assert {change["type"] for change in plan["resource_changes"]} == {"terraform_data"}
    providers = {config["full_name"] for config in plan["configuration"].get("provider_config", {}).values()}
    assert providers <= {"terraform.io/builtin/terraform"}, providers


def test_triggers_are_the_instance_ids_public_addresses_playbook_and_vars_hash(root):
    stored = triggers(root, variables(extra_vars={"broker_mode": "dual"}))
    assert stored["instance_ids"] == ["i-1"]
    assert stored["public_ips"] == ["54.0.0.1"] and stored["public_dns"] == ["ec2-54-0-0-1.example.com"]
    assert stored["playbook"] == "kafkaops.listeners.site"
    assert re.fullmatch(r"[0-9a-f]{64}", stored["extra_vars_sha256"])


def test_a_stop_start_or_replacement_changes_the_triggers_and_a_private_rename_does_not(root):
    given = variables()
    before = triggers(root, given)
    broker = given["brokers"][0]
    moved = variables(brokers=[{**broker, "public_ip": "54.0.0.9", "public_dns": "ec2-54-0-0-9.example.com"}])
    replaced = variables(brokers=[{**broker, "id": "i-2"}])
    renamed_privately = variables(brokers=[{**broker, "private_dns": "ip-10-0-0-1.other.internal"}])
    assert triggers(root, moved) != before
    assert triggers(root, replaced) != before
    assert triggers(root, variables(extra_vars={"broker_mode": "dual"})) != before
    assert triggers(root, renamed_privately) == before


def test_only_the_secret_map_is_sensitive_and_it_stays_out_of_what_is_stored(root):
    plan = planned(root, variables(secret_extra_vars={"kafka_sasl_password": SECRET}))
    module_variables = plan["configuration"]["root_module"]["module_calls"]["kafka_listeners"]["module"]["variables"]
    assert {name for name, body in module_variables.items() if body.get("sensitive")} == {"secret_extra_vars"}
    # what the apply writes into the state: the resource's attributes and the outputs
    stored = json.dumps([plan["planned_values"], plan["resource_changes"], plan["output_changes"]])
    assert SECRET not in stored
    assert "i-1" in stored


def _hcl_folder(folder) -> dict[str, list]:
    merged: dict[str, list] = {}
    for path in sorted(folder.glob("*.tf")):
        with path.open(encoding="utf-8") as handle:
            for key, value in hcl2.load(handle, serialization_options=HCL_OPTIONS).items():
                merged.setdefault(key, []).extend(value)
    return merged


def _blocks(parsed: dict[str, list], kind: str) -> dict[str, dict]:
    return {label: body for entry in parsed.get(kind, []) for label, body in entry.items()}


def module_variables() -> dict[str, dict]:
    return _blocks(_hcl_folder(MODULE_DIR), "variable")


def test_every_variable_is_used():
    # `terraform validate` accepts a declared variable that nothing reads
    main_text = (MODULE_DIR / "main.tf").read_text()
    assert set(re.findall(r"\bvar\.(\w+)", main_text)) == set(module_variables())


def _readme_inputs() -> dict[str, str]:
    """The README's inputs table: variable name -> the default column, one row per name."""
    text = (MODULE_DIR / "README.md").read_text()
    table = text.split("## Inputs", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`(\w+)`", cells[0])
        defaults = re.findall(r"`([^`]*)`", cells[1]) if len(names) > 1 else [cells[1]]
        for name, default in zip(names, defaults, strict=True):
            rows[name] = default.strip("`")
    return rows


def _as_readme_shows(value) -> str:
    """A default as the README writes it (python-hcl2 gives "" for an empty string, the README `""`)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict | list) or value == "":
        return json.dumps(value)
    return str(value)


def test_readme_inputs_table_matches_variables_tf():
    declared = module_variables()
    documented = _readme_inputs()
    assert set(documented) == set(declared)
    for name, body in declared.items():
        expected = _as_readme_shows(body["default"]) if "default" in body else "required"
        assert documented[name] == expected, f"README: {name}={documented[name]!r}, variables.tf: {expected!r}"


def test_aws_example_wires_three_instances_into_the_hook():
    parsed = _hcl_folder(EXAMPLE_DIR)
    providers = {name for entry in parsed["provider"] for name in entry}
    assert providers == {"aws"}
    instances = [entry["aws_instance"] for entry in parsed["resource"] if "aws_instance" in entry]
    assert len(instances) == 1 and instances[0]["broker"]["count"] == 3
    hook = _blocks(parsed, "module")["kafka_listeners"]
    assert hook["source"] == "../../modules/kafka-listeners"
    declared = module_variables()
    required = {name for name, body in declared.items() if "default" not in body}
    assert required <= set(hook)
    assert set(hook) - {"source"} <= set(declared)
    for attribute in ("id", "private_ip", "private_dns", "public_ip", "public_dns"):
        assert f"instance.{attribute}" in hook["brokers"], attribute
