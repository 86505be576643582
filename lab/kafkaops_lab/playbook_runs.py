"""Running playbooks against a lab and reading what they did: the lab suites that drive the roles share it.

Every run records its task results with a small callback (RECORDER), so that assertions read structured results
(task, host, status, changed, diffs, message) instead of screen output.
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from .paths import KAFKA_SERVICE, REPO_ROOT, SITE_VARS, VENV_BIN

# hang guard only: a site run takes 30 s to 3 min on a loaded 2-core machine, audit.yml with its Spark job 2 to 6 min
PLAYBOOK_TIMEOUT = 1800
LISTED_TIMEOUT = 120  # hang guard only: how long a restarted broker may take to be listed again
SITE_PLAYBOOK = REPO_ROOT / "playbooks" / "site.yml"


def rename_in_phases_vars(release: str, remove_old: bool = False) -> dict:
    """The site playbook's variables that ask the cluster of scenario aws-in-service, once the default run converged
    it (PLAINTEXT :9092 on the private names the inter-broker listener, EXTERNAL :9094 added), to rename its
    inter-broker listener PLAINTEXT -> INTERNAL (:19092) in phases, the VPC's clients keeping PLAINTEXT :9092; with
    ``remove_old``, PLAINTEXT left out as well (the remove phase): the VPC's clients bootstrap on INTERNAL :19092
    afterwards, so the verify role's check of the bootstrap they used before (:9092, gone by design) is turned off,
    as the guide says to once those clients moved. The controllers as they run (the private IPs; from Kafka 4, a
    dynamic quorum)."""
    dynamic = int(release.split(".")[0]) >= 4
    kept = [] if remove_old else [{"name": "vpc", "route": "private", "listener": "PLAINTEXT", "port": 9092}]
    return {"broker_listener_options": {"controller_host": "private_ip", "in_phases": True,
                                        **({"quorum": "bootstrap"} if dynamic else {})},
            "broker_networks": [
                *kept,
                {"name": "internet", "route": "public", "listener": "EXTERNAL", "port": 9094},
                {"name": "vpc" if remove_old else "brokers", "route": "private", "listener": "INTERNAL",
                 "port": 19092, "inter_broker": True}],
            **({"verify_check_bootstrap_before": False} if remove_old else {})}

# A program that sets keys of /etc/kafka/server.properties on a node, keeping every other line (argv: key=value ...).
SET_PROPERTIES = """
import sys
path = "/etc/kafka/server.properties"
updates = dict(arg.split("=", 1) for arg in sys.argv[1:])
lines = []
for line in open(path).read().splitlines():
    key = line.split("=", 1)[0].strip()
    if not line.lstrip().startswith("#") and key in updates:
        line = f"{key}={updates.pop(key)}"
    lines.append(line)
lines += [f"{key}={value}" for key, value in updates.items()]
open(path, "w").write("\\n".join(lines) + "\\n")
"""

def copy_sasl_settings(lab, brokers, like: str, new: str) -> None:
    """The operator's step before a SASL listener ``new`` is added (the collection writes listener keys only): each
    broker's /etc/kafka/server.properties gets ``listener.name.<new>.*`` as it has ``listener.name.<like>.*``
    (enabled mechanisms, JAAS lines); without them Kafka refuses to start ("Could not find a 'KafkaServer' or
    '<new>.KafkaServer' entry in the JAAS configuration")."""
    old, added = f"listener.name.{like.lower()}.", f"listener.name.{new.lower()}."
    for node in brokers:
        text = lab.exec(node, "cat", "/etc/kafka/server.properties", check=True).stdout
        copied = [added + line[len(old):] for line in text.splitlines() if line.startswith(old)]
        if copied:
            lab.exec(node, str(VENV_BIN / "python"), "-c", SET_PROPERTIES, *copied, check=True)


# Ansible callback: one JSON line per task result (task, host, delegated host, status, changed, diffs, and when it
# came, in seconds since the epoch: the rollout benchmark reads each broker's restart from them).
RECORDER = '''
from __future__ import annotations

import json
import os
import time

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    """Appends every task result to the JSON-lines file named by KAFKAOPS_RECORDER_FILE."""

    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "kafkaops_recorder"
    CALLBACK_NEEDS_ENABLED = True

    def _record(self, status, result):
        data = result.result
        diffs = [data["diff"]] if data.get("diff") else []
        for item in data.get("results") or []:
            if isinstance(item, dict) and item.get("diff"):
                diffs.append(item["diff"])
        record = {
            "task": result.task_name, "host": result.host.get_name(), "delegate_to": result.task.delegate_to or None,
            "status": status, "changed": bool(data.get("changed")), "diffs": diffs, "msg": str(data.get("msg", "")),
            "at": time.time(), "names": ((data.get("invocation") or {}).get("module_args") or {}).get("names"),
            "self_check": data.get("self_check"),
        }
        with open(os.environ["KAFKAOPS_RECORDER_FILE"], "a", encoding="utf-8") as out:
            out.write(json.dumps(record, default=str) + "\\n")

    def v2_runner_on_ok(self, result):
        self._record("ok", result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record("ignored" if ignore_errors else "failed", result)

    def v2_runner_on_unreachable(self, result):
        self._record("unreachable", result)
'''

@dataclass
class PlaybookRun:
    """The outcome of one ansible-playbook run: exit status, output and the recorded task results."""

    returncode: int
    stdout: str
    stderr: str
    results: list[dict] = field(default_factory=list)

    def explain(self) -> str:
        return f"exit {self.returncode}\n{self.stdout[-6000:]}\n{self.stderr[-3000:]}"

    def changed(self) -> list[dict]:
        return [result for result in self.results if result["changed"]]

    def failed(self) -> list[dict]:
        return [result for result in self.results if result["status"] in ("failed", "unreachable")]

    @staticmethod
    def target(result: dict) -> str:
        """The host a result acted on: the delegated host when the task was delegated."""
        return result["delegate_to"] or result["host"]


def run_playbook(lab, playbook: Path | str, workdir: Path, *args: str, inventories: tuple = (),
                 env: dict | None = None, cwd: Path = REPO_ROOT) -> PlaybookRun:
    """Run `playbook` (a file, or a collection's playbook name such as kafkaops.listeners.site) against the lab's
    inventory (or `inventories`, when `lab` may be None) with the lab variables, recording every task result.

    `env` is the environment Ansible runs in (default: this process's) and `cwd` its folder (default: the repository,
    whose ansible.cfg then applies); a suite that proves an installed collection passes its own of both."""
    plugins = workdir / "callback_plugins"
    plugins.mkdir(parents=True, exist_ok=True)
    (plugins / "kafkaops_recorder.py").write_text(RECORDER, encoding="utf-8")
    record_file = workdir / f"results-{uuid.uuid4().hex}.jsonl"
    sources = [str(path) for path in inventories] or [lab.run("inventory").stdout.strip()]
    # the recorder, and the collection's preload callback as the repository's ansible.cfg enables it (this variable
    # replaces that setting)
    env = {**(os.environ if env is None else env), "ANSIBLE_CALLBACK_PLUGINS": str(plugins),
           "ANSIBLE_CALLBACKS_ENABLED": "kafkaops_recorder,kafkaops.listeners.preload",
           "KAFKAOPS_RECORDER_FILE": str(record_file), "ANSIBLE_NOCOLOR": "1"}
    proc = subprocess.run([str(VENV_BIN / "ansible-playbook"), *(arg for src in sources for arg in ("-i", src)),
                           str(playbook), "-e", f"@{SITE_VARS}",
                           "-e", f"verify_records_dir={workdir / 'records'}", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=PLAYBOOK_TIMEOUT)
    results = []
    if record_file.exists():
        results = [json.loads(line) for line in record_file.read_text(encoding="utf-8").splitlines()]
    return PlaybookRun(proc.returncode, proc.stdout, proc.stderr, results)


def changed_lines(diff: dict) -> tuple[list[str], list[str]]:
    """The removed and the added lines of a before/after diff."""
    before = str(diff.get("before", "")).splitlines()
    after = str(diff.get("after", "")).splitlines()
    removed, added = [], []
    for line in difflib.ndiff(before, after):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


def property_key(line: str) -> str:
    """The key of a `key=value` line (the whole line when it has no `=`)."""
    return line.split("=", 1)[0].strip()


def file_checksums(lab, nodes: tuple[str, ...]) -> dict[str, str]:
    """sha256 of every file under /etc/kafka of each node (`node:path` -> digest); a missing folder gives none."""
    sums = {}
    for node in nodes:
        proc = lab.exec(node, "sh", "-c", "if [ -d /etc/kafka ]; then find /etc/kafka -type f -exec sha256sum {} +; fi",
                        check=True)
        for line in proc.stdout.splitlines():
            digest, path = line.split(maxsplit=1)
            sums[f"{node}:{path}"] = digest
    return sums


def kafka_pid(lab, node: str, env: tuple = ()) -> str:
    """The pid of the Kafka process on `node`, as the lab's service script reports it (`env`: NAME=value settings
    for the script, such as another configuration file)."""
    status = lab.exec(node, "env", *env, str(KAFKA_SERVICE), "status", check=True).stdout
    assert "running (pid" in status, status
    return status.split("(pid", 1)[1].split(")", 1)[0].strip()


def advertised_to(lab, node: str, bootstrap: str) -> dict[int, str]:
    """Broker id -> host:port as `kcat -L` on `node` lists them (what clients there are told to connect to)."""
    proc = lab.kcat(node, "-L", "-J", "-b", bootstrap)
    assert proc.returncode == 0, proc.stderr
    return {broker["id"]: broker["name"] for broker in json.loads(proc.stdout)["brokers"]}


def advertised_once_listed(lab, node: str, bootstrap: str, broker_id: int) -> dict[int, str]:
    """`advertised_to`, polled until `broker_id` is listed (a restarted broker rejoins within seconds)."""
    deadline = time.monotonic() + LISTED_TIMEOUT
    while True:
        brokers = advertised_to(lab, node, bootstrap)
        if broker_id in brokers or time.monotonic() > deadline:
            return brokers
        time.sleep(1)


def produce_and_consume(lab, node: str, client_args: list[str], topic: str) -> None:
    """Produce one message with kcat on `node` and read it back from the start of the topic."""
    message = f"from-{node}-{uuid.uuid4().hex[:8]}"
    produced = lab.exec(node, "kcat", *client_args, "-P", "-t", topic, input_text=message + "\n")
    assert produced.returncode == 0, produced.stderr
    consumed = lab.exec(node, "kcat", *client_args, "-C", "-t", topic, "-o", "beginning", "-e", "-q")
    assert consumed.returncode == 0, consumed.stderr
    assert message in consumed.stdout.splitlines()
