#!/usr/bin/env python3
"""What live clients see while the site playbook restarts every broker of a cluster in service, on real Apache Kafka.

    sudo .venv/bin/python benchmarks/rollout_load_bench.py [--releases 4.1.1 3.9.2] [--rate 20] [--messages 300]
                                                           [--scenario aws-in-service] [--phases]

For each release (default: every release of lab/kafka-dist/versions), one lab of the scenario on real Kafka (default
aws-in-service: Kafka's shipped KRaft file of that release adapted as an operator does, the in-VPC client on its
private names at :9092; the site playbook keeps that listener, adds one for the internet and restarts every broker).
Before the run the in-VPC client creates a topic of 6 partitions, replication factor 3 and min.insync.replicas 2 and
writes --messages into it; during the run it produces --rate messages a second with the client_config role's robust
settings (acks=all, idempotence, retries, delivery timeout) and consumes in a group, both on the bootstrap it used
before (kafkaops_lab/load.py). Printed per release: messages sent, acknowledged, failed, lost, duplicated, the
longest pause between two acknowledgements and between two consumed messages; the playbook's wall time, each
broker's turn (its gate, write and restart command, the wait until it is back in the ISR of every partition it
hosts, and the election that gives it back its preferred leadership) and what the run spent outside the turns
(facts, discovery, plan, verify).

A secured scenario (aws-sasl-ssl-inter-broker: INTERNAL and EXTERNAL on SASL_SSL with SCRAM-SHA-512, CONTROLLER on
SSL) runs the same with the clients logging in over TLS with the lab's SCRAM user and CA, and the site playbook given
the protocols the brokers started with and the same login for its gates (the lab's cluster starts with nothing
advertised, so the seeded replicated data makes it a cluster in service, planned from the listeners it runs: the VPC
keeps INTERNAL and EXTERNAL on the private names, and the internet gets PUBLIC on :9094, SASL_SSL too, whose SASL
settings the bench copies from EXTERNAL's into each broker's file first, as an operator must).

With --phases (scenario aws-in-service), two more rows per release: on the cluster the first run converged, a run
that renames the inter-broker listener PLAINTEXT -> INTERNAL in phases (broker_listener_options in_phases; both
phases, add and switch, in the one run: every broker restarted twice), under the same load on the same bootstrap;
then the remove phase, a run whose layout leaves PLAINTEXT out (every broker restarted once more), under a load of
the laptop on the internet's bootstrap (EXTERNAL :9094, the one listener the clients keep through it; the VPC's
clients of :9092 would have to move to INTERNAL :19092 first).

Goals (issue 27): 0 lost, 0 failed, 0 duplicated, the longest pause between acknowledgements at most 1 s; a rollout
no longer than the brokers' own restarts plus the gates' waits. Needs root (the lab); about 4 minutes a release.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from kafkaops_lab import kafka_real, load, security  # the lab package, installed into .venv by `make venv`
from kafkaops_lab.paths import REPO_ROOT as REPO
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, copy_sasl_settings, rename_in_phases_vars, run_playbook
from kafkaops_lab.pytest_plugin import REAL_KAFKA_UP_TIMEOUT, RunningLab, lab_command, new_prefix

TOPIC = "orders"
BROKERS = ("b1", "b2", "b3")
GATE = "Wait until a restart keeps every partition at min.insync.replicas and the quorum's majority, for "
RESTART = ("Restart the Kafka service of ", "Restart Kafka with the configured command on ")
BACK = "Wait until it is registered and back in sync for every partition it hosts, "
ELECT = "Give back the leadership its restart moved away, "
PARTS = ("gate", "restart", "back", "elect")


def ansible_env() -> dict:
    return {**os.environ, "ANSIBLE_CONFIG": str(REPO / "ansible.cfg"),
            "ANSIBLE_COLLECTIONS_PATH": str(REPO / ".venv" / "collections"), "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_FORKS": "10", "ANSIBLE_PIPELINING": "1", "ANSIBLE_DEPRECATION_WARNINGS": "0"}


def turns(results: list[dict]) -> dict:
    """broker -> {"gate", "restart", "back", "elect"}: seconds of each part of its turn, from the recorded results'
    times (a part ends when its task's result came and starts with the result before it; summed over the phases of a
    run that restarts each broker more than once)."""
    named = {GATE: "gate", BACK: "back", ELECT: "elect", **{name: "restart" for name in RESTART}}
    found = {}
    for index, result in enumerate(results):
        task = result["task"]
        for broker in BROKERS:
            part = next((part for name, part in named.items() if task == name + broker), None)
            if part is not None:
                previous = results[index - 1]["at"] if index else result["at"]
                mine = found.setdefault(broker, {})
                mine[part] = round(mine.get(part, 0) + result["at"] - previous, 1)
    return found


def secured_settings(lab, workdir: Path) -> tuple:
    """(the clients' librdkafka settings, the site playbook's arguments) for a secured lab; ({}, ()) otherwise. The
    variables hold the password: they go into a file of the run's temporary folder only. The added listener's SASL
    settings are copied from EXTERNAL's first, as an operator must."""
    if not lab.status.get("security"):
        return {}, ()
    client, variables = security.in_service_settings(lab.status, added="PUBLIC")
    extra = workdir / "secured.json"
    extra.write_text(json.dumps(variables), encoding="utf-8")
    os.chmod(extra, 0o600)
    copy_sasl_settings(lab, BROKERS, like="EXTERNAL", new="PUBLIC")
    return client, ("-e", f"@{extra}")


def under_load(lab, bootstrap: str, rate: float, workdir: Path, label: str, prefix: str, *args: str,
               client: dict | None = None, node: str = "client") -> dict:
    """The figures of one site run with ``args`` under the load of ``node``, its wall time and the brokers' turns."""
    started = time.monotonic()
    with load.LiveLoad(lab, node, bootstrap, TOPIC, rate=rate, prefix=prefix, security=client) as live:
        run = run_playbook(lab, SITE_PLAYBOOK, workdir / label, *args, env=ansible_env())
    wall = time.monotonic() - started
    if run.returncode != 0:
        raise SystemExit(f"the site playbook failed ({label}):\n{run.explain()}")
    result = live.figures()
    parts = turns(run.results)
    in_turns = sum(sum(part.values()) for part in parts.values())
    result.update(release=label, bootstrap=bootstrap, playbook_wall_s=round(wall, 1), turns=parts,
                  outside_turns_s=round(wall - in_turns, 1))
    return result


def one_release(scenario: str, release: str, rate: float, messages: int, workdir: Path, phases: bool) -> list:
    prefix = new_prefix()
    try:
        lab_command("up", "--scenario", scenario, "--prefix", prefix, "--kafka", f"real:{release}",
                    timeout=REAL_KAFKA_UP_TIMEOUT)
        lab = RunningLab(prefix)
        bootstrap = lab.node("client")["bootstrap_servers"]
        client, secured = secured_settings(lab, workdir)
        load.seed(lab, "client", bootstrap, TOPIC, messages, security=client)
        rows = [under_load(lab, bootstrap, rate, workdir, release, "during", *secured, client=client)]
        if phases:
            extra = workdir / f"{release}-phases.json"
            extra.write_text(json.dumps(rename_in_phases_vars(release)), encoding="utf-8")
            rows.append(under_load(lab, bootstrap, rate, workdir, f"{release} phases", "phases", "-e", f"@{extra}"))
            remove = workdir / f"{release}-remove.json"
            remove.write_text(json.dumps(rename_in_phases_vars(release, remove_old=True)), encoding="utf-8")
            internet = lab.node("laptop")["bootstrap_servers"].replace(":9092", ":9094")
            rows.append(under_load(lab, internet, rate, workdir, f"{release} remove", "remove", "-e", f"@{remove}",
                                   node="laptop"))
        return rows
    finally:
        lab_command("down", "--prefix", prefix, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--releases", nargs="+", default=kafka_real.versions())
    parser.add_argument("--scenario", default="aws-in-service")
    parser.add_argument("--rate", type=float, default=20.0, help="messages a second (default 20)")
    parser.add_argument("--messages", type=int, default=300, help="messages written before the run (default 300)")
    parser.add_argument("--phases", action="store_true",
                        help="then rename the inter-broker listener in phases under load (scenario aws-in-service)")
    args = parser.parse_args(argv)
    if args.phases and args.scenario != "aws-in-service":
        parser.error("--phases renames the inter-broker listener of scenario aws-in-service's cluster only")
    if os.geteuid() != 0:
        raise SystemExit("the lab needs root: run it with sudo")
    rows = []
    with tempfile.TemporaryDirectory(prefix="rollout-load-") as tmp:
        for release in args.releases:
            print(f"# {release}: lab up, seed, site playbook under load (load average "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
            for row in one_release(args.scenario, release, args.rate, args.messages, Path(tmp), args.phases):
                rows.append(row)
                print(json.dumps(row), flush=True)
    print(f"\nscenario {args.scenario}, {args.rate:g} messages/s, load average now {os.getloadavg()[0]:.1f}")
    header = ("release", "sent", "acked", "failed", "lost", "dup", "ack pause s", "consume pause s", "consumed",
              "playbook s", "in turns s", "outside s")
    print(" | ".join(header))
    for row in rows:
        in_turns = round(row["playbook_wall_s"] - row["outside_turns_s"], 1)
        print(" | ".join(str(value) for value in (
            row["release"], row["sent"], row["acknowledged"], row["failed"], row["lost"], row["duplicated"],
            row["longest_ack_pause_s"], row["longest_consume_pause_s"], row["consumed"], row["playbook_wall_s"],
            in_turns, row["outside_turns_s"])))
    for row in rows:
        print(f"{row['release']} turns (gate / write+restart / back in sync / leadership back, s): "
              + ", ".join(f"{broker} " + "/".join(str(p.get(part, "-")) for part in PARTS)
                          for broker, p in sorted(row["turns"].items())))
    met = all(row["failed"] == row["lost"] == row["duplicated"] == 0 and row["longest_ack_pause_s"] <= 1.0
              for row in rows)
    print("goals (0 failed, lost, duplicated; ack pause <= 1 s):", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
