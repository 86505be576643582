"""The kafka-listeners Terraform module as the tests see it: its parsed HCL, and what Terraform would hand its script.

Terraform cannot be installed on this machine, so `terraform_environment()` plays Terraform's part for the one
resource the module has: it applies the variables' defaults (read from variables.tf, not repeated here), the
optional attributes' defaults of `brokers`, and evaluates each `environment` expression of the local-exec
provisioner. It knows only the expression forms the module uses and fails naming any other, so a change to
main.tf cannot silently drift away from what the tests run.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path

import hcl2

REPO_ROOT = Path(__file__).resolve().parents[2]
MODULE_DIR = REPO_ROOT / "terraform" / "modules" / "kafka-listeners"
EXAMPLE_DIR = REPO_ROOT / "terraform" / "examples" / "aws"
SCRIPT = MODULE_DIR / "run-playbook.sh"

_OPTIONS = hcl2.SerializationOptions(with_comments=False, explicit_blocks=False, strip_string_quotes=True,
                                     preserve_heredocs=False)
# `brokers` attributes declared optional(string, "") in variables.tf
_BROKER_OPTIONAL = re.compile(r'(\w+) = optional\(string, ""\)')


def load_hcl(path: Path) -> dict:
    """One .tf file parsed by python-hcl2 (string quotes stripped, no comments)."""
    with path.open(encoding="utf-8") as handle:
        return hcl2.load(handle, serialization_options=_OPTIONS)


def load_folder(folder: Path) -> dict[str, list]:
    """Every .tf file of a folder merged by top-level key (variable, resource, locals, ...)."""
    merged: dict[str, list] = {}
    for path in sorted(folder.glob("*.tf")):
        for key, value in load_hcl(path).items():
            merged.setdefault(key, []).extend(value)
    return merged


def blocks(parsed: dict[str, list], kind: str) -> dict[str, dict]:
    """Single-label blocks (variable, output, module) of a parsed folder, by label."""
    return {label: body for entry in parsed.get(kind, []) for label, body in entry.items()}


@cache
def module() -> dict[str, list]:
    return load_folder(MODULE_DIR)


def module_variables() -> dict[str, dict]:
    return blocks(module(), "variable")


def hook_resource() -> dict:
    """The body of resource "terraform_data" "listeners"."""
    for entry in module()["resource"]:
        if "terraform_data" in entry and "listeners" in entry["terraform_data"]:
            return entry["terraform_data"]["listeners"]
    raise AssertionError("main.tf has no resource \"terraform_data\" \"listeners\"")


def local_exec() -> dict:
    provisioners = hook_resource().get("provisioner", [])
    assert len(provisioners) == 1 and "local-exec" in provisioners[0], provisioners
    return provisioners[0]["local-exec"]


def _tf_string(value) -> str:
    """A value as Terraform converts it to a string (environment values are strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else repr(value)
    if isinstance(value, str):
        return value
    raise AssertionError(f"Terraform cannot convert {type(value).__name__} to a string: {value!r}")


def _tf_json(value) -> str:
    """jsonencode(): compact, object attributes in lexical order, whole numbers without a fraction."""
    def normalise(item):
        if isinstance(item, float) and item.is_integer():
            return int(item)
        if isinstance(item, dict):
            return {key: normalise(val) for key, val in item.items()}
        if isinstance(item, list):
            return [normalise(val) for val in item]
        return item
    return json.dumps(normalise(value), sort_keys=True, separators=(",", ":"))


def variable_values(given: dict) -> dict:
    """The values Terraform would evaluate with: `given` over the defaults in variables.tf, brokers completed."""
    declared = module_variables()
    unknown = sorted(set(given) - set(declared))
    assert not unknown, f"the fixture sets variables the module does not declare: {unknown}"
    values = {}
    for name, body in declared.items():
        if name in given:
            values[name] = given[name]
        elif "default" in body:
            values[name] = body["default"]
        else:
            raise AssertionError(f"the fixture must set the required variable {name}")
    optional = _BROKER_OPTIONAL.findall(declared["brokers"]["type"])
    values["brokers"] = [{**{attr: "" for attr in optional}, **broker} for broker in values["brokers"]]
    return values


_LOCAL_SECRET = ('${nonsensitive(length(var.secret_extra_vars)) > 0 ? jsonencode(var.secret_extra_vars) : ""}')


def evaluate(expression: str, values: dict):
    """Evaluate one of the expression forms the module uses; fail naming any other form."""
    if match := re.fullmatch(r"\$\{var\.(\w+)\}", expression):
        return values[match[1]]
    if match := re.fullmatch(r"\$\{jsonencode\(var\.(\w+)\)\}", expression):
        return _tf_json(values[match[1]])
    if match := re.fullmatch(r"\$\{sha256\(jsonencode\(var\.(\w+)\)\)\}", expression):
        return hashlib.sha256(_tf_json(values[match[1]]).encode()).hexdigest()
    if match := re.fullmatch(r"\$\{\[for (\w+) in var\.(\w+) : \1\.(\w+)\]\}", expression):
        return [item[match[3]] for item in values[match[2]]]
    if match := re.fullmatch(r"\$\{local\.(\w+)\}", expression):
        local_expression = {k: v for entry in module()["locals"] for k, v in entry.items()}[match[1]]
        if local_expression == _LOCAL_SECRET:
            return _tf_json(values["secret_extra_vars"]) if values["secret_extra_vars"] else ""
        raise AssertionError(f"local.{match[1]} = {local_expression}: teach tests/terraform/tfmodule.py this form")
    if match := re.fullmatch(r"\$\{path\.module\}(/[\w./-]+)", expression):
        return str(MODULE_DIR) + match[1]
    raise AssertionError(f"{expression}: teach tests/terraform/tfmodule.py this expression form")


def terraform_environment(given: dict) -> dict[str, str]:
    """The environment variables the local-exec provisioner gives its command, for the variable values `given`."""
    values = variable_values(given)
    return {key: _tf_string(evaluate(expr, values)) for key, expr in local_exec()["environment"].items()}


def triggers(given: dict) -> dict:
    """The triggers_replace value of the hook for the variable values `given` (a change re-runs the playbook)."""
    values = variable_values(given)
    return {key: evaluate(expr, values) for key, expr in hook_resource()["triggers_replace"].items()}


def command_argv() -> list[str]:
    """interpreter + command, as local-exec runs them."""
    spec = local_exec()
    return [*spec["interpreter"], evaluate(spec["command"], {})]
