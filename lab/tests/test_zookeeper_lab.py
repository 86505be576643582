"""ZooKeeper mode on real Apache Kafka 3.9.2 (the last line with it), and the stand-in held to it.

Scenario aws-zookeeper: aws-private-dns-only (private ip-* names resolve only inside the VPC, public ec2-* names
only outside) with three ZooKeeper-mode brokers (broker.id and zookeeper.connect, no process.roles) and a real
ZooKeeper (Kafka 3.9.2's own dependency, org.apache.zookeeper 3.8) on node zk1 in the VPC. The stand-in plays
ZooKeeper mode too (a broker without process.roles acts as a broker; its registry of live brokers stands in for
ZooKeeper, so zk1 stays idle there), so both run side by side and are compared, as test_real_kafka_lab.py does.

In file order: the brokers run in ZooKeeper mode; every client node sees the same through the stand-in as through
Kafka; the laptop fails with `Failed to resolve` / `Local: Host resolution failure`; the site playbook's default
plan (dual, renaming the inter-broker listener PLAINTEXT -> INTERNAL) is refused before anything is written,
because on real Kafka 3.9.2 a ZooKeeper-mode broker restarted without the controller's inter-broker listener name
gets no metadata at all (the rollout stopped at the first broker, which listed no broker); with the running name
kept the site playbook converges with a rolling restart of every broker, every client node round-trips with kcat,
confluent-kafka and kafka-python on its own listener, and a second run changes nothing. Last, the refused rename
made by hand on b1: on Kafka as on the stand-in, b1 then lists no broker and no controller.
"""

from __future__ import annotations

import json
import time

import pytest
import real_kafka_pairs as pairs
import scenario_matrix as sm

from kafkaops_lab import playbook_runs as runs

pytestmark = pytest.mark.lab

SCENARIO = "aws-zookeeper"
RELEASE = "3.9.2"
BROKERS = ("b1", "b2", "b3")
# dual's internal listener under the inter-broker name the brokers run now, so the change rolls one broker at a time
KEEP_NAME = ("-e", json.dumps({"broker_listener_options": {"internal_listener_name": "PLAINTEXT"}}))
RESTART_TASK = "Restart Kafka with the configured command"
METADATA_SETTLE = 10  # seconds a restarted ZooKeeper-mode broker is given to receive metadata it never gets


@pytest.fixture(scope="module")
def pair(lab_kcat_required):
    """aws-zookeeper on the stand-in and on Kafka 3.9.2 with ZooKeeper, brought up in parallel, always torn down."""
    yield from pairs.both_kinds(SCENARIO, f"real:{RELEASE}")


def test_the_brokers_run_in_zookeeper_mode_with_a_real_zookeeper(pair):
    real = pair.labs["real"]
    assert real.status["kafka"] == f"real:{RELEASE}"
    zookeeper = real.exec("zk1", sm.KAFKA_SERVICE, "status", check=True)
    assert "running" in zookeeper.stdout
    props = real.exec("b1", "cat", "/etc/kafka/server.properties", check=True).stdout.splitlines()
    assert "broker.id=1" in props and "zookeeper.connect=198.18.0.5:2181" in props
    assert not [line for line in props if line.startswith(("process.roles", "node.id", "controller."))]
    assert {host: sm.inventory_hosts(real)[host]["kafka_process_roles"] for host in BROKERS} == \
        dict.fromkeys(BROKERS, [])


def test_before_the_fix_every_client_sees_the_same_through_the_standin_as_through_kafka(pair):
    pairs.assert_same_views_before_the_fix(pair)


def test_in_zookeeper_mode_the_laptop_cannot_resolve_the_brokers_private_names(pair):
    pairs.assert_laptop_fails_to_resolve(pair.labs["real"])


def test_renaming_the_inter_broker_listener_is_refused_before_anything_is_written(pair, tmp_path):
    real = pair.labs["real"]
    before = runs.file_checksums(real, BROKERS)
    run = runs.run_playbook(real, runs.SITE_PLAYBOOK, tmp_path)
    assert run.returncode != 0, run.explain()
    assert "ZooKeeper mode: the plan renames the inter-broker listener (PLAINTEXT -> INTERNAL)" in run.stdout, \
        run.explain()
    assert runs.file_checksums(real, BROKERS) == before


def site_keeping_the_name(pair, workdir) -> dict:
    """The site playbook with KEEP_NAME on both labs in parallel; {kind: PlaybookRun}, each required to succeed."""
    done = sm.run_parallel([lambda kind=kind: runs.run_playbook(pair.labs[kind], runs.SITE_PLAYBOOK, workdir / kind,
                                                                *KEEP_NAME)
                            for kind in pair.labs])
    for kind, run in zip(pair.labs, done, strict=True):
        assert run.returncode == 0, f"{kind}: {run.explain()}"
    return dict(zip(pair.labs, done, strict=True))


def test_keeping_the_name_the_site_playbook_rolls_every_broker_and_every_client_round_trips(pair, tmp_path):
    for kind, run in site_keeping_the_name(pair, tmp_path).items():
        restarted = {result["host"] for result in run.changed() if result["task"].startswith(RESTART_TASK)}
        assert restarted == set(BROKERS), (kind, restarted)
    real = pair.labs["real"]
    # each client network on the listener the plan meant for it: INTERNAL (named PLAINTEXT) in the VPC
    bootstraps = {"client": f"{real.node('b1')['private_dns']}:19092", "laptop": real.node("laptop")["bootstrap"]}
    seen = pairs.views(pair, "after", bootstraps=bootstraps)
    for node, view in seen["real"].items():
        for library in pairs.LIBRARIES:
            assert view[library]["delivered"] and view[library]["consumed"] == ["v"], (node, library, view[library])
        assert seen["standin"][node] == view, node


def test_a_second_run_changes_nothing(pair, tmp_path):
    for kind, run in site_keeping_the_name(pair, tmp_path).items():
        assert run.changed() == [], (kind, run.explain())


def test_a_broker_rolled_to_another_inter_broker_name_gets_no_metadata_on_kafka_as_on_the_standin(pair):
    # what the refusal prevents, made by hand on b1 last (the planner would refuse to plan this cluster afterwards)
    seen = {}
    for kind, lab in pair.labs.items():
        private, public = lab.node("b1")["private_dns"], lab.node("b1")["public_dns"]
        pairs.set_keys_and_restart(lab, "b1", "listeners=INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092",
                                   "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
                                   f"advertised.listeners=INTERNAL://{private}:19092,EXTERNAL://{public}:9092",
                                   "inter.broker.listener.name=INTERNAL")
        time.sleep(METADATA_SETTLE)
        answer = sm.kafka_metadata(lab, "client", f"{private}:19092")
        seen[kind] = (answer.get("failed"), answer.get("brokers"), answer.get("controller_id"))
    assert seen["real"] == (False, [], -1), seen
    assert seen["standin"] == seen["real"]
