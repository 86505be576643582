"""A rolling restart by the site playbook on real Apache Kafka, gated on real under-replicated partitions.

aws-split-horizon on real Kafka (public names resolve to private IPs inside the VPC, so the plan keeps one
listener and only changes what the brokers advertise). A topic with replication factor 3 and min.insync.replicas
2 is produced to from the in-VPC client for the whole run (confluent-kafka, acks=all, idempotent) while the site
playbook rewrites and restarts every broker, one at a time, each restart waiting until the cluster's metadata
shows nothing under-replicated. Afterwards every acknowledged message must be in the topic: none lost.
"""

from __future__ import annotations

import json
import subprocess
import time

import pytest
import scenario_matrix as sm

from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, PlaybookRun, run_playbook
from kafkaops_lab.pytest_plugin import REAL_KAFKA_UP_TIMEOUT, scenario_lab

pytestmark = pytest.mark.lab

TOPIC = "rollout"
BROKERS = ("b1", "b2", "b3")
WARM_UP = 3.0  # seconds of producing before the playbook starts (the producer must be acknowledged already)

# Runs on the client: create the topic, then produce numbered messages until stdin closes; prints the acked ids.
PRODUCER = """
import json, sys, threading, time
import confluent_kafka as ck
from confluent_kafka.admin import AdminClient, NewTopic
bootstrap, topic = sys.argv[1], sys.argv[2]
admin = AdminClient({"bootstrap.servers": bootstrap})
admin.create_topics([NewTopic(topic, 3, 3, config={"min.insync.replicas": "2"})])[topic].result(30)
acked, errors = [], []
def report(err, msg):
    if err is None:
        acked.append(int(msg.value()))
    else:
        errors.append(err.name())
producer = ck.Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                        "message.timeout.ms": 120000})
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
print("producing", flush=True)
number = 0
while not stop.is_set():
    producer.produce(topic, str(number).encode(), on_delivery=report)
    producer.poll(0.02)
    number += 1
left = producer.flush(150)
print(json.dumps({"sent": number, "acked": acked, "errors": sorted(set(errors)), "left": left}), flush=True)
"""
# Runs on the client: every message of the topic, from the beginning of each partition.
CONSUMER = """
import json, sys
import confluent_kafka as ck
bootstrap, topic = sys.argv[1], sys.argv[2]
consumer = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": "rollout-check", "enable.auto.commit": False,
                        "enable.partition.eof": True, "auto.offset.reset": "earliest"})
parts = consumer.list_topics(topic, timeout=30).topics[topic].partitions
consumer.assign([ck.TopicPartition(topic, p, ck.OFFSET_BEGINNING) for p in parts])
seen, done = [], set()
while len(done) < len(parts):
    message = consumer.poll(10)
    if message is None:
        break
    if message.error():
        if message.error().code() == ck.KafkaError._PARTITION_EOF:
            done.add(message.partition())
        continue
    seen.append(int(message.value()))
print(json.dumps({"seen": seen, "complete": len(done) == len(parts)}))
"""


@pytest.fixture(scope="module")
def real_lab(lab_kcat_required):
    with scenario_lab("aws-split-horizon", kafka="real", timeout=REAL_KAFKA_UP_TIMEOUT) as lab:
        yield lab


def node_argv(lab, node: str) -> list[str]:
    return sm.lab_life_cycle.node_argv(lab.prefix, node, ["true"])[:-1]


def gated_restarts(run: PlaybookRun) -> list[str]:
    """The brokers, in order, for which the broker role's health gate (registered and back in the ISR of every
    partition it hosts) ran and passed."""
    return [result["host"] for result in run.results
            if "back in sync for every partition it hosts" in result["task"] and result["status"] == "ok"]


def test_a_rolling_restart_on_real_kafka_loses_no_acknowledged_message(real_lab, tmp_path):
    lab = real_lab
    bootstrap = lab.node("client")["bootstrap_servers"]
    pids_before = {node: lab.exec(node, "cat", "/run/kafka.pid", check=True).stdout.strip() for node in BROKERS}
    producer = subprocess.Popen([*node_argv(lab, "client"), str(sm.VENV_PYTHON), "-c", PRODUCER, bootstrap, TOPIC],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert producer.stdout.readline().strip() == "producing", producer.stderr.read()
        time.sleep(WARM_UP)
        run = run_playbook(lab, SITE_PLAYBOOK, tmp_path, env=sm.ansible_env())
    finally:
        out, err = producer.communicate("", timeout=300)
    assert run.returncode == 0 and not run.failed(), run.explain()
    report = json.loads(out.strip().splitlines()[-1])
    pids_after = {node: lab.exec(node, "cat", "/run/kafka.pid", check=True).stdout.strip() for node in BROKERS}
    assert all(pids_after[node] != pids_before[node] for node in BROKERS), (pids_before, pids_after)
    assert gated_restarts(run) == list(BROKERS), run.explain()  # each restart waited for the gate
    consumed = subprocess.run([*node_argv(lab, "client"), str(sm.VENV_PYTHON), "-c", CONSUMER, bootstrap, TOPIC],
                              capture_output=True, text=True, timeout=300)
    assert consumed.returncode == 0, consumed.stderr
    seen = json.loads(consumed.stdout.strip().splitlines()[-1])
    assert seen["complete"], seen
    acked = set(report["acked"])
    assert len(acked) > 0 and report["left"] == 0, (report["sent"], report["errors"], err[-2000:])
    lost = sorted(acked - set(seen["seen"]))
    assert not lost, f"{len(lost)} acknowledged messages lost, e.g. {lost[:10]}"
    assert len(seen["seen"]) == len(set(seen["seen"])), "duplicates despite the idempotent producer"
