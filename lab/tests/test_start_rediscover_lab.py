"""Start-time self-healing (the broker role's pre-start drop-in) on an aws-private-dns-only lab with the stand-in.

The site playbook runs with the role's default for names from instance metadata (on); the lab's kafka-service runs
the installed drop-in's ExecStartPre as systemd would. A cloud stop/start of b2 (`lab restart-instance`: a new
public IP and name; b2's broker stops with the instance and starts again) must leave b2 advertising its new name,
reachable from the laptop, with no other broker restarted and nothing left for the next playbook run; a metadata
service that is down keeps the file.
"""

from __future__ import annotations

import json

import pytest

from kafkaops_lab.paths import KAFKA_SERVICE
from kafkaops_lab.playbook_runs import (
    SITE_PLAYBOOK,
    advertised_once_listed,
    kafka_pid,
    produce_and_consume,
    run_playbook,
)
from kafkaops_lab.pytest_plugin import scenario_lab

pytestmark = pytest.mark.lab

PROPERTIES = "/etc/kafka/server.properties"
# site-vars.yml turns it off for the other suites; this one runs the role's default
ROLE_DEFAULT = ("-e", json.dumps({"broker_start_rediscover": None}))
START_TASKS = ("Install the pre-start program", "Store the cluster's decision", "Create the Kafka unit's drop-in",
               "Run the pre-start program before Kafka starts")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with scenario_lab("aws-private-dns-only", kafka="standin") as running:
        run = run_playbook(running, SITE_PLAYBOOK, tmp_path_factory.mktemp("site"), *ROLE_DEFAULT)
        assert run.returncode == 0, run.explain()
        running.first_run = run
        yield running


def read(lab, node: str, path: str) -> str:
    return lab.exec(node, "cat", path, check=True).stdout


def test_the_site_playbook_installs_the_drop_in_and_a_decision_that_reproduces_the_plan(lab):
    written = {(result["host"], prefix) for result in lab.first_run.results if result["changed"]
               for prefix in START_TASKS if result["task"].startswith(prefix)}
    assert written == {(node, prefix) for node in ("b1", "b2", "b3") for prefix in START_TASKS}
    for node in ("b1", "b2", "b3"):
        dropin = read(lab, node, "/etc/systemd/system/kafka.service.d/kafkaops-listeners.conf")
        assert "ExecStartPre=-/usr/bin/python3 /etc/kafka/kafka-listeners-prestart --properties " + PROPERTIES in dropin
        decision = json.loads(read(lab, node, PROPERTIES + ".listeners.json"))
        assert decision["options"]["mode"] == "dual" and decision["names"]["public_dns"] == lab.node(node)["public_dns"]
        check = lab.exec(node, "/usr/bin/python3", "/etc/kafka/kafka-listeners-prestart", "--check-decision",
                         PROPERTIES + ".listeners.json")
        assert check.returncode == 0, check.stdout + check.stderr


def test_a_metadata_service_that_is_down_keeps_the_file_and_kafka_starts(lab):
    before = read(lab, "b1", PROPERTIES)
    lab.run("fault", "b1", "imds=down")
    try:
        restart = lab.exec("b1", str(KAFKA_SERVICE), "restart", timeout=200)
    finally:
        lab.run("fault", "b1", "imds=ok")
    assert restart.returncode == 0, restart.stdout + restart.stderr
    assert f"prestart: {PROPERTIES} kept as it is: the metadata service did not answer usably" in restart.stdout
    assert read(lab, "b1", PROPERTIES) == before


def test_after_a_stop_start_the_brokers_own_start_advertises_its_new_name(lab, tmp_path):
    old_dns = lab.node("b2")["public_dns"]
    others = {node: kafka_pid(lab, node) for node in ("b1", "b3")}
    # as on a cloud, the broker's service stops with the instance and starts again when it is back: that start, and
    # nothing else, runs the pre-start program
    moved = json.loads(lab.run("restart-instance", "b2").stdout)
    lab.refresh()
    new_dns = moved["public_dns"]
    assert new_dns != old_dns
    log = lab.exec("b2", "sh", "-c", '. /etc/default/kafka-service && cat "$KAFKA_SERVICE_LOG_DIR/kafka.out"').stdout
    assert f"prestart: {PROPERTIES} rewritten for this node's names" in log.rsplit("--- ExecStartPre", 1)[-1], log
    properties = read(lab, "b2", PROPERTIES)
    assert f"EXTERNAL://{new_dns}:9092" in properties and old_dns not in properties
    assert {node: kafka_pid(lab, node) for node in ("b1", "b3")} == others  # nobody else restarted

    bootstrap = "%s:9092" % lab.node("b1")["public_dns"]
    assert advertised_once_listed(lab, "laptop", bootstrap, 2)[2] == f"{new_dns}:9092"
    produce_and_consume(lab, "laptop", ["-b", f"{new_dns}:9092"], "rediscovered")

    restart = lab.exec("b2", str(KAFKA_SERVICE), "restart", timeout=200)  # the next start finds nothing to do
    assert restart.returncode == 0, restart.stdout + restart.stderr
    assert f"prestart: {PROPERTIES} already holds this node's names" in restart.stdout, restart.stdout

    again = run_playbook(lab, SITE_PLAYBOOK, tmp_path, *ROLE_DEFAULT)
    assert again.returncode == 0, again.explain()
    assert again.changed() == [], again.explain()
    # kafka_broker_facts' checksums matched what the role would write: none of its start-time tasks even ran
    assert [result["task"] for result in again.results if result["task"].startswith(START_TASKS)] == []
