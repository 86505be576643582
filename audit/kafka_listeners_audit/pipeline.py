# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The whole audit as one composition of transformations: records in, findings and incidents out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pyspark.sql import DataFrame

from kafka_listeners_audit.findings import broker_findings, flapping_findings, probe_findings, union_findings
from kafka_listeners_audit.incidents import incidents_closed_when_unprobed, order_incidents
from kafka_listeners_audit.keeping import keep, release
from kafka_listeners_audit.transforms import (
    PROBE_RUN_KEYS,
    classify_probes,
    current_probes_of,
    evaluate_brokers,
    evaluate_rows,
    islands_of,
    latest_broker_snapshot,
    newest_runs,
    probe_series,
    probes_to_sort,
    run_spans,
)

PROBE_COLUMNS = ("run_id", "observed_at", "cluster", "client", "client_network", "listener", "endpoint_network",
                 "route", "broker", "advertised_host", "advertised_port", "bootstrap_ok", "resolvable", "connectable",
                 "error", "tls_verified", "tls_outcome", "authenticated", "security_error")
"""The columns of the probe records the audit reads (not ``addresses``, ``elapsed_ms``, ``node_id`` and
``schema_version``, which the reading pass checks): a read may leave the others out, e.g. of the records it keeps."""


@dataclass(frozen=True)
class AuditSettings:
    """Tunables of the rules: which client networks are the internet (KL007) and what counts as flapping (KL008)."""

    internet_networks: tuple = ("internet",)
    flap_changes: int = 4
    flap_window_s: float = 3600.0
    as_of: datetime | None = None


@dataclass
class AuditFrames:
    """The audit's frames. ``evaluated``, ``classified`` and ``islands`` are reused by several outputs;
    ``persisted`` lists the frames :func:`audit_frames` kept (those three and the intermediate frames read twice;
    :func:`~kafka_listeners_audit.keeping.keep`), for :meth:`unpersist`."""

    evaluated: DataFrame
    classified: DataFrame
    islands: DataFrame
    findings: DataFrame
    incidents: DataFrame
    persisted: tuple = ()

    def unpersist(self) -> None:
        """Drop the rows kept for :attr:`persisted`."""
        for frame in self.persisted:
            release(frame)


def evaluated_brokers(brokers: DataFrame, in_driver: bool = False) -> DataFrame:
    """The latest broker snapshot of every cluster, evaluated by the collection's planner and rule checker (in
    this process with ``in_driver``: see :func:`~kafka_listeners_audit.transforms.evaluate_brokers`)."""
    return evaluate_brokers(brokers.transform(latest_broker_snapshot), in_driver)


DRIVER_BROKERS = 50_000
"""A latest broker snapshot of at most this many brokers is evaluated in the driver's Python process by
:func:`evaluated_brokers_here_if_small` (a few seconds of one core; the collected rows take some hundred MB)."""


def evaluated_brokers_here_if_small(brokers: DataFrame, limit: int = DRIVER_BROKERS) -> tuple:
    """(evaluated, in_driver): :func:`evaluated_brokers` of ``brokers``, evaluated in this process when the latest
    snapshot has at most ``limit`` brokers (an action, run now: it collects up to ``limit`` + 1 rows), else in
    Python workers (``in_driver`` False). Starting workers that import pandas and the collection costs more CPU
    than evaluating thousands of brokers, and on a few cores it is taken from the pass over the probe history."""
    snapshot = brokers.transform(latest_broker_snapshot)
    rows = snapshot.limit(limit + 1).collect()
    if len(rows) <= limit:
        return evaluate_rows(brokers.sparkSession, rows), True
    return evaluate_brokers(snapshot), False


def audit_frames(brokers: DataFrame, probes: DataFrame, settings: AuditSettings, persist: bool = False,
                 evaluated: DataFrame | None = None, runs: DataFrame | None = None,
                 in_driver: bool = False) -> AuditFrames:
    """Compose the audit over ``brokers`` and ``probes`` (frames of the record schemas).

    With ``persist``, the frames read more than once are kept (:func:`~kafka_listeners_audit.keeping.keep`, memory
    spilling to disk), so each is computed once: the evaluated brokers, the probe series, the clients' runs, the
    probes to sort, the current probes (classify_probes reads them twice), the classified probes and the islands.
    ``evaluated``, when given, is :func:`evaluated_brokers` of ``brokers`` as the caller already has it (and keeps,
    if it wants to); so is ``runs``, the clients' runs (:func:`run_spans` of ``probes`` by :data:`PROBE_RUN_KEYS`,
    e.g. computed by the pass that checked the probes). ``in_driver``: the collection's Python code (the brokers'
    evaluation and the host classes) runs in this process, not in Python workers, for a fleet small enough to
    collect.
    """
    persisted: list = []

    def shared(frame: DataFrame) -> DataFrame:
        if persist:
            frame = keep(frame, eager=True)
            persisted.append(frame)
        return frame

    evaluated = shared(evaluated_brokers(brokers, in_driver)) if evaluated is None else evaluated
    # the history is read three times: for the clients' runs (unless the caller has them), for the probe series
    # and, once, for the few probes that are sorted (the latest runs' for the current probes, the changing series'
    # for the islands); the runs also close the incidents of endpoints no longer advertised
    series = shared(probes.transform(probe_series))
    runs = shared(probes.transform(run_spans(PROBE_RUN_KEYS))) if runs is None else runs
    latest = runs.transform(newest_runs(PROBE_RUN_KEYS))
    selected = shared(probes.transform(probes_to_sort(latest, series)))
    current = shared(selected.transform(current_probes_of))
    classified = shared(current.transform(classify_probes(evaluated, settings.internet_networks, in_driver)))
    islands = shared(selected.transform(islands_of(series)))
    findings = union_findings([
        classified.transform(probe_findings()),
        evaluated.transform(broker_findings()),
        islands.transform(flapping_findings(settings.flap_changes, settings.flap_window_s, settings.as_of)),
    ])
    incidents = islands.transform(incidents_closed_when_unprobed(current, runs)).transform(order_incidents)
    return AuditFrames(evaluated, classified, islands, findings, incidents, tuple(persisted))
