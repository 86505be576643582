"""Real Apache Kafka in the lab, and the stand-in held to it, for the AWS, KRaft-separate-controllers and Docker labs.

For each scenario two labs come up side by side (in parallel): one on the stand-in, one on real Apache Kafka (the
first release of lab/kafka-dist/versions). Then, in file order:

1. before the fix, every client node of both labs runs kcat -L and a produce/consume with kcat, confluent-kafka
   and kafka-python: both labs must list the same brokers and endpoints, and each client must succeed or fail the
   same way (delivered, consumed, the errors it reports);
2. on real Kafka the laptop is handed names it cannot use (`Failed to resolve` / `Local: Host resolution
   failure` for the AWS and KRaft labs; `localhost` advertised to it for Docker);
3. the site playbook (with the scenario's variables from extensions/molecule/<scenario>/vars) runs on both labs,
   then the laptop produces and consumes on real Kafka, and it sees the same through the stand-in; on real Kafka,
   for the Molecule scenarios of MOLECULE_CHECKED, the checks `molecule test` adds to that converge (what
   lab/tests/test_molecule.py runs on the stand-in for the other scenarios): a second site run changes nothing
   (its idempotence step), and the scenario's verify playbook passes (the layout every broker runs, real kcat on
   every client network). These labs are the ones Molecule would bring up (fresh installs), so no Molecule run
   brings them up again, on real Kafka or on the stand-in;
4. on the separate controllers' real lab, a controller restart waits for the quorum: with one controller stopped,
   none is restarted and the stop names it; started again, the run goes through.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import real_kafka_pairs as pairs
import scenario_matrix as sm
import test_molecule as molecule_suite

from kafkaops_lab.paths import REPO_ROOT
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, kafka_pid, run_playbook

pytestmark = pytest.mark.lab

SCENARIOS = ("aws-private-dns-only", "kraft-separate-controllers", "docker-host")
# the Molecule scenarios whose own checks run here on real Kafka (and nowhere else): the separate KRaft controllers
# (the quorum's voters and controller listener rewritten and rolled on real controllers) and the Docker host (the
# container's broker rewritten from its env file)
MOLECULE_CHECKED = molecule_suite.REAL_KAFKA_CHECKED


@pytest.fixture(scope="module", params=SCENARIOS)
def pair(request, lab_kcat_required):
    """Both labs of one scenario, brought up in parallel, always torn down."""
    yield from pairs.both_kinds(request.param)


@pytest.fixture(scope="module")
def rollout_pair(lab_kcat_required):
    """aws-private-dns-only on both kinds, for a rollout stopped half-way."""
    yield from pairs.both_kinds("aws-private-dns-only")


def test_before_the_fix_every_client_sees_the_same_through_the_standin_as_through_kafka(pair):
    pairs.assert_same_views_before_the_fix(pair)


def test_on_real_kafka_the_laptop_is_handed_names_it_cannot_use(pair):
    lab = pair.labs["real"]
    assert lab.status["kafka"].startswith("real:")
    if pair.scenario == "docker-host":
        listing, stderr = sm.kcat_brokers(lab, "laptop", "never-gonna-give-you-up:9092")
        assert listing == {1: "localhost:9092"}, stderr
        return
    pairs.assert_laptop_fails_to_resolve(lab)


def test_after_the_site_playbook_the_laptop_round_trips_on_real_kafka_as_on_the_standin(pair, tmp_path):
    pairs.assert_laptop_round_trips_after_the_site_playbook(pair, tmp_path, pair.scenario)
    if pair.scenario in MOLECULE_CHECKED:
        assert_molecule_checks_pass(pair.labs["real"], pair.scenario, tmp_path / "molecule-checks")
    if pair.scenario == "kraft-separate-controllers":  # the scenario with dedicated controllers
        assert_a_controller_restart_waits_for_the_quorum(pair, tmp_path / "quorum")


PENDING_MARK = "/etc/kafka/server.properties.restart-pending"


def assert_a_controller_restart_waits_for_the_quorum(pair, tmp_path: Path) -> None:
    """On real Kafka with one of the three controllers stopped, a site run that restarts the two others (their
    restart left pending, as a run stopped half-way leaves it) restarts neither and names the voter that is not
    caught up; with it started again, the same run restarts both."""
    lab = pair.labs["real"]
    controllers = sorted(node["name"] for node in lab.nodes("controller"))
    *restarted, stopped = controllers
    stopped_id = lab.node(stopped)["kafka_node_id"]
    extra = pairs.scenario_vars(pair.scenario, tmp_path)
    pids = {node: kafka_pid(lab, node) for node in restarted}
    for node in restarted:
        lab.exec(node, "touch", PENDING_MARK, check=True)
    lab.exec(stopped, sm.KAFKA_SERVICE, "stop", check=True, timeout=150)
    try:
        held = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "held", "-e", f"@{extra}",
                            "-e", "broker_restart_gate_retries=3", env=sm.ansible_env())
    finally:
        lab.exec(stopped, sm.KAFKA_SERVICE, "start", check=True, timeout=150)
    assert held.returncode != 0, held.explain()
    stop = [result["msg"] for result in held.failed() if result["task"] == "Stop the rollout"]
    first = restarted[0]
    assert stop and stop[0].startswith(f"{first} was not restarted: restarting {first} now would leave the controller "
                                       "quorum without a majority of caught-up voters"), held.explain()
    assert f"Not caught up: node {stopped_id} (" in stop[0], stop[0]
    assert {node: kafka_pid(lab, node) for node in restarted} == pids

    through = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "through", "-e", f"@{extra}", env=sm.ansible_env())
    assert through.returncode == 0 and not through.failed(), through.explain()
    assert all(kafka_pid(lab, node) != pid for node, pid in pids.items())
    waited = [result for result in through.results
              if result["task"].startswith("Wait until it is caught up in the controller quorum")]
    assert sorted(result["host"] for result in waited if result["status"] == "ok") == restarted, through.explain()
    assert not any(lab.exec(node, "test", "-e", PENDING_MARK).returncode == 0 for node in controllers)


def assert_molecule_checks_pass(lab, scenario: str, workdir: Path) -> None:
    """What `molecule test -s scenario` checks after its converge, on a lab that has converged: the idempotence
    step (a second site run with the scenario's variables changes nothing) and the verify playbook, given the
    variables and environment Molecule gives it (extensions/molecule/config.yml)."""
    assert scenario in molecule_suite.REAL_KAFKA_CHECKED
    workdir.mkdir(parents=True, exist_ok=True)
    again = run_playbook(lab, SITE_PLAYBOOK, workdir / "idempotence", "-e",
                         f"@{pairs.scenario_vars(scenario, workdir)}", env=sm.ansible_env())
    assert again.returncode == 0 and again.changed() == [], f"second site run on {scenario}:\n{again.explain()}"
    ephemeral = workdir / "ephemeral"
    ephemeral.mkdir()
    (ephemeral / "lab-prefix").write_text(lab.prefix, encoding="utf-8")
    env = {**sm.ansible_env(), "MOLECULE_PROJECT_DIRECTORY": str(REPO_ROOT),
           "MOLECULE_EPHEMERAL_DIRECTORY": str(ephemeral)}
    shared = molecule_suite.MOLECULE_DIR / "shared"
    verify = run_playbook(lab, shared / "verify.yml", workdir / "verify", "-e", f"@{shared / 'vars' / 'common.yml'}",
                          "-e", f"@{molecule_suite.MOLECULE_DIR / scenario / 'vars' / 'scenario.yml'}", env=env)
    assert verify.returncode == 0 and not verify.failed(), f"verify.yml of {scenario}:\n{verify.explain()}"
    # the produce/consume check ran (one result for its loop over the scenario's clients), not skipped
    checked = [r["status"] for r in verify.results if r["task"].startswith("Each client read every client's message")]
    assert checked == ["ok"], verify.explain()


ROLLOUT_TOPICS = [f"half-{index}" for index in range(6)]
LEADER_WAIT = 90  # hang guard only: partitions of the restarted broker get their leader back


def option_1_then_half_of_option_2(lab) -> tuple[dict, dict, dict]:
    """Option 1 of Confluent's "Configure Multi-Node Environment" (public names advertised) on every broker, topics
    made from the laptop, then b1 alone moved to option 2 (INTERNAL/EXTERNAL): (laptop's kcat listing, client's kcat
    listing) under option 1, and what the project's client then sees through b1's INTERNAL listener."""
    public = {node: lab.node(node)["public_dns"] for node in ("b1", "b2", "b3")}
    private = lab.node("b1")["private_dns"]
    for node in public:
        pairs.set_keys_and_restart(lab, node, f"advertised.listeners=PLAINTEXT://{public[node]}:9092")
    expected = {int(node[1:]): f"{host}:9092" for node, host in public.items()}
    laptop = sm.wait_for_brokers(lab, "laptop", f"{public['b1']}:9092", expected)
    client = sm.wait_for_brokers(lab, "client", f"{private}:9092", expected)
    for topic in ROLLOUT_TOPICS:
        produced = lab.kcat("laptop", "-P", "-b", f"{public['b1']}:9092", "-t", topic, input_text="x\n")
        assert produced.returncode == 0, produced.stderr
    pairs.set_keys_and_restart(lab, "b1",
                               "listeners=INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092,CONTROLLER://:9093",
                               "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
                               f"advertised.listeners=INTERNAL://{private}:19092,EXTERNAL://{public['b1']}:9092",
                               "inter.broker.listener.name=INTERNAL")
    deadline = time.monotonic() + LEADER_WAIT
    while True:
        seen = sm.kafka_metadata(lab, "client", f"{private}:19092")
        errors = {part["error"] for topic in seen.get("topics", []) for part in topic["partitions"]}
        if not seen["failed"] and "LEADER_NOT_AVAILABLE" not in errors or time.monotonic() > deadline:
            return laptop, client, seen


def test_from_option_1_to_half_of_option_2_the_standin_answers_as_kafka(rollout_pair):
    shapes, details, listings = {}, {}, {}
    for kind, lab in rollout_pair.labs.items():
        laptop, client, seen = option_1_then_half_of_option_2(lab)
        listings[kind] = (laptop, client)
        assert not seen["failed"], seen
        assert [(b["node_id"], b["port"]) for b in seen["brokers"]] == [(1, 19092)], (kind, seen["brokers"])
        shape = set()
        for topic in seen["topics"]:
            if topic["name"] not in ROLLOUT_TOPICS:
                continue
            for part in topic["partitions"]:
                # Kafka: a leader without this listener -> LISTENER_NOT_FOUND, leader -1; such replicas are offline
                assert set(part["offline_replicas"]) == set(part["replicas"]) - {1}, (kind, topic["name"], part)
                shape.add((part["error"], part["leader"]))
        shapes[kind] = shape
        details[kind] = seen["topics"]
    # option 1: every broker lists all three by their public names, also to the VPC client that cannot resolve them
    real = rollout_pair.labs["real"]
    public = {int(node[1:]): f"{real.node(node)['public_dns']}:9092" for node in ("b1", "b2", "b3")}
    assert listings["real"] == (public, public)
    assert listings["standin"] == listings["real"]
    # which partitions b1 leads again after its restart is up to each cluster's leader elections (real Kafka once
    # had none back on b1 yet), so both answer only with these two outcomes, and both have partitions led elsewhere
    for kind in ("real", "standin"):
        assert shapes[kind] <= {(None, 1), ("LISTENER_NOT_FOUND", -1)}, (kind, details)
        assert ("LISTENER_NOT_FOUND", -1) in shapes[kind], (kind, details)
