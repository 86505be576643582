"""The stand-in broker process: binds one socket per listener and answers Kafka requests on each."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import ssl
import sys
import time
from collections import Counter
from pathlib import Path

try:
    from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import show_hostport
except ImportError as exc:  # pragma: no cover - depends on how the interpreter was set up
    raise SystemExit(
        "kafka-standin: cannot import ansible_collections.kafkaops.listeners "
        f"({exc}); run it with the project virtualenv (.venv/bin/python), which has the collection on its path"
    ) from exc

from . import protocol as p
from . import wire as kw
from .cluster import PROBE_INTERVAL_S, Membership, QuorumView
from .config import ConfigError, Listener, StandinConfig, interpret, kafka_refusals, read_properties
from .storage import StateDir, topic_name_problem

# Kafka's socket.request.max.bytes default: larger frames are refused and the connection closed.
MAX_REQUEST_BYTES = 100 * 1024 * 1024
# Fetch waits re-check the (shared) log this often, so appends by other broker processes are seen too.
FETCH_POLL_S = 0.05


class EventLog:
    """Timestamped lines to the --log file; without one the stand-in stays quiet."""

    def __init__(self, path: Path | None, node_id: int):
        self._handle = open(path, "a", encoding="utf-8", buffering=1) if path else None  # noqa: SIM115
        self._node_id = node_id

    def __call__(self, line: str) -> None:
        if self._handle is not None:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            self._handle.write(f"[{stamp}] node {self._node_id}: {line}\n")

    def close(self) -> None:
        """Flush and close the log file."""
        if self._handle is not None:
            self._handle.close()


class _ToEventLog(logging.Handler):
    """Sends asyncio's own complaints (TLS handshake failures, ...) to the event log instead of stderr."""

    def __init__(self, log: EventLog):
        super().__init__(logging.WARNING)
        self._log = log

    def emit(self, record: logging.LogRecord) -> None:
        self._log(f"asyncio: {record.getMessage()}")


class ConnectionClosed(Exception):
    """The request cannot be answered on this connection; Kafka closes it."""


class Broker:
    """One stand-in node (broker, controller or both) serving its listeners from a shared state directory."""

    def __init__(self, config: StandinConfig, state: StateDir, log: EventLog):
        self.config = config
        self.state = state
        self.log = log
        self.servers: list[asyncio.base_events.Server] = []
        self.bound: dict[str, tuple[str, int]] = {}  # listener name -> (bound host, bound port)
        self.advertised: dict[str, dict] = {}  # listener name -> {"host", "port", "protocol"}
        self.cluster_id = state.cluster_id()
        self.membership = Membership(
            config.node_id,
            config.inter_broker_listener,
            state.broker_registrations,
            self._peer_tls_context,
            log,
        )
        # KRaft: the controller quorum as the active controller would describe it to this broker
        self.quorum = (QuorumView(quorum_voter_ids(config.properties),
                                  lambda: state.broker_registrations() + state.controller_registrations())
                       if config.roles else None)
        self._appended = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self._connections: dict[asyncio.Task, asyncio.StreamWriter] = {}
        self._stopping = False
        self._kind = "broker" if config.is_broker else "controller"

    # -- start / stop --------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind every listener, register in the state directory and start probing peers."""
        for listener in self.config.listeners:
            sock = bind_listener_socket(listener.host, listener.port)
            tls = listener.tls.server_context() if listener.tls else None
            server = await asyncio.start_server(
                lambda r, w, lst=listener: self._serve_connection(r, w, lst), sock=sock, ssl=tls
            )
            self.servers.append(server)
            self.bound[listener.name] = sock.getsockname()[:2]
            self.log(f"listening {listener.name} ({listener.protocol}) on {show_hostport(*self.bound[listener.name])}")
        for name, endpoint in self.config.advertised.items():
            # A port-0 listener advertises the port it was actually given.
            port = endpoint.port or self.bound.get(name, ("", 0))[1]
            self.advertised[name] = {
                "host": endpoint.host,
                "port": port,
                "protocol": self.config.protocol_map.get(name, "PLAINTEXT"),
            }
            self.log(f"advertising {name} as {show_hostport(endpoint.host, port)}")
        registration = {
            "node_id": self.config.node_id,
            "roles": list(self.config.roles) or ["broker"],
            "rack": self.config.rack,
            "endpoints": self.advertised,
            "inter_broker_listener": self.config.inter_broker_listener,
            "bound": {name: list(addr) for name, addr in self.bound.items()},
            "pid": os.getpid(),
            "registered_at": time.time(),  # orders a ZooKeeper controller election
        }
        self.membership.self_registration = registration
        if self.config.is_broker:
            await self.membership.probe_once()
            self._tasks.append(asyncio.create_task(self.membership.run()))
            if self.quorum is not None:
                self._tasks.append(asyncio.create_task(self._watch_quorum()))
        self.state.register(self._kind, registration)
        self.log(f"registered as {self._kind} in {self.state.root}")

    async def stop(self) -> None:
        """Unregister, stop accepting, close client connections and cancel background work."""
        self._stopping = True
        self.state.unregister(self._kind, self.config.node_id, os.getpid())
        for server in self.servers:
            server.close()
        # Closing the sockets (rather than cancelling the handlers) lets every handler finish and log normally.
        for writer in list(self._connections.values()):
            writer.close()
        if self._connections:
            await asyncio.wait(list(self._connections), timeout=5)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.log("stopped")

    def _peer_tls_context(self) -> ssl.SSLContext:
        """Client TLS for probing peers: trust this node's truststore; the name check is left to the lab's CA."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        listener = next((lst for lst in self.config.listeners if lst.name == self.config.inter_broker_listener), None)
        tls = listener.tls if listener else None
        if tls and tls.truststore_location:
            context.load_verify_locations(cafile=tls.truststore_location)
            if tls.client_auth == "required":
                context.load_cert_chain(tls.keystore_location, password=tls.key_password)
        else:
            context.verify_mode = ssl.CERT_NONE
        return context

    # -- connections ---------------------------------------------------------------------------------------------

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, listener: Listener):
        """Answer requests in arrival order (one at a time, as Kafka mutes a connection while it is busy)."""
        self._connections[asyncio.current_task()] = writer
        peer = writer.get_extra_info("peername")
        peer_text = show_hostport(*peer[:2]) if peer else "?"
        counts: Counter[str] = Counter()
        client_ids: set[str | None] = set()
        ending = "closed by client"
        try:
            while True:
                try:
                    prefix = await reader.readexactly(kw.FRAME_SIZE_BYTES)
                except asyncio.IncompleteReadError:
                    break
                size = kw.frame_size(prefix)
                if size > MAX_REQUEST_BYTES:
                    raise ConnectionClosed(f"request of {size} bytes exceeds socket.request.max.bytes")
                payload = await reader.readexactly(size)
                api_key, version, _corr = kw.peek_request_api(payload)
                counts[p.api_label(api_key, version)] += 1
                response = await self._handle(listener, payload, api_key, version, client_ids)
                if response is not None:
                    writer.write(kw.frame(response))
                    await writer.drain()
        except ConnectionClosed as exc:
            ending = f"closed by broker: {exc}"
        except (kw.WireError, asyncio.IncompleteReadError) as exc:
            ending = f"closed by broker: malformed request: {exc}"
        except (ConnectionError, ssl.SSLError, OSError) as exc:
            ending = f"connection error: {exc.__class__.__name__} {exc}"
        finally:
            summary = ", ".join(f"{label} x{n}" for label, n in sorted(counts.items())) or "no requests"
            self.log(f"connection {peer_text} on {listener.name} ({listener.protocol}): {summary}; {ending}")
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            self._connections.pop(asyncio.current_task(), None)

    async def _handle(
        self, listener: Listener, payload: bytes, api_key: int, version: int, client_ids: set[str | None]
    ) -> bytes | None:
        """Full response (header + body) for one request, None when no response is due (acks=0).

        Adds the request's client id to ``client_ids``.
        """
        reader = kw.Reader(payload)
        if api_key == p.API_VERSIONS:
            header = kw.decode_request_header(reader, p.request_header_version(api_key, version))
            client_ids.add(header.client_id)
            return self._api_versions(listener, header, reader, version)
        if listener.is_controller:
            raise ConnectionClosed(f"{p.api_label(api_key, version)} is not served on controller listener")
        supported = self._supported().get(api_key) if self.config.is_broker else None
        if supported is None or not supported[0] <= version <= supported[1]:
            raise ConnectionClosed(f"unsupported request {p.api_label(api_key, version)}")
        header = kw.decode_request_header(reader, p.request_header_version(api_key, version))
        client_ids.add(header.client_id)
        handler = {
            p.METADATA: self._metadata,
            p.PRODUCE: self._produce,
            p.LIST_OFFSETS: self._list_offsets,
            p.FETCH: self._fetch,
            p.INIT_PRODUCER_ID: self._init_producer_id,
            p.DESCRIBE_CONFIGS: self._describe_configs,
            p.DESCRIBE_QUORUM: self._describe_quorum,
        }[api_key]
        body = await handler(listener, reader, version)
        if body is None:
            return None
        return kw.encode_response_header(header.correlation_id, p.response_header_version(api_key, version)) + body

    # -- ApiVersions -----------------------------------------------------------------------------------------------

    def _api_versions(self, listener: Listener, header: kw.RequestHeader, reader: kw.Reader, version: int) -> bytes:
        table = self._supported() if self.config.is_broker and not listener.is_controller else None
        table = table or p.CONTROLLER_SUPPORTED_VERSIONS
        low, high = p.SUPPORTED_VERSIONS[p.API_VERSIONS]
        response_header = kw.encode_response_header(header.correlation_id, 0)
        if not low <= version <= high:
            # Kafka answers an unknown ApiVersions version with the v0 body so any client can read it.
            return response_header + p.encode_api_versions_response(0, p.UNSUPPORTED_VERSION, table)
        p.decode_api_versions_request(reader, version)
        return response_header + p.encode_api_versions_response(version, p.NONE, table)

    def _supported(self) -> dict[int, tuple[int, int]]:
        """The APIs a broker listener serves: DescribeQuorum in KRaft mode only (a ZooKeeper broker has no quorum)."""
        if self.quorum is not None:
            return p.SUPPORTED_VERSIONS
        return {key: versions for key, versions in p.SUPPORTED_VERSIONS.items() if key != p.DESCRIBE_QUORUM}

    # -- DescribeQuorum --------------------------------------------------------------------------------------------

    async def _watch_quorum(self) -> None:
        """Note which voters run every PROBE_INTERVAL_S, so a stopped one's lag counts from when it stopped."""
        while True:
            self.quorum.refresh()
            await asyncio.sleep(PROBE_INTERVAL_S)

    async def _describe_quorum(self, listener: Listener, reader: kw.Reader, version: int) -> bytes:
        # a real broker forwards the request to the active controller; the stand-in answers from its own view
        asked = p.decode_describe_quorum_request(reader, version)
        leader, epoch, high_watermark, voters, observers = self.quorum.describe()
        error = p.NONE if asked == [(p.CLUSTER_METADATA_TOPIC, [0])] else p.UNKNOWN_TOPIC_OR_PARTITION
        return p.encode_describe_quorum_response(version, error, leader, epoch, high_watermark, voters, observers)

    # -- DescribeConfigs -------------------------------------------------------------------------------------------

    # the topic settings the stand-in answers: the broker's static value, else Kafka's default
    TOPIC_DEFAULTS = {"min.insync.replicas": "1"}

    async def _describe_configs(self, listener: Listener, reader: kw.Reader, version: int) -> bytes:
        results = []
        for resource_type, name, keys in p.decode_describe_configs_request(reader, version):
            if resource_type != p.RESOURCE_TOPIC:
                results.append((p.INVALID_REQUEST, resource_type, name, {}))
            elif self.state.partition_count(name) is None:
                results.append((p.UNKNOWN_TOPIC_OR_PARTITION, resource_type, name, {}))
            else:
                configs = {}
                for key in self.TOPIC_DEFAULTS if keys is None else keys:
                    if key in self.TOPIC_DEFAULTS:
                        static = self.config.properties.get(key)
                        configs[key] = (static, 4) if static is not None else (self.TOPIC_DEFAULTS[key], 5)
                results.append((p.NONE, resource_type, name, configs))
        return p.encode_describe_configs_response(version, results)

    # -- Metadata --------------------------------------------------------------------------------------------------

    async def _metadata(self, listener: Listener, reader: kw.Reader, version: int) -> bytes:
        request = p.decode_metadata_request(reader, version)
        live = self.membership.live_brokers()
        controller_id = min(live) if live else -1
        if not self.config.roles:  # ZooKeeper mode
            controller = self.membership.zookeeper_controller()
            if not self.membership.receives_metadata(controller):
                # real 3.9.2: every topic is unknown to it, and creating one finds no broker to place replicas on
                creates = self.config.auto_create_topics and request.allow_auto_topic_creation
                error = p.INVALID_REPLICATION_FACTOR if creates else p.UNKNOWN_TOPIC_OR_PARTITION
                unknown = [p.TopicEntry(error, name, []) for name in request.topics or []]
                return p.encode_metadata_response(version, [], self.cluster_id, -1, unknown)
            controller_id = controller["node_id"]
        brokers = []
        for node_id in sorted(live):
            endpoint = live[node_id].get("endpoints", {}).get(listener.name)
            if endpoint is not None:  # a broker without this listener name is not shown, as in Kafka
                brokers.append(p.BrokerEntry(node_id, endpoint["host"], endpoint["port"], live[node_id].get("rack")))
        listed = {broker.node_id for broker in brokers}
        names = self.state.topics() if request.topics is None else request.topics
        topics = []
        for name in names:
            topics.append(self._topic_metadata(name, request, listed))
        return p.encode_metadata_response(version, brokers, self.cluster_id, controller_id, topics)

    def _topic_metadata(self, name: str, request: p.MetadataRequest, listed: set[int]) -> p.TopicEntry:
        if topic_name_problem(name):
            return p.TopicEntry(p.INVALID_TOPIC_EXCEPTION, name, [])
        count = self.state.partition_count(name)
        if count is None:
            if not (self.config.auto_create_topics and request.allow_auto_topic_creation):
                return p.TopicEntry(p.UNKNOWN_TOPIC_OR_PARTITION, name, [])
            if self.state.create_topic(name, self.config.num_partitions):
                self.log(f"auto-created topic {name} with {self.config.num_partitions} partition(s)")
            # Kafka's first answer for a topic it just created: its leaders are not elected yet.
            return p.TopicEntry(p.LEADER_NOT_AVAILABLE, name, [])
        live_ids = self.membership.live_ids()
        partitions = []
        for index in range(count):
            leader = self.membership.leader_for(name, index)
            replicas = [leader] + [node for node in live_ids if node != leader]
            # Kafka (seen on 4.4.0 mid-rollout) lists a replica without an endpoint on this listener as offline
            offline = [node for node in replicas if node not in listed]
            if leader in listed:
                partitions.append(p.PartitionEntry(p.NONE, index, leader, -1, replicas, replicas, offline))
            else:
                partitions.append(p.PartitionEntry(p.LISTENER_NOT_FOUND, index, -1, -1, replicas, replicas, offline))
        return p.TopicEntry(p.NONE, name, partitions)

    def _partition_error(self, topic: str, partition: int) -> int:
        """UNKNOWN_TOPIC_OR_PARTITION / NOT_LEADER_OR_FOLLOWER / NONE for serving data of one partition here."""
        count = self.state.partition_count(topic)
        if count is None or not 0 <= partition < count:
            return p.UNKNOWN_TOPIC_OR_PARTITION
        if self.membership.leader_for(topic, partition) != self.config.node_id:
            return p.NOT_LEADER_OR_FOLLOWER
        return p.NONE

    # -- Produce ---------------------------------------------------------------------------------------------------

    async def _produce(self, listener: Listener, reader: kw.Reader, version: int) -> bytes | None:
        request = p.decode_produce_request(reader, version)
        results = []
        for topic, partitions in request.topics:
            topic_results = []
            for index, records in partitions:
                topic_results.append(await self._append(topic, index, records))
            results.append((topic, topic_results))
        if request.acks == 0:
            return None
        return p.encode_produce_response(version, results)

    async def _append(self, topic: str, index: int, records: bytes | None) -> p.ProducePartitionResult:
        error = self._partition_error(topic, index)
        if error != p.NONE:
            return p.ProducePartitionResult(index, error, -1, -1)
        try:
            batches = kw.split_batches(records or b"")
        except kw.WireError:
            return p.ProducePartitionResult(index, p.CORRUPT_MESSAGE, -1, -1)
        if not batches:
            return p.ProducePartitionResult(index, p.CORRUPT_MESSAGE, -1, -1)
        if any(header is None for _pos, _size, header in batches):
            return p.ProducePartitionResult(index, p.UNSUPPORTED_FOR_MESSAGE_FORMAT, -1, -1)
        chunks = [records[pos : pos + size] for pos, size, _header in batches]
        log = self.state.log(topic, index)
        base_offset = await asyncio.to_thread(log.append, chunks)
        self._appended.set()
        self._appended = asyncio.Event()
        return p.ProducePartitionResult(index, p.NONE, base_offset, log.log_start_offset())

    # -- ListOffsets -----------------------------------------------------------------------------------------------

    async def _list_offsets(self, listener: Listener, reader: kw.Reader, version: int) -> bytes:
        request = p.decode_list_offsets_request(reader, version)
        results = []
        for topic, partitions in request.topics:
            topic_results = []
            for index, timestamp in partitions:
                error = self._partition_error(topic, index)
                if error != p.NONE:
                    topic_results.append(p.ListOffsetsPartitionResult(index, error, -1, -1))
                    continue
                log = self.state.log(topic, index)
                if timestamp == -2:  # earliest
                    found = (log.log_start_offset(), -1)
                elif timestamp == -1:  # latest
                    found = (log.high_watermark(), -1)
                else:
                    found = log.offset_for_timestamp(timestamp)
                offset, stamp = found if found is not None else (-1, -1)
                topic_results.append(p.ListOffsetsPartitionResult(index, p.NONE, stamp, offset))
            results.append((topic, topic_results))
        return p.encode_list_offsets_response(version, results)

    # -- Fetch -----------------------------------------------------------------------------------------------------

    async def _fetch(self, listener: Listener, reader: kw.Reader, version: int) -> bytes:
        request = p.decode_fetch_request(reader, version)
        if request.session_id != 0:
            # The stand-in never hands out fetch sessions, so any id a client names is unknown.
            return p.encode_fetch_response(version, p.FETCH_SESSION_ID_NOT_FOUND, 0, [])
        deadline = time.monotonic() + max(request.max_wait_ms, 0) / 1000.0
        while True:
            results, total, errors = self._read_fetch(request)
            remaining = deadline - time.monotonic()
            if total >= max(request.min_bytes, 1) or errors or remaining <= 0:
                return p.encode_fetch_response(version, p.NONE, 0, results)
            if self._stopping:
                raise ConnectionClosed("broker shutting down")
            appended = self._appended
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(appended.wait(), min(remaining, FETCH_POLL_S))

    def _read_fetch(self, request: p.FetchRequest) -> tuple[list, int, bool]:
        """One pass over the requested partitions: (results, bytes of data, whether any partition errored)."""
        results = []
        total = 0
        errors = False
        budget = request.max_bytes if request.max_bytes > 0 else 0x7FFFFFFF
        for topic, partitions in request.topics:
            topic_results = []
            for part in partitions:
                error = self._partition_error(topic, part.index)
                if error != p.NONE:
                    errors = True
                    topic_results.append(p.FetchPartitionResult(part.index, error, -1, -1, None))
                    continue
                log = self.state.log(topic, part.index)
                high_watermark = log.high_watermark()
                start = log.log_start_offset()
                if not start <= part.fetch_offset <= high_watermark:
                    errors = True
                    topic_results.append(
                        p.FetchPartitionResult(part.index, p.OFFSET_OUT_OF_RANGE, high_watermark, start, None)
                    )
                    continue
                limit = min(part.max_bytes, budget - total)
                # The first batch of the whole response is sent even if it is larger than the limits (KIP-74).
                data = log.read(part.fetch_offset, max(limit, 0), at_least_one=total == 0)
                total += len(data)
                topic_results.append(p.FetchPartitionResult(part.index, p.NONE, high_watermark, start, data))
            results.append((topic, topic_results))
        return results, total, errors

    # -- InitProducerId --------------------------------------------------------------------------------------------

    async def _init_producer_id(self, listener: Listener, reader: kw.Reader, version: int) -> bytes:
        transactional_id, _timeout = p.decode_init_producer_id_request(reader, version)
        if transactional_id is not None:
            # Transactions need a coordinator the stand-in does not have.
            return p.encode_init_producer_id_response(version, p.COORDINATOR_NOT_AVAILABLE, -1, -1)
        producer_id = await asyncio.to_thread(self.state.next_producer_id)
        return p.encode_init_producer_id_response(version, p.NONE, producer_id, 0)


def quorum_voter_ids(properties: dict[str, str]) -> list[int] | None:
    """The node ids of ``controller.quorum.voters`` (``id@host:port,...``), None when unset or unreadable."""
    value = properties.get("controller.quorum.voters", "").strip()
    try:
        return [int(entry.split("@", 1)[0]) for entry in value.split(",")] if value else None
    except ValueError:
        return None


def bind_listener_socket(host: str, port: int) -> socket.socket:
    """One listening TCP socket: ``host`` "" means every interface (dual-stack where IPv6 exists)."""
    if not host:
        candidates = []
        if socket.has_ipv6:
            candidates.append((socket.AF_INET6, ("::", port)))
        candidates.append((socket.AF_INET, ("0.0.0.0", port)))
    else:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        candidates = [(info[0], info[4]) for info in infos[:1]]
    last_error: OSError | None = None
    for family, address in candidates:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and not host:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.bind(address)
            sock.listen(128)
            sock.setblocking(False)
            return sock
        except OSError as exc:
            sock.close()
            last_error = exc
    reason = last_error.strerror if last_error else ""
    raise OSError(f"Socket server failed to bind to {show_hostport(host, port)}: {reason}")


def _fatal(message: str, exception: str | None = None) -> None:
    """Print a finding the way Kafka logs its fatal startup exception (exception class guessed from the message)."""
    if exception is None:
        # Scala require() and listener parsing raise IllegalArgumentException; the other checks a ConfigException.
        wrapped = message.startswith(("requirement failed: ", "Error creating broker listeners"))
        exception = (
            "java.lang.IllegalArgumentException" if wrapped else "org.apache.kafka.common.config.ConfigException"
        )
    now = time.time()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) + f",{int(now * 1000) % 1000:03d}"
    print(f"[{stamp}] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)", file=sys.stderr)
    print(f"{exception}: {message}", file=sys.stderr)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options of the stand-in."""
    parser = argparse.ArgumentParser(
        prog="kafka_standin",
        description="Lab stand-in for a Kafka broker (test double; never a Kafka replacement).",
    )
    parser.add_argument("--config", required=True, type=Path, help="server.properties to read")
    parser.add_argument("--state-dir", required=True, type=Path, help="directory shared by the cluster's nodes")
    parser.add_argument("--log", type=Path, help="append one line per connection and event to this file")
    return parser.parse_args(argv)


async def _run(broker: Broker) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await broker.start()
    try:
        await stop.wait()
    finally:
        await broker.stop()


def main(argv: list[str] | None = None) -> int:
    """Entry point: validate the configuration like Kafka, then serve until SIGTERM/SIGINT."""
    args = parse_args(argv)
    try:
        props = read_properties(args.config)
    except ConfigError as exc:
        print(f"kafka-standin: {exc}", file=sys.stderr)
        return 2
    refusals = kafka_refusals(props)
    if refusals:
        for finding in refusals:
            _fatal(finding["message"])
        return 1
    try:
        config = interpret(props)
    except ConfigError as exc:
        print(f"kafka-standin: {args.config}: {exc}", file=sys.stderr)
        return 2
    log = EventLog(args.log, config.node_id)
    asyncio_logger = logging.getLogger("asyncio")
    asyncio_logger.addHandler(_ToEventLog(log))
    asyncio_logger.propagate = False  # quiet by default: nothing on stderr once the broker runs
    try:
        state = StateDir(args.state_dir)
    except OSError as exc:
        print(f"kafka-standin: --state-dir {args.state_dir}: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run(_run_with_broker(config, state, log))
    except (OSError, ConfigError) as exc:
        _fatal(str(exc), "org.apache.kafka.common.KafkaException")
        return 1
    finally:
        log.close()
    return 0


async def _run_with_broker(config: StandinConfig, state: StateDir, log: EventLog) -> None:
    # The Broker owns asyncio objects, so it is made inside the running loop.
    await _run(Broker(config, state, log))
