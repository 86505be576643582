"""The molecule scenarios of extensions/molecule: their files, the inventory script, and one molecule run each.

The file and inventory-script tests are pure (no root, no lab). The scenario tests (marker `lab`) run
`molecule test -s NAME` (create = `lab up`, converge = the site playbook, idempotence, verify = kcat from the client
networks, destroy = `lab down`), each in its own molecule ephemeral folder so that a lab left by a killed run can
still be found and torn down here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kafkaops_lab import inventory, scenario, topology
from kafkaops_lab.paths import REPO_ROOT, VENV_BIN
from kafkaops_lab.state import LabDir

MOLECULE_DIR = REPO_ROOT / "extensions" / "molecule"
INVENTORY_SCRIPT = MOLECULE_DIR / "shared" / "lab_inventory.py"
# in the order they run; the list must name every scenario folder (checked below), so none is silently left out
SCENARIOS = (
    "aws-split-horizon",
    "aws-private-dns-only",
    "gcp",
    "azure",
    "rolling-restart-fault",
)
# not run by `molecule test` here: test_real_kafka_lab.py converges each on real Kafka and runs there the steps
# `molecule test` adds (the idempotence step, the verify playbook with Molecule's variables and environment). On the
# stand-in they repeated that on a weaker Kafka (about 200 s of the lab pool's time); Molecule's own part of them is
# their molecule.yml, the same as aws-private-dns-only's (checked below), and the shared create and destroy
REAL_KAFKA_CHECKED = ("kraft-separate-controllers", "docker-host")
# labs started secured on real Kafka (the stand-in has no SASL): run by test_molecule_secured_real_kafka.py
SECURED_SCENARIOS = ("aws-sasl-ssl-inter-broker", "aws-sasl-plaintext")
# real Kafka with four client networks (broker_mode networks): run by test_molecule_four_networks_real_kafka.py
NETWORK_SCENARIOS = ("aws-four-networks",)
MOLECULE_TIMEOUT = 1800  # hang guard only: a scenario takes 3 to 4 minutes on a loaded 2-core machine
# the listener names verify.yml expects each layout to advertise (the listener_plan defaults)
LAYOUT_LISTENERS = {"single": {"PLAINTEXT"}, "dual": {"INTERNAL", "EXTERNAL"}, "docker": {"DOCKER", "HOST", "EXTERNAL"}}


def scenario_vars(name: str) -> dict:
    return yaml.safe_load((MOLECULE_DIR / name / "vars" / "scenario.yml").read_text(encoding="utf-8"))


def test_the_scenario_list_names_every_scenario_folder():
    folders = sorted(path.parent.name for path in MOLECULE_DIR.glob("*/molecule.yml"))
    assert folders == sorted(SCENARIOS + SECURED_SCENARIOS + NETWORK_SCENARIOS + REAL_KAFKA_CHECKED)


@pytest.mark.parametrize("name", REAL_KAFKA_CHECKED)
def test_a_scenario_checked_on_real_kafka_has_the_molecule_settings_of_one_molecule_runs(name):
    def settings(scenario_name: str) -> str:
        return (MOLECULE_DIR / scenario_name / "molecule.yml").read_text(encoding="utf-8")

    assert settings(name) == settings("aws-private-dns-only"), (
        f"{name}'s molecule.yml differs from the scenarios `molecule test` runs here: move {name} to SCENARIOS")


@pytest.mark.parametrize("name", SCENARIOS + SECURED_SCENARIOS + NETWORK_SCENARIOS + REAL_KAFKA_CHECKED)
def test_scenario_vars_name_a_lab_scenario_and_a_consistent_expectation(name):
    data = scenario_vars(name)
    assert data["scenario_lab_scenario"] in scenario.available()
    if "scenario_expected_mode" not in data:  # the fault scenario checks the rollout instead of a layout
        assert "scenario_failing_broker" in data
        return
    if data["scenario_expected_mode"] == "networks":  # the scenario lists what its networks' listeners advertise
        listeners = {entry.split("://")[0] for entry in data["scenario_networks_advertised"]}
        assert {network["name"] for network in data["broker_networks"]} == {
            node.client_network for node in topology.build("kt0003", scenario.load(data["scenario_lab_scenario"])).nodes
            if node.client_network}
    else:
        listeners = LAYOUT_LISTENERS[data["scenario_expected_mode"]]
    clients = data["scenario_clients"]
    assert clients, f"{name}: no client produces and consumes"
    assert set(clients.values()) <= listeners, f"{name}: clients use listeners the layout does not have"
    topo = topology.build("kt0003", scenario.load(data["scenario_lab_scenario"]))
    client_nodes = {node.name for node in topo.nodes if node.client_network}
    assert set(clients) <= client_nodes, f"{name}: {set(clients) - client_nodes} are not clients of the lab"


def run_inventory_script(ephemeral: Path, *args: str) -> subprocess.CompletedProcess:
    """Run the script through the link molecule makes (`<ephemeral>/inventory/hosts`), as Ansible does."""
    link = ephemeral / "inventory" / "hosts"
    if not link.exists():
        link.parent.mkdir(parents=True)
        link.symlink_to(INVENTORY_SCRIPT)
    return subprocess.run([sys.executable, str(link), *args], capture_output=True, text=True, timeout=60)


def test_inventory_script_serves_no_hosts_before_the_lab_exists(tmp_path):
    proc = run_inventory_script(tmp_path, "--list")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"_meta": {"hostvars": {}}}


def test_inventory_script_serves_the_lab_inventory_with_groups_and_host_vars(tmp_path):
    topo = topology.build("kt0004", scenario.load("kraft-separate-controllers"))
    lab_inventory = tmp_path / "lab" / "inventory.yml"
    lab_inventory.parent.mkdir()
    lab_inventory.write_text(inventory.render(topo, LabDir("kt0004", root=tmp_path / "lab")), encoding="utf-8")
    (tmp_path / "lab-inventory.yml").symlink_to(lab_inventory)

    listing = json.loads(run_inventory_script(tmp_path, "--list").stdout)
    assert listing["all"]["children"] == ["kafka_brokers", "kafka_controllers", "kafka_clients"]
    assert listing["kafka_brokers"]["hosts"] == ["b1", "b2", "b3"]
    assert listing["kafka_controllers"]["hosts"] == ["c1", "c2", "c3"]
    assert listing["all"]["vars"]["lab_prefix"] == "kt0004"
    assert "ProxyCommand=ip netns exec kt0004-ctl nc %h %p" in listing["all"]["vars"]["ansible_ssh_common_args"]
    b1 = listing["_meta"]["hostvars"]["b1"]
    assert (b1["ansible_host"], b1["kafka_process_roles"]) == ("198.18.0.11", ["broker"])

    host = run_inventory_script(tmp_path, "--host", "c1")
    assert json.loads(host.stdout)["kafka_process_roles"] == ["controller"]


def test_inventory_script_refuses_other_arguments(tmp_path):
    proc = run_inventory_script(tmp_path, "--graph")
    assert proc.returncode == 2
    assert "usage:" in proc.stderr


def run_molecule(name: str, ephemeral: Path, lab_cli, *args: str, before_down=None) -> subprocess.CompletedProcess:
    """`molecule test -s NAME ARGS` in its own ephemeral folder; then `lab down` for a lab it left (killed by the hang
    guard, or kept by `--destroy never`), after `before_down(prefix)` has looked at it."""
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "MOLECULE_EPHEMERAL_DIRECTORY": str(ephemeral)}
    try:
        return subprocess.run([str(VENV_BIN / "molecule"), "test", "-s", name, *args], cwd=REPO_ROOT, env=env,
                              capture_output=True, text=True, timeout=MOLECULE_TIMEOUT)
    finally:
        prefix_file = ephemeral / "lab-prefix"
        if prefix_file.exists():
            prefix = prefix_file.read_text().strip()
            try:
                if before_down:
                    before_down(prefix)
            finally:
                lab_cli.command("down", "--prefix", prefix, check=False)


def explain(name: str, proc: subprocess.CompletedProcess) -> str:
    return f"molecule test -s {name} exited {proc.returncode}:\n{proc.stdout[-8000:]}\n{proc.stderr[-4000:]}"


@pytest.mark.lab
@pytest.mark.parametrize("name", SCENARIOS)
def test_molecule_scenario(name, tmp_path, lab_cli):
    # molecule destroys the lab itself, also after a failed step
    proc = run_molecule(name, tmp_path / "molecule", lab_cli)
    assert proc.returncode == 0, explain(name, proc)
