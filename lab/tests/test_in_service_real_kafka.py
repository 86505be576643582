"""A cluster already in service, on real Apache Kafka of each release the lab runs, fixed by the site playbook with
its default options.

Each node runs from Kafka's tarball under /opt, started by a systemd unit the operator wrote, the three brokers laid
out in three ways (kafkaops_lab/install_shapes.py: a versioned folder behind the /opt/kafka symlink, a versioned folder
named through the unit's Environment=, a plain /opt/kafka whose drop-in replaces ExecStart); the role finds each
file and unit itself (the inventory names neither). Each node starts from the KRaft file its release ships, at the
place the release ships it (3.9 config/kraft/, beside the ZooKeeper-mode config/server.properties; 4.x config/), as an
operator adapts it on a VPC (scenario aws-in-service:
3.9's static voters at the private IPs, 4.x's dynamic quorum formatted with --initial-controllers and the controller
advertised at its private IP; the private DNS name advertised on :9092). The VPC's resolver does not answer the
public names, so the documented layout would be dual, which renames the inter-broker listener and gives :9092 to
the public names. Before the run the cluster holds a topic of replication factor 3 and min.insync.replicas 2 with
data, and the in-VPC client, which has always bootstrapped on its private names at :9092, produces to it and
consumes it for the whole rollout with the client_config role's settings (kafkaops_lab/load.py): nothing lost,
failed or duplicated. Afterwards: every message is readable, the in-VPC client still works on its old bootstrap with new
connections, the laptop (which failed before) works on the new listener, every partition is fully in sync, the
quorum keeps its style and a second run changes nothing.

First, with b3 stopped (every partition at 2 in-sync replicas = min.insync.replicas), the site playbook restarts no
broker and writes nothing: its gate before b1's restart names the partitions held at min.insync.replicas.

Then, on the cluster the default run converged, a rename of the inter-broker listener asked with in_phases goes
through its phases under the same load (on 4.x stopped between them and resumed by the next run).
"""

from __future__ import annotations

import json
import re
import time
import uuid

import pytest
import scenario_matrix as sm

from kafkaops_lab import kafka_real, load
from kafkaops_lab.paths import KAFKA_SERVICE
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, rename_in_phases_vars, run_playbook
from kafkaops_lab.pytest_plugin import scenario_labs

pytestmark = pytest.mark.lab

TOPIC = "orders"
BROKERS = ("b1", "b2", "b3")
MESSAGES_BEFORE = 300
# why these labs come up without the topic every real-Kafka lab otherwise carries (kafkaops_lab/seeded.py)
OWN_TOPIC_ONLY = ("the test writes its own replicated topic, orders, and counts its partitions as the only "
                  "replicated ones (in the plan's message, the restart gate's refusal, the ISR listings)")
RELEASES = kafka_real.versions()  # the newest 4.x and the newest 3.9.x (lab/kafka-dist/versions)


def release_labs(scenario: str):
    """One lab of ``scenario`` per release of RELEASES, on real Kafka, without the usual topic (OWN_TOPIC_ONLY)."""
    return scenario_labs(scenario, {release: f"real:{release}" for release in RELEASES}, empty=OWN_TOPIC_ONLY)


@pytest.fixture(scope="module")
def labs(lab_kcat_required):
    with release_labs("aws-in-service") as running:
        yield running


def check_from(lab, node: str, bootstrap: str) -> dict:
    """From ``node`` with new connections only: one message produced (acks=all), then every message read back."""
    mine = load.seed(lab, node, bootstrap, TOPIC, 1, prefix="after-" + uuid.uuid4().hex[:8])[0]
    return {"mine": mine, **load.read_back(lab, node, bootstrap, TOPIC)}


def in_sync(lab, bootstrap: str) -> dict:
    """partition -> (replicas, in-sync replicas) of TOPIC as kcat -L on the client lists them."""
    proc = lab.kcat("client", "-L", "-J", "-b", bootstrap, "-t", TOPIC)
    assert proc.returncode == 0, proc.stderr
    topic = json.loads(proc.stdout)["topics"][0]
    return {part["partition"]: (len(part["replicas"]), len(part["isrs"])) for part in topic["partitions"]}


def wait_in_sync(lab, bootstrap: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        state = in_sync(lab, bootstrap)
        if all(isr == replicas == 3 for replicas, isr in state.values()) or time.monotonic() > deadline:
            return state
        time.sleep(2)


def config_path(lab, node: str) -> str:
    """Where the node's Kafka reads its file (the lab's fact; the role finds it itself)."""
    return lab.inventory()["all"]["children"]["kafka_brokers"]["hosts"][node]["kafka_config_path"]


def pending_marks(lab) -> dict:
    """node -> whether an earlier run left <properties file>.restart-pending."""
    return {node: lab.exec(node, "test", "-e", config_path(lab, node) + ".restart-pending").returncode == 0
            for node in BROKERS}


def server_properties(lab, node: str) -> dict:
    text = lab.exec(node, "cat", config_path(lab, node), check=True).stdout
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


@pytest.mark.parametrize("release", RELEASES)
def test_default_options_keep_every_client_that_worked_and_fix_the_one_that_did_not(labs, release, tmp_path):
    lab = labs[release]
    vpc_bootstrap = lab.node("client")["bootstrap_servers"]  # ip-...internal:9092, as it always was
    laptop_old = lab.node("laptop")["bootstrap_servers"]  # ec2-...:9092
    assert ":9092" in vpc_bootstrap and "internal" in vpc_bootstrap, vpc_bootstrap
    # Kafka's tarball under /opt, its file where the release ships it, started by units the operator wrote, one shape
    # per broker (kafkaops_lab/install_shapes.py); the inventory names neither the file nor the unit
    dynamic = int(release.split(".")[0]) >= 4
    shipped = "config/server.properties" if dynamic else "config/kraft/server.properties"
    hosts = lab.inventory()["all"]["children"]["kafka_brokers"]["hosts"]
    assert {node: hosts[node]["kafka_config_path"] for node in BROKERS} == {
        "b1": f"/opt/kafka/{shipped}", "b2": f"/opt/kafka_2.13-{release}/{shipped}", "b3": f"/opt/kafka/{shipped}"}
    assert not any(key in hosts[node] for node in BROKERS for key in ("broker_properties_path", "broker_service_name"))
    assert lab.exec("b1", "readlink", "/opt/kafka", check=True).stdout.strip() == f"kafka_2.13-{release}"
    before = {node: server_properties(lab, node) for node in BROKERS}
    assert ("controller.quorum.bootstrap.servers" in before["b1"]) is dynamic, before["b1"]

    before_values = load.seed(lab, "client", vpc_bootstrap, TOPIC, MESSAGES_BEFORE)
    # b3 down: restarting any other broker would take every partition below min.insync.replicas
    lab.exec("b3", str(KAFKA_SERVICE), "stop", check=True, timeout=150)
    try:
        held = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "held", "-e", "broker_restart_gate_retries=2",
                            env=sm.ansible_env())
    finally:
        lab.exec("b3", str(KAFKA_SERVICE), "start", check=True, timeout=150)
    assert held.returncode != 0, held.explain()
    stop = [result["msg"] for result in held.failed() if result["task"] == "Stop the rollout"]
    assert stop and stop[0].startswith("b1 was not restarted: restarting b1 now would take 6 partition(s) below "
                                       "min.insync.replicas"), held.explain()
    held_partition = r"orders-\d \(ISR \[[12], [12]\] of replicas \[[123, ]+\], min.insync.replicas 2\)"
    assert re.search(held_partition, stop[0]), stop[0]
    assert {node: server_properties(lab, node) for node in BROKERS} == before
    assert not any(pending_marks(lab).values())
    state = wait_in_sync(lab, vpc_bootstrap, timeout=120)
    assert all(isr == replicas == 3 for replicas, isr in state.values()), state

    # the failure this collection fixes: the laptop is told the private names
    listed = lab.kcat("laptop", "-L", "-J", "-b", laptop_old)
    assert listed.returncode == 0 and "compute.internal:9092" in listed.stdout, listed.stdout + listed.stderr

    # the in-VPC application keeps producing and consuming on its old bootstrap for the whole run
    with load.LiveLoad(lab, "client", vpc_bootstrap, TOPIC) as live:
        run = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "first", env=sm.ansible_env())
    assert run.returncode == 0 and not run.failed(), run.explain()
    layout = [result["msg"] for result in run.results if result["task"].startswith("Show the chosen layout")]
    assert any("in service: kept PLAINTEXT :9092 for the VPC (private names); added EXTERNAL :9094 for the internet "
               "(public names)" in msg for msg in layout), layout
    assert_kept_every_client_and_added_the_internet(lab, live, before, before_values, tmp_path)


def assert_kept_every_client_and_added_the_internet(lab, live, before: dict, before_values: list, tmp_path) -> None:
    """After the default run on a cluster in service with the in-VPC client's load (``live``) through it: nothing
    failed, lost or duplicated; every broker keeps PLAINTEXT as inter-broker listener on :9092 with the private names,
    with EXTERNAL :9094 on the public names added, and its quorum keys (``before``: the files before the run); every
    partition is in sync; the in-VPC client reads every message (``before_values`` and the load's) with new
    connections on its old bootstrap; the laptop works on :9094; a second run changes nothing."""
    after = assert_every_client_served(lab, live, before, before_values, "PLAINTEXT",
                                       r",EXTERNAL://ec2-[0-9-]+\..*:9094$")

    again = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "second", env=sm.ansible_env())
    assert again.returncode == 0 and not again.failed(), again.explain()
    assert not [result for result in again.changed() if result["host"] in BROKERS], \
        [(result["host"], result["task"]) for result in again.changed()]
    assert {node: server_properties(lab, node) for node in BROKERS} == after


def assert_every_client_served(lab, live, before: dict, before_values: list, inter_broker: str,
                               added: str) -> dict:
    """After a run under the in-VPC client's load (``live``): nothing failed, lost or duplicated; every broker
    replicates over ``inter_broker``, advertises PLAINTEXT on the private names and a listener matching ``added``,
    and keeps its quorum keys (``before``: the files before the run); every partition is in sync; the in-VPC client
    reads every message (``before_values`` and the load's) with new connections on its old bootstrap; the laptop
    works on :9094. Returns the files after the run."""
    vpc_bootstrap = lab.node("client")["bootstrap_servers"]
    live.unnoticed()
    after = {node: server_properties(lab, node) for node in BROKERS}
    for node in BROKERS:
        props = after[node]
        assert props["inter.broker.listener.name"] == inter_broker, props
        assert props["advertised.listeners"].startswith("PLAINTEXT://ip-198-18-0-"), props
        assert re.search(added, props["advertised.listeners"]), props
        # the quorum keeps its style and its controllers where they were
        for key in ("controller.quorum.voters", "controller.quorum.bootstrap.servers"):
            assert props.get(key) == before[node].get(key), (key, props.get(key), before[node].get(key))
    state = wait_in_sync(lab, vpc_bootstrap)
    assert all(isr == replicas == 3 for replicas, isr in state.values()), state
    # the in-VPC client, with new connections on the bootstrap it always used: every message, and a new one
    vpc = check_from(lab, "client", vpc_bootstrap)
    expected = set(before_values) | set(live.produced["acked"])
    assert vpc["complete"] and not vpc["errors"], vpc
    missing = expected - set(vpc["seen"])
    assert not missing, f"{len(missing)} acknowledged messages not read back, e.g. {sorted(missing)[:5]}"
    assert vpc["mine"] in vpc["seen"]
    # the laptop, which could not use the cluster before, on the listener added for it
    laptop = check_from(lab, "laptop", lab.node("laptop")["bootstrap_servers"].replace(":9092", ":9094"))
    assert laptop["complete"] and not laptop["errors"] and laptop["mine"] in laptop["seen"], laptop
    assert vpc["mine"] in laptop["seen"]
    return after


def restarted(run) -> list:
    """The brokers a run restarted, in order (one entry per restart)."""
    return [result["host"] for result in run.results
            if result["task"].startswith(("Restart the Kafka service of", "Restart Kafka with the configured command"))
            and result["status"] == "ok"]


def layout_lines(run) -> list:
    return [result["msg"] for result in run.results if result["task"].startswith("Show the chosen layout")]


@pytest.mark.parametrize("release", RELEASES)
def test_an_asked_rename_of_the_inter_broker_listener_goes_through_its_phases_under_load(labs, release, tmp_path):
    """Runs after the test above, on the cluster it converged (PLAINTEXT :9092 the inter-broker listener, EXTERNAL
    :9094 added). The rename PLAINTEXT -> INTERNAL in one roll would stop at b1 with every partition out of its ISR;
    asked with in_phases, it goes as two complete rolling restarts (add INTERNAL beside PLAINTEXT; switch), each
    broker back in the ISR of every partition before the next one's restart, with the in-VPC client producing and
    consuming on its old bootstrap throughout. On 4.x the first run stops after a phase (broker_phases_per_run: 1),
    check mode lists the phase to come and the re-run finishes it; on 3.9 one run goes through both. Last, with the
    in-VPC client moved to INTERNAL :19092, the layout without PLAINTEXT removes it in a third rolling restart under
    that client's load: nothing failed, lost or duplicated, :9092 refused afterwards, a re-run changes nothing."""
    lab = labs[release]
    vpc_bootstrap = lab.node("client")["bootstrap_servers"]
    before = {node: server_properties(lab, node) for node in BROKERS}
    assert all(props["inter.broker.listener.name"] == "PLAINTEXT" and ",EXTERNAL://" in props["advertised.listeners"]
               for props in before.values()), ("needs the cluster test_default_options_... converged", before)
    # INTERNAL :19092 between the brokers, the VPC's clients keeping PLAINTEXT :9092
    extra = tmp_path / "phases.yml"
    extra.write_text(json.dumps(rename_in_phases_vars(release)), encoding="utf-8")
    stop_between = int(release.split(".")[0]) >= 4
    before_values = load.read_back(lab, "client", vpc_bootstrap, TOPIC)["seen"]

    with load.LiveLoad(lab, "client", vpc_bootstrap, TOPIC, prefix="phases") as live:
        first = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "first", "-e", f"@{extra}",
                             *(("-e", "broker_phases_per_run=1") if stop_between else ()), env=sm.ansible_env())
        assert first.returncode == 0 and not first.failed(), first.explain()
        lines = layout_lines(first)
        assert any("in phases, the inter-broker listener renamed PLAINTEXT -> INTERNAL: now phase 1 of 2 (add)" in line
                   and "to come in the next rolling restarts: phase 2 of 2 (switch)" in line for line in lines), lines
        if stop_between:
            # stopped between the phases: every broker runs INTERNAL and still replicates over PLAINTEXT
            assert restarted(first) == list(BROKERS), restarted(first)
            middle = {node: server_properties(lab, node) for node in BROKERS}
            assert all(props["inter.broker.listener.name"] == "PLAINTEXT" and "INTERNAL://0.0.0.0:19092"
                       in props["listeners"] for props in middle.values()), middle
            state = wait_in_sync(lab, vpc_bootstrap)
            assert all(isr == replicas == 3 for replicas, isr in state.values()), state
            check = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "check", "-e", f"@{extra}", "--check",
                                 env=sm.ansible_env())
            assert check.returncode == 0 and not check.failed(), check.explain()
            assert any("now phase 2 of 2 (switch)" in line for line in layout_lines(check)), layout_lines(check)
            assert {node: server_properties(lab, node) for node in BROKERS} == middle
            second = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "second", "-e", f"@{extra}", env=sm.ansible_env())
            assert second.returncode == 0 and not second.failed(), second.explain()
            assert restarted(second) == list(BROKERS), restarted(second)
        else:
            # both phases in one run: each broker restarted once per phase, in order
            assert restarted(first) == list(BROKERS) * 2, restarted(first)

    after = assert_every_client_served(lab, live, before, before_values, "INTERNAL",
                                       r"INTERNAL://ip-198-18-0-[0-9]+\.[^,]*:19092")

    again = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "again", "-e", f"@{extra}", env=sm.ansible_env())
    assert again.returncode == 0 and not again.failed(), again.explain()
    assert not restarted(again) and {node: server_properties(lab, node) for node in BROKERS} == after

    # the last phase, asked once the VPC's clients moved to INTERNAL :19092: PLAINTEXT removed in one more rolling
    # restart, under the load of the in-VPC client on its new bootstrap
    moved = vpc_bootstrap.replace(":9092", ":19092")
    remove = tmp_path / "remove.yml"
    remove.write_text(json.dumps(rename_in_phases_vars(release, remove_old=True)), encoding="utf-8")
    with load.LiveLoad(lab, "client", moved, TOPIC, prefix="remove") as removing:
        last = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "remove", "-e", f"@{remove}", env=sm.ansible_env())
    assert last.returncode == 0 and not last.failed(), last.explain()
    assert restarted(last) == list(BROKERS), restarted(last)
    removing.unnoticed()
    removed = {node: server_properties(lab, node) for node in BROKERS}
    for node in BROKERS:
        props = removed[node]
        assert props["inter.broker.listener.name"] == "INTERNAL", props
        assert "PLAINTEXT://" not in props["listeners"] and "PLAINTEXT://" not in props["advertised.listeners"], props
        assert re.search(r"(^|,)INTERNAL://ip-198-18-0-[0-9]+\.[^,]*:19092(,|$)", props["advertised.listeners"]), props
        for key in ("controller.quorum.voters", "controller.quorum.bootstrap.servers"):
            assert props.get(key) == before[node].get(key), (key, props.get(key), before[node].get(key))
    state = wait_in_sync(lab, moved)
    assert all(isr == replicas == 3 for replicas, isr in state.values()), state
    vpc = check_from(lab, "client", moved)
    expected = set(before_values) | set(live.produced["acked"]) | set(removing.produced["acked"])
    assert vpc["complete"] and not vpc["errors"], vpc
    missing = expected - set(vpc["seen"])
    assert not missing, f"{len(missing)} acknowledged messages not read back, e.g. {sorted(missing)[:5]}"
    laptop = check_from(lab, "laptop", lab.node("laptop")["bootstrap_servers"].replace(":9092", ":9094"))
    assert laptop["complete"] and not laptop["errors"] and vpc["mine"] in laptop["seen"], laptop
    # :9092 is gone: the old bootstrap is refused, which is why its clients had to move first
    gone = lab.kcat("client", "-L", "-b", vpc_bootstrap, "-m", "5")
    assert gone.returncode != 0, gone.stdout
    final = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "final", "-e", f"@{remove}", env=sm.ansible_env())
    assert final.returncode == 0 and not final.failed(), final.explain()
    assert not restarted(final) and {node: server_properties(lab, node) for node in BROKERS} == removed
