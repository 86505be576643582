"""The shared state directory of one stand-in cluster.

It stands in for both the cluster's membership registry (ZooKeeper / the KRaft quorum) and its replicated
storage: every broker of the cluster points at the same directory, so any live broker can serve any partition.

Layout::

    cluster.id                 the cluster id (written once by the first node)
    brokers/<node id>.json     a broker's registration (removed on clean shutdown)
    controllers/<node id>.json a KRaft controller's registration
    producer-ids               last producer id handed out (under a lock)
    topics/<topic>/topic.json  {"partitions": n}
    topics/<topic>/<p>.log     partition p: record batches as received, baseOffset rewritten
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import fcntl
import json
import os
import re
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

from . import wire as kw

# Kafka's legal topic names (org.apache.kafka.common.internals.Topic): also keeps names safe as file names.
_TOPIC_NAME_RE = re.compile(r"^[a-zA-Z0-9._-]+$")
MAX_TOPIC_NAME_LENGTH = 249


def topic_name_problem(name: str) -> str | None:
    """Why ``name`` is not a legal Kafka topic name, or None when it is."""
    if not name:
        return "topic name is empty"
    if name in (".", ".."):
        return f"topic name cannot be {name!r}"
    if len(name) > MAX_TOPIC_NAME_LENGTH:
        return f"topic name is longer than {MAX_TOPIC_NAME_LENGTH} characters"
    if not _TOPIC_NAME_RE.match(name):
        return f"topic name {name!r} has characters other than ASCII alphanumerics, '.', '_' and '-'"
    return None


@contextlib.contextmanager
def _locked(path: Path):
    """Hold an exclusive flock on ``path`` (created if missing) for the duration of the block."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@dataclass
class BatchIndexEntry:
    """Where one stored batch is and which offsets/timestamps it covers."""

    base_offset: int
    last_offset: int
    position: int
    size: int
    max_timestamp: int


class PartitionLog:
    """One partition's append-only log file, safe for appends from several processes (flock)."""

    def __init__(self, path: Path):
        self.path = path
        self._entries: list[BatchIndexEntry] = []
        self._last_offsets: list[int] = []
        self._scanned_to = 0
        # Appends run in worker threads while reads run on the event loop: one indexer at a time.
        self._mutex = threading.Lock()

    def _refresh(self) -> None:
        """Index batches appended since the last look (by this or another process)."""
        with self._mutex:
            self._refresh_locked()

    def _refresh_locked(self) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size <= self._scanned_to:
            return
        with open(self.path, "rb") as handle:
            handle.seek(self._scanned_to)
            data = handle.read(size - self._scanned_to)
        pos = 0
        # Appends write whole batches in one write(); stop at a batch that is not complete yet.
        while len(data) - pos >= kw.BATCH_HEADER_SIZE:
            header = kw.decode_batch_header(data, pos)
            total = kw.batch_total_size(header)
            if total < kw.BATCH_HEADER_SIZE or pos + total > len(data):
                break
            entry = BatchIndexEntry(
                header.base_offset, kw.batch_last_offset(header), self._scanned_to + pos, total, header.max_timestamp
            )
            self._entries.append(entry)
            self._last_offsets.append(entry.last_offset)
            pos += total
        self._scanned_to += pos

    def high_watermark(self) -> int:
        """Offset the next appended record will get (0 for an empty log)."""
        self._refresh()
        return self._entries[-1].last_offset + 1 if self._entries else 0

    @staticmethod
    def log_start_offset() -> int:
        """First offset kept: the stand-in never deletes data."""
        return 0

    def append(self, batches: list[bytes]) -> int:
        """Append v2 batches, giving them consecutive offsets; returns the first batch's new base offset."""
        with _locked(self.path.with_name(self.path.name + ".lock")):
            self._refresh()
            next_offset = self._entries[-1].last_offset + 1 if self._entries else 0
            first = next_offset
            out = []
            for batch in batches:
                header = kw.decode_batch_header(batch)
                out.append(kw.with_base_offset(batch, next_offset))
                next_offset += header.last_offset_delta + 1
            with open(self.path, "ab") as handle:
                handle.write(b"".join(out))
            return first

    def read(self, fetch_offset: int, max_bytes: int, at_least_one: bool) -> bytes:
        """Whole batches from the one holding ``fetch_offset`` on, at most ``max_bytes`` unless ``at_least_one``."""
        self._refresh()
        start = bisect.bisect_left(self._last_offsets, fetch_offset)
        chosen = []
        total = 0
        for entry in self._entries[start:]:
            if total + entry.size > max_bytes and (chosen or not at_least_one):
                break
            chosen.append(entry)
            total += entry.size
        if not chosen:
            return b""
        with open(self.path, "rb") as handle:
            handle.seek(chosen[0].position)
            return handle.read(total)

    def offset_for_timestamp(self, timestamp: int) -> tuple[int, int] | None:
        """(offset, timestamp) of the first batch holding a record at or after ``timestamp``, at batch granularity."""
        self._refresh()
        for entry in self._entries:
            if entry.max_timestamp >= timestamp:
                return entry.base_offset, entry.max_timestamp
        return None


class StateDir:
    """Registrations, topics and partition logs of one cluster, shared by all its stand-in processes."""

    def __init__(self, root: Path):
        self.root = root
        self.brokers_dir = root / "brokers"
        self.controllers_dir = root / "controllers"
        self.topics_dir = root / "topics"
        for directory in (root, self.brokers_dir, self.controllers_dir, self.topics_dir):
            directory.mkdir(parents=True, exist_ok=True)
        self._logs: dict[tuple[str, int], PartitionLog] = {}
        self._partition_counts: dict[str, int] = {}

    # -- cluster id and producer ids ----------------------------------------------------------------------------

    def cluster_id(self) -> str:
        """The cluster id, created on first use in Kafka's format (22 url-safe base64 characters)."""
        path = self.root / "cluster.id"
        with _locked(self.root / "cluster.id.lock"):
            if not path.exists():
                raw = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode("ascii").rstrip("=")
                _write_atomically(path, raw + "\n")
            return path.read_text(encoding="utf-8").strip()

    def next_producer_id(self) -> int:
        """A producer id unique across every broker of the cluster."""
        path = self.root / "producer-ids"
        with _locked(self.root / "producer-ids.lock"):
            last = int(path.read_text(encoding="utf-8").strip() or 0) if path.exists() else 0
            _write_atomically(path, f"{last + 1}\n")
            return last + 1

    # -- registrations -------------------------------------------------------------------------------------------

    def _registration_path(self, kind: str, node_id: int) -> Path:
        return (self.brokers_dir if kind == "broker" else self.controllers_dir) / f"{node_id}.json"

    def register(self, kind: str, registration: dict) -> Path:
        """Write (replace) the registration of a broker or controller; returns its path."""
        path = self._registration_path(kind, registration["node_id"])
        _write_atomically(path, json.dumps(registration, indent=2, sort_keys=True) + "\n")
        return path

    def unregister(self, kind: str, node_id: int, pid: int) -> None:
        """Remove a registration, but only if it is still the one written by process ``pid``."""
        path = self._registration_path(kind, node_id)
        try:
            current = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if current.get("pid") == pid:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def broker_registrations(self) -> list[dict]:
        """Every registered broker (live or not); unreadable files are skipped."""
        return self._registrations(self.brokers_dir)

    def controller_registrations(self) -> list[dict]:
        """Every registered controller-only node (live or not); a combined node registers as a broker."""
        return self._registrations(self.controllers_dir)

    @staticmethod
    def _registrations(folder: Path) -> list[dict]:
        registrations = []
        for path in sorted(folder.glob("*.json")):
            try:
                registrations.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue  # removed or being replaced right now
        return registrations

    # -- topics --------------------------------------------------------------------------------------------------

    def partition_count(self, topic: str) -> int | None:
        """Number of partitions of ``topic``, or None if it does not exist."""
        if topic in self._partition_counts:
            return self._partition_counts[topic]
        if topic_name_problem(topic):
            return None
        try:
            meta = json.loads((self.topics_dir / topic / "topic.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        self._partition_counts[topic] = int(meta["partitions"])
        return self._partition_counts[topic]

    def topics(self) -> list[str]:
        """Names of all existing topics, sorted."""
        return sorted(
            path.parent.name
            for path in self.topics_dir.glob("*/topic.json")
            if not topic_name_problem(path.parent.name)
        )

    def create_topic(self, topic: str, partitions: int) -> bool:
        """Create ``topic`` unless it exists; True if this call created it. The name must be legal."""
        problem = topic_name_problem(topic)
        if problem:
            raise ValueError(problem)
        with _locked(self.topics_dir / ".create.lock"):
            if self.partition_count(topic) is not None:
                return False
            (self.topics_dir / topic).mkdir(exist_ok=True)
            _write_atomically(self.topics_dir / topic / "topic.json", json.dumps({"partitions": partitions}) + "\n")
            return True

    def log(self, topic: str, partition: int) -> PartitionLog:
        """The log of an existing partition (caller checks existence)."""
        key = (topic, partition)
        if key not in self._logs:
            self._logs[key] = PartitionLog(self.topics_dir / topic / f"{partition}.log")
        return self._logs[key]
