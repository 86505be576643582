"""The real Terraform on tests/terraform/root (which calls terraform/modules/kafka-listeners), offline.

The binary is `$KAFKAOPS_TERRAFORM` when set (to run the tests with another release), else what `tools/terraform-bin`
gives: `terraform` or `tofu` (>= 1.4) on PATH, else a pinned release built once into a cache outside the checkout.
Each `TerraformRoot` has a folder of its own for Terraform's data, the state and the variables file; Terraform never
contacts the network: no update checks, and a provider installation that only looks in an empty local folder (the
module needs no provider, so `init` needs none).
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import cache
from pathlib import Path

from kafkaops_lab.pytest_plugin import must_run

REPO_ROOT = Path(__file__).resolve().parents[2]
MODULE_DIR = REPO_ROOT / "terraform" / "modules" / "kafka-listeners"
EXAMPLE_DIR = REPO_ROOT / "terraform" / "examples" / "aws"
ROOT_MODULE = Path(__file__).resolve().parent / "root"
RESOURCE = "module.kafka_listeners.terraform_data.listeners"
TIMEOUT = 900  # hang guard only: an apply runs the whole site playbook

CLI_CONFIG = """\
disable_checkpoint = true
provider_installation {
  filesystem_mirror {
    path = "%s"
  }
}
"""


@cache
def _binary_or_reason() -> tuple[str, str]:
    if os.environ.get("KAFKAOPS_TERRAFORM"):
        return os.environ["KAFKAOPS_TERRAFORM"], ""
    proc = subprocess.run([str(REPO_ROOT / "tools" / "terraform-bin")], capture_output=True, text=True,
                          timeout=5400)
    if proc.returncode != 0:
        return "", f"no Terraform: tools/terraform-bin failed: {proc.stderr.strip()[-2000:]}"
    return proc.stdout.strip(), ""


def terraform_binary() -> str:
    """The Terraform binary the tests run (skips, or fails under CI, when there is none)."""
    binary, reason = _binary_or_reason()
    if not binary:
        must_run(reason)
    return binary


class TerraformRoot:
    """tests/terraform/root with its own data folder, state file and variables file under `workdir`."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.state_file = workdir / "terraform.tfstate"
        self.var_file = workdir / "terraform.tfvars.json"
        self.tmpdir = workdir / "tmp"  # the hook's private work folders land here (TMPDIR)
        mirror = workdir / "no-providers"
        for folder in (self.tmpdir, mirror):
            folder.mkdir(parents=True, exist_ok=True)
        cli_config = workdir / "terraform.rc"
        cli_config.write_text(CLI_CONFIG % mirror, encoding="utf-8")
        self.env = {
            **os.environ,
            "CHECKPOINT_DISABLE": "1",
            "TF_CLI_CONFIG_FILE": str(cli_config),
            "TF_DATA_DIR": str(workdir / "terraform-data"),
            "TF_IN_AUTOMATION": "1",
            "TF_INPUT": "0",
            "TMPDIR": str(self.tmpdir),
            # the playbook the hook starts uses this checkout's collection and Ansible configuration
            "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
            "ANSIBLE_COLLECTIONS_PATH": str(REPO_ROOT / ".venv" / "collections"),
            "ANSIBLE_FORCE_COLOR": "0",
        }
        self.binary = terraform_binary()
        init = self.run("init", f"-backend-config=path={self.state_file}")
        assert init.returncode == 0, init.stdout + init.stderr

    def run(self, *args: str, variables: dict | None = None) -> subprocess.CompletedProcess:
        """`terraform -chdir=tests/terraform/root ARGS -no-color`, with `variables` written to the variables file."""
        extra = ["-no-color"]
        if variables is not None:
            self.var_file.write_text(json.dumps(variables), encoding="utf-8")
            self.var_file.chmod(0o600)  # it may hold secret_extra_vars
            extra.append(f"-var-file={self.var_file}")
        return subprocess.run([self.binary, f"-chdir={ROOT_MODULE}", *args, *extra], env=self.env,
                              capture_output=True, text=True, timeout=TIMEOUT)

    def apply(self, variables: dict) -> subprocess.CompletedProcess:
        return self.run("apply", "-auto-approve", variables=variables)

    def plan_changes(self, variables: dict) -> subprocess.CompletedProcess:
        """`terraform plan -detailed-exitcode`: exit 0 no changes, 2 changes, 1 error."""
        return self.run("plan", "-detailed-exitcode", variables=variables)

    def outputs(self) -> dict:
        proc = self.run("output", "-json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return {name: body["value"] for name, body in json.loads(proc.stdout).items()}

    def state_text(self) -> str:
        """The state file, and the state as `terraform show -json` renders it."""
        shown = self.run("show", "-json")
        assert shown.returncode == 0, shown.stdout + shown.stderr
        return self.state_file.read_text(encoding="utf-8") + shown.stdout
