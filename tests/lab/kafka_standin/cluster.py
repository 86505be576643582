"""Which peers a broker sees as live, found the way a real cluster would notice them.

A registered peer counts as live only if its advertised endpoint on *this* broker's inter-broker listener name
resolves and answers a Kafka ApiVersions request from this process (which runs in the broker's own network
namespace in the lab). A broken inter-broker listener therefore shows up as a missing broker.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import zlib
from collections.abc import Callable

from . import protocol
from .wire import kafka_wire as kw

PROBE_INTERVAL_S = 1.0
PROBE_TIMEOUT_S = 1.5
PEER_PROBE_CLIENT_ID = "kafka-standin-peer-probe"


async def probe_kafka_endpoint(host: str, port: int, tls: ssl.SSLContext | None, timeout: float) -> str | None:
    """Resolve, connect to and ask ApiVersions v0 of ``host:port``; None if it answers, else why not."""
    loop = asyncio.get_running_loop()
    try:
        infos = await asyncio.wait_for(
            loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP), timeout
        )
    except (TimeoutError, OSError) as exc:
        return f"cannot resolve {host}: {exc or 'timed out'}"
    family, _type, _proto, _name, address = infos[0]
    writer = None
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(address[0], address[1], ssl=tls, server_hostname=host if tls else None),
            timeout,
        )
        request = kw.encode_request_header(protocol.API_VERSIONS, 0, 1, PEER_PROBE_CLIENT_ID, 1)
        writer.write(kw.frame(request))
        await writer.drain()
        size = kw.frame_size(await asyncio.wait_for(reader.readexactly(4), timeout))
        body = kw.Reader(await asyncio.wait_for(reader.readexactly(size), timeout))
        if kw.decode_response_header(body, 0).correlation_id != 1:
            return f"{host}:{port} answered with a wrong correlation id"
        error = body.int16()
        return None if error == protocol.NONE else f"{host}:{port} answered ApiVersions with error {error}"
    except (TimeoutError, OSError, EOFError, asyncio.IncompleteReadError, kw.WireError, ssl.SSLError) as exc:
        return f"{host}:{port} ({address[0]}) does not answer: {exc.__class__.__name__} {exc}"
    finally:
        if writer is not None:
            writer.close()


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
        endpoint = registration.get("endpoints", {}).get(self.inter_broker_listener)
        if endpoint is None:
            return f"no advertised endpoint for inter-broker listener {self.inter_broker_listener}"
        tls = self._client_tls() if endpoint.get("protocol") in ("SSL", "SASL_SSL") else None
        return await probe_kafka_endpoint(endpoint["host"], endpoint["port"], tls, PROBE_TIMEOUT_S)

    async def run(self) -> None:
        """Probe forever (until cancelled)."""
        while True:
            try:
                await self.probe_once()
            except Exception as exc:  # noqa: BLE001 - a probe bug must not kill the broker; it is logged
                self._log(f"peer probe failed: {exc!r}")
            await asyncio.sleep(PROBE_INTERVAL_S)
