"""A cluster in service on Kafka's defaults: nothing advertised explicitly, replicated data, clients on the machines'
own names, fixed by the site playbook with its default options, on real Apache Kafka of each release the lab runs.

Scenario aws-private-dns-only: each combined node starts from a package install's file (``listeners`` only, so Kafka
advertises the machine's own name, its private DNS name here; static voters at the private IPs), and the VPC's
resolver does not answer the public names. Planned as new, this cluster would get the dual layout, which renames the
inter-broker listener (PLAINTEXT -> INTERNAL) in one roll: the first restarted broker fetches on a listener the
others do not advertise (LISTENER_NOT_FOUND) and the rollout stops with its partitions out of their ISR (an
independent lab saw it on 3.9 and 4.1; this lab saw it on 3.9.2 before the planner read the brokers' log
directories). With a topic of replication factor 3 and min.insync.replicas 2 holding data, the plan keeps PLAINTEXT
:9092 on the private names and adds EXTERNAL :9094 for the internet, and says why; the in-VPC client produces and
consumes on its old bootstrap for the whole run and loses nothing; afterwards it still works there with new
connections, the laptop works on :9094, every partition is in sync and a second run changes nothing.
"""

from __future__ import annotations

import pytest
import scenario_matrix as sm
from test_in_service_real_kafka import (
    BROKERS,
    MESSAGES_BEFORE,
    RELEASES,
    TOPIC,
    assert_kept_every_client_and_added_the_internet,
    release_labs,
    server_properties,
)

from kafkaops_lab import load
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, run_playbook

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def labs(lab_kcat_required):
    with release_labs("aws-private-dns-only") as running:
        yield running


@pytest.mark.parametrize("release", RELEASES)
def test_replicated_data_on_kafka_defaults_keeps_the_vpc_clients_and_the_inter_broker_listener(labs, release,
                                                                                                 tmp_path):
    lab = labs[release]
    vpc_bootstrap = lab.node("client")["bootstrap_servers"]
    assert ":9092" in vpc_bootstrap and "internal" in vpc_bootstrap, vpc_bootstrap
    before = {node: server_properties(lab, node) for node in BROKERS}
    assert not any("advertised.listeners" in props for props in before.values()), before
    assert {props["inter.broker.listener.name"] for props in before.values()} == {"PLAINTEXT"}, before

    before_values = load.seed(lab, "client", vpc_bootstrap, TOPIC, MESSAGES_BEFORE)
    with load.LiveLoad(lab, "client", vpc_bootstrap, TOPIC) as live:
        run = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "first", env=sm.ansible_env())
    assert run.returncode == 0 and not run.failed(), run.explain()
    layout = [result["msg"] for result in run.results if result["task"].startswith("Show the chosen layout")]
    assert any(msg.startswith("listener plan: replicated data: nothing is advertised explicitly, but 6 partitions "
                              "have replicas on more than one broker (orders-0, orders-1, orders-2, ...), so clients "
                              "use the brokers' own names on the listeners they run now; in service: kept PLAINTEXT "
                              ":9092 for the VPC (private names); added EXTERNAL :9094 for the internet (public names)")
               for msg in layout), layout
    assert_kept_every_client_and_added_the_internet(lab, live, before, before_values, tmp_path)


def kafka_pids(lab) -> dict:
    return {node: lab.exec(node, "cat", "/run/kafka.pid", check=True).stdout.strip() for node in BROKERS}


@pytest.mark.parametrize("release", RELEASES)
def test_a_broker_its_new_file_keeps_out_of_sync_is_diagnosed_on_the_rerun_and_not_restarted_again(labs, release,
                                                                                                   tmp_path):
    """After the test above (the same lab, converged and holding data), the cluster declared new
    (in_service: false) is planned with the dual layout, which renames the inter-broker listener in one roll: b1
    comes back fetching on INTERNAL, which b2 and b3 do not advertise, so the rollout stops at b1 naming
    LISTENER_NOT_FOUND. The re-run, the documented recovery, first asks what b1 runs, says why it is out of sync and
    that a restart cannot help, and restarts nobody."""
    lab = labs[release]
    as_new = ["-e", '{"broker_listener_options": {"in_service": false}}', "-e", "broker_health_retries=3"]
    pids = kafka_pids(lab)
    first = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "first", *as_new, env=sm.ansible_env())
    assert first.returncode != 0, first.explain()
    stop = [result["msg"] for result in first.failed() if result["task"] == "Stop the rollout"]
    assert stop and stop[0].startswith("b1 did not come back healthy after its restart: "), first.explain()
    assert "LISTENER_NOT_FOUND" in stop[0], stop[0]
    assert "these brokers were not restarted and still run (and keep on disk) their previous configuration: b2, b3" \
        in stop[0], stop[0]
    restarted = kafka_pids(lab)
    assert restarted["b1"] != pids["b1"] and {node: restarted[node] for node in ("b2", "b3")} == {
        node: pids[node] for node in ("b2", "b3")}
    assert server_properties(lab, "b1")["inter.broker.listener.name"] == "INTERNAL"

    again = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "again", *as_new, env=sm.ansible_env())
    assert again.returncode != 0, again.explain()
    stop = [result["msg"] for result in again.failed() if result["task"] == "Stop the rollout"]
    assert stop and stop[0].startswith("b1 was restarted on its planned configuration by an earlier run and runs, but "
                                       "is not back in sync: "), again.explain()
    assert "LISTENER_NOT_FOUND" in stop[0] and "Restarting it again cannot help, so this run did not" in stop[0], \
        stop[0]
    assert kafka_pids(lab) == restarted
