# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The whole audit as one composition of transformations: records in, findings and incidents out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pyspark.sql import DataFrame

from kafka_listeners_audit.findings import (
    drift_findings,
    duplicate_endpoint_findings,
    flapping_findings,
    plaintext_exposure_findings,
    plan_unavailable_findings,
    reachability_findings,
    startup_rule_findings,
    union_findings,
)
from kafka_listeners_audit.incidents import incidents_from_islands, order_incidents
from kafka_listeners_audit.transforms import (
    classify_probes,
    current_probes,
    evaluate_brokers,
    latest_broker_snapshot,
    state_islands,
)


@dataclass(frozen=True)
class AuditSettings:
    """Tunables of the rules: which client networks are the internet (KL007) and what counts as flapping (KL008)."""

    internet_networks: tuple = ("internet",)
    flap_changes: int = 4
    flap_window_s: float = 3600.0
    as_of: datetime | None = None


@dataclass
class AuditFrames:
    """The audit's frames. ``evaluated``, ``classified`` and ``islands`` are reused by several outputs: persist
    them when running more than one action."""

    evaluated: DataFrame
    classified: DataFrame
    islands: DataFrame
    findings: DataFrame
    incidents: DataFrame


def audit_frames(brokers: DataFrame, probes: DataFrame, settings: AuditSettings, persist: bool = False) -> AuditFrames:
    """Compose the audit over ``brokers`` and ``probes`` (frames of the record schemas).

    With ``persist``, the frames several outputs share are persisted (memory, spilling to disk) so the history
    is sorted once.
    """
    evaluated = brokers.transform(latest_broker_snapshot).transform(evaluate_brokers)
    if persist:
        evaluated = evaluated.persist()
    classified = probes.transform(current_probes).transform(classify_probes(evaluated, settings.internet_networks))
    islands = probes.transform(state_islands)
    if persist:
        classified, islands = classified.persist(), islands.persist()
    findings = union_findings([
        classified.transform(reachability_findings),
        classified.transform(plaintext_exposure_findings),
        evaluated.transform(duplicate_endpoint_findings),
        evaluated.transform(drift_findings),
        evaluated.transform(startup_rule_findings),
        evaluated.transform(plan_unavailable_findings),
        islands.transform(flapping_findings(settings.flap_changes, settings.flap_window_s, settings.as_of)),
    ])
    incidents = islands.transform(incidents_from_islands).transform(order_incidents)
    return AuditFrames(evaluated, classified, islands, findings, incidents)
