"""The lab's Kafka stand-in, driven by real clients (kcat, confluent-kafka, kafka-python) on loopback.

Also unit tests of the stand-in's own wire codec (``lab/kafkaops_lab/kafka_standin/wire.py``), held against the client's
(``plugins/module_utils/_kafka_wire.py``): the tests speak to the stand-in with the client's codec.
Run: ``cd /work/main && .venv/bin/pytest lab/tests/test_standin.py -q``
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_wire as kw

# The stand-in's modules, imported in-process for the tests of its configuration reading and storage.
from kafkaops_lab.kafka_standin import config as standin_config
from kafkaops_lab.kafka_standin import storage as standin_storage
from kafkaops_lab.kafka_standin import wire as sw
from kafkaops_lab.paths import REPO_ROOT, STANDIN_MODULE, STANDIN_PACKAGE

START_TIMEOUT_S = 30  # hang guard for a stand-in to bind and register
MODULE_UTILS = "ansible_collections.kafkaops.listeners.plugins.module_utils"


def rules_module_available() -> bool:
    """True once the collection's ``_kafka_rules`` module exists (written by another engineer)."""
    try:
        return importlib.util.find_spec(f"{MODULE_UTILS}._kafka_rules") is not None
    except ModuleNotFoundError:
        return False


_PORTS_HANDED_OUT: set[tuple[str, int]] = set()


def free_port(host: str) -> int:
    """A TCP port free on ``host`` right now (the kernel's pick), never the same one twice in a session."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((host, 0))
            port = sock.getsockname()[1]
        if (host, port) not in _PORTS_HANDED_OUT:
            _PORTS_HANDED_OUT.add((host, port))
            return port


@pytest.fixture(scope="session")
def resolver_sandbox(tmp_path_factory) -> list[str]:
    """Command prefix running a program with DNS pointed at 127.0.0.1 (nothing listens: lookups fail fast)."""
    if not Path("/etc/resolv.conf").exists():
        return []  # glibc already defaults to 127.0.0.1
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1) to keep client DNS lookups on loopback")
    resolv = tmp_path_factory.mktemp("resolver") / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.1\noptions attempts:1 timeout:1\n", encoding="ascii")
    prefix = ["unshare", "--mount", "sh", "-c", 'mount --bind "$0" /etc/resolv.conf && exec "$@"', str(resolv)]
    probe = subprocess.run([*prefix, "cat", "/etc/resolv.conf"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0 or "127.0.0.1" not in probe.stdout:
        pytest.skip(f"cannot bind-mount a loopback resolv.conf in a mount namespace: {probe.stderr.strip()}")
    return prefix


@pytest.fixture(scope="session")
def standin_env(tmp_path_factory) -> dict[str, str]:
    """Environment for stand-in processes; stubs ``_kafka_rules`` (no findings) until the real module exists."""
    env = dict(os.environ)
    if not rules_module_available():
        stub_root = tmp_path_factory.mktemp("rules-stub")
        stub = stub_root.joinpath(*MODULE_UTILS.split("."), "_kafka_rules.py")
        stub.parent.mkdir(parents=True)
        stub.write_text("def check_kafka_config(props):\n    return []\n", encoding="utf-8")
        # ansible_collections/... are namespace packages, so this directory merges with the real collection.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(stub_root), env.get("PYTHONPATH")]))
    return env


def render_properties(props: dict[str, str]) -> str:
    """server.properties text for ``props`` (values used as given)."""
    return "".join(f"{key}={value}\n" for key, value in props.items())


@dataclass
class Standin:
    """A started stand-in process and where its files are."""

    name: str
    node_id: int
    process: subprocess.Popen
    config: Path
    log: Path
    stderr: Path
    state_dir: Path
    kind: str = "broker"

    def diagnostics(self) -> str:
        """The process's stderr and event log, for assertion messages."""
        parts = []
        for label, path in (("stderr", self.stderr), ("log", self.log)):
            text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else "(none)"
            parts.append(f"--- {self.name} {label} ---\n{text}")
        return "\n".join(parts)

    def registration(self) -> dict | None:
        """This process's registration in the state dir, if it wrote one."""
        folder = "brokers" if self.kind == "broker" else "controllers"
        path = self.state_dir / folder / f"{self.node_id}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if data.get("pid") == self.process.pid else None


@dataclass
class StandinFactory:
    """Starts stand-ins for one test and stops every one of them afterwards."""

    workdir: Path
    sandbox: list[str]
    env: dict[str, str]
    started: list[Standin] = field(default_factory=list)

    def launch(self, name: str, props: dict[str, str], state_dir: Path, as_directory: bool = False) -> subprocess.Popen:
        """Start a stand-in without waiting; returns the process (its files are under workdir/name)."""
        folder = self.workdir / name
        folder.mkdir(parents=True, exist_ok=True)
        config = folder / "server.properties"
        config.write_text(render_properties(props), encoding="utf-8")
        entry = [str(STANDIN_PACKAGE)] if as_directory else ["-m", STANDIN_MODULE]
        command = [sys.executable, *entry, "--config", str(config), "--state-dir", str(state_dir)]
        command += ["--log", str(folder / "events.log")]
        with open(folder / "stderr.txt", "wb") as stderr:
            process = subprocess.Popen(
                [*self.sandbox, *command], cwd=REPO_ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=stderr
            )
        node_id = int(props.get("node.id", props.get("broker.id", "-1")))
        kind = "controller" if props.get("process.roles", "").strip() == "controller" else "broker"
        standin = Standin(name, node_id, process, config, folder / "events.log", folder / "stderr.txt", state_dir, kind)
        self.started.append(standin)
        return process

    def start(self, name: str, props: dict[str, str], state_dir: Path, as_directory: bool = False) -> Standin:
        """Start a stand-in and wait (hang guard START_TIMEOUT_S) until it has bound and registered."""
        self.launch(name, props, state_dir, as_directory)
        standin = self.started[-1]
        deadline = time.monotonic() + START_TIMEOUT_S
        while standin.registration() is None:
            if standin.process.poll() is not None:
                pytest.fail(f"stand-in {name} exited with {standin.process.returncode}\n{standin.diagnostics()}")
            if time.monotonic() > deadline:
                pytest.fail(f"stand-in {name} did not register within {START_TIMEOUT_S}s\n{standin.diagnostics()}")
            time.sleep(0.05)
        return standin

    def stop_all(self) -> None:
        """SIGTERM every stand-in this factory started, then SIGKILL the ones still running."""
        for standin in self.started:
            if standin.process.poll() is None:
                standin.process.send_signal(signal.SIGTERM)
        for standin in self.started:
            try:
                standin.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                standin.process.kill()
                standin.process.wait(timeout=10)


@pytest.fixture
def standins(tmp_path, resolver_sandbox, standin_env):
    """A StandinFactory whose processes are stopped when the test ends."""
    factory = StandinFactory(tmp_path / "standins", resolver_sandbox, standin_env)
    try:
        yield factory
    finally:
        factory.stop_all()


@dataclass
class ClientRun:
    """What a client process printed and how it ended."""

    returncode: int | None
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"rc={self.returncode}\n--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}"


@pytest.fixture
def run_client(resolver_sandbox):
    """Run a client command inside the resolver sandbox: ``run_client(argv, input=None, timeout=60)``."""

    def run(argv: list[str], input: str | None = None, timeout: float = 60) -> ClientRun:
        result = subprocess.run(
            [*resolver_sandbox, *argv], input=input, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT
        )
        return ClientRun(result.returncode, result.stdout, result.stderr)

    return run


@pytest.fixture
def watch_client(resolver_sandbox):
    """Start a client and wait until its output contains any of ``patterns`` (hang guard), then stop it.

    Returns the output seen; for clients that retry forever (a consumer whose broker cannot be resolved).
    """
    processes = []

    def watch(argv: list[str], patterns: list[str], timeout: float = 60) -> ClientRun:
        process = subprocess.Popen(
            [*resolver_sandbox, *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO_ROOT,
        )
        processes.append(process)
        seen = {"stdout": [], "stderr": []}
        found = threading.Event()

        def pump(stream, key):
            for line in stream:
                seen[key].append(line)
                if any(pattern in line for pattern in patterns):
                    found.set()

        threads = [
            threading.Thread(target=pump, args=(process.stdout, "stdout"), daemon=True),
            threading.Thread(target=pump, args=(process.stderr, "stderr"), daemon=True),
        ]
        for thread in threads:
            thread.start()
        found.wait(timeout)
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        for thread in threads:
            thread.join(timeout=10)
        return ClientRun(process.returncode, "".join(seen["stdout"]), "".join(seen["stderr"]))

    yield watch
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


HANG_GUARD_S = 60  # generous upper bound for anything that waits on the cluster; never a speed assertion
UNRESOLVABLE_HOST = "ip-172-31-18-160.us-west-2.compute.internal"

needs_kcat = pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed (apt-get install kcat)")


def unique_topic(prefix: str) -> str:
    """A topic name no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def plaintext_broker(node_id: int, listeners: dict[str, tuple[str, int, str]], inter_broker: str, **extra) -> dict:
    """Properties of a ZooKeeper-style broker: ``listeners`` maps NAME -> (bind host, port, advertised host)."""
    props = {
        "broker.id": str(node_id),
        "listeners": ",".join(f"{name}://{host}:{port}" for name, (host, port, _adv) in listeners.items()),
        "advertised.listeners": ",".join(f"{name}://{adv}:{port}" for name, (_host, port, adv) in listeners.items()),
        "listener.security.protocol.map": ",".join(f"{name}:PLAINTEXT" for name in listeners),
        "inter.broker.listener.name": inter_broker,
    }
    props.update({key.replace("_", "."): str(value) for key, value in extra.items()})
    return props


def wait_until(condition, what: str, timeout: float = HANG_GUARD_S, interval: float = 0.25):
    """Poll ``condition()`` until it returns a truthy value (returned); fail after the hang guard."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval)
    pytest.fail(f"hang guard: {what} did not happen within {timeout}s (last: {last!r})")


# ---------------------------------------------------------------------------------------------------------------
# kcat helpers


def kcat_metadata(run_client, bootstrap: str, topic: str | None = None, extra: tuple[str, ...] = ()) -> dict:
    """``kcat -L -J`` parsed: {"brokers": {id: "host:port"}, "controller": id, "leaders": {topic: {p: leader}}}."""
    argv = ["kcat", "-b", bootstrap, "-L", "-J", "-m", "15", *extra]
    if topic:
        argv += ["-t", topic]
    result = run_client(argv)
    assert result.returncode == 0, f"kcat -L failed\n{result}"
    data = json.loads(result.stdout)
    return {
        "brokers": {broker["id"]: broker["name"] for broker in data["brokers"]},
        "controller": data["controllerid"],
        "leaders": {
            entry["topic"]: {part["partition"]: part["leader"] for part in entry.get("partitions", [])}
            for entry in data["topics"]
        },
    }


def kcat_produce(run_client, bootstrap: str, topic: str, lines: list[str], extra: tuple[str, ...] = ()):
    result = run_client(["kcat", "-b", bootstrap, "-P", "-t", topic, *extra], input="".join(f"{x}\n" for x in lines))
    assert result.returncode == 0, f"kcat -P failed\n{result}"


def kcat_consume(run_client, bootstrap: str, topic: str, extra: tuple[str, ...] = ()) -> list[str]:
    result = run_client(["kcat", "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q", *extra])
    assert result.returncode == 0, f"kcat -C failed\n{result}"
    return result.stdout.splitlines()


# ---------------------------------------------------------------------------------------------------------------
# A minimal raw Kafka client on the wire primitives, for what real clients do not expose


class RawClient:
    """One TCP connection speaking Kafka frames: send requests, read responses in order."""

    def __init__(self, host: str, port: int):
        self.sock = socket.create_connection((host, port), timeout=HANG_GUARD_S)
        self._correlation = 0

    def close(self):
        self.sock.close()

    def send(self, api_key: int, version: int, body: bytes = b"", header_version: int = 1) -> int:
        self._correlation += 1
        header = kw.encode_request_header(api_key, version, self._correlation, "raw-test", header_version)
        self.sock.sendall(kw.frame(header + body))
        return self._correlation

    def _read_exactly(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise ConnectionError("connection closed by the broker")
            data += chunk
        return data

    def receive(self, header_version: int = 0) -> tuple[int, kw.Reader]:
        size = int.from_bytes(self._read_exactly(4), "big", signed=True)
        reader = kw.Reader(self._read_exactly(size))
        return kw.decode_response_header(reader, header_version).correlation_id, reader

    def call(self, api_key: int, version: int, body: bytes = b"", header_version: int = 1) -> kw.Reader:
        correlation = self.send(api_key, version, body, header_version)
        got, reader = self.receive()
        assert got == correlation
        return reader


def read_api_versions_v0(reader: kw.Reader) -> tuple[int, dict[int, tuple[int, int]]]:
    error = reader.int16()
    entries = reader.array(lambda r: (r.int16(), r.int16(), r.int16()))
    return error, {key: (low, high) for key, low, high in entries}


def read_metadata_v8(reader: kw.Reader) -> dict:
    """The parts of a Metadata v8 response the tests check (laid out independently of the stand-in's encoder)."""
    reader.int32()  # throttle
    brokers = reader.array(lambda r: (r.int32(), r.string(), r.int32(), r.nullable_string()))
    reader.nullable_string()  # cluster id
    controller = reader.int32()

    def partition(r):
        error, index, leader, _epoch = r.int16(), r.int32(), r.int32(), r.int32()
        r.array(lambda x: x.int32())
        r.array(lambda x: x.int32())
        r.array(lambda x: x.int32())
        return index, error, leader

    def topic(r):
        error, name, _internal = r.int16(), r.string(), r.boolean()
        partitions = r.array(partition)
        r.int32()
        return name, error, partitions

    topics = reader.array(topic)
    reader.int32()
    assert reader.at_end()
    return {"brokers": {b[0]: (b[1], b[2]) for b in brokers}, "controller": controller, "topics": topics}


def metadata_v8_request(topics: list[str] | None, allow_auto_create: bool = True) -> bytes:
    out = kw.Writer().nullable_array(topics, lambda w, name: w.string(name))
    return out.boolean(allow_auto_create).boolean(False).boolean(False).getvalue()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), bitwise: enough for the few small batches built here."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def record_batch(values: list[bytes], timestamp_ms: int = 1_700_000_000_000) -> bytes:
    """A valid v2 record batch (no compression, no keys, base offset 0) holding ``values``."""
    records = sw.Writer()
    for delta, value in enumerate(values):
        body = sw.Writer().int8(0).varlong(0).varint(delta).varint(-1).varint(len(value)).raw(value).varint(0)
        records.varint(len(body.getvalue())).raw(body.getvalue())
    after_crc = (
        sw.Writer()
        .int16(0)
        .int32(len(values) - 1)
        .int64(timestamp_ms)
        .int64(timestamp_ms)
        .int64(-1)
        .int16(-1)
        .int32(-1)
        .int32(len(values))
        .raw(records.getvalue())
        .getvalue()
    )
    inner = sw.Writer().int32(-1).int8(2).uint32(crc32c(after_crc)).raw(after_crc).getvalue()
    return sw.Writer().int64(0).int32(len(inner)).raw(inner).getvalue()


def produce_v7_request(topic: str, partition: int, records: bytes, acks: int) -> bytes:
    out = sw.Writer().nullable_string(None).int16(acks).int32(30_000)
    return out.array(
        [topic],
        lambda w, name: w.string(name).array([records], lambda w2, rec: w2.int32(partition).nullable_bytes(rec)),
    ).getvalue()


# ---------------------------------------------------------------------------------------------------------------
# Wire primitives (no processes needed)


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (-1, b"\x01"),
        (1, b"\x02"),
        (-64, b"\x7f"),
        (64, b"\x80\x01"),
        (2**31 - 1, b"\xfe\xff\xff\xff\x0f"),
    ],
)
def test_varint_uses_zigzag_encoding(value, encoded):
    assert sw.Writer().varint(value).getvalue() == encoded
    assert sw.Reader(encoded).varint() == value


def test_unsigned_varint_and_varlong_round_trip():
    assert sw.Writer().unsigned_varint(300).getvalue() == b"\xac\x02"
    assert kw.Writer().unsigned_varint(300).getvalue() == b"\xac\x02"
    for value in (0, 1, -1, 2**62, -(2**63), 2**63 - 1):
        assert sw.Reader(sw.Writer().varlong(value).getvalue()).varlong() == value


def write_every_type_the_client_knows(writer):
    return (
        writer.string("héllo")
        .nullable_string(None)
        .compact_string("x")
        .compact_nullable_string(None)
        .compact_bytes(b"\x00\x01")
        .bytes_(b"\x02")
        .array([1, 2], lambda w, v: w.int32(v))
        .compact_array([3], lambda w, v: w.int16(v))
        .nullable_array(None, None)
        .compact_nullable_array(None, None)
        .int64(-(2**40))
        .boolean(True)
        .uuid(uuid.UUID(int=5))
        .tagged_fields({3: b"c", 1: b"a"})
        .getvalue()
    )


def read_every_type_the_client_knows(reader):
    assert reader.string() == "héllo"
    assert reader.nullable_string() is None
    assert reader.compact_string() == "x"
    assert reader.compact_nullable_string() is None
    assert reader.compact_bytes() == b"\x00\x01"
    assert reader.bytes_() == b"\x02"
    assert reader.array(lambda r: r.int32()) == [1, 2]
    assert reader.compact_array(lambda r: r.int16()) == [3]
    assert reader.nullable_array(lambda r: r.int32()) is None
    assert reader.compact_nullable_array(lambda r: r.int32()) is None
    assert reader.int64() == -(2**40)
    assert reader.boolean() is True
    assert reader.uuid() == uuid.UUID(int=5)
    assert reader.tagged_fields() == {1: b"a", 3: b"c"}
    assert reader.at_end()


@pytest.mark.parametrize(("writer", "reader"), [(kw, sw), (sw, kw)], ids=["client-to-standin", "standin-to-client"])
def test_the_two_codecs_read_what_the_other_writes(writer, reader):
    data = write_every_type_the_client_knows(writer.Writer())
    assert data == write_every_type_the_client_knows(reader.Writer())
    read_every_type_the_client_knows(reader.Reader(data))


def test_nullable_bytes_only_the_standin_needs():
    reader = sw.Reader(sw.Writer().nullable_bytes(None).nullable_bytes(b"ab").getvalue())
    assert (reader.nullable_bytes(), reader.nullable_bytes()) == (None, b"ab")


def test_request_and_response_headers_cross_the_two_codecs():
    data = kw.encode_request_header(18, 3, 7, "ab", 2)
    assert data == b"\x00\x12\x00\x03\x00\x00\x00\x07\x00\x02ab\x00"
    assert sw.encode_request_header(18, 3, 7, "ab", 2) == data
    header = sw.decode_request_header(sw.Reader(data), 2)
    assert header == sw.RequestHeader(18, 3, 7, "ab", {})
    assert tuple(sw.peek_request_api(data)) == (18, 3, 7)
    assert sw.encode_response_header(7, 0) == b"\x00\x00\x00\x07"
    assert sw.encode_response_header(7, 1) == b"\x00\x00\x00\x07\x00"
    assert kw.decode_response_header(kw.Reader(sw.encode_response_header(7, 1)), 1).correlation_id == 7
    assert sw.frame(b"xyz") == kw.frame(b"xyz") == b"\x00\x00\x00\x03xyz"


@pytest.mark.parametrize("codec", [kw, sw], ids=["client", "standin"])
def test_truncated_or_bad_input_raises_wire_error_naming_the_offset(codec):
    with pytest.raises(codec.WireError, match="offset 0"):
        codec.Reader(b"\x00").int32()
    with pytest.raises(codec.WireError, match="null"):
        codec.Reader(b"\xff\xff").string()
    with pytest.raises(codec.WireError, match="40000"):
        codec.Writer().int16(40000)


def test_record_batch_header_layout_and_base_offset_patch():
    batch = record_batch([b"a", b"bc", b"def"])
    header = sw.decode_batch_header(batch)
    assert (header.magic, header.records_count, header.last_offset_delta) == (2, 3, 2)
    assert sw.batch_total_size(header) == len(batch)
    patched = sw.with_base_offset(batch, 41)
    assert sw.batch_last_offset(sw.decode_batch_header(patched)) == 43
    # Only the first 8 bytes change, so the CRC (over attributes..end) stays valid.
    assert patched[8:] == batch[8:]
    assert crc32c(patched[sw.BATCH_ATTRIBUTES :]) == header.crc
    assert [(pos, size) for pos, size, _ in sw.split_batches(batch + patched)] == [
        (0, len(batch)),
        (len(batch), len(batch)),
    ]
    with pytest.raises(sw.WireError, match="claims"):
        sw.split_batches(record_batch([b"x"])[:-1])


# ---------------------------------------------------------------------------------------------------------------
# The stand-in's reading of server.properties and its shared storage (in-process)


def test_advertised_listeners_fall_back_to_listeners_and_empty_hosts_become_the_canonical_name():
    config = standin_config.interpret(
        {
            "broker.id": "3",
            "listeners": "PLAINTEXT://:9092,internal://10.0.0.1:19092",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT",
        },
        canonical_hostname="vm.lan",
    )
    assert [(lst.name, lst.host, lst.port) for lst in config.listeners] == [
        ("PLAINTEXT", "", 9092),
        ("INTERNAL", "10.0.0.1", 19092),
    ]
    assert {name: (ep.host, ep.port) for name, ep in config.advertised.items()} == {
        "PLAINTEXT": ("vm.lan", 9092),
        "INTERNAL": ("10.0.0.1", 19092),
    }


def test_listener_without_a_protocol_is_refused_with_kafkas_message():
    with pytest.raises(standin_config.ConfigError, match="No security protocol defined for listener INTERNAL"):
        standin_config.interpret({"broker.id": "3", "listeners": "PLAINTEXT://:9092,internal://10.0.0.1:19092"})


def test_kraft_controller_names_map_to_plaintext_and_are_not_advertised():
    config = standin_config.interpret(
        {
            "process.roles": "broker,controller",
            "node.id": "1",
            "listeners": "PLAINTEXT://h:9092,CONTROLLER://h:9093",
            "controller.listener.names": "CONTROLLER",
        }
    )
    assert config.protocol_map["CONTROLLER"] == "PLAINTEXT"
    assert list(config.advertised) == ["PLAINTEXT"]
    assert [lst.is_controller for lst in config.listeners] == [False, True]
    assert config.inter_broker_listener == "PLAINTEXT" and config.auto_create_topics and config.num_partitions == 1


def test_inter_broker_name_comes_from_either_setting():
    base = {"broker.id": "1", "listeners": "SSL://h:9093", "ssl.keystore.type": "PEM", "ssl.keystore.location": "k"}
    assert standin_config.interpret({**base, "security.inter.broker.protocol": "ssl"}).inter_broker_listener == "SSL"
    assert standin_config.interpret({**base, "inter.broker.listener.name": "ssl"}).inter_broker_listener == "SSL"


def test_ssl_settings_honour_per_listener_overrides_and_refuse_non_pem_keystores():
    props = {
        "broker.id": "1",
        "listeners": "EXTERNAL://h:9093",
        "listener.security.protocol.map": "EXTERNAL:SSL",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": "/global.pem",
        "listener.name.external.ssl.keystore.location": "/external.pem",
        "ssl.client.auth": "required",
    }
    tls = standin_config.interpret(props).listeners[0].tls
    assert (tls.keystore_location, tls.client_auth) == ("/external.pem", "required")
    with pytest.raises(standin_config.ConfigError, match="only PEM keystores.*got JKS"):
        standin_config.interpret({**props, "ssl.keystore.type": "JKS"})


def test_missing_node_id_and_bad_numbers_are_named():
    with pytest.raises(standin_config.ConfigError, match=r"node.id \(or broker.id\)"):
        standin_config.interpret({"listeners": "PLAINTEXT://h:9092"})
    with pytest.raises(standin_config.ConfigError, match="num.partitions must be an integer, got 'four'"):
        standin_config.interpret({"broker.id": "1", "num.partitions": "four"})


def test_partition_log_reads_whole_batches_within_max_bytes_but_at_least_one(tmp_path):
    log = standin_storage.PartitionLog(tmp_path / "0.log")
    batches = [record_batch([b"a", b"b"]), record_batch([b"c"]), record_batch([b"d"])]
    assert [log.append([batch]) for batch in batches] == [0, 2, 3]
    assert log.high_watermark() == 4
    size = len(batches[0])
    # Offset 1 lies inside the first batch: the whole batch comes back (the client skips offset 0).
    assert sw.decode_batch_header(log.read(1, size, at_least_one=True)).base_offset == 0
    # One byte short of all three batches: the third one is left out whole.
    all_but_one_byte = sum(len(batch) for batch in batches) - 1
    assert log.read(0, all_but_one_byte, at_least_one=True) == log.read(0, 1 << 20, True)[: size + len(batches[1])]
    assert len(log.read(0, 1, at_least_one=True)) == size
    assert log.read(0, 1, at_least_one=False) == b""
    assert log.read(4, 1 << 20, at_least_one=True) == b""


def _append_many(path: str, count: int) -> None:
    log = standin_storage.PartitionLog(Path(path))
    for index in range(count):
        log.append([record_batch([f"{os.getpid()}-{index}".encode(), b"second"])])


def test_concurrent_appends_from_several_processes_get_distinct_consecutive_offsets(tmp_path):
    import multiprocessing

    path, writers, per_writer = tmp_path / "0.log", 4, 40
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_append_many, args=(str(path), per_writer)) for _ in range(writers)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(HANG_GUARD_S)
        assert process.exitcode == 0
    data = path.read_bytes()
    headers = [header for _pos, _size, header in sw.split_batches(data)]
    assert len(headers) == writers * per_writer
    assert [header.base_offset for header in headers] == list(range(0, 2 * writers * per_writer, 2))
    assert standin_storage.PartitionLog(path).high_watermark() == 2 * writers * per_writer


def test_topic_names_are_checked_like_kafka(tmp_path):
    state = standin_storage.StateDir(tmp_path)
    assert state.create_topic("orders.v1_x-y", 3) is True
    assert state.create_topic("orders.v1_x-y", 5) is False
    assert state.partition_count("orders.v1_x-y") == 3
    for bad in ("", "..", "a/b", "x" * 250, "spaced name"):
        assert standin_storage.topic_name_problem(bad), bad
        with pytest.raises(ValueError):
            state.create_topic(bad, 1)


# ---------------------------------------------------------------------------------------------------------------
# The stand-in with real clients


@pytest.mark.lab
@needs_kcat
def test_metadata_advertises_the_endpoints_of_the_listener_the_client_used(standins, run_client, tmp_path):
    bob_port, fred_port = free_port("127.0.0.1"), free_port("127.0.0.2")
    props = plaintext_broker(
        1,
        {"LISTENER_BOB": ("127.0.0.1", bob_port, "localhost"), "LISTENER_FRED": ("127.0.0.2", fred_port, "127.0.0.2")},
        "LISTENER_BOB",
    )
    standins.start("b1", props, tmp_path / "state")

    via_bob = kcat_metadata(run_client, f"127.0.0.1:{bob_port}")
    via_fred = kcat_metadata(run_client, f"127.0.0.2:{fred_port}")

    assert via_bob["brokers"] == {1: f"localhost:{bob_port}"}
    assert via_fred["brokers"] == {1: f"127.0.0.2:{fred_port}"}
    text = run_client(["kcat", "-b", f"127.0.0.2:{fred_port}", "-L"])
    assert f"broker 1 at 127.0.0.2:{fred_port}" in text.stdout, text


CONFLUENT_ROUND_TRIP = textwrap.dedent(
    """
    import sys
    import confluent_kafka as ck
    bootstrap, topic, values = sys.argv[1], sys.argv[2], sys.argv[3:]
    producer = ck.Producer({"bootstrap.servers": bootstrap})
    for value in values:
        producer.produce(topic, value.encode())
    assert producer.flush(30) == 0, "messages left undelivered"
    consumer = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": "standin-test",
                            "enable.auto.commit": False, "enable.partition.eof": True})
    consumer.assign([ck.TopicPartition(topic, 0, ck.OFFSET_BEGINNING)])
    while True:
        message = consumer.poll(30)
        assert message is not None, "no message or EOF within 30 s"
        if message.error():
            if message.error().code() == ck.KafkaError._PARTITION_EOF:
                break
            raise SystemExit(f"consumer error: {message.error()}")
        print(message.value().decode())
    consumer.close()
    """
)

KAFKA_PYTHON_ROUND_TRIP = textwrap.dedent(
    """
    import sys
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    bootstrap, topic, values = sys.argv[1], sys.argv[2], sys.argv[3:]
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for value in values:
        producer.send(topic, value.encode()).get(timeout=30)
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                             consumer_timeout_ms=5000)
    partition = TopicPartition(topic, 0)
    consumer.assign([partition])
    consumer.seek_to_beginning(partition)
    for message in consumer:
        print(message.value.decode())
        if message.offset + 1 == len(values):
            break
    consumer.close()
    """
)


@pytest.mark.lab
@pytest.mark.parametrize("client", ["kcat", "confluent-kafka", "kafka-python"])
def test_produce_then_consume_round_trip(client, standins, run_client, tmp_path):
    port = free_port("127.0.0.1")
    standins.start("b1", plaintext_broker(1, {"PLAINTEXT": ("127.0.0.1", port, "127.0.0.1")}, "PLAINTEXT"), tmp_path)
    bootstrap, topic = f"127.0.0.1:{port}", unique_topic(client)
    values = [f"{client}-message-{i}" for i in range(5)]

    if client == "kcat":
        if shutil.which("kcat") is None:
            pytest.skip("kcat is not installed (apt-get install kcat)")
        kcat_produce(run_client, bootstrap, topic, values)
        received = kcat_consume(run_client, bootstrap, topic)
    else:
        module = "confluent_kafka" if client == "confluent-kafka" else "kafka"
        pytest.importorskip(module, reason=f"{client} is not installed in this interpreter")
        script = CONFLUENT_ROUND_TRIP if client == "confluent-kafka" else KAFKA_PYTHON_ROUND_TRIP
        result = run_client([sys.executable, "-c", script, bootstrap, topic, *values], timeout=120)
        assert result.returncode == 0, str(result)
        received = result.stdout.splitlines()

    assert received == values


@pytest.mark.lab
@needs_kcat
def test_an_unresolvable_advertised_host_fails_clients_after_bootstrap(standins, run_client, watch_client, tmp_path):
    # The name must not resolve here: not in /etc/hosts, and the sandbox's loopback resolver refuses at once.
    with open("/etc/hosts", encoding="utf-8") as hosts:
        assert UNRESOLVABLE_HOST not in hosts.read()
    lookup = run_client(["getent", "hosts", UNRESOLVABLE_HOST], timeout=30)
    assert lookup.returncode != 0, f"{UNRESOLVABLE_HOST} resolves here\n{lookup}"

    port = free_port("127.0.0.1")
    props = plaintext_broker(1, {"PLAINTEXT": ("127.0.0.1", port, UNRESOLVABLE_HOST)}, "PLAINTEXT")
    standins.start("b1", props, tmp_path)
    bootstrap, topic = f"127.0.0.1:{port}", unique_topic("listeners-demo")

    # Bootstrap works and shows the advertised name (kcat -L also creates the topic, so the consumer below
    # fails on resolution rather than on "Unknown topic or partition").
    metadata = wait_until(
        lambda: (found := kcat_metadata(run_client, bootstrap, topic))["leaders"].get(topic) and found,
        f"topic {topic} being created",
    )
    assert metadata["brokers"] == {1: f"{UNRESOLVABLE_HOST}:{port}"}
    assert metadata["leaders"][topic] == {0: 1}

    consumer = watch_client(
        ["kcat", "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e"],
        ["Failed to resolve", "Host resolution failure"],
    )
    output = consumer.stdout + consumer.stderr
    assert "Failed to resolve" in output or "Host resolution failure" in output, str(consumer)
    assert UNRESOLVABLE_HOST in output, str(consumer)


def two_broker_cluster(standins, state_dir, **extra):
    """Brokers 1 and 2 on 127.0.0.11 / 127.0.0.12, each with INTERNAL (inter-broker) and EXTERNAL listeners."""
    layout = {}
    for node, ip in ((1, "127.0.0.11"), (2, "127.0.0.12")):
        layout[node] = {
            "INTERNAL": (ip, free_port(ip), ip),
            "EXTERNAL": (ip, free_port(ip), ip),
        }
    started = {
        node: standins.start(f"b{node}", plaintext_broker(node, listeners, "INTERNAL", **extra), state_dir)
        for node, listeners in layout.items()
    }
    return layout, started


def bootstrap_of(layout, node, listener):
    host, port, _adv = layout[node][listener]
    return f"{host}:{port}"


def advertised_of(layout, node, listener):
    _host, port, adv = layout[node][listener]
    return f"{adv}:{port}"


@pytest.mark.lab
@needs_kcat
def test_two_brokers_see_each_other_and_leadership_moves_off_a_killed_broker(standins, run_client, tmp_path):
    layout, started = two_broker_cluster(standins, tmp_path / "cluster", num_partitions=4)
    via_b1 = bootstrap_of(layout, 1, "EXTERNAL")

    # Each listener answers with both brokers' endpoints for that listener name.
    for listener in ("EXTERNAL", "INTERNAL"):
        expected = {node: advertised_of(layout, node, listener) for node in (1, 2)}
        wait_until(
            lambda listener=listener, expected=expected: (
                kcat_metadata(run_client, bootstrap_of(layout, 1, listener))["brokers"] == expected
            ),
            f"broker 1 listing both brokers on {listener}",
        )

    topic = unique_topic("moves")
    values = [f"before-kill-{i}" for i in range(8)]
    kcat_produce(run_client, via_b1, topic, values)
    leaders = kcat_metadata(run_client, via_b1, topic)["leaders"][topic]
    assert len(leaders) == 4 and set(leaders.values()) == {1, 2}, leaders

    # A data request to a broker that does not lead the partition is refused with NOT_LEADER_OR_FOLLOWER.
    partition = next(index for index, leader in leaders.items() if leader == 2)
    host, port, _adv = layout[1]["EXTERNAL"]
    client = RawClient(host, port)
    try:
        body = sw.Writer().int32(-1).int8(0)
        body.array(
            [topic], lambda w, name: w.string(name).array([partition], lambda w2, p: w2.int32(p).int32(-1).int64(-1))
        )
        reader = client.call(2, 5, body.getvalue())  # ListOffsets v5
        reader.int32()
        [(name, [(index, error)])] = reader.array(
            lambda r: (r.string(), r.array(lambda r2: (r2.int32(), r2.int16(), r2.int64(), r2.int64(), r2.int32())[:2]))
        )
        assert (name, index, error) == (topic, partition, 6)
    finally:
        client.close()

    # Kill broker 2 without a clean shutdown: its registration stays, liveness probing must notice.
    started[2].process.send_signal(signal.SIGKILL)
    started[2].process.wait(timeout=HANG_GUARD_S)
    wait_until(
        lambda: set(kcat_metadata(run_client, via_b1, topic)["leaders"][topic].values()) == {1},
        "leadership moving to broker 1",
    )
    assert kcat_metadata(run_client, via_b1)["brokers"] == {1: advertised_of(layout, 1, "EXTERNAL")}
    # The shared state dir stands in for replicated storage: every message is still there.
    assert sorted(kcat_consume_all_partitions(run_client, via_b1, topic)) == sorted(values)


def kcat_consume_all_partitions(run_client, bootstrap, topic):
    result = run_client(["kcat", "-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q"])
    assert result.returncode == 0, str(result)
    return result.stdout.splitlines()


@pytest.mark.lab
@needs_kcat
def test_a_broken_inter_broker_listener_does_not_hide_the_broker_as_in_kafka(standins, run_client, tmp_path):
    state = tmp_path / "cluster"
    ip1, ip2 = "127.0.0.21", "127.0.0.22"
    ext1, int1 = free_port(ip1), free_port(ip1)
    ext2, int2, nobody = free_port(ip2), free_port(ip2), free_port("127.0.0.23")
    standins.start(
        "b1", plaintext_broker(1, {"EXTERNAL": (ip1, ext1, ip1), "INTERNAL": (ip1, int1, ip1)}, "INTERNAL"), state
    )
    # Broker 2 advertises an INTERNAL endpoint where nothing listens (a classic wrong advertised address).
    props2 = plaintext_broker(2, {"EXTERNAL": (ip2, ext2, ip2), "INTERNAL": (ip2, int2, ip2)}, "INTERNAL")
    props2["advertised.listeners"] = f"EXTERNAL://{ip2}:{ext2},INTERNAL://127.0.0.23:{nobody}"
    standins.start("b2", props2, state)

    # Kafka keeps a registered, running broker in every broker's Metadata whatever its advertised endpoints are
    # (replication from it is what fails); so does the stand-in.
    for bootstrap in (f"{ip1}:{ext1}", f"{ip2}:{ext2}"):
        wait_until(lambda bootstrap=bootstrap: kcat_metadata(run_client, bootstrap)["brokers"]
                   == {1: f"{ip1}:{ext1}", 2: f"{ip2}:{ext2}"}, f"{bootstrap} listing both brokers")


@pytest.mark.lab
@needs_kcat
def test_zookeeper_mode_a_broker_without_the_controllers_inter_broker_listener_gets_no_metadata(
        standins, run_client, tmp_path):
    # real Kafka 3.9.2 (lab/tests/test_zookeeper_lab.py): a broker restarted with INTERNAL/EXTERNAL while the
    # controller still talks PLAINTEXT between brokers lists no broker at all, not even itself, and no controller
    state = tmp_path / "cluster"
    ip1, ip2 = "127.0.0.31", "127.0.0.32"
    old, ext2, int2 = free_port(ip1), free_port(ip2), free_port(ip2)
    standins.start("b1", plaintext_broker(1, {"PLAINTEXT": (ip1, old, ip1)}, "PLAINTEXT"), state)  # the controller
    kcat_produce(run_client, f"{ip1}:{old}", "named", ["x"])
    standins.start("b2", plaintext_broker(2, {"INTERNAL": (ip2, int2, ip2), "EXTERNAL": (ip2, ext2, ip2)},
                                          "INTERNAL"), state)
    wait_until(lambda: kcat_metadata(run_client, f"{ip1}:{old}")["controller"] == 1, "broker 1 as the controller")
    for listener_port in (int2, ext2):
        listing = run_client(["kcat", "-b", f"{ip2}:{listener_port}", "-L", "-m", "3"])
        assert listing.returncode != 0 and "Failed to acquire metadata: Local: Timed out" in listing.stderr, listing
        for auto_create, error in (("true", "Broker: Invalid replication factor"),
                                   ("false", "Broker: Unknown topic or partition")):
            named = run_client(["kcat", "-b", f"{ip2}:{listener_port}", "-L", "-J", "-m", "10", "-t", "named",
                                "-X", f"allow.auto.create.topics={auto_create}"])
            data = json.loads(named.stdout)
            assert (data["brokers"], data["controllerid"], data["topics"][0].get("error")) == ([], -1, error), data
    # the controller lists the brokers with an endpoint on the request's listener, as in KRaft mode
    assert kcat_metadata(run_client, f"{ip1}:{old}")["brokers"] == {1: f"{ip1}:{old}"}
    # with the controller's listener name kept, the restarted broker gets its metadata
    kept = free_port(ip2)
    standins.start("b3", plaintext_broker(3, {"PLAINTEXT": (ip2, kept, ip2)}, "PLAINTEXT"), state)
    seen = kcat_metadata(run_client, f"{ip2}:{kept}")
    assert (seen["brokers"], seen["controller"]) == ({1: f"{ip1}:{old}", 3: f"{ip2}:{kept}"}, 1), seen


@pytest.mark.lab
def test_kraft_controller_listener_serves_no_client_api(standins, tmp_path):
    broker_port, controller_port, controller_only_port = (free_port("127.0.0.1") for _ in range(3))
    voters = f"1@127.0.0.1:{controller_port},3000@127.0.0.1:{controller_only_port}"
    state = tmp_path / "cluster"
    standins.start(
        "combined",
        {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.voters": voters,
            "listeners": f"PLAINTEXT://127.0.0.1:{broker_port},CONTROLLER://127.0.0.1:{controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker_port}",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        },
        state,
    )
    controller_only = standins.start(
        "controller",
        {
            "process.roles": "controller",
            "node.id": "3000",
            "controller.quorum.voters": voters,
            "listeners": f"CONTROLLER://127.0.0.1:{controller_only_port}",
            "controller.listener.names": "CONTROLLER",
        },
        state,
    )
    assert controller_only.registration()["roles"] == ["controller"]

    # Controller listener: ApiVersions is answered (listing only itself), Metadata closes the connection.
    client = RawClient("127.0.0.1", controller_port)
    try:
        error, apis = read_api_versions_v0(client.call(18, 0))
        assert (error, apis) == (0, {18: (0, 3)})
        client.send(3, 8, metadata_v8_request(None))
        with pytest.raises(ConnectionError):
            client.receive()
    finally:
        client.close()

    # Broker listener: Metadata lists the live broker only (not the controller-only node) and names it controller.
    client = RawClient("127.0.0.1", broker_port)
    try:
        metadata = read_metadata_v8(client.call(3, 8, metadata_v8_request(None)))
    finally:
        client.close()
    assert metadata["brokers"] == {1: ("127.0.0.1", broker_port)}
    assert metadata["controller"] == 1


@pytest.mark.lab
@needs_kcat
def test_wire_details_clients_rely_on(standins, run_client, tmp_path):
    port = free_port("127.0.0.1")
    standins.start("b1", plaintext_broker(1, {"PLAINTEXT": ("127.0.0.1", port, "127.0.0.1")}, "PLAINTEXT"), tmp_path)
    topic = unique_topic("wire")
    client = RawClient("127.0.0.1", port)
    try:
        # An ApiVersions version the broker does not know: UNSUPPORTED_VERSION in the v0 layout (kafka-python's
        # first request), still listing the versions it does support.
        client.send(18, 4, kw.Writer().compact_string("t").compact_string("1").tagged_fields().getvalue(), 2)
        _corr, reader = client.receive()
        error, apis = read_api_versions_v0(reader)
        assert error == 35 and apis[18] == (0, 3), apis
        assert reader.at_end()

        # ApiVersions v3 advertises exactly the implemented APIs (compact array; header still v0).
        client.send(18, 3, kw.Writer().compact_string("t").compact_string("1").tagged_fields().getvalue(), 2)
        _corr, reader = client.receive()
        assert reader.int16() == 0
        apis = dict(reader.compact_array(lambda r: (r.int16(), (r.int16(), r.int16()), r.tagged_fields())[:2]))
        assert apis == {0: (3, 8), 1: (4, 11), 2: (1, 5), 3: (1, 8), 18: (0, 3), 22: (0, 1), 32: (1, 2)}

        # Auto-creation: the first answer is LEADER_NOT_AVAILABLE, the next one has the partition.
        first = read_metadata_v8(client.call(3, 8, metadata_v8_request([topic])))
        assert first["topics"] == [(topic, 5, [])]
        second = read_metadata_v8(client.call(3, 8, metadata_v8_request([topic])))
        assert second["topics"] == [(topic, 0, [(0, 0, 1)])]
        missing = read_metadata_v8(client.call(3, 8, metadata_v8_request(["absent"], allow_auto_create=False)))
        assert missing["topics"] == [("absent", 3, [])]

        # acks=0 produces get no response: the next response on the connection belongs to the next request.
        client.send(0, 7, produce_v7_request(topic, 0, record_batch([b"fire-and-forget"]), acks=0))
        metadata_correlation = client.send(3, 8, metadata_v8_request([topic]))
        correlation, _reader = client.receive()
        assert correlation == metadata_correlation
    finally:
        client.close()

    # A fetch at the end of the log waits (max_wait 10 min) and returns as soon as data arrives.
    fetcher = RawClient("127.0.0.1", port)
    try:
        fetch = sw.Writer().int32(-1).int32(600_000).int32(1).int32(1 << 20).int8(0).int32(0).int32(-1)
        fetch.array(
            [topic],
            lambda w, name: w.string(name).array(
                [0], lambda w2, p: w2.int32(p).int32(-1).int64(1).int64(-1).int32(1 << 20)
            ),
        )
        fetch.array([], None).string("")
        fetch_correlation = fetcher.send(1, 11, fetch.getvalue())
        kcat_produce(run_client, f"127.0.0.1:{port}", topic, ["wakes-the-fetch"])
        correlation, reader = fetcher.receive()  # socket timeout = hang guard, far below max_wait
        assert correlation == fetch_correlation
        reader.int32()
        assert (reader.int16(), reader.int32()) == (0, 0)

        def partition(r):
            index, error, high_watermark = r.int32(), r.int16(), r.int64()
            r.int64(), r.int64(), r.nullable_array(lambda x: (x.int64(), x.int64())), r.int32()
            return index, error, high_watermark, r.raw(r.int32())  # records: the client codec has no nullable bytes

        [(name, [(index, error, high_watermark, records)])] = reader.array(lambda r: (r.string(), r.array(partition)))
        assert (name, index, error, high_watermark) == (topic, 0, 0, 2)
        [(_pos, _size, header)] = sw.split_batches(records)
        assert header.base_offset == 1 and header.records_count == 1
    finally:
        fetcher.close()

    # The raw batch produced with acks=0 and kcat's own batch read back by a real consumer.
    assert kcat_consume(run_client, f"127.0.0.1:{port}", topic) == ["fire-and-forget", "wakes-the-fetch"]


@pytest.mark.lab
@pytest.mark.skipif(not rules_module_available(), reason="_kafka_rules (Kafka's startup rules) is not written yet")
def test_a_configuration_kafka_refuses_exits_before_binding(resolver_sandbox, standin_env, tmp_path):
    internal, external = free_port("127.0.0.1"), free_port("127.0.0.1")
    config = tmp_path / "server.properties"
    # INTERNAL/EXTERNAL without inter.broker.listener.name: Kafka's rule 11 refuses it.
    config.write_text(
        "broker.id=1\n"
        f"listeners=INTERNAL://127.0.0.1:{internal},EXTERNAL://127.0.0.1:{external}\n"
        f"advertised.listeners=INTERNAL://127.0.0.1:{internal},EXTERNAL://localhost:{external}\n"
        "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT\n",
        encoding="utf-8",
    )
    state = tmp_path / "state"
    result = subprocess.run(
        [*resolver_sandbox, sys.executable, str(STANDIN_PACKAGE), "--config", str(config), "--state-dir", str(state)],
        capture_output=True,
        text=True,
        env=standin_env,
        timeout=HANG_GUARD_S,
    )
    assert result.returncode != 0
    assert "ERROR Exiting Kafka due to fatal exception" in result.stderr
    assert "inter.broker.listener.name must be a listener name defined in advertised.listeners" in result.stderr
    assert not state.exists(), "the refused broker must not have created its state dir or registered"


def make_pki(folder):
    """A CA and a broker certificate for localhost/127.0.0.1, made with the openssl CLI."""

    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=HANG_GUARD_S)

    curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *curve, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=lab-ca")
    openssl("req", *curve, "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=localhost")
    (folder / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n", encoding="ascii")
    openssl(
        "x509", "-req", "-in", "broker.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "broker.crt", "-days", "2", "-extfile", "san.ext",
    )  # fmt: skip
    keystore = folder / "broker-keystore.pem"
    keystore.write_text(
        "".join((folder / name).read_text(encoding="ascii") for name in ("broker.key", "broker.crt", "ca.pem")),
        encoding="ascii",
    )
    return keystore, folder / "ca.pem"


def ssl_broker(tmp_path) -> tuple[dict[str, str], int, Path]:
    """A stand-in broker with one SSL listener on a free loopback port, advertised as localhost, its key store and
    CA made by make_pki under ``tmp_path/pki``: (properties, port, CA file)."""
    pki = tmp_path / "pki"
    pki.mkdir()
    keystore, ca = make_pki(pki)
    port = free_port("127.0.0.1")
    return {
        "broker.id": "1",
        "listeners": f"SSL://127.0.0.1:{port}",
        "advertised.listeners": f"SSL://localhost:{port}",
        "security.inter.broker.protocol": "SSL",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(keystore),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(ca),
    }, port, ca


@pytest.mark.lab
@needs_kcat
@pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl CLI is not installed")
def test_ssl_listener_round_trip_with_kcat(standins, run_client, tmp_path):
    props, port, ca = ssl_broker(tmp_path)
    # Started as a script directory, the other supported way to run the stand-in.
    standins.start("ssl", props, tmp_path / "state", as_directory=True)
    tls = ("-X", "security.protocol=SSL", "-X", f"ssl.ca.location={ca}")
    bootstrap, topic = f"localhost:{port}", unique_topic("tls")

    assert kcat_metadata(run_client, bootstrap, extra=tls)["brokers"] == {1: f"localhost:{port}"}
    kcat_produce(run_client, bootstrap, topic, ["over", "tls"], extra=tls)
    assert kcat_consume(run_client, bootstrap, topic, extra=tls) == ["over", "tls"]


@pytest.mark.lab
def test_describe_quorum_reports_a_stopped_voter_falling_behind(standins, tmp_path):
    from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_connection as kconn
    from ansible_collections.kafkaops.listeners.plugins.module_utils import _restart_gate as gate

    broker_port, *controller_ports = (free_port("127.0.0.1") for _ in range(4))
    voters = ",".join(f"{node}@127.0.0.1:{port}" for node, port in zip((1, 3001, 3002), controller_ports, strict=True))
    state = tmp_path / "cluster"
    standins.start("combined", {
        "process.roles": "broker,controller", "node.id": "1", "controller.quorum.voters": voters,
        "listeners": f"PLAINTEXT://127.0.0.1:{broker_port},CONTROLLER://127.0.0.1:{controller_ports[0]}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker_port}", "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"}, state)
    controllers = [standins.start(f"c{node}", {
        "process.roles": "controller", "node.id": str(node), "controller.quorum.voters": voters,
        "listeners": f"CONTROLLER://127.0.0.1:{port}", "controller.listener.names": "CONTROLLER"}, state)
        for node, port in ((3001, controller_ports[1]), (3002, controller_ports[2]))]

    def ask(node_id, stage):
        answer = kconn.fetch_metadata([f"127.0.0.1:{broker_port}"], HANG_GUARD_S, quorum=True)
        return answer, gate.restart_check(answer, node_id, stage, f"c{node_id}", checks=["quorum"])

    answer, check = ask(3001, "before_restart")
    assert answer["quorum"]["version"] == 1 and answer["quorum"]["leader_id"] == 1, answer
    assert [v["replica_id"] for v in answer["quorum"]["voters"]] == [1, 3001, 3002]
    assert check["ready"] and check["voter"] and check["quorum"]["caught_up_without"] == 2, check

    controllers[1].process.send_signal(signal.SIGTERM)
    controllers[1].process.wait(timeout=10)
    wait_until(lambda: not ask(3001, "before_restart")[1]["ready"], "controller 3002 to fall behind")
    check = ask(3001, "before_restart")[1]
    assert "without c3001 1 is caught up" in check["reason"], check["reason"]
    assert "node 3002 (" in check["reason"] and "behind leader 1" in check["reason"], check["reason"]
    # the voter that is down may itself restart (the two others keep the majority), and is not back while down
    assert ask(3002, "before_restart")[1]["ready"]
    assert not ask(3002, "after_restart")[1]["ready"]
    assert ask(3001, "after_restart")[1]["ready"]
