"""The failure drill (playbooks/fail_broker.yml, which runs the drill role) on a 3-broker aws-private-dns-only lab.

It must refuse to run without confirmation, leaving every broker as it was; confirmed, on a cluster the site
playbook configured, it stops the broker that leads the drill topic, sees leadership move and the laptop still
produce, and starts the broker again.

Last, on the same lab, the verify role's check of the bootstrap a network's clients used before the run (issue 26):
the brokers advertise their private names on :9092 as an operator left them, and the in-VPC client bootstraps
there; planned as new (`in_service: false`, the dual layout gives :9092 to the public names) the site run fails in
the verify role naming the vpc network and its old bootstrap; with the default options it keeps :9092 and passes,
saying the old bootstrap was checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import scenario_matrix as sm
import yaml

from kafkaops_lab.paths import KAFKA_SERVICE, REPO_ROOT, VENV_BIN
from kafkaops_lab.playbook_runs import SET_PROPERTIES, PlaybookRun, kafka_pid, run_playbook

pytestmark = pytest.mark.lab

BROKERS = ("b1", "b2", "b3")
DRILL_TOPIC = "kafkaops-drill"


def ansible_playbook(lab, playbook: str, workdir: Path, *args: str) -> PlaybookRun:
    """Run a playbook of the collection against the lab's inventory with the lab variables."""
    return run_playbook(lab, REPO_ROOT / "playbooks" / playbook, workdir, *args)


def kafka_pids(lab) -> dict[str, str]:
    """Broker -> pid of its Kafka process, as the lab's service script reports it."""
    return {node: kafka_pid(lab, node) for node in BROKERS}


def node_ids(lab) -> dict[int, str]:
    """Kafka node id -> inventory name of the lab's brokers."""
    inventory = yaml.safe_load(Path(lab.run("inventory").stdout.strip()).read_text(encoding="utf-8"))
    hosts = inventory["all"]["children"]["kafka_brokers"]["hosts"]
    return {host["kafka_node_id"]: name for name, host in hosts.items()}


def kcat_metadata(lab, bootstrap: str, *args: str) -> dict:
    """`kcat -L -J` on the laptop, parsed."""
    proc = lab.kcat("laptop", "-L", "-J", "-b", bootstrap, *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def configured_lab(lab_aws_private, lab_kcat_required, tmp_path_factory):
    """The module's lab after one site playbook run (the drill finds the brokers' endpoints the way the role plans)."""
    proc = ansible_playbook(lab_aws_private, "site.yml", tmp_path_factory.mktemp("site"), "-e", "verify_records_dir=")
    assert proc.returncode == 0, proc.explain()
    return lab_aws_private


@pytest.mark.parametrize("confirm_args", [(), ("-e", "drill_confirm=false")], ids=["unset", "false"])
def test_the_drill_refuses_without_confirmation(lab_aws_private, confirm_args, tmp_path):
    pids = kafka_pids(lab_aws_private)
    proc = ansible_playbook(lab_aws_private, "fail_broker.yml", tmp_path, "-e", "drill_broker=b2", *confirm_args)
    assert proc.returncode != 0, proc.explain()
    # it says what it would do and how to confirm, and stops before touching anything
    assert "it would stop Kafka broker b2" in proc.stdout, proc.explain()
    assert "-e drill_confirm=true" in proc.stdout
    assert re.search(r"TASK \[kafkaops\.listeners\.drill : Refuse to run without confirmation\]", proc.stdout)
    assert not re.search(r"TASK \[[^\]]*: Stop", proc.stdout), proc.explain()
    assert kafka_pids(lab_aws_private) == pids


def test_the_drill_stops_and_restarts_the_leader_and_passes(configured_lab, tmp_path):
    lab = configured_lab
    bootstrap = lab.node("laptop")["bootstrap"]
    # create the drill topic and find the broker leading it, so that the drill forces a leader election
    created = lab.kcat("laptop", "-P", "-b", bootstrap, "-t", DRILL_TOPIC, input_text="before the drill\n")
    assert created.returncode == 0, created.stderr
    topic = kcat_metadata(lab, bootstrap, "-t", DRILL_TOPIC)["topics"][0]
    leader_id = topic["partitions"][0]["leader"]
    target = node_ids(lab)[leader_id]
    pids = kafka_pids(lab)

    proc = ansible_playbook(lab, "fail_broker.yml", tmp_path, "-e", "drill_confirm=true",
                            "-e", f"drill_broker={target}")
    assert proc.returncode == 0, proc.explain()
    assert f"Failure drill passed: stopped {target} (node {leader_id})" in proc.stdout, proc.explain()
    assert f"Leadership of the partitions {target} led moved to the surviving brokers" in proc.stdout

    # independent evidence: only the target's process was replaced, every broker is listed again, and the message
    # the drill produced while the target was down is in the topic
    after = kafka_pids(lab)
    assert {node: after[node] != pids[node] for node in BROKERS} == {node: node == target for node in BROKERS}
    assert sorted(broker["id"] for broker in kcat_metadata(lab, bootstrap)["brokers"]) == sorted(node_ids(lab))
    consumed = lab.kcat("laptop", "-C", "-b", bootstrap, "-t", DRILL_TOPIC, "-o", "beginning", "-e", "-q")
    assert consumed.returncode == 0, consumed.stderr
    assert f"kafkaops drill: while {target} is stopped" in consumed.stdout.splitlines()


VERIFY_BEFORE_REPORT = "Say which bootstraps this network's clients used before the run and how each answers now"
VERIFY_BEFORE_CHECK = "Every bootstrap this network's clients used before the run must still work"


def serve_the_vpc_on_9092(lab) -> str:
    """Each broker advertises its private name on PLAINTEXT :9092 (the inter-broker listener too), as Kafka's shipped
    file adapted by an operator does; returns the bootstrap the in-VPC client has always used, after checking it."""
    for node in BROKERS:
        private = lab.node(node)["private_dns"]
        edit = lab.exec(node, str(VENV_BIN / "python"), "-c", SET_PROPERTIES,
                        "listeners=PLAINTEXT://:9092,CONTROLLER://:9093", f"advertised.listeners=PLAINTEXT://{private}:9092",
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "inter.broker.listener.name=PLAINTEXT")
        assert edit.returncode == 0, edit.stderr
    for node in BROKERS:
        restart = lab.exec(node, str(KAFKA_SERVICE), "restart")
        assert restart.returncode == 0, restart.stderr
    bootstrap = ",".join(f"{lab.node(node)['private_dns']}:9092" for node in BROKERS)
    # the brokers register again after their restarts: wait (a hang guard) until the client's listing has them all.
    # The listing the wait ended on is the check: a second kcat -L may ask a broker that has just restarted and does
    # not list the others yet (seen once, 2026-12-01: "1 brokers" right after the wait had seen all three)
    expected = {int(node[1:]): f"{lab.node(node)['private_dns']}:9092" for node in BROKERS}
    listed = sm.wait_for_brokers(lab, "client", bootstrap, expected)
    assert listed == expected, f"the in-VPC client does not list every broker on its private name: {listed}"
    return bootstrap


def messages(run: PlaybookRun, task: str, host: str) -> list[tuple[str, str]]:
    return [(result["status"], result["msg"]) for result in run.results
            if result["task"] == task and result["host"] == host]


def test_verify_fails_naming_the_network_whose_old_bootstrap_a_new_layout_broke(configured_lab, tmp_path):
    lab = configured_lab
    old = serve_the_vpc_on_9092(lab)
    broken = ansible_playbook(lab, "site.yml", tmp_path / "as-new", "-e",
                              json.dumps({"broker_listener_options": {"in_service": False}}))
    assert broken.returncode != 0, broken.explain()
    # the planned bootstrap (:19092, the private names) works; the one the VPC's clients use answers public names
    [(status, msg)] = messages(broken, VERIFY_BEFORE_CHECK, "client")
    assert status == "failed", broken.explain()
    assert "the vpc network's clients used a bootstrap before this run that fails now" in msg, msg
    assert f"{old} (advertised before the run, listener PLAINTEXT)" in msg, msg
    assert f"Failed to resolve '{lab.node('b1')['public_dns']}:9092'" in msg, msg
    assert "internal_port set to the old port" in msg and "tell those clients the new bootstrap" in msg, msg
    [(status, _msg)] = messages(broken, "Every advertised endpoint must resolve and connect from this network",
                                "client")
    assert status == "ok"
    # independent evidence: kcat on the old bootstrap gets names the VPC cannot resolve
    listed = lab.kcat("client", "-L", "-b", old)
    assert f"at {lab.node('b1')['public_dns']}:9092" in listed.stdout, listed.stdout
    # the laptop's network had no bootstrap before: nothing more to check there
    [(status, msg)] = messages(broken, VERIFY_BEFORE_REPORT, "laptop")
    assert status == "ok" and "none known" in msg, msg

    old = serve_the_vpc_on_9092(lab)
    kept = ansible_playbook(lab, "site.yml", tmp_path / "default")
    assert kept.returncode == 0, kept.explain()
    [(status, msg)] = messages(kept, VERIFY_BEFORE_REPORT, "client")
    assert f"bootstraps used before the run: {old} (advertised before the run) is the planned bootstrap, " \
           "checked above" in msg, msg
    assert [status for status, _msg in messages(kept, VERIFY_BEFORE_CHECK, "client")] == ["ok"]
