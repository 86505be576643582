"""Real Apache Kafka in the lab, and the stand-in held to it, for the AWS, KRaft-separate-controllers and Docker labs.

For each scenario two labs come up side by side (in parallel): one on the stand-in, one on real Apache Kafka (the
first release of tests/lab/kafka-dist/versions). Then, in file order:

1. before the fix, every client node of both labs runs kcat -L and a produce/consume with kcat, confluent-kafka
   and kafka-python: both labs must list the same brokers and endpoints, and each client must succeed or fail the
   same way (delivered, consumed, the errors it reports);
2. on real Kafka the laptop fails the way the seeds describe (`Failed to resolve` / `Local: Host resolution
   failure` for the AWS and KRaft labs; `localhost` advertised to it for Docker);
3. the site playbook (with the scenario's variables from extensions/molecule/<scenario>/vars) runs on both labs,
   then the laptop produces and consumes on real Kafka, and it sees the same through the stand-in.
"""

from __future__ import annotations

import secrets
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import scenario_matrix as sm
import yaml

pytestmark = pytest.mark.lab

SCENARIOS = ("aws-private-dns-only", "kraft-separate-controllers", "docker-host")
KINDS = ("standin", "real")
CLIENT_WAIT = 12.0  # seconds a client waits for a delivery or a message before giving up (a failing client waits)
MOLECULE_DIR = sm.REPO_ROOT / "extensions" / "molecule"
LIBRARIES = ("kcat", "confluent-kafka", "kafka-python")
# librdkafka errors whose presence depends on timing (how many retries fit in the wait), not on the broker
TIMING_ERRORS = {"_ALL_BROKERS_DOWN", "_MSG_TIMED_OUT", "_TIMED_OUT"}


class Pair:
    """The scenario's stand-in lab and real-Kafka lab, with what the tests learn in file order."""

    def __init__(self, scenario: str, labs: dict):
        self.scenario = scenario
        self.labs = labs  # kind -> RunningLab
        self.fixed: dict[str, subprocess.CompletedProcess] = {}


def _up(cli, scenario: str, kind: str) -> str:
    prefix = "rk" + secrets.token_hex(3)
    cli.command("up", "--scenario", scenario, "--prefix", prefix, "--kafka", kind, timeout=400)
    return prefix


def _both_kinds(cli, scenario: str):
    """Generator of a Pair: `scenario` on the stand-in and on real Kafka, brought up in parallel, torn down."""
    prefixes: dict[str, str] = {}
    try:
        with ThreadPoolExecutor(len(KINDS)) as pool:
            futures = {kind: pool.submit(_up, cli, scenario, kind) for kind in KINDS}
            errors = []
            for kind, future in futures.items():
                try:
                    prefixes[kind] = future.result()
                except BaseException as exc:  # noqa: BLE001 - the other lab must still be torn down
                    errors.append(f"{kind}: {exc}")
        if errors:
            pytest.fail("lab up failed:\n" + "\n".join(errors))
        yield Pair(scenario, {kind: cli.attach(prefix) for kind, prefix in prefixes.items()})
    finally:
        for prefix in prefixes.values():
            cli.command("down", "--prefix", prefix, check=False)


@pytest.fixture(scope="module", params=SCENARIOS)
def pair(request, lab_session_cli, lab_kcat_required):
    """Both labs of one scenario, brought up in parallel, always torn down."""
    yield from _both_kinds(lab_session_cli, request.param)


@pytest.fixture(scope="module")
def rollout_pair(lab_session_cli, lab_kcat_required):
    """aws-private-dns-only on both kinds, for a rollout stopped half-way."""
    yield from _both_kinds(lab_session_cli, "aws-private-dns-only")


def clients(lab) -> list[dict]:
    return [node for node in lab.status["nodes"] if node.get("bootstrap")]


def client_view(lab, node: str, bootstrap: str, topic: str) -> dict:
    """What one client node sees of the cluster through `bootstrap`: kcat -L and each library's round trip."""
    calls = [
        lambda: sm.kcat_brokers(lab, node, bootstrap)[0],
        lambda: sm.kcat_round_trip(lab, node, bootstrap, f"{topic}-kcat", "v", CLIENT_WAIT),
        lambda: sm.python_client(lab, node, "confluent-kafka", bootstrap, f"{topic}-ck", "v", True, CLIENT_WAIT),
        lambda: sm.python_client(lab, node, "kafka-python", bootstrap, f"{topic}-kp", "v", True, CLIENT_WAIT),
    ]
    listing, kcat, confluent, kafka_python = sm.run_parallel(calls)
    kcat_text = kcat["produce_stderr"] + kcat.get("consume_stderr", "")
    return {
        "brokers": listing,
        "kcat": {"delivered": kcat["produce_rc"] == 0, "consumed": kcat["consumed"],
                 "resolution failure": "Failed to resolve" in kcat_text,
                 "connection refused": "Connection refused" in kcat_text},
        "confluent-kafka": {"delivered": confluent["delivered"], "consumed": confluent["consumed"],
                            "errors": sorted({error["name"] for error in confluent["errors"]} - TIMING_ERRORS)},
        "kafka-python": {"delivered": kafka_python["delivered"], "consumed": kafka_python["consumed"],
                         "exception": (kafka_python["exception"] or {}).get("type")},
    }


def views(pair: Pair, topic: str, only: tuple[str, ...] | None = None) -> dict:
    """client_view of every client node of both labs, all in parallel: {kind: {node: view}}."""
    jobs = [(kind, node["name"], node["bootstrap"]) for kind, lab in pair.labs.items() for node in clients(lab)
            if only is None or node["name"] in only]
    # one topic per client node: clients of one lab share its cluster
    results = sm.run_parallel([lambda kind=kind, node=node, bootstrap=bootstrap:
                               client_view(pair.labs[kind], node, bootstrap, f"{topic}-{node}")
                               for kind, node, bootstrap in jobs])
    seen: dict = {kind: {} for kind in pair.labs}
    for (kind, node, _bootstrap), result in zip(jobs, results, strict=True):
        seen[kind][node] = result
    return seen


def test_before_the_fix_every_client_sees_the_same_through_the_standin_as_through_kafka(pair):
    seen = views(pair, "before")
    assert seen["standin"].keys() == seen["real"].keys() and seen["real"]
    for node, real in seen["real"].items():
        assert seen["standin"][node] == real, f"{pair.scenario}: {node} sees a different cluster"


def test_on_real_kafka_the_laptop_fails_the_way_the_seeds_describe(pair):
    lab = pair.labs["real"]
    assert lab.status["kafka"].startswith("real:")
    if pair.scenario == "docker-host":
        listing, stderr = sm.kcat_brokers(lab, "laptop", "never-gonna-give-you-up:9092")
        assert listing == {1: "localhost:9092"}, stderr
        return
    bootstrap = lab.node("laptop")["bootstrap"]
    private = lab.node("client")["bootstrap"]
    produced = lab.kcat("client", "-P", "-b", private, "-t", "seeds", input_text="from-vpc\n")
    assert produced.returncode == 0, produced.stderr
    outside = lab.kcat("laptop", "-C", "-b", bootstrap, "-t", "seeds", "-o", "beginning", "-e")
    assert outside.returncode != 0
    assert "Failed to resolve 'ip-198-18-0-" in outside.stderr
    assert "Local: Host resolution failure" in outside.stderr


def scenario_vars(scenario: str, workdir: Path) -> Path:
    """The site playbook's variables for `scenario`: the lab's site-vars.yml plus the Molecule scenario's own."""
    data = yaml.safe_load((MOLECULE_DIR / scenario / "vars" / "scenario.yml").read_text(encoding="utf-8"))
    data = {key: value for key, value in data.items() if not key.startswith("scenario_")}
    path = workdir / f"{scenario}.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def run_site(lab, extra_vars: Path, records: Path) -> subprocess.CompletedProcess:
    argv = [str(sm.VENV_BIN / "ansible-playbook"), "-i", lab.status["inventory"], str(sm.REPO_ROOT / "playbooks"
            / "site.yml"), "-e", f"@{sm.LAB_DIR / 'site-vars.yml'}", "-e", f"@{extra_vars}",
            "-e", f"verify_records_dir={records}"]
    return subprocess.run(argv, capture_output=True, text=True, env=sm.ansible_env(), timeout=sm.ANSIBLE_TIMEOUT,
                          cwd=sm.REPO_ROOT)


def test_after_the_site_playbook_the_laptop_round_trips_on_real_kafka_as_on_the_standin(pair, tmp_path):
    extra = scenario_vars(pair.scenario, tmp_path)
    runs = sm.run_parallel([lambda kind=kind: run_site(pair.labs[kind], extra, tmp_path / kind)
                            for kind in pair.labs])
    for kind, run in zip(pair.labs, runs, strict=True):
        assert run.returncode == 0, f"site.yml on the {kind} lab:\n{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
    seen = views(pair, "after", only=("laptop",))
    real = seen["real"]["laptop"]
    for library in LIBRARIES:
        assert real[library]["delivered"] and real[library]["consumed"] == ["v"], (library, real[library])
    assert seen["standin"]["laptop"] == real


# Sets keys of server.properties on a node, keeping every other line (argv: key=value ...).
SET_KEYS = """
import sys
path, updates = "/etc/kafka/server.properties", dict(arg.split("=", 1) for arg in sys.argv[1:])
lines = [f"{line.split('=', 1)[0]}={updates.pop(line.split('=', 1)[0])}" if line.split("=", 1)[0] in updates else line
         for line in open(path).read().splitlines()]
open(path, "w").write("\\n".join(lines + [f"{key}={value}" for key, value in updates.items()]) + "\\n")
"""
ROLLOUT_TOPICS = [f"half-{index}" for index in range(6)]
LEADER_WAIT = 90  # hang guard only: partitions of the restarted broker get their leader back


def set_keys_and_restart(lab, node: str, *settings: str) -> None:
    edit = lab.exec(node, str(sm.VENV_PYTHON), "-c", SET_KEYS, *settings)
    assert edit.returncode == 0, edit.stderr
    restart = lab.exec(node, sm.KAFKA_SERVICE, "restart", timeout=200)
    assert restart.returncode == 0, restart.stderr


def option_1_then_half_of_option_2(lab) -> tuple[dict, dict, dict]:
    """The seeds' option 1 (public names advertised) on every broker, topics made from the laptop, then b1 alone
    moved to option 2 (INTERNAL/EXTERNAL): (laptop's kcat listing, client's kcat listing) under option 1, and what
    the project's client then sees through b1's INTERNAL listener."""
    public = {node: lab.node(node)["public_dns"] for node in ("b1", "b2", "b3")}
    private = lab.node("b1")["private_dns"]
    for node in public:
        set_keys_and_restart(lab, node, f"advertised.listeners=PLAINTEXT://{public[node]}:9092")
    expected = {int(node[1:]): f"{host}:9092" for node, host in public.items()}
    laptop = sm.wait_for_brokers(lab, "laptop", f"{public['b1']}:9092", expected)
    client = sm.wait_for_brokers(lab, "client", f"{private}:9092", expected)
    for topic in ROLLOUT_TOPICS:
        produced = lab.kcat("laptop", "-P", "-b", f"{public['b1']}:9092", "-t", topic, input_text="x\n")
        assert produced.returncode == 0, produced.stderr
    set_keys_and_restart(lab, "b1", "listeners=INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092,CONTROLLER://:9093",
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
    assert shapes["real"] == {(None, 1), ("LISTENER_NOT_FOUND", -1)}, details
    assert shapes["standin"] == shapes["real"], details
