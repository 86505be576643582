"""The remove phase of a change in phases is refused while the verify role's records show a client network on the
listener it would take away (issue 26), on the stand-in Kafka of an aws-private-dns-only lab.

The refusal happens while planning, before any write or restart, so the stand-in serving the listeners is enough.
The brokers start where a rename in phases leaves them after the add and switch phases: PLAINTEXT :9092 and
INTERNAL :19092 on the private names, EXTERNAL :9094 on the public ones, INTERNAL the inter-broker listener.

1. The verify playbook with the default options (the cluster in service: every listener kept) writes records that
   show the VPC's client bootstrapping on PLAINTEXT :9092.
2. The site playbook asked for the layout without PLAINTEXT, in phases, reading those records (broker_records_dir):
   it fails naming the network, the endpoint and the way out; no broker's server.properties changed (bytes) and no
   broker restarted (its process id).
3. The same with broker_remove_listener_in_use goes ahead: every broker rolled, PLAINTEXT advertised by none.
"""

from __future__ import annotations

import json

import pytest

from kafkaops_lab.paths import KAFKA_SERVICE, REPO_ROOT, VENV_BIN
from kafkaops_lab.playbook_runs import SET_PROPERTIES, SITE_PLAYBOOK, file_checksums, kafka_pid, run_playbook

pytestmark = pytest.mark.lab

BROKERS = ("b1", "b2", "b3")
VERIFY_PLAYBOOK = REPO_ROOT / "playbooks" / "verify.yml"
# the layout asked for: INTERNAL for the VPC and between the brokers, EXTERNAL for the internet, PLAINTEXT gone
REMOVE_LAYOUT = {
    "broker_listener_options": {"in_phases": True},
    "broker_networks": [
        {"name": "internet", "route": "public", "listener": "EXTERNAL", "port": 9094},
        {"name": "vpc", "route": "private", "listener": "INTERNAL", "port": 19092, "inter_broker": True}],
}


@pytest.fixture(scope="module")
def switched_lab(lab_aws_private, lab_kcat_required):
    """The module's lab, its brokers as the add and switch phases of PLAINTEXT -> INTERNAL leave them."""
    lab = lab_aws_private
    for node in BROKERS:
        info = lab.node(node)
        controller = ",CONTROLLER://:9093" if "controller" in info["process_roles"] else ""
        lab.exec(node, str(VENV_BIN / "python"), "-c", SET_PROPERTIES,
                 f"listeners=PLAINTEXT://:9092,INTERNAL://:19092,EXTERNAL://:9094{controller}",
                 "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT,"
                 "CONTROLLER:PLAINTEXT",
                 f"advertised.listeners=PLAINTEXT://{info['private_dns']}:9092,"
                 f"INTERNAL://{info['private_dns']}:19092,EXTERNAL://{info['public_dns']}:9094",
                 "inter.broker.listener.name=INTERNAL", check=True)
        lab.exec(node, str(KAFKA_SERVICE), "restart", check=True)
    return lab


def pids(lab) -> dict[str, str]:
    return {node: kafka_pid(lab, node) for node in BROKERS}


def properties(lab) -> dict[str, bytes]:
    return {node: lab.exec(node, "cat", "/etc/kafka/server.properties", check=True).stdout.encode()
            for node in BROKERS}


@pytest.fixture(scope="module")
def records(switched_lab, tmp_path_factory):
    """The records of a verify run with the default options: the VPC's clients on PLAINTEXT :9092."""
    workdir = tmp_path_factory.mktemp("remove-refusal-verify")
    run = run_playbook(switched_lab, VERIFY_PLAYBOOK, workdir)
    assert run.returncode == 0, run.explain()
    folder = workdir / "records"
    vpc = [json.loads(line) for path in folder.glob("probes-*.jsonl")
           for line in path.read_text(encoding="utf-8").splitlines()]
    vpc = [record for record in vpc if record["client_network"] == "vpc"]
    assert vpc and {record["listener"] for record in vpc} == {"PLAINTEXT"}, vpc
    return folder


def test_the_remove_phase_is_refused_while_the_records_show_the_vpc_on_the_listener(switched_lab, records,
                                                                                      tmp_path):
    lab = switched_lab
    layout = tmp_path / "remove.json"
    layout.write_text(json.dumps(REMOVE_LAYOUT), encoding="utf-8")
    before_files, before_properties, before_pids = file_checksums(lab, BROKERS), properties(lab), pids(lab)

    run = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "site", "-e", f"@{layout}", "-e",
                       f"broker_records_dir={records}")

    assert run.returncode != 0, run.explain()
    message = " ".join(result["msg"] for result in run.failed())
    private = [lab.node(node)["private_dns"] for node in BROKERS]
    assert "the remove phase would take listener PLAINTEXT (:9092) away" in message, run.explain()
    assert "client network vpc" in message, run.explain()
    assert any(f"bootstrapping on {host}:9092" in message for host in private), run.explain()
    assert "Move that network's clients to listener INTERNAL" in message, run.explain()
    assert "broker_remove_listener_in_use" in message, run.explain()
    assert properties(lab) == before_properties
    assert file_checksums(lab, BROKERS) == before_files
    assert pids(lab) == before_pids


def test_asked_to_remove_it_anyway_the_remove_phase_goes_ahead(switched_lab, records, tmp_path):
    lab = switched_lab
    layout = tmp_path / "remove.json"
    # the VPC's clients moved (the operator says so): their old :9092 bootstrap is gone by design
    layout.write_text(json.dumps({**REMOVE_LAYOUT, "broker_remove_listener_in_use": True,
                                  "verify_check_bootstrap_before": False}), encoding="utf-8")
    before_pids = pids(lab)

    run = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "site", "-e", f"@{layout}", "-e",
                       f"broker_records_dir={records}")

    assert run.returncode == 0, run.explain()
    assert "(remove_in_use)" in run.stdout, run.explain()
    after = pids(lab)
    assert all(after[node] != before_pids[node] for node in BROKERS), (before_pids, after)
    for node, text in properties(lab).items():
        advertised = [line for line in text.decode().splitlines() if line.startswith("advertised.listeners=")]
        assert advertised and "PLAINTEXT://" not in advertised[0], (node, advertised)
