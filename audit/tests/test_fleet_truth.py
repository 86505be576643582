# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The whole audit on a generated fleet: the findings and incidents it writes equal the injected faults exactly."""

import json
import os
from datetime import UTC

import pyarrow.parquet as pq
import pytest
from synthetic_fleet import SCENARIOS

from kafka_listeners_audit.rules import RULES
from kafka_listeners_audit.schema import FINDING_IDENTITY, SERIES_COLUMNS


@pytest.fixture(scope="module")
def truth_and_outputs(small_fleet, audited_fleet):
    with open(small_fleet["truth"], encoding="utf-8") as handle:
        truth = json.load(handle)
    out = audited_fleet["out"]
    findings = pq.read_table(os.path.join(out, "findings.parquet")).to_pylist()
    incidents = pq.read_table(os.path.join(out, "incidents.parquet")).to_pylist()
    return truth, findings, incidents


def _precision_recall(found, expected):
    hits = len(found & expected)
    return hits / len(found) if found else 1.0, hits / len(expected) if expected else 1.0


def test_the_fleet_injects_every_rule(truth_and_outputs):
    truth, _findings, _incidents = truth_and_outputs
    assert {item["rule_id"] for item in truth["findings"]} == set(RULES)
    assert len(SCENARIOS) == len(RULES) + 3  # plus one clean cluster, one past outage and one fixed failure


def test_findings_equal_the_injected_faults(truth_and_outputs):
    truth, findings, _incidents = truth_and_outputs
    found = [tuple(item[name] for name in FINDING_IDENTITY) for item in findings]
    expected = {tuple(item[name] for name in FINDING_IDENTITY) for item in truth["findings"]}
    assert len(found) == len(set(found)), "a finding is reported twice"
    found = set(found)
    assert found == expected, "unexpected: %s\nmissed: %s" % (sorted(found - expected, key=str),
                                                              sorted(expected - found, key=str))
    assert _precision_recall(found, expected) == (1.0, 1.0)


def test_incidents_equal_the_injected_outages(truth_and_outputs):
    truth, _findings, incidents = truth_and_outputs

    def stamp(value):
        return None if value is None else value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    found = {tuple(item[name] for name in SERIES_COLUMNS) + (stamp(item["start"]), stamp(item["end"]),
                                                             item["end_reason"])
             for item in incidents}
    expected = {tuple(item[name] for name in SERIES_COLUMNS) + (item["start"], item["end"], item["end_reason"])
                for item in truth["incidents"]}
    assert len(found) == len(incidents)
    assert found == expected, "unexpected: %s\nmissed: %s" % (sorted(found - expected, key=str),
                                                              sorted(expected - found, key=str))
    assert _precision_recall(found, expected) == (1.0, 1.0)
    assert all(item["open"] == (item["end"] is None) for item in incidents)
