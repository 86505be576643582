"""A scenario on the stand-in and on real Apache Kafka side by side, and the comparisons the suites make of them.

Shared by test_real_kafka_lab.py (the default release, several scenarios) and test_real_kafka_39_lab.py (Kafka
3.9.2). Every client node of both labs runs kcat -L and a produce/consume with kcat, confluent-kafka and
kafka-python; both labs must list the same brokers and endpoints and each client must succeed or fail the same way.
"""

from __future__ import annotations

from pathlib import Path

import scenario_matrix as sm
import yaml

from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, run_playbook
from kafkaops_lab.pytest_plugin import scenario_labs

CLIENT_WAIT = 12.0  # seconds a client waits for a delivery or a message before giving up (a failing client waits)
MOLECULE_DIR = sm.REPO_ROOT / "extensions" / "molecule"
LIBRARIES = ("kcat", "confluent-kafka", "kafka-python")
# librdkafka errors whose presence depends on timing (how many retries fit in the wait), not on the broker
TIMING_ERRORS = {"_ALL_BROKERS_DOWN", "_MSG_TIMED_OUT", "_TIMED_OUT"}
# why the real lab comes up without the topic every real-Kafka lab otherwise carries (kafkaops_lab/seeded.py)
COMPARED_EMPTY = ("the stand-in holds no replicated data, and with it the real cluster would be one in service, "
                  "planned to keep its listeners (issue 26), while the stand-in is planned as new: both are compared "
                  "as fresh installs")


class Pair:
    """The scenario's stand-in lab and real-Kafka lab, with what the tests learn in file order."""

    def __init__(self, scenario: str, labs: dict):
        self.scenario = scenario
        self.labs = labs  # "standin" / "real" -> RunningLab


def both_kinds(scenario: str, real: str = "real"):
    """Generator of a Pair: `scenario` on the stand-in and on real Kafka (`real` or `real:VERSION`), brought up in
    parallel, always torn down; both as fresh installs (COMPARED_EMPTY)."""
    with scenario_labs(scenario, {"standin": "standin", "real": real}, empty=COMPARED_EMPTY) as labs:
        yield Pair(scenario, labs)


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


def views(pair: Pair, topic: str, only: tuple[str, ...] | None = None, bootstraps: dict | None = None) -> dict:
    """client_view of every client node of both labs, all in parallel: {kind: {node: view}}. `bootstraps` maps a
    node name to the bootstrap it should use instead of the lab's (the listener a plan meant for its network)."""
    jobs = [(kind, node["name"], (bootstraps or {}).get(node["name"], node["bootstrap"]))
            for kind, lab in pair.labs.items() for node in clients(lab) if only is None or node["name"] in only]
    # one topic per client node: clients of one lab share its cluster
    results = sm.run_parallel([lambda kind=kind, node=node, bootstrap=bootstrap:
                               client_view(pair.labs[kind], node, bootstrap, f"{topic}-{node}")
                               for kind, node, bootstrap in jobs])
    seen: dict = {kind: {} for kind in pair.labs}
    for (kind, node, _bootstrap), result in zip(jobs, results, strict=True):
        seen[kind][node] = result
    return seen


def assert_same_views_before_the_fix(pair: Pair) -> None:
    """Every client node sees the same through the stand-in as through real Kafka."""
    seen = views(pair, "before")
    assert seen["standin"].keys() == seen["real"].keys() and seen["real"]
    for node, real in seen["real"].items():
        assert seen["standin"][node] == real, f"{pair.scenario}: {node} sees a different cluster"


def assert_laptop_fails_to_resolve(lab) -> None:
    """After a produce from the VPC, the laptop's consumer fails on the brokers' private names (Failed to resolve)."""
    bootstrap = lab.node("laptop")["bootstrap"]
    private = lab.node("client")["bootstrap"]
    produced = lab.kcat("client", "-P", "-b", private, "-t", "listeners-demo", input_text="from-vpc\n")
    assert produced.returncode == 0, produced.stderr
    outside = lab.kcat("laptop", "-C", "-b", bootstrap, "-t", "listeners-demo", "-o", "beginning", "-e")
    assert outside.returncode != 0
    assert "Failed to resolve 'ip-198-18-0-" in outside.stderr
    assert "Local: Host resolution failure" in outside.stderr


def scenario_vars(scenario: str, workdir: Path) -> Path:
    """The site playbook's variables for `scenario`: the lab's site-vars.yml plus the Molecule scenario's own."""
    data = yaml.safe_load((MOLECULE_DIR / scenario / "vars" / "scenario.yml").read_text(encoding="utf-8"))
    data = {key: value for key, value in data.items() if not key.startswith("scenario_")}
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"{scenario}.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def assert_laptop_round_trips_after_the_site_playbook(pair: Pair, workdir: Path, molecule_scenario: str) -> None:
    """The site playbook (with `molecule_scenario`'s variables) on both labs; then the laptop produces and consumes
    with every library on real Kafka, and sees the same through the stand-in."""
    extra = scenario_vars(molecule_scenario, workdir)
    runs = sm.run_parallel([lambda kind=kind: run_playbook(pair.labs[kind], SITE_PLAYBOOK, workdir / kind, "-e",
                                                           f"@{extra}", env=sm.ansible_env())
                            for kind in pair.labs])
    for kind, run in zip(pair.labs, runs, strict=True):
        assert run.returncode == 0 and not run.failed(), f"site.yml on the {kind} lab:\n{run.explain()}"
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


def set_keys_and_restart(lab, node: str, *settings: str) -> None:
    """Set `key=value` settings in the node's server.properties by hand and restart its broker."""
    edit = lab.exec(node, str(sm.VENV_PYTHON), "-c", SET_KEYS, *settings)
    assert edit.returncode == 0, edit.stderr
    restart = lab.exec(node, sm.KAFKA_SERVICE, "restart", timeout=200)
    assert restart.returncode == 0, restart.stderr
