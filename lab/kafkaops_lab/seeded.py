"""The data every real-Kafka lab carries: a replicated topic written at `lab up`, checked before `down`.

An empty cluster hides replication faults (issue 26: a rename of the inter-broker listener deadlocks only when
partitions have replicas to fetch, and a back-in-ISR gate has nothing to check without them). So when `lab up`
starts Apache Kafka with at least 2 brokers it creates TOPIC with replication factor min(3, brokers),
min.insync.replicas min(2, RF) and PARTITIONS partitions, and writes MESSAGES keyed, numbered messages (key
`k<n>`, value `lab-seeded-<n>`) with acks=all from the first client node whose network can use the cluster then.
What was written is recorded in the lab state (`seeded`); `lab up --empty` leaves the cluster without it.

check() reads the topic back with a fresh consumer from a client network that can use the cluster now and lists
every partition's replicas and ISR: the lab fixtures call it before `down` (RunningLab.assert_seeded_intact).

A secured lab (SASL, TLS) is not seeded: its clients need the lab's CA and SCRAM user in the settings of the
listener each network uses, and its suites write their own topic with them. The clients run on the node with the
repository venv's confluent-kafka (as kafkaops_lab/load.py's do); the lab itself stays standard library only.
"""

from __future__ import annotations

import json
import subprocess
import time

from .netns import LabError
from .paths import VENV_BIN

TOPIC = "lab-seeded"
PARTITIONS = 3
MESSAGES = 300
PYTHON = VENV_BIN / "python"
OTHER_PORTS = (19092, 9094)  # where rollouts move a network's clients: INTERNAL beside EXTERNAL, a new :9094
ISR_WAIT = 60  # seconds the check waits for a just-restarted broker to rejoin every ISR before it reports

# Runs on a client node: the first of the bootstraps (argv[1], JSON) whose Metadata lists brokers that all resolve
# and accept a connection from here; None with the reasons when none does.
_USABLE = """
import json, socket, sys
import confluent_kafka as ck
from confluent_kafka.admin import AdminClient, NewTopic

def usable(candidates):
    tried = {}
    for bootstrap in candidates:
        try:
            brokers = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=8).brokers.values()
            for broker in brokers:
                socket.create_connection((broker.host, broker.port), timeout=3).close()
            if brokers:
                return bootstrap, tried
            tried[bootstrap] = "no broker listed"
        except Exception as exc:
            tried[bootstrap] = "%s: %s" % (type(exc).__name__, exc)
    return None, tried
"""

# Script text: read_all(bootstrap, topic, group, settings) reads every message of `topic` from the beginning of each
# partition with new connections (assigned, no offsets committed): (values in the order read, value -> its
# "partition:offset" places, whether every partition's end was reached, errors). load.py's READ_BACK uses it too.
READ_ALL = """
import confluent_kafka as ck

def read_all(bootstrap, topic, group, settings):
    consumer = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                            "enable.partition.eof": True, "auto.offset.reset": "earliest", **settings})
    parts = consumer.list_topics(topic, timeout=30).topics[topic].partitions
    consumer.assign([ck.TopicPartition(topic, p, ck.OFFSET_BEGINNING) for p in parts])
    seen, done, errors, where = [], set(), [], {}
    while len(done) < len(parts):
        message = consumer.poll(15)
        if message is None:
            break
        if message.error():
            if message.error().code() == ck.KafkaError._PARTITION_EOF:
                done.add(message.partition())
            else:
                errors.append(str(message.error()))
            continue
        seen.append(message.value().decode())
        where.setdefault(seen[-1], []).append("%d:%d" % (message.partition(), message.offset()))
    return seen, where, len(done) == len(parts), errors
"""

# argv: bootstraps (JSON), topic, partitions, replication factor, min.insync.replicas, messages.
_SEED = _USABLE + """
candidates, topic, partitions, replicas, min_insync, count = json.loads(sys.argv[1]), *sys.argv[2:7]
bootstrap, tried = usable(candidates)
if bootstrap is None:
    print(json.dumps({"bootstrap": None, "tried": tried}))
    sys.exit(0)
admin = AdminClient({"bootstrap.servers": bootstrap})  # kept referenced: a collected one fails its futures
admin.create_topics([NewTopic(topic, int(partitions), int(replicas),
                               config={"min.insync.replicas": min_insync})])[topic].result(60)
producer = ck.Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True})
for number in range(int(count)):
    producer.produce(topic, key=b"k%d" % number, value=("%s-%d" % (topic, number)).encode())
left = producer.flush(60)
print(json.dumps({"bootstrap": bootstrap, "undelivered": left}))
"""

# argv: bootstraps (JSON), topic. Every message (READ_ALL) and each partition's replicas and ISR (Metadata).
_READ = _USABLE + READ_ALL + """
candidates, topic = json.loads(sys.argv[1]), sys.argv[2]
bootstrap, tried = usable(candidates)
if bootstrap is None:
    print(json.dumps({"bootstrap": None, "tried": tried}))
    sys.exit(0)
values, _where, complete, errors = read_all(bootstrap, topic, "lab-seeded-check", {})
if not complete:
    errors.append("no message for 15 s before the end of every partition")
seen = {}
for value in values:
    seen[value] = seen.get(value, 0) + 1
meta = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=30).topics[topic].partitions
print(json.dumps({"bootstrap": bootstrap, "seen": seen, "errors": errors[:5],
                  "partitions": {str(p.id): {"replicas": p.replicas, "isr": p.isrs} for p in meta.values()}}))
"""


def plan(brokers: int, secured: bool, empty: bool) -> dict | None:
    """What `lab up` writes on a real-Kafka cluster of `brokers` brokers, or {"skipped": why}; None: nothing to
    say (the stand-in)."""
    if empty:
        return {"skipped": "lab up --empty: the cluster was left without the seeded topic"}
    if secured:
        return {"skipped": "a secured lab: its suites write their own topic with the lab's CA and SCRAM user"}
    if brokers < 2:
        return {"skipped": f"{brokers} broker: nothing to replicate"}
    replicas = min(3, brokers)
    return {"topic": TOPIC, "partitions": PARTITIONS, "replication_factor": replicas,
            "min_insync_replicas": min(2, replicas), "messages": MESSAGES,
            "keys": f"k0..k{MESSAGES - 1}", "values": f"{TOPIC}-0..{TOPIC}-{MESSAGES - 1}", "acks": "all"}


def expected_values(seeded: dict) -> list[str]:
    """The values `lab up` wrote, in the order it wrote them."""
    return [f"{seeded['topic']}-{number}" for number in range(seeded["messages"])]


def _on_node(node_argv: list[str], script: str, *args: str, what: str) -> dict:
    if not PYTHON.exists():
        raise LabError(f"{what}: needs the repository venv's Python with confluent-kafka ({PYTHON}: `make venv`), "
                       "or `lab up --empty` for a cluster without the seeded topic")
    proc = subprocess.run([*node_argv, str(PYTHON), "-c", script, *args], capture_output=True, text=True,
                          timeout=240)
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise LabError(f"{what}: exited {proc.returncode}: {(proc.stdout + proc.stderr)[-2000:]}") from None


def clients(topo, argv_of, other_ports: tuple[int, ...] = ()) -> list[tuple[str, list[str], list[str]]]:
    """(name, argv prefix on the node, bootstraps to try) of every client node, the VPC's first: the bootstrap its
    network uses, then the same hosts on `other_ports` (the listeners a rollout adds: INTERNAL :19092, :9094)."""
    found = []
    for node in sorted((node for node in topo.nodes if node.client_network), key=lambda n: n.client_network != "vpc"):
        servers = topo.bootstrap(node)
        if not servers:
            continue
        hosts = [server.rsplit(":", 1)[0] for server in servers]
        alternatives = [",".join(f"{host}:{port}" for host in hosts) for port in other_ports]
        found.append((node.name, argv_of(node.name), [",".join(servers), *alternatives]))
    return found


def seed(prefix: str, clients: list[tuple[str, list[str], list[str]]], seeded: dict) -> dict:
    """Write `seeded` (plan()'s) from the first of `clients` (clients()'s) whose network can use the cluster;
    `seeded` with the client, bootstrap and seconds taken. LabError when none can."""
    started, tried = time.monotonic(), {}
    for name, node_argv, bootstraps in clients:
        what = f"lab {prefix}: seeding {seeded['topic']} from {name}"
        report = _on_node(node_argv, _SEED, json.dumps(bootstraps), seeded["topic"], str(seeded["partitions"]),
                          str(seeded["replication_factor"]), str(seeded["min_insync_replicas"]),
                          str(seeded["messages"]), what=what)
        if report["bootstrap"] is None:
            tried[name] = report["tried"]
            continue
        if report["undelivered"]:
            raise LabError(f"{what} on {report['bootstrap']}: {report['undelivered']} message(s) not delivered "
                           "with acks=all")
        return {**seeded, "client": name, "bootstrap": report["bootstrap"],
                "seconds": round(time.monotonic() - started, 2)}
    raise LabError(f"lab {prefix}: no client network can use the cluster to write {seeded['topic']} (tried "
                   f"{json.dumps(tried)}); `lab up --empty` leaves it without the seeded topic")


def problems(seeded: dict, report: dict) -> list[str]:
    """What check()'s read-back `report` shows wrong with the seeded data: partitions out of their full ISR,
    messages missing or read more than once, read errors. Empty when intact."""
    found = []
    short = {part: state for part, state in sorted(report["partitions"].items(), key=lambda item: int(item[0]))
             if sorted(state["isr"]) != sorted(state["replicas"])}
    if len(report["partitions"]) != seeded["partitions"]:
        found.append(f"{len(report['partitions'])} partitions instead of {seeded['partitions']}")
    if short:
        found.append("partitions out of their full ISR: " + "; ".join(
            f"{seeded['topic']}-{part} replicas {state['replicas']} ISR {state['isr']}"
            for part, state in short.items()))
    missing = [value for value in expected_values(seeded) if value not in report["seen"]]
    if missing:
        found.append(f"{len(missing)} of {seeded['messages']} messages missing: {', '.join(missing[:20])}"
                     + (" ..." if len(missing) > 20 else ""))
    twice = {value: count for value, count in report["seen"].items() if count > 1}
    if twice:
        found.append(f"{len(twice)} message(s) read more than once: {dict(list(twice.items())[:10])}")
    if report["errors"]:
        found.append(f"read errors: {report['errors']}")
    return found


def check(prefix: str, seeded: dict, clients: list[tuple[str, list[str], list[str]]]) -> tuple[str, list[str]]:
    """Read the seeded topic back from the first of `clients` whose network can use the cluster now: (where it was
    read, problems()). The ISR is asked again for up to ISR_WAIT seconds while a partition lacks a replica (a broker
    restarted just before may still be catching up)."""
    deadline, tried = time.monotonic() + ISR_WAIT, {}
    for name, node_argv, bootstraps in clients:
        what = f"lab {prefix}: reading {seeded['topic']} back from {name}"
        while True:
            report = _on_node(node_argv, _READ, json.dumps(bootstraps), seeded["topic"], what=what)
            if report["bootstrap"] is None:
                tried[name] = report["tried"]
                break
            found = problems(seeded, report)
            if not found or not any(text.startswith("partitions out of") for text in found) \
                    or time.monotonic() > deadline:
                return f"{name} on {report['bootstrap']}", found
            time.sleep(3)
    return "nowhere", [f"no client network can use the cluster now (tried {json.dumps(tried)})"]
