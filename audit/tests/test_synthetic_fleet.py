# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The synthetic fleet generator itself (no Spark): formats, sizes and the truth table's consistency."""

import json

import pyarrow.parquet as pq
import pytest
from synthetic_fleet import (
    SCENARIOS,
    SERIES_PER_CLUSTER,
    FleetSpec,
    clusters_for_probe_rows,
    write_fleet,
)


def test_parquet_and_json_lines_hold_the_same_records(tmp_path):
    spec = FleetSpec(clusters=2, rounds=16, rounds_per_run=4)
    as_json = write_fleet(spec, str(tmp_path / "json"), "json")
    as_parquet = write_fleet(spec, str(tmp_path / "parquet"), "parquet", chunk_clusters=1)
    with open(as_json["probes"], encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle]
    table = pq.read_table(as_parquet["probes"]).to_pylist()
    assert len(lines) == len(table) == as_json["probe_rows"] == 2 * SERIES_PER_CLUSTER * 16
    first = dict(table[0], observed_at=table[0]["observed_at"].strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert lines[0] == first
    brokers = pq.read_table(as_parquet["brokers"])
    assert brokers.num_rows == as_parquet["broker_rows"] == 2 * 3 * 4  # two clusters, three brokers, four runs


def test_truth_incidents_name_probed_series(tmp_path):
    fleet = write_fleet(FleetSpec(), str(tmp_path), "parquet")
    with open(fleet["truth"], encoding="utf-8") as handle:
        truth = json.load(handle)
    probes = pq.read_table(fleet["probes"]).to_pylist()
    series = {(p["cluster"], p["broker"], p["listener"], p["advertised_host"], p["advertised_port"],
               p["client_network"], p["client"]) for p in probes}
    for incident in truth["incidents"]:
        assert (incident["cluster"], incident["broker"], incident["listener"], incident["advertised_host"],
                incident["advertised_port"], incident["client_network"], incident["client"]) in series
    assert len({item["cluster"] for item in truth["findings"]}) == len(SCENARIOS) - 3  # not clean, outage, fixed


def test_fleet_size_follows_the_requested_probe_rows():
    assert clusters_for_probe_rows(1_000_000, 288) == 290
    assert clusters_for_probe_rows(10, 288) == 1


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"clusters": 0}, "clusters must be at least 1"),
    ({"rounds": 8}, "rounds must be at least 16"),
    ({"rounds_per_run": 9}, "rounds_per_run must be between 1 and rounds/3"),
    ({"interval_s": 10}, "interval_s must be at least 60"),
])
def test_spec_refuses_fleets_it_cannot_build(kwargs, message):
    with pytest.raises(ValueError, match=message):
        FleetSpec(**kwargs)


@pytest.mark.parametrize("fmt", ["json", "parquet"])
def test_processes_write_the_records_and_truth_of_one_process(tmp_path, fmt):
    spec = FleetSpec(clusters=5, rounds=16, rounds_per_run=4)
    one = write_fleet(spec, str(tmp_path / "one"), fmt, chunk_clusters=2)
    three = write_fleet(spec, str(tmp_path / "three"), fmt, chunk_clusters=2, processes=3)
    assert (one["probe_rows"], one["broker_rows"]) == (three["probe_rows"], three["broker_rows"])
    for name in ("brokers", "probes"):
        if fmt == "json":
            with open(one[name], "rb") as first, open(three[name], "rb") as second:
                assert first.read() == second.read()
        else:
            assert pq.read_table(one[name]).equals(pq.read_table(three[name]))
    with open(one["truth"], "rb") as first, open(three["truth"], "rb") as second:
        assert first.read() == second.read()
    # the parts are joined and gone
    assert sorted(path.name for path in (tmp_path / "three").iterdir()) == sorted(
        path.name for path in (tmp_path / "one").iterdir())
