"""Which peers a broker sees as live, the way Kafka's controller decides it.

A registered peer counts as live while its process runs (a KRaft broker stays registered and unfenced while it
heartbeats to the controller, over the controller listener). Its advertised endpoints play no part: real Kafka
4.4.0 lists a broker whose inter-broker endpoint other brokers cannot resolve or reach (replication from it
fails instead), and keeps leaders on brokers that lack a listener the others renamed half-way through a rollout
(lab/README.md, "Stand-in versus real Kafka").

In ZooKeeper mode one broker is also the controller, and it sends every broker its metadata on the controller's own
inter-broker listener name: a broker registered without an endpoint of that name gets none (real Kafka 3.9.2).
"""

from __future__ import annotations

import asyncio
import ssl
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from . import protocol as p

PROBE_INTERVAL_S = 1.0
#: the active controller appends a no-op record this often (metadata.max.idle.interval.ms): the stand-in's log end
#: offsets of the metadata log count them
NOOP_INTERVAL_MS = 500


def process_problem(pid) -> str | None:
    """None while process ``pid`` runs (not a zombie), else why it does not."""
    try:
        stat = Path(f"/proc/{int(pid)}/stat").read_text(encoding="utf-8")
    except (OSError, TypeError, ValueError):
        return f"process {pid} is gone"
    if stat.rsplit(")", 1)[1].split()[0] == "Z":
        return f"process {pid} has exited"
    return None


class Membership:
    """Live-broker view of one broker, refreshed in the background every ``PROBE_INTERVAL_S``."""

    def __init__(
        self,
        node_id: int,
        inter_broker_listener: str,
        registrations: Callable[[], list[dict]],
        client_tls: Callable[[], ssl.SSLContext | None],
        log: Callable[[str], None],
    ):
        self.node_id = node_id
        self.inter_broker_listener = inter_broker_listener
        self._registrations = registrations
        self._client_tls = client_tls
        self._log = log
        self.self_registration: dict = {}
        self.live_peers: dict[int, dict] = {}
        self._down_reasons: dict[int, str] = {}

    def live_brokers(self) -> dict[int, dict]:
        """Registrations of every live broker, this one included, by node id."""
        brokers = dict(self.live_peers)
        brokers[self.node_id] = self.self_registration
        return brokers

    def live_ids(self) -> list[int]:
        """Sorted ids of the live brokers."""
        return sorted(self.live_brokers())

    def zookeeper_controller(self) -> dict:
        """ZooKeeper mode: the controller's registration; the longest-registered live broker won the election."""
        return min(self.live_brokers().values(), key=lambda reg: (reg.get("registered_at", 0.0), reg["node_id"]))

    def receives_metadata(self, controller: dict) -> bool:
        """ZooKeeper mode: whether `controller` can send this broker metadata (it looks the broker's endpoint up by the
        controller's inter-broker listener name; without one the broker lists no broker, not even itself)."""
        own_endpoints = self.self_registration.get("endpoints", {})
        return controller["node_id"] == self.node_id or controller.get("inter_broker_listener") in own_endpoints

    def leader_for(self, topic: str, partition: int) -> int:
        """Deterministic leader: the live ids in order, rotated by the topic's CRC-32 and the partition index."""
        ids = self.live_ids()
        return ids[(zlib.crc32(topic.encode("utf-8")) + partition) % len(ids)]

    async def probe_once(self) -> None:
        """Re-read registrations and probe every peer's inter-broker endpoint concurrently."""
        peers = [reg for reg in self._registrations() if reg.get("node_id") != self.node_id]
        results = await asyncio.gather(*(self._probe(reg) for reg in peers))
        live = {}
        for reg, reason in zip(peers, results, strict=True):
            node = reg["node_id"]
            if reason is None:
                live[node] = reg
                if node not in self.live_peers:
                    self._log(f"peer {node} is live")
            else:
                if node in self.live_peers or self._down_reasons.get(node) != reason:
                    self._log(f"peer {node} is not live: {reason}")
                self._down_reasons[node] = reason
        for node in set(self.live_peers) - set(live):
            if node not in {reg["node_id"] for reg in peers}:
                self._log(f"peer {node} unregistered")
        self.live_peers = live

    async def _probe(self, registration: dict) -> str | None:
        """None while the registered process runs (not a zombie), else why the peer is not live."""
        return process_problem(registration.get("pid"))

    async def run(self) -> None:
        """Probe forever (until cancelled)."""
        while True:
            try:
                await self.probe_once()
            except Exception as exc:  # noqa: BLE001 - a probe bug must not kill the broker; it is logged
                self._log(f"peer probe failed: {exc!r}")
            await asyncio.sleep(PROBE_INTERVAL_S)


class QuorumView:
    """The KRaft controller quorum as its active controller describes it (DescribeQuorum), seen by one broker.

    The voters are the node ids of ``controller.quorum.voters`` (else every registered controller). A voter whose
    process runs fetches all the time: caught up now. One that stopped stays where this broker last saw it running
    (-1, unknown, when it never did), so its lag grows while it is down, as the real leader reports it. The leader is
    the lowest running voter while a majority of the voters run; without a majority there is none (-1). Log end
    offsets count the active controller's no-op records, one every ``NOOP_INTERVAL_MS``.
    """

    def __init__(self, voters: list[int] | None, registrations: Callable[[], list[dict]],
                 clock: Callable[[], float] = time.time):
        self._voters = voters
        self._registrations = registrations
        self._clock = clock
        self.last_seen_ms: dict[int, int] = {}
        self._leader = -1
        self.epoch = 0

    def refresh(self) -> tuple[int, set[int]]:
        """Note the time every registered node whose process runs was seen: (that time in ms, their ids)."""
        now_ms = int(self._clock() * 1000)
        running = {reg["node_id"] for reg in self._registrations() if process_problem(reg.get("pid")) is None}
        for node in running:
            self.last_seen_ms[node] = now_ms
        return now_ms, running

    def voters(self) -> list[int]:
        if self._voters:
            return sorted(self._voters)
        return sorted({reg["node_id"] for reg in self._registrations() if "controller" in reg.get("roles", [])})

    def describe(self) -> tuple[int, int, int, list[p.ReplicaState], list[p.ReplicaState]]:
        """(leader id, leader epoch, high watermark, voters, observers) as DescribeQuorum v1 reports them."""
        now_ms, running = self.refresh()
        voters = self.voters()
        running_voters = [node for node in voters if node in running]
        leader = min(running_voters) if len(running_voters) > len(voters) // 2 else -1
        if leader != self._leader:
            self._leader = leader
            self.epoch += 1

        def state(node: int) -> p.ReplicaState:
            seen = self.last_seen_ms.get(node, -1)
            if leader == -1 or seen < 0:
                return p.ReplicaState(node, -1)
            fetched = -1 if node == leader else seen
            return p.ReplicaState(node, seen // NOOP_INTERVAL_MS, fetched, seen)

        observers = sorted(node for node in running if node not in voters)
        high_watermark = now_ms // NOOP_INTERVAL_MS if leader != -1 else -1
        return (leader, self.epoch, high_watermark, [state(node) for node in voters],
                [state(node) for node in observers])
