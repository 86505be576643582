"""Two clusters in one inventory, planned and rolled in one site.yml run without mixing their brokers or quorums.

Two labs stand for two clusters of a fleet: `east` (aws-private-dns-only, which needs the INTERNAL/EXTERNAL layout)
and `west` (aws-split-horizon, where one listener serves everybody). Their nodes have the same names, node ids and
private addresses, as two VPCs built from one template do, so a plan that mixed them would see every node id twice.
One inventory holds both: a group per cluster carrying `broker_cluster_name` (and, for its clients, the broker group
to verify), with the usual kafka_brokers / kafka_clients groups above them.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import pytest
import yaml

from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import parse_properties
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, produce_and_consume, run_playbook
from kafkaops_lab.pytest_plugin import scenario_lab

pytestmark = pytest.mark.lab

CLUSTERS = {"east": "aws-private-dns-only", "west": "aws-split-horizon"}
BROKERS = ("b1", "b2", "b3")


def fleet_inventory(labs: dict) -> dict:
    """One inventory of several labs: hosts renamed `<cluster>-<node>`, each lab's connection settings on its group."""
    children: dict = {"kafka_brokers": {"children": {}}, "kafka_clients": {"children": {}}}
    for cluster, lab in labs.items():
        own = yaml.safe_load(Path(lab.run("inventory").stdout.strip()).read_text(encoding="utf-8"))["all"]
        groups = {f"{cluster}_{group}": {"hosts": {f"{cluster}-{host}": hostvars
                                                   for host, hostvars in body["hosts"].items()}}
                  for group, body in own["children"].items()}
        children[cluster] = {
            "vars": {**own["vars"], "broker_cluster_name": cluster,
                     "verify_broker_group": f"{cluster}_kafka_brokers", "verify_cluster_name": cluster},
            "children": groups,
        }
        children["kafka_brokers"]["children"][f"{cluster}_kafka_brokers"] = {}
        children["kafka_clients"]["children"][f"{cluster}_kafka_clients"] = {}
    return {"all": {"children": children}}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    with ExitStack() as started:
        labs = {cluster: started.enter_context(scenario_lab(scenario)) for cluster, scenario in CLUSTERS.items()}
        workdir = tmp_path_factory.mktemp("two-clusters")
        inventory = workdir / "fleet.yml"
        inventory.write_text(yaml.safe_dump(fleet_inventory(labs)), encoding="utf-8")
        yield labs, workdir, inventory


def test_one_run_plans_and_rolls_each_cluster_on_its_own(fleet, lab_kcat_required):
    labs, workdir, inventory = fleet
    run = run_playbook(labs["east"], SITE_PLAYBOOK, workdir / "site", inventories=(inventory,))
    assert run.returncode == 0, run.explain()

    plans = [line for line in run.stdout.splitlines() if '"msg": "listener plan: ' in line]
    assert len(plans) == 2, run.explain()
    assert any("listener plan: dual: " in line and "(cluster east: east-b1, east-b2, east-b3)" in line
               for line in plans), plans
    assert any("listener plan: single: " in line and "(cluster west: west-b1, west-b2, west-b3)" in line
               for line in plans), plans

    # every broker's restart booked on itself, one per broker
    restarts = sorted(r["host"] for r in run.results if r["task"].startswith("Restart Kafka with the configured"))
    assert restarts == sorted(f"{c}-{b}" for c in CLUSTERS for b in BROKERS), run.explain()

    for cluster, lab in labs.items():
        voters = ",".join(f"{i}@{lab.node(f'b{i}')['private_dns']}:9093" for i in (1, 2, 3))
        for node in BROKERS:
            props = parse_properties(lab.exec(node, "cat", "/etc/kafka/server.properties", check=True).stdout)
            props = props.to_dict()
            info = lab.node(node)
            expected = (f"INTERNAL://{info['private_dns']}:19092,EXTERNAL://{info['public_dns']}:9092"
                        if cluster == "east" else f"PLAINTEXT://{info['public_dns']}:9092")
            assert props["advertised.listeners"] == expected
            assert props["controller.quorum.voters"] == voters
        produce_and_consume(lab, "laptop", ["-b", lab.node("laptop")["bootstrap"]], f"fleet-{cluster}")

    # each cluster's clients verified their own cluster, and wrote records under its name
    records = [json.loads(line) for path in (workdir / "site" / "records").rglob("*.jsonl")
               for line in path.read_text(encoding="utf-8").splitlines()]
    assert {record.get("cluster") for record in records} == set(CLUSTERS)


def test_brokers_in_a_group_of_another_name_need_only_kafka_broker_group(fleet, lab_kcat_required):
    """One cluster whose brokers are in group `brokers` (no kafka_brokers group): one -e kafka_broker_group=brokers
    takes the site playbook's plays and the verify role's plan to the same brokers (the role read
    groups['kafka_brokers'] before), and its records carry the group's name."""
    labs, workdir, _ = fleet
    lab = labs["east"]
    inventory = yaml.safe_load(Path(lab.run("inventory").stdout.strip()).read_text(encoding="utf-8"))
    groups = inventory["all"]["children"]
    groups["brokers"] = groups.pop("kafka_brokers")
    path = workdir / "brokers.yml"
    path.write_text(yaml.safe_dump(inventory), encoding="utf-8")

    run = run_playbook(lab, SITE_PLAYBOOK, workdir / "brokers", "-e", "kafka_broker_group=brokers",
                       inventories=(path,))
    assert run.returncode == 0, run.explain()
    verified = sorted(r["host"] for r in run.results if r["status"] == "ok"
                      and r["task"] == "Every advertised endpoint must resolve and connect from this network")
    assert verified == sorted(groups["kafka_clients"]["hosts"]), run.explain()
    records = [json.loads(line) for file in (workdir / "brokers" / "records").glob("brokers-*.jsonl")
               for line in file.read_text(encoding="utf-8").splitlines()]
    assert sorted(record["broker"] for record in records) == list(BROKERS)
    assert {record["cluster"] for record in records} == {"brokers"}
