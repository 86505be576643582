"""Live clients through a rollout: what a producer and a consumer on a lab's client node saw while brokers restarted.

The producer uses the client_config role's robust settings (acks, idempotence, retries, delivery timeout: read from
roles/client_config/defaults/main.yml, so the figures are those of the settings the collection ships) and sends
numbered messages at a steady rate; the consumer reads the topic in a group for the same time. Both run on the node
with the lab venv's confluent-kafka, on the bootstrap the node's clients used before the run. After the run the
topic is read back from the beginning, so that every acknowledged message is looked for:

    with LiveLoad(lab, "client", bootstrap, topic) as load:
        run_playbook(...)
    figures = load.figures()        # sent, acknowledged, failed, lost, duplicated, longest pause, ...

Used by the rolling-restart lab suites (they assert no loss, no failure, no duplicate) and by
benchmarks/rollout_load_bench.py (it prints the figures, the pauses included: time is measured there, not asserted).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter

import yaml

from . import lab as lab_life_cycle
from . import seeded
from .paths import REPO_ROOT, VENV_BIN

CLIENT_CONFIG_DEFAULTS = REPO_ROOT / "roles" / "client_config" / "defaults" / "main.yml"
PYTHON = str(VENV_BIN / "python")

# Runs on the node: create the topic (replication factor, min.insync.replicas) unless it exists, then produce
# `count` messages "<prefix>-<n>" with acks=all; exits non-zero naming the error.
SEED = """
import json, sys
import confluent_kafka as ck
from confluent_kafka.admin import AdminClient, NewTopic
bootstrap, topic, partitions, replicas, min_insync, prefix, count = sys.argv[1:8]
security = json.loads(sys.argv[8])
admin = AdminClient({"bootstrap.servers": bootstrap, **security})  # kept referenced: a collected one fails futures
future = admin.create_topics([NewTopic(topic, int(partitions), int(replicas),
                                       config={"min.insync.replicas": min_insync})])[topic]
try:
    future.result(60)
except ck.KafkaException as exc:
    if exc.args[0].code() != ck.KafkaError.TOPIC_ALREADY_EXISTS:
        raise
producer = ck.Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True, **security})
for number in range(int(count)):
    producer.produce(topic, ("%s-%d" % (prefix, number)).encode())
left = producer.flush(60)
sys.exit("%d message(s) not delivered to %s on %s" % (left, topic, bootstrap) if left else 0)
"""

# Runs on the node during the run: produce "<prefix>-<n>" at `rate` messages a second until stdin closes, then flush.
# Prints "producing" once the first message is acknowledged, and at the end one JSON report.
PRODUCER = """
import json, sys, threading, time
import confluent_kafka as ck
bootstrap, topic, rate, prefix = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
settings = json.loads(sys.argv[5])
acked, errors, ack_times = [], {}, []
first = threading.Event()
def report(err, msg):
    if err is None:
        acked.append(msg.value().decode())
        ack_times.append(time.monotonic())
        first.set()
    else:
        errors[err.name()] = errors.get(err.name(), 0) + 1
producer = ck.Producer({"bootstrap.servers": bootstrap, **settings})
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
number, started, announced = 0, time.monotonic(), False
while not stop.is_set():
    producer.produce(topic, ("%s-%d" % (prefix, number)).encode(), on_delivery=report)
    number += 1
    while not stop.is_set() and time.monotonic() < started + number / rate:
        producer.poll(min(0.01, max(0.0, started + number / rate - time.monotonic())))
    if not announced and first.is_set():
        print("producing", flush=True)
        announced = True
left = producer.flush(float(sys.argv[6]))
gaps = [later - earlier for earlier, later in zip(ack_times, ack_times[1:])]
print(json.dumps({"sent": number, "acked": acked, "errors": errors, "left": left,
                  "longest_pause": max(gaps, default=0.0), "seconds": time.monotonic() - started}), flush=True)
"""

# Runs on the node during the run: a consumer in its own group, subscribed from the end, until stdin closes.
CONSUMER = """
import json, sys, threading, time
import confluent_kafka as ck
bootstrap, topic, group = sys.argv[1], sys.argv[2], sys.argv[3]
settings = json.loads(sys.argv[4])
consumer = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "latest",
                        "enable.auto.commit": True, **settings})
consumer.subscribe([topic])
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
received, errors, times = 0, {}, []
print("consuming", flush=True)
while not stop.is_set():
    message = consumer.poll(0.2)
    if message is None:
        continue
    if message.error():
        name = message.error().name()
        errors[name] = errors.get(name, 0) + 1
        continue
    received += 1
    times.append(time.monotonic())
consumer.close()
gaps = [later - earlier for earlier, later in zip(times, times[1:])]
print(json.dumps({"received": received, "errors": errors, "longest_pause": max(gaps, default=0.0)}), flush=True)
"""

# Runs on the node after the run: every message of the topic, from the beginning of each partition, new connections.
READ_BACK = seeded.READ_ALL + """
import json, sys
bootstrap, topic = sys.argv[1], sys.argv[2]
seen, where, complete, errors = read_all(bootstrap, topic, "read-back", json.loads(sys.argv[3]))
# where each value found more than once is (partition:offset): two offsets are a duplicate in the log itself
twice = {value: places for value, places in where.items() if len(places) > 1}
print(json.dumps({"seen": seen, "complete": complete, "errors": errors[:5], "twice": twice}))
"""


REPLICAS = """
import json, sys
from confluent_kafka.admin import AdminClient
bootstrap, topic = sys.argv[1], sys.argv[2]
admin = AdminClient({"bootstrap.servers": bootstrap, **json.loads(sys.argv[3])})
partitions = admin.list_topics(topic, timeout=30).topics[topic].partitions.values()
print(json.dumps({str(part.id): [len(part.replicas), len(part.isrs)] for part in partitions}))
"""


class LoadError(RuntimeError):
    """A client of the load could not start or report; the message names the node, the client and its output."""


def producer_settings(defaults_path=CLIENT_CONFIG_DEFAULTS) -> dict:
    """The client_config role's robust producer settings, as librdkafka (confluent-kafka) names them."""
    defaults = yaml.safe_load(defaults_path.read_text(encoding="utf-8"))
    return {"acks": str(defaults["client_config_acks"]),
            "enable.idempotence": bool(defaults["client_config_enable_idempotence"]),
            "retries": int(defaults["client_config_retries"]),
            "delivery.timeout.ms": int(defaults["client_config_delivery_timeout_ms"])}


def node_argv(lab, node: str) -> list[str]:
    """The argv prefix that runs a program on lab node ``node`` (as ``lab exec``)."""
    return lab_life_cycle.node_argv(lab.prefix, node, ["true"])[:-1]


def _last_json(proc_name: str, node: str, out: str, err: str) -> dict:
    lines = out.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        raise LoadError(f"the {proc_name} on {node} printed no report: {(out + err)[-3000:]}") from None


def seed(lab, node: str, bootstrap: str, topic: str, count: int, partitions: int = 6, replicas: int = 3,
         min_insync: int = 2, prefix: str = "before", security: dict | None = None) -> list[str]:
    """Create ``topic`` and produce ``count`` messages as an application did before the run; their values."""
    proc = subprocess.run([*node_argv(lab, node), PYTHON, "-c", SEED, bootstrap, topic, str(partitions), str(replicas),
                           str(min_insync), prefix, str(count), json.dumps(security or {})],
                          capture_output=True, text=True, timeout=180)
    if proc.returncode != 0:
        raise LoadError(f"seeding {topic} from {node} on {bootstrap} failed: {proc.stderr[-3000:]}")
    return [f"{prefix}-{number}" for number in range(count)]


def _ask(lab, node: str, script: str, what: str, bootstrap: str, topic: str, security: dict | None,
         timeout: float) -> dict:
    """The JSON report of ``script`` (argv: bootstrap, topic, security settings) run on ``node``."""
    proc = subprocess.run([*node_argv(lab, node), PYTHON, "-c", script, bootstrap, topic, json.dumps(security or {})],
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise LoadError(f"{what} {topic} from {node} on {bootstrap} failed: {proc.stderr[-3000:]}")
    return _last_json(what, node, proc.stdout, proc.stderr)


def read_back(lab, node: str, bootstrap: str, topic: str, security: dict | None = None) -> dict:
    """{"seen": [values], "complete", "errors"}: the whole topic read from ``node`` with new connections."""
    return _ask(lab, node, READ_BACK, "reading back", bootstrap, topic, security, timeout=300)


def replicas(lab, node: str, bootstrap: str, topic: str, security: dict | None = None) -> dict:
    """partition -> [replicas, in-sync replicas] of ``topic`` as a client on ``node`` gets them (Metadata)."""
    return _ask(lab, node, REPLICAS, "listing the replicas of", bootstrap, topic, security, timeout=120)


def figures(produced: dict, consumed: dict, seen: list[str], prefix: str, twice: dict | None = None) -> dict:
    """What the clients saw: messages sent, acknowledged, failed (delivery errors and unflushed), lost (acknowledged
    but not in the topic), duplicated (this run's values found more than once), the longest pause between two
    acknowledgements and between two consumed messages, the errors by name, and where (partition:offset) up to
    five of the duplicated values are (``twice``: read_back's)."""
    counts = Counter(value for value in seen if value.startswith(prefix + "-"))
    acked = set(produced["acked"])
    return {"sent": produced["sent"], "acknowledged": len(acked),
            "failed": sum(produced["errors"].values()) + produced["left"],
            "lost": len(acked - set(counts)), "duplicated": sum(count - 1 for count in counts.values() if count > 1),
            "longest_ack_pause_s": round(produced["longest_pause"], 3),
            "consumed": consumed["received"], "longest_consume_pause_s": round(consumed["longest_pause"], 3),
            "producer_errors": produced["errors"], "consumer_errors": consumed["errors"],
            "lost_examples": sorted(acked - set(counts))[:5],
            "duplicated_at": dict(sorted((value, places) for value, places in (twice or {}).items()
                                         if value.startswith(prefix + "-"))[:5])}


class LiveLoad:
    """A producer and a consumer running on ``node`` for the time of the ``with`` block (see the module's doc)."""

    def __init__(self, lab, node: str, bootstrap: str, topic: str, rate: float = 20.0, prefix: str = "during",
                 security: dict | None = None, flush_seconds: float = 150.0):
        self.lab, self.node, self.bootstrap, self.topic = lab, node, bootstrap, topic
        self.rate, self.prefix, self.security, self.flush_seconds = rate, prefix, security or {}, flush_seconds
        self.produced: dict | None = None
        self.consumed: dict | None = None
        self.seconds = 0.0
        self.seen: list[str] = []  # every value of the topic, read back by figures()
        self._procs: dict = {}

    def _start(self, name: str, script: str, *args: str, ready: str) -> None:
        proc = subprocess.Popen([*node_argv(self.lab, self.node), PYTHON, "-c", script, *args],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._procs[name] = proc
        line = proc.stdout.readline().strip()
        if line != ready:
            self._stop_all()
            raise LoadError(f"the {name} on {self.node} did not start on {self.bootstrap}: {line} "
                            f"{proc.stderr.read()[-3000:] if proc.stderr else ''}")

    def _stop_all(self) -> dict:
        outputs = {}
        for name, proc in self._procs.items():
            try:
                outputs[name] = proc.communicate("", timeout=self.flush_seconds + 60)
            except subprocess.TimeoutExpired:
                proc.kill()
                outputs[name] = proc.communicate()
        return outputs

    def __enter__(self) -> LiveLoad:
        settings = {**producer_settings(), **self.security}
        self._start("consumer", CONSUMER, self.bootstrap, self.topic, f"live-{self.prefix}",
                    json.dumps(self.security), ready="consuming")
        self._start("producer", PRODUCER, self.bootstrap, self.topic, str(self.rate), self.prefix,
                    json.dumps(settings), str(self.flush_seconds), ready="producing")
        self._began = time.monotonic()
        return self

    def __exit__(self, *exc_info) -> None:
        self.seconds = time.monotonic() - self._began
        outputs = self._stop_all()
        if exc_info[0] is not None:
            return
        self.produced = _last_json("producer", self.node, *outputs["producer"])
        self.consumed = _last_json("consumer", self.node, *outputs["consumer"])

    def figures(self, read_node: str | None = None, bootstrap: str | None = None) -> dict:
        """The figures of :func:`figures`, the topic read back from ``read_node`` (default: the load's node)."""
        if self.produced is None:
            raise LoadError("the load has not ended, or its clients failed (see the error raised in its block)")
        seen = read_back(self.lab, read_node or self.node, bootstrap or self.bootstrap, self.topic, self.security)
        if not seen["complete"]:
            raise LoadError(f"reading {self.topic} back did not reach the end of every partition: {seen['errors']}")
        result = figures(self.produced, self.consumed, seen["seen"], self.prefix, seen.get("twice"))
        result["seconds"] = round(self.seconds, 1)
        self.seen = seen["seen"]
        return result

    def unnoticed(self) -> dict:
        """:meth:`figures`, checked: the clients produced and consumed, and no message failed, was lost or came
        twice (what "no client noticed" means in the suites); an AssertionError carries the figures otherwise."""
        seen = self.figures()
        assert seen["acknowledged"] > 0 and seen["consumed"] > 0, json.dumps(seen)
        assert (seen["failed"], seen["lost"], seen["duplicated"]) == (0, 0, 0), json.dumps(seen)
        return seen
