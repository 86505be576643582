"""A dynamic KRaft quorum (controller.quorum.bootstrap.servers, kraft.version 1) on real Apache Kafka: what a
rollout that only edits server.properties does to the controllers' endpoints.

With a dynamic quorum the voters' endpoints live in the metadata log, not in server.properties. This suite moves
every controller of a three-node quorum to a new host the way the broker role's rollout does: one node at a time,
its file written just before its restart (so its bootstrap list names the new hosts while the others still run on
the old ones), and the next node restarted as soon as the restarted one listens again. Kafka itself must then
record each voter's new endpoint (a restarted voter sends UpdateRaftVoter, KIP-853), keep a leader, and answer on
the new endpoints only. Kafka 4.4.0 does; Kafka 3.9.2 keeps every voter on its old endpoint and has no quorum
left, which is why the planner refuses such a move below the release in VOTER_ENDPOINT_UPDATE_RELEASE
(docs/docsite/rst/recipe-kraft.rst).

The three combined nodes run in one private network namespace (loopback only, gone with the last process), on
127.0.0.N before and 127.0.1.N after; the quorum is read with Kafka's own Admin client
(tests/lab/kafka-dist/DescribeQuorum.java).
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lablib import kafka_real  # noqa: E402

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import kafka_release  # noqa: E402
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import (  # noqa: E402
    VOTER_ENDPOINT_UPDATE_RELEASE,
)

pytestmark = pytest.mark.lab

NODES = (1, 2, 3)
PORT = 9093
DESCRIBE = kafka_real.DIST_DIR / "DescribeQuorum.java"
START_TIMEOUT = 120  # one JVM to a listening controller port on 2 busy cores
QUORUM_TIMEOUT = 120  # the quorum to show what is expected
STOP_TIMEOUT = 60
STUCK_WAIT = 60  # a release that does not move voters is given this long to prove it
# Kafka's INFO line for each voter set it learns: "Latest set of voters is VoterSet(...ListenerName(CONTROLLER)=h/..:p"
VOTER_SET_LINE = "Latest set of voters is VoterSet("
VOTER_ENDPOINT = re.compile(r"ListenerName\(CONTROLLER\)=([^/]+)/[^:]*:(\d+)")


def old_host(node: int) -> str:
    return f"127.0.0.{node}"


def new_host(node: int) -> str:
    return f"127.0.1.{node}"


def kafka_uuid() -> str:
    """A random Kafka Uuid in its base64 text form (cluster and directory ids), never starting with '-': the
    storage tool's argument parser would take such a cluster id for an option."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


class Quorum:
    """Three combined KRaft nodes of one Kafka release in a private network namespace."""

    def __init__(self, version: str, work: Path) -> None:
        self.home = kafka_real.ensure_release(version)
        self.work = work
        self.holder = subprocess.Popen(["unshare", "--net", "--", "sh", "-c", "ip link set lo up && exec sleep 3600"])
        self.procs: dict[int, subprocess.Popen] = {}
        self.hosts = {node: old_host(node) for node in NODES}

    def netns(self) -> list[str]:
        return ["nsenter", f"--target={self.holder.pid}", "--net", "--"]

    def config(self, node: int) -> Path:
        return self.work / f"node{node}.properties"

    def write_config(self, node: int, bootstrap_hosts: list[str]) -> None:
        """The node's server.properties with its controller listener on its current host."""
        props = {
            "process.roles": "broker,controller", "node.id": str(node),
            "listeners": f"PLAINTEXT://{self.hosts[node]}:9092,CONTROLLER://{self.hosts[node]}:{PORT}",
            "advertised.listeners": f"PLAINTEXT://{self.hosts[node]}:9092",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "controller.quorum.bootstrap.servers": ",".join(f"{host}:{PORT}" for host in bootstrap_hosts),
            "log.dirs": str(self.work / f"data{node}"),
            "offsets.topic.replication.factor": "3",
        }
        self.config(node).write_text("".join(f"{key}={value}\n" for key, value in props.items()), encoding="utf-8")

    def format(self) -> None:
        """`kafka-storage format --initial-controllers`: a dynamic quorum (kraft.version 1) of the three nodes."""
        cluster_id = kafka_uuid()
        initial = ",".join(f"{node}@{old_host(node)}:{PORT}:{kafka_uuid()}" for node in NODES)
        for node in NODES:
            self.write_config(node, [old_host(n) for n in NODES])
            command = kafka_real.java_command(self.home, kafka_real.STORAGE_TOOL, "format", "-t", cluster_id,
                                              "-c", str(self.config(node)), "--initial-controllers", initial)
            proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, kafka_real.startup_error(proc.stdout + proc.stderr)
            assert "dynamic metadata voter directory" in proc.stdout, proc.stdout[-2000:]

    def start(self, node: int) -> None:
        log = (self.work / f"node{node}.log").open("ab")
        self.procs[node] = subprocess.Popen(self.netns() + kafka_real.broker_command(self.home, str(self.config(node))),
                                            stdout=log, stderr=subprocess.STDOUT, cwd=self.work)

    def stop(self, node: int) -> None:
        proc = self.procs.pop(node)
        proc.terminate()
        try:
            proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:  # a controlled shutdown that waits for peers already gone
            proc.kill()
            proc.wait()

    def wait_listening(self, node: int) -> None:
        """Until the node's controller port listens (read from /proc, no connection made): the role's gate."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            proc = self.procs[node]
            assert proc.poll() is None, f"node {node} exited:\n{self.log_tail(node)}"
            if PORT in listening_ports(self.holder.pid, self.hosts[node]):
                return
            time.sleep(0.5)
        pytest.fail(f"node {node} did not listen on {self.hosts[node]}:{PORT} within {START_TIMEOUT}s:\n"
                    f"{self.log_tail(node)}")

    def describe(self, endpoint: str) -> str:
        """DescribeQuorum through `endpoint`: the Admin client's view, one fact a line ('' when it fails)."""
        proc = subprocess.run(self.netns() + ["java", "-cp", f"{kafka_real.libs_dir(self.home)}/*", str(DESCRIBE),
                                              endpoint], capture_output=True, text=True, timeout=90)
        return proc.stdout if proc.returncode == 0 else ""

    def latest_voter_endpoints(self, node: int) -> set[str]:
        """The voters' endpoints in the last voter set the node logged."""
        lines = [line for line in (self.work / f"node{node}.log").read_text(errors="replace").splitlines()
                 if VOTER_SET_LINE in line]
        return {f"{host}:{port}" for host, port in VOTER_ENDPOINT.findall(lines[-1])} if lines else set()

    def log_tail(self, node: int) -> str:
        return kafka_real.startup_error((self.work / f"node{node}.log").read_text(errors="replace"))

    def close(self) -> None:
        for node in list(self.procs):
            self.stop(node)
        self.holder.kill()
        self.holder.wait()


def listening_ports(pid: int, host: str) -> set[int]:
    """TCP ports listening on `host` (an IPv4 literal) in the network namespace of `pid`.

    Java binds IPv4 addresses with dual-stack sockets, so they show in tcp6 as ::ffff:a.b.c.d."""
    ipv4 = "".join(f"{int(part):02X}" for part in reversed(host.split(".")))
    wanted = {ipv4, "0000000000000000FFFF0000" + ipv4}
    ports = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            address, port = fields[1].split(":")
            if fields[3] == "0A" and address in wanted:
                ports.add(int(port, 16))
    return ports


def quorum_view(text: str) -> tuple[int | None, set[int], dict[int, str]]:
    """(leader, voter ids, {voter id: its endpoints}) from DescribeQuorum's lines."""
    leader, voters, nodes = None, set(), {}
    for line in text.splitlines():
        words = line.split(" ", 2)
        if words[0] == "leader" and int(words[1]) >= 0:
            leader = int(words[1])
        elif words[0] == "voter":
            voters.add(int(words[1]))
        elif words[0] == "node":
            nodes[int(words[1])] = words[2]
    return leader, voters, nodes


def wait_for_quorum(quorum: Quorum, endpoint: str, hosts: dict[int, str]) -> str:
    """Until DescribeQuorum through `endpoint` shows a leader, the three voters, each on `hosts`; its answer."""
    expected = {node: f"[CONTROLLER://{host}:{PORT}]" for node, host in hosts.items()}
    deadline = time.monotonic() + QUORUM_TIMEOUT
    answer = ""
    while time.monotonic() < deadline:
        answer = quorum.describe(endpoint)
        leader, voters, nodes = quorum_view(answer)
        if leader in NODES and voters == set(NODES) and nodes == expected:
            return answer
        time.sleep(2)
    pytest.fail(f"the quorum through {endpoint} never showed every voter on {expected}; last answer:\n{answer}")


@pytest.mark.parametrize("version", kafka_real.versions())
def test_what_a_rolling_file_edit_does_to_the_voters_of_a_dynamic_quorum(lab_session_cli, tmp_path, version):
    if shutil.which("java") is None:
        pytest.fail("java is not installed (tools/install-system-deps installs it)")
    quorum = Quorum(version, tmp_path)
    try:
        quorum.format()
        for node in NODES:
            quorum.start(node)
        for node in NODES:
            quorum.wait_listening(node)
        wait_for_quorum(quorum, f"{old_host(1)}:{PORT}", {node: old_host(node) for node in NODES})

        # the rollout: each node's file gets the new bootstrap list and its new host just before its own restart
        for node in NODES:
            quorum.stop(node)
            quorum.hosts[node] = new_host(node)
            quorum.write_config(node, [new_host(n) for n in NODES])
            quorum.start(node)
            quorum.wait_listening(node)

        assert not any(PORT in listening_ports(quorum.holder.pid, old_host(node)) for node in NODES)
        if kafka_release(version) >= VOTER_ENDPOINT_UPDATE_RELEASE:
            wait_for_quorum(quorum, f"{new_host(1)}:{PORT}", {node: new_host(node) for node in NODES})
            return
        time.sleep(STUCK_WAIT)
        old = {f"{old_host(node)}:{PORT}" for node in NODES}
        assert {node: quorum.latest_voter_endpoints(node) for node in NODES} == {node: old for node in NODES}
        leader, _voters, _nodes = quorum_view(quorum.describe(f"{new_host(1)}:{PORT}"))
        assert leader is None, f"Kafka {version} elected node {leader} with its voters on their old endpoints"
    finally:
        quorum.close()
