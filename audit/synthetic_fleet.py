# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A synthetic fleet: broker records and probe history with injected faults, plus the truth table of the faults.

Cluster ``i`` follows scenario ``SCENARIOS[i % len(SCENARIOS)]``: one clean cluster, one per finding rule
(KL001-KL011), one with a past outage and one where the classic failure (the external listener advertising the
private name) was fixed by the last run, which closes its incident and leaves no finding. Clean configurations
come from the collection's planner, so a cluster without a fault produces no finding; each fault is injected into
the records the way it happens in a fleet (a missing DNS record, a firewall, a hand edit of server.properties,
facts the planner refuses), and the truth table lists the findings and incidents each fault must produce -
nothing is derived from the audit's own code.

Every client network probes every round; runs group ``rounds_per_run`` rounds; config faults start with the last
run, reachability faults halfway through the history, flapping inside the last ``flap_window_rounds``.

Usage: ``python audit/synthetic_fleet.py --out DIR [--clusters N | --probe-rows N] [--format F]``. A tool of the
audit's tests and benchmark beside the package, not part of it: the wheel does not ship it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import os
import shutil
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import parse_listener_list
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import listener_routes, plan_listeners
from kafka_listeners_audit.schema import CONFIG_COLUMNS, SCHEMA_VERSION

SCENARIOS = ("clean", "KL001", "KL002", "KL003", "KL004", "KL005", "KL006", "KL007", "KL008", "KL009", "KL010",
             "KL011", "outage", "fixed")
_SINGLE = frozenset(("KL002", "KL004", "KL006", "KL007", "outage"))
_KRAFT = frozenset(("KL001", "KL004", "KL008", "outage"))
SERIES_PER_CLUSTER = 12  # 3 brokers: 3 from the VPC client, 3 from the internet client, 6 broker -> peer
INTERNET, VPC, BROKERS = "internet", "vpc", "brokers"
LAPTOP = "laptop-1"
EPOCH = datetime(2026, 1, 5, tzinfo=UTC)

_US = 1_000_000
_PROBE_ARROW = pa.schema([
    ("schema_version", pa.int32()), ("run_id", pa.string()), ("observed_at", pa.timestamp("us", tz="UTC")),
    ("cluster", pa.string()), ("client", pa.string()), ("client_network", pa.string()), ("listener", pa.string()),
    ("endpoint_network", pa.string()), ("route", pa.string()), ("broker", pa.string()), ("node_id", pa.int64()),
    ("advertised_host", pa.string()),
    ("advertised_port", pa.int32()), ("bootstrap_ok", pa.bool_()), ("resolvable", pa.bool_()),
    ("addresses", pa.list_(pa.string())), ("connectable", pa.bool_()), ("error", pa.string()),
    ("elapsed_ms", pa.float64()), ("tls_verified", pa.bool_()), ("tls_outcome", pa.string()),
    ("authenticated", pa.bool_()), ("security_error", pa.string()),
])
_BROKER_ARROW = pa.schema([
    ("schema_version", pa.int32()), ("run_id", pa.string()), ("observed_at", pa.timestamp("us", tz="UTC")),
    ("cluster", pa.string()), ("broker", pa.string()), ("node_id", pa.int64()), ("provider", pa.string()),
    ("private_host", pa.string()), ("public_dns", pa.string()), ("public_ip", pa.string()),
    ("container_name", pa.string()), ("process_roles", pa.list_(pa.string())),
    *[(column, pa.string()) for column in CONFIG_COLUMNS.values()],
    ("other_config", pa.string()), ("external_checks", pa.string()), ("plan_options", pa.string()),
])


@dataclass(frozen=True)
class FleetSpec:
    """Size and timing of a synthetic fleet."""

    clusters: int = len(SCENARIOS)
    rounds: int = 24
    rounds_per_run: int = 6
    interval_s: int = 300
    flap_window_rounds: int = 12
    start: datetime = EPOCH

    def __post_init__(self):
        if self.clusters < 1:
            raise ValueError("clusters must be at least 1, got %d" % self.clusters)
        if self.rounds < 16:
            raise ValueError("rounds must be at least 16 (room for an outage, faults and flapping), got %d"
                             % self.rounds)
        if not 1 <= self.rounds_per_run <= self.rounds // 3:
            raise ValueError("rounds_per_run must be between 1 and rounds/3 (%d), got %d"
                             % (self.rounds // 3, self.rounds_per_run))
        if self.interval_s < 60:
            raise ValueError("interval_s must be at least 60 (probe offsets within a round), got %d" % self.interval_s)
        if not 10 <= self.flap_window_rounds < self.rounds:
            raise ValueError("flap_window_rounds must be between 10 and rounds-1, got %d" % self.flap_window_rounds)

    @property
    def last_run_round(self) -> int:
        """First round of the last run: where config faults start."""
        return (self.rounds - 1) // self.rounds_per_run * self.rounds_per_run

    @property
    def fault_round(self) -> int:
        """Round where reachability faults start."""
        return self.rounds // 2

    @property
    def outage_rounds(self) -> tuple:
        """Rounds [start, end) of the past outage."""
        first = self.rounds // 6
        return first, first + 3

    @property
    def flap_rounds(self) -> tuple:
        """Rounds in which the flapping endpoint is down: 6 state changes inside the flap window."""
        return self.rounds - 9, self.rounds - 7, self.rounds - 5

    @property
    def flap_window_s(self) -> int:
        return self.flap_window_rounds * self.interval_s

    def round_us(self, index: int) -> int:
        """Start of round ``index`` in microseconds since the epoch."""
        return int((self.start + timedelta(seconds=index * self.interval_s)).timestamp()) * _US


@dataclass
class Segment:
    """Probes of one series over rounds [first, end): an endpoint as one client saw it in one configuration."""

    client: str
    network: str
    broker: str
    node_id: int
    listener: str
    host: str
    port: int
    address: str
    offset_s: int
    first: int
    end: int
    down: dict = field(default_factory=dict)  # round -> "unresolvable" | "unconnectable"
    # from this round on the endpoint's certificate lacks its host (the other probes carry no TLS/SASL outcome,
    # as records from before those fields)
    name_mismatch_from: int | None = None


def _cluster_name(index: int, total: int) -> str:
    return "c%0*d" % (max(3, len(str(total - 1))), index)


def _facts(cluster: str, index: int) -> list:
    third, fourth = divmod(index, 250)
    return [{
        "name": "%s-b%d" % (cluster, number),
        "node_id": number,
        "private_host": "b%d.%s.vpc.internal" % (number, cluster),
        "public_dns": "b%d.%s.kafka.example.com" % (number, cluster),
        "public_ip": "198.19.%d.%d" % (third % 256, fourth + number),
    } for number in (1, 2, 3)]


def _options(scenario: str) -> dict:
    if scenario == "KL007":
        return {"mode": "auto"}  # the single-listener layout: one PLAINTEXT listener for everybody
    if scenario in _SINGLE:
        return {"mode": "auto", "single_listener_name": "CLIENT", "security_protocols": {"CLIENT": "SASL_SSL"}}
    return {"mode": "auto", "security_protocols": {"EXTERNAL": "SASL_SSL"}}


def _address(host: str, facts: list) -> str:
    if host == "localhost":
        return "127.0.0.1"
    for node in facts:
        if host == node["public_dns"]:
            return node["public_ip"]
        if host == node["private_host"]:
            return "198.18.%s" % node["public_ip"].split(".", 2)[2]
    raise ValueError("no address for %s" % host)


class _Cluster:
    """One cluster of the fleet: its facts, configs per run phase, probe segments and expected results."""

    def __init__(self, spec: FleetSpec, index: int):
        self.spec = spec
        self.scenario = SCENARIOS[index % len(SCENARIOS)]
        self.name = _cluster_name(index, spec.clusters)
        kraft = self.scenario in _KRAFT
        self.facts = _facts(self.name, index)
        for node in self.facts:
            node["process_roles"] = ["broker", "controller"] if kraft else []
        resolvable = self.scenario in _SINGLE  # split-horizon DNS: single, else dual
        for node in self.facts:
            node["external_checks"] = {other["public_dns"]: {"resolvable": resolvable, "connectable": resolvable}
                                       for other in self.facts}
        self.options = _options(self.scenario)
        plan = plan_listeners(self.facts, self.options)
        self.plan = {node["name"]: node for node in plan["brokers"]}
        self.routes = listener_routes(plan)  # the probe records' endpoint network and route of each listener
        self.config = {name: dict(node["properties"]) for name, node in self.plan.items()}
        self.last_config = {name: dict(props) for name, props in self.config.items()}
        self.last_facts = [dict(node) for node in self.facts]
        self.expected_findings: list = []
        self.expected_incidents: list = []
        self.segments: list = []
        self._inject_config_faults()
        self._build_segments()
        self._close_unprobed()

    # -- faults in the last run's records -------------------------------------------------------------------

    def _broker(self, number: int) -> str:
        return "%s-b%d" % (self.name, number)

    def _finding(self, rule_id, broker=None, listener=None, endpoint=None, client_network=None, subject=None):
        self.expected_findings.append({"rule_id": rule_id, "cluster": self.name, "broker": broker,
                                       "listener": listener, "endpoint": endpoint, "client_network": client_network,
                                       "subject": subject})

    def _inject_config_faults(self) -> None:
        scenario = self.scenario
        b2, b3 = self._broker(2), self._broker(3)
        if scenario == "KL003":  # a hand edit advertises localhost on the external listener
            props = self.last_config[b3]
            props["advertised.listeners"] = props["advertised.listeners"].replace(
                "EXTERNAL://%s:" % self.facts[2]["public_dns"], "EXTERNAL://localhost:")
            self._finding("KL003", b3, "EXTERNAL", "localhost:9092", INTERNET)
            self._finding("KL006", b3, subject="advertised.listeners")
        elif scenario == "KL004":  # b3's file was copied from b2
            self.last_config[b3]["advertised.listeners"] = self.config[b2]["advertised.listeners"]
            endpoint = "%s:9092" % self.facts[1]["public_dns"]
            self._finding("KL004", b2, "CLIENT", endpoint)
            self._finding("KL004", b3, "CLIENT", endpoint)
            self._finding("KL006", b3, subject="advertised.listeners")
        elif scenario == "KL006":  # a harmless but unplanned protocol map entry
            self.last_config[b2]["listener.security.protocol.map"] += ",REPLICATION:SSL"
            self._finding("KL006", b2, subject="listener.security.protocol.map")
        elif scenario == "KL009":  # INTERNAL/EXTERNAL without inter.broker.listener.name: Kafka refuses it
            self.last_config[b2]["inter.broker.listener.name"] = None
            self._finding("KL009", b2, subject="R11")
            self._finding("KL006", b2, subject="inter.broker.listener.name")
        elif scenario == "KL010":  # instance metadata returned no private host this time
            self.last_facts[2]["private_host"] = None
            self._finding("KL010")
        elif scenario == "fixed":  # before the last run, b1 advertised its private name on the external listener
            b1 = self._broker(1)
            self.config[b1]["advertised.listeners"] = self.config[b1]["advertised.listeners"].replace(
                "EXTERNAL://%s:" % self.facts[0]["public_dns"], "EXTERNAL://%s:" % self.facts[0]["private_host"])
        elif scenario == "KL007":
            for node in self.facts:
                self._finding("KL007", node["name"], "PLAINTEXT", "%s:9092" % node["public_dns"], INTERNET)

    # -- probe history ----------------------------------------------------------------------------------------

    def _endpoint(self, config: dict, broker: str, listener: str) -> tuple:
        for endpoint in parse_listener_list(config[broker]["advertised.listeners"]):
            if endpoint.listener == listener:
                return endpoint.host, endpoint.port
        raise ValueError("%s advertises no %s" % (broker, listener))

    def _series(self) -> list:
        """(client, network, target broker, listener) of every series, in a fixed order."""
        single = self.scenario in _SINGLE
        client_listener = "PLAINTEXT" if self.scenario == "KL007" else "CLIENT"
        internal = client_listener if single else "INTERNAL"
        external = client_listener if single else "EXTERNAL"
        names = [node["name"] for node in self.facts]
        series = [("%s-vpc-client" % self.name, VPC, name, internal) for name in names]
        series += [(LAPTOP, INTERNET, name, external) for name in names]
        series += [(peer, BROKERS, name, internal) for name in names for peer in names if peer != name]
        return series

    def _build_segments(self) -> None:
        spec, last = self.spec, self.spec.last_run_round
        node_ids = {node["name"]: node["node_id"] for node in self.facts}
        for number, (client, network, broker, listener) in enumerate(self._series()):
            offset = 1 + 2 * number  # probes of one round are spread over its first seconds
            host, port = self._endpoint(self.config, broker, listener)
            last_host, last_port = self._endpoint(self.last_config, broker, listener)
            target_down = self.scenario == "KL009" and broker == self._broker(2)
            if (last_host, last_port) == (host, port) and not target_down:
                spans = [(0, spec.rounds, host, port)]
            else:
                spans = [(0, last, host, port)]
                if not target_down:  # a broker Kafka refuses to start is absent from Metadata: nobody probes it
                    spans.append((last, spec.rounds, last_host, last_port))
            for first, end, seg_host, seg_port in spans:
                segment = Segment(client, network, broker, node_ids[broker], listener, seg_host, seg_port,
                                  _address(seg_host, self.facts), offset, first, end)
                self._inject_probe_faults(segment)
                self.segments.append(segment)

    def _down(self, segment: Segment, rounds, kind: str) -> None:
        """Mark ``rounds`` of ``segment`` down and record the incidents that must come out of them."""
        rounds = sorted(r for r in rounds if segment.first <= r < segment.end)
        for r in rounds:
            segment.down[r] = kind
        self._expect_incidents(segment, set(segment.down))

    def _expect_incidents(self, segment: Segment, failing: set) -> None:
        """Record the incidents of ``segment``'s ``failing`` rounds (down, or reached with TLS or SASL refused)."""
        spec = self.spec
        start = None
        for r in range(segment.first, segment.end + 1):
            is_down = r in failing
            if is_down and start is None:
                start = r
            elif not is_down and start is not None:
                if r < segment.end:  # reachable again
                    end, reason = _iso(spec.round_us(r) + segment.offset_s * _US), "recovered"
                elif r < spec.rounds:  # no longer advertised: closed by the client's next run (see _close_unprobed)
                    end, reason = None, "no_longer_advertised"
                else:
                    end, reason = None, None
                self.expected_incidents.append({
                    "cluster": self.name, "broker": segment.broker, "listener": segment.listener,
                    "advertised_host": segment.host, "advertised_port": segment.port,
                    "client_network": segment.network, "client": segment.client,
                    "start": _iso(spec.round_us(start) + segment.offset_s * _US),
                    "end": end, "end_reason": reason, "_unprobed_from": r if reason == "no_longer_advertised" else None,
                })
                start = None

    def _close_unprobed(self) -> None:
        """An incident of an endpoint that stops being probed ends at the first probe of its client's next run."""
        for incident in self.expected_incidents:
            first_round = incident.pop("_unprobed_from")
            if first_round is None:
                continue
            offsets = [seg.offset_s for seg in self.segments
                       if seg.client == incident["client"] and seg.first <= first_round < seg.end]
            if offsets:
                incident["end"] = _iso(self.spec.round_us(first_round) + min(offsets) * _US)
            else:  # the client probes nothing any more: the incident cannot be closed
                incident["end_reason"] = None

    def _inject_probe_faults(self, seg: Segment) -> None:
        spec, scenario = self.spec, self.scenario
        b1, b2, b3 = self._broker(1), self._broker(2), self._broker(3)
        endpoint = "%s:%d" % (seg.host, seg.port)
        after_fault = range(spec.fault_round, spec.rounds)
        if scenario == "KL001" and seg.network == INTERNET and seg.broker == b2:  # no public DNS record any more
            self._down(seg, after_fault, "unresolvable")
            self._finding("KL001", b2, seg.listener, endpoint, INTERNET)
        elif scenario == "KL002" and seg.network == INTERNET and seg.broker == b1:  # a security group change
            self._down(seg, after_fault, "unconnectable")
            self._finding("KL002", b1, seg.listener, endpoint, INTERNET)
        elif scenario == "KL003" and seg.network == INTERNET and seg.broker == b3 and seg.host == "localhost":
            self._down(seg, range(seg.first, seg.end), "unconnectable")  # the laptop runs no Kafka
        elif scenario == "KL005" and seg.network == BROKERS and seg.broker == b1:  # private zone lost b1's record
            self._down(seg, after_fault, "unresolvable")
            if seg.client == b2:
                self._finding("KL005", b1, seg.listener, endpoint, BROKERS)
        elif scenario == "KL011" and seg.network == INTERNET and seg.broker == b3:  # a stop/start renamed b3
            seg.name_mismatch_from = spec.fault_round
            self._expect_incidents(seg, set(range(max(seg.first, spec.fault_round), seg.end)))  # refused: unusable
            self._finding("KL011", b3, seg.listener, endpoint, INTERNET, subject="name_mismatch")
        elif scenario == "KL008" and seg.network == INTERNET and seg.broker == b1:
            self._down(seg, spec.flap_rounds, "unconnectable")
            self._finding("KL008", b1, seg.listener, endpoint, INTERNET)
        elif scenario == "fixed" and seg.network == INTERNET and seg.host == self.facts[0]["private_host"]:
            self._down(seg, range(seg.first, seg.end), "unresolvable")  # ends when the last run advertises the fix
        elif scenario == "outage" and seg.network == VPC and seg.broker == b1:
            self._down(seg, range(*spec.outage_rounds), "unconnectable")
        elif scenario == "KL004" and seg.broker == b3 and seg.first == spec.last_run_round:
            pass  # b3's copied endpoint is b2's: it resolves and connects (to the wrong broker)

    # -- records ------------------------------------------------------------------------------------------------

    def broker_rows(self) -> list:
        spec = self.spec
        runs = math.ceil(spec.rounds / spec.rounds_per_run)
        rows = []
        for run in range(runs):
            last = run == runs - 1
            facts = self.last_facts if last else self.facts
            config = self.last_config if last else self.config
            for number, node in enumerate(facts):
                props = config[node["name"]]
                rows.append({
                    "schema_version": SCHEMA_VERSION,
                    "run_id": "run-%04d" % run,
                    "observed_at": spec.round_us(run * spec.rounds_per_run) + number * _US,
                    "cluster": self.name,
                    "broker": node["name"],
                    "node_id": node["node_id"],
                    "provider": "aws",
                    "private_host": node["private_host"],
                    "public_dns": node["public_dns"],
                    "public_ip": node["public_ip"],
                    "container_name": None,
                    "process_roles": node["process_roles"],
                    **{column: props.get(key) for key, column in CONFIG_COLUMNS.items()},
                    "other_config": None,
                    "external_checks": json.dumps(node["external_checks"], sort_keys=True),
                    "plan_options": json.dumps(self.options, sort_keys=True),
                })
        return rows


def _iso(micros: int) -> str:
    return datetime.fromtimestamp(micros / _US, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_MISMATCH_TEXT = "TLS certificate verification failed for %s: the host is not among the certificate's names"


def _error_text(kind: str, host: str, port: int) -> str:
    if kind == "unresolvable":
        return "Failed to resolve '%s:%d': Name or service not known" % (host, port)
    return "Connection to %s:%d failed: Connection refused" % (host, port)


def probe_table(spec: FleetSpec, clusters: list) -> pa.Table:
    """The probe records of ``clusters`` as one Arrow table (columns built with numpy, not row by row)."""
    columns: dict = {name: [] for name in _PROBE_ARROW.names}
    address_values, address_counts = [], []
    round_us = np.array([spec.round_us(r) for r in range(spec.rounds + 1)], dtype=np.int64)
    for cluster in clusters:
        for seg in cluster.segments:
            rounds = np.arange(seg.first, seg.end)
            count = len(rounds)
            unresolvable = np.array([seg.down.get(r) == "unresolvable" for r in rounds], dtype=bool)
            down = np.array([r in seg.down for r in rounds], dtype=bool)
            run_ids = np.char.add("run-", np.char.zfill((rounds // spec.rounds_per_run).astype(str), 4))
            columns["run_id"].append(run_ids.astype(object))
            columns["observed_at"].append(round_us[rounds] + seg.offset_s * _US)
            for name, value in (("cluster", cluster.name), ("client", seg.client), ("client_network", seg.network),
                                ("listener", seg.listener), ("broker", seg.broker), ("advertised_host", seg.host)):
                columns[name].append(np.full(count, value, dtype=object))
            route = cluster.routes.get(seg.listener, {})
            for name in ("endpoint_network", "route"):
                columns[name].append(np.full(count, route.get(name), dtype=object))
            columns["node_id"].append(np.full(count, seg.node_id, dtype=np.int64))
            columns["advertised_port"].append(np.full(count, seg.port, dtype=np.int32))
            columns["bootstrap_ok"].append(np.ones(count, dtype=bool))
            columns["resolvable"].append(~unresolvable)
            columns["connectable"].append(~down)
            kinds = {kind for kind in seg.down.values()}
            errors = np.full(count, None, dtype=object)
            for kind in kinds:
                mask = np.array([seg.down.get(r) == kind for r in rounds], dtype=bool)
                errors[mask] = _error_text(kind, seg.host, seg.port)
            columns["error"].append(errors)
            columns["elapsed_ms"].append(0.6 + ((rounds * 7 + seg.offset_s) % 40) / 10.0 + down * 3000.0)
            mismatch = (rounds >= seg.name_mismatch_from if seg.name_mismatch_from is not None
                        else np.zeros(count, dtype=bool))
            for name, value in (("tls_verified", False), ("tls_outcome", "name_mismatch"),
                                ("security_error", _MISMATCH_TEXT % seg.host)):
                values = np.full(count, None, dtype=object)
                values[mismatch] = value
                columns[name].append(values)
            columns["authenticated"].append(np.full(count, None, dtype=object))
            address_counts.append((~unresolvable).astype(np.int32))
            address_values.append(np.full(int((~unresolvable).sum()), seg.address, dtype=object))
    total = sum(len(chunk) for chunk in columns["observed_at"])
    arrays = {name: np.concatenate(chunks) for name, chunks in columns.items() if chunks}
    arrays["schema_version"] = np.full(total, SCHEMA_VERSION, dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum(np.concatenate(address_counts))]).astype(np.int32)
    addresses = pa.ListArray.from_arrays(pa.array(offsets), pa.array(np.concatenate(address_values), pa.string()))
    fields = []
    for item in _PROBE_ARROW:
        if item.name == "addresses":
            fields.append(addresses)
        else:
            fields.append(pa.array(arrays[item.name], type=item.type))
    return pa.Table.from_arrays(fields, schema=_PROBE_ARROW)


def broker_table(clusters: list) -> pa.Table:
    """The broker records of ``clusters`` as one Arrow table."""
    rows = [row for cluster in clusters for row in cluster.broker_rows()]
    return pa.Table.from_pylist(rows, schema=_BROKER_ARROW)


def build_fleet(spec: FleetSpec, cluster_indexes=None) -> list:
    """The clusters of the fleet (all, or those of ``cluster_indexes``), each with segments and expectations."""
    indexes = range(spec.clusters) if cluster_indexes is None else cluster_indexes
    return [_Cluster(spec, index) for index in indexes]


def truth_table(spec: FleetSpec, clusters: list) -> dict:
    """What the audit must report for ``clusters``: the findings (by identity) and the incidents."""
    return {
        "spec": {"clusters": spec.clusters, "rounds": spec.rounds, "rounds_per_run": spec.rounds_per_run,
                 "interval_s": spec.interval_s, "flap_window_s": spec.flap_window_s, "start": _iso(spec.round_us(0))},
        "findings": [item for cluster in clusters for item in cluster.expected_findings],
        "incidents": [item for cluster in clusters for item in cluster.expected_incidents],
    }


def _write_json_lines(table: pa.Table, handle) -> None:
    for batch in table.to_batches(max_chunksize=65536):
        lines = []
        for row in batch.to_pylist():
            row["observed_at"] = row["observed_at"].strftime("%Y-%m-%dT%H:%M:%SZ")
            lines.append(json.dumps(row, separators=(",", ":")))
        handle.write("\n".join(lines) + "\n")


def write_fleet(spec: FleetSpec, out: str, fmt: str = "json", chunk_clusters: int = 250, progress=None,
                processes: int = 1) -> dict:
    """Generate the fleet into ``out`` (``brokers.jsonl``/``probes.jsonl`` or ``brokers.parquet``/
    ``probes.parquet``, and ``truth.json``), ``chunk_clusters`` clusters at a time to bound memory. With
    ``processes`` above 1, that many processes each generate a contiguous share of the clusters into files of their
    own, joined in cluster order afterwards: the same records in the same order (each cluster depends only on its
    index), in about 1/processes of the time on as many cores.

    Returns ``{"brokers": path, "probes": path, "truth": path, "probe_rows": n, "broker_rows": n}``.
    """
    if fmt not in ("json", "parquet"):
        raise ValueError("format must be json or parquet, got %r" % fmt)
    os.makedirs(out, exist_ok=True)
    suffix = "jsonl" if fmt == "json" else "parquet"
    paths = {name: os.path.join(out, "%s.%s" % (name, suffix)) for name in ("brokers", "probes")}
    paths["truth"] = os.path.join(out, "truth.json")
    shares = max(1, min(processes, spec.clusters))
    bounds = [spec.clusters * share // shares for share in range(shares + 1)]
    if shares == 1:
        parts = [_write_clusters(spec, paths, fmt, range(spec.clusters), chunk_clusters, progress)]
    else:
        part_paths = [{name: "%s.part%d" % (paths[name], share) for name in ("brokers", "probes")}
                      for share in range(shares)]
        with multiprocessing.get_context("fork").Pool(shares) as pool:
            parts = pool.starmap(_write_clusters, [
                (spec, part_paths[share], fmt, range(bounds[share], bounds[share + 1]), chunk_clusters)
                for share in range(shares)])
        for name in ("brokers", "probes"):
            _join([part[name] for part in part_paths], paths[name], fmt)
    truth = {"findings": [item for part in parts for item in part["findings"]],
             "incidents": [item for part in parts for item in part["incidents"]],
             "spec": truth_table(spec, [])["spec"]}
    with open(paths["truth"], "w", encoding="utf-8") as handle:
        json.dump(truth, handle, indent=1, sort_keys=True)
    return {**paths, "probe_rows": sum(part["probe_rows"] for part in parts),
            "broker_rows": sum(part["broker_rows"] for part in parts)}


def _write_clusters(spec: FleetSpec, paths: dict, fmt: str, indexes: range, chunk_clusters: int,
                    progress=None) -> dict:
    """Write the clusters of ``indexes`` into ``paths`` (brokers and probes), ``chunk_clusters`` at a time; their
    truth table and row counts."""
    found: dict = {"findings": [], "incidents": [], "probe_rows": 0, "broker_rows": 0}
    with contextlib.ExitStack() as stack:
        writers: dict = {}
        for first in range(indexes.start, indexes.stop, chunk_clusters):
            clusters = build_fleet(spec, range(first, min(indexes.stop, first + chunk_clusters)))
            for name, table in (("brokers", broker_table(clusters)), ("probes", probe_table(spec, clusters))):
                found[{"brokers": "broker_rows", "probes": "probe_rows"}[name]] += table.num_rows
                if fmt == "parquet":
                    if name not in writers:
                        writers[name] = stack.enter_context(pq.ParquetWriter(paths[name], table.schema))
                    writers[name].write_table(table)
                else:
                    with open(paths[name], "a" if first > indexes.start else "w", encoding="utf-8") as handle:
                        _write_json_lines(table, handle)
            part = truth_table(spec, clusters)
            found["findings"] += part["findings"]
            found["incidents"] += part["incidents"]
            if progress:
                progress("generated %d of %d clusters" % (min(indexes.stop, first + chunk_clusters), spec.clusters))
    return found


def _join(parts: list, path: str, fmt: str) -> None:
    """Join the files ``parts`` into ``path`` in order (Parquet row group by row group) and remove them."""
    if fmt == "json":
        with open(path, "wb") as joined:
            for part in parts:
                with open(part, "rb") as handle:
                    shutil.copyfileobj(handle, joined, 16 * 2**20)
    else:
        with pq.ParquetWriter(path, pq.read_schema(parts[0])) as joined:
            for part in parts:
                source = pq.ParquetFile(part)
                for group in range(source.num_row_groups):
                    joined.write_table(source.read_row_group(group))
    for part in parts:
        os.remove(part)


def clusters_for_probe_rows(probe_rows: int, rounds: int) -> int:
    """How many clusters give about ``probe_rows`` probe records over ``rounds`` rounds."""
    return max(1, math.ceil(probe_rows / (SERIES_PER_CLUSTER * rounds)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python audit/synthetic_fleet.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for brokers/probes records and truth.json")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--clusters", type=int, help="number of clusters (default: one per scenario)")
    size.add_argument("--probe-rows", type=int, help="size the fleet for about this many probe records")
    parser.add_argument("--rounds", type=int, default=24, help="probe rounds in the history (default 24)")
    parser.add_argument("--rounds-per-run", type=int, default=6, help="probe rounds per verify run (default 6)")
    parser.add_argument("--interval", type=int, default=300, help="seconds between probe rounds (default 300)")
    parser.add_argument("--format", choices=("json", "parquet"), default="json", help="record format")
    parser.add_argument("--processes", type=int, default=1,
                        help="processes that generate a share of the clusters each (default 1)")
    args = parser.parse_args(argv)
    clusters = args.clusters or (clusters_for_probe_rows(args.probe_rows, args.rounds) if args.probe_rows
                                 else len(SCENARIOS))
    try:
        spec = FleetSpec(clusters=clusters, rounds=args.rounds, rounds_per_run=args.rounds_per_run,
                         interval_s=args.interval)
    except ValueError as exc:
        parser.error(str(exc))
    if args.processes < 1:
        parser.error("--processes must be at least 1, got %d" % args.processes)
    result = write_fleet(spec, args.out, args.format, progress=lambda line: print(line, file=sys.stderr),
                         processes=args.processes)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
