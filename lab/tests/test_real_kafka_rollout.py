"""A rolling restart by the site playbook on real Apache Kafka, with live clients, gated on real in-sync replicas.

aws-split-horizon on real Kafka (public names resolve to private IPs inside the VPC, so the plan keeps one
listener and only changes what the brokers advertise). A topic with replication factor 3 and min.insync.replicas
2 is produced to from the in-VPC client for the whole run, with the client_config role's settings (acks=all,
idempotence), and read by a consumer in a group (kafkaops_lab/load.py), while the site playbook rewrites and
restarts every broker, one at a time, each restart waiting until the broker is back in the ISR of every partition
it hosts. Afterwards every acknowledged message is in the topic once: none lost, none failed, none duplicated.
benchmarks/rollout_load_bench.py prints the same figures with the pauses the clients saw.
"""

from __future__ import annotations

import json

import pytest
import scenario_matrix as sm

from kafkaops_lab import load, seeded
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, PlaybookRun, run_playbook
from kafkaops_lab.pytest_plugin import REAL_KAFKA_UP_TIMEOUT, scenario_lab

pytestmark = pytest.mark.lab

TOPIC = "rollout"
BROKERS = ("b1", "b2", "b3")


@pytest.fixture(scope="module")
def real_lab(lab_kcat_required):
    with scenario_lab("aws-split-horizon", kafka="real", timeout=REAL_KAFKA_UP_TIMEOUT) as lab:
        yield lab


def gated_restarts(run: PlaybookRun) -> list[str]:
    """The brokers, in order, for which the broker role's health gate (registered and back in the ISR of every
    partition it hosts) ran and passed."""
    return [result["host"] for result in run.results
            if "back in sync for every partition it hosts" in result["task"] and result["status"] == "ok"]


def test_a_rolling_restart_on_real_kafka_loses_no_acknowledged_message(real_lab, tmp_path):
    lab = real_lab
    bootstrap = lab.node("client")["bootstrap_servers"]
    pids_before = {node: lab.exec(node, "cat", "/run/kafka.pid", check=True).stdout.strip() for node in BROKERS}
    load.seed(lab, "client", bootstrap, TOPIC, count=0, partitions=3)
    with load.LiveLoad(lab, "client", bootstrap, TOPIC) as live:
        run = run_playbook(lab, SITE_PLAYBOOK, tmp_path, env=sm.ansible_env())
    assert run.returncode == 0 and not run.failed(), run.explain()
    pids_after = {node: lab.exec(node, "cat", "/run/kafka.pid", check=True).stdout.strip() for node in BROKERS}
    assert all(pids_after[node] != pids_before[node] for node in BROKERS), (pids_before, pids_after)
    assert gated_restarts(run) == list(BROKERS), run.explain()  # each restart waited for the gate
    live.unnoticed()
    # each broker, once back, got back the leadership its controlled shutdown moved away: every partition is led by
    # its preferred replica right after the run (Kafka's own rebalance would take up to 300 s)
    elections = [result for result in run.results
                 if result["task"].startswith("Give back the leadership its restart moved away")]
    assert sorted(result["host"] for result in elections if result["status"] == "ok") == list(BROKERS)
    assert not [result for result in run.results if result["status"] == "ok"
                and result["task"].startswith("Say why it did not get all its leadership back")], run.explain()
    listing = lab.kcat("client", "-L", "-J", "-b", bootstrap)
    assert listing.returncode == 0, listing.stderr
    # the election gives back partitions of every replicated topic: this test's and the one every real-Kafka lab
    # carries (kafkaops_lab/seeded.py), listed as the module names them, topic by topic
    leaders = {f"{topic['topic']}-{part['partition']}": (part["leader"], part["replicas"][0]["id"])  # kcat: {"id": N}
               for topic in sorted(json.loads(listing.stdout)["topics"], key=lambda topic: topic["topic"])
               if topic["topic"] in (TOPIC, seeded.TOPIC)
               for part in sorted(topic["partitions"], key=lambda part: part["partition"])}
    assert len(leaders) == 3 + seeded.PARTITIONS, sorted(leaders)
    assert all(leader == preferred for leader, preferred in leaders.values()), leaders
    # the last broker restarted leads nothing after its restart (its controlled shutdown handed its partitions over,
    # and no later restart hands them back): only the election gives back what it prefers. Where Kafka placed the
    # preferred replicas decides what that is, so it is read from the listing. (Kafka's own rebalance could only
    # come first if b1's restart were more than leader.imbalance.check.interval.seconds, 300 s, before this one.)
    last = elections[-1]
    node_id = lab.node(last["host"])["kafka_node_id"]
    preferred = ", ".join(name for name, (_leader, first) in leaders.items() if first == node_id)
    expected = (f"elected broker {node_id} leader of {preferred}" if preferred else
                f"broker {node_id} leads every partition it is the preferred replica of: nothing to elect")
    assert last["msg"] == expected, [result["msg"] for result in elections]
