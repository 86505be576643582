# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The bootstraps a client network used before a run: the plan's bootstrap_before and earlier probe records, which
are untrusted input (read from disk), and an override."""

from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter import kafka_bootstraps_before as plugin
from ansible_collections.kafkaops.listeners.plugins.filter import listener_plan as plan_plugin
from ansible_collections.kafkaops.listeners.plugins.filter.kafka_bootstraps_before import kafka_bootstraps_before
from ansible_collections.kafkaops.listeners.plugins.module_utils._records import (
    bootstrap_from_records,
    bootstraps_by_network,
)

PRIVATE = ["ip-198-18-0-1%d.us-west-2.compute.internal" % index for index in (1, 2, 3)]
OLD = ",".join("%s:9092" % host for host in PRIVATE)
NEW = ["%s:19092" % host for host in PRIVATE]
PLAN = {"clients": {"vpc": {"bootstrap": ",".join(NEW), "listener": "INTERNAL", "protocol": "PLAINTEXT"}},
        "bootstrap_before": {"vpc": {"bootstrap": OLD, "listener": "PLAINTEXT", "protocol": "PLAINTEXT"}}}


def probe(index, run="20261101T000000Z-1", at="2026-11-01T00:00:00.000Z", port=9092, **changes):
    record = {"schema_version": 1, "run_id": run, "observed_at": at, "cluster": "kafka_brokers", "client": "client",
              "client_network": "vpc", "listener": "PLAINTEXT", "endpoint_network": None, "route": None,
              "broker": "b%d" % index, "node_id": index, "advertised_host": PRIVATE[index - 1],
              "advertised_port": port, "bootstrap_ok": True, "resolvable": True, "addresses": ["198.18.0.1%d" % index],
              "connectable": True, "error": None, "elapsed_ms": 1.0, "tls_verified": None, "tls_outcome": None,
              "authenticated": None, "security_error": None}
    record.update(changes)
    return record


def write(folder, name, lines):
    path = folder / name
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
                    encoding="utf-8")
    return path


@pytest.fixture
def warnings(monkeypatch):
    seen = []
    monkeypatch.setattr(plugin.display, "warning", seen.append)
    return seen


def test_each_listener_that_served_the_network_before_is_listed_in_order(warnings):
    # the add phase of a rename: the VPC's clients may bootstrap on PLAINTEXT :9092 or INTERNAL :19092
    plan = dict(PLAN, bootstrap_before={"vpc": dict(PLAN["bootstrap_before"]["vpc"], also=[
        {"bootstrap": ",".join(NEW), "listener": "INTERNAL", "protocol": "SSL"}])})
    first, second = kafka_bootstraps_before(plan, "vpc", NEW)
    assert first == {"bootstrap": OLD.split(","), "listener": "PLAINTEXT", "protocol": "PLAINTEXT",
                     "source": "advertised before the run", "planned": False}
    # the same servers as the planned bootstrap: marked, so the role does not ask them twice
    assert second == {"bootstrap": NEW, "listener": "INTERNAL", "protocol": "SSL",
                      "source": "advertised before the run", "planned": True}
    [old, other] = kafka_bootstraps_before(plan, "vpc", ["elsewhere:9092"])
    assert (old["listener"], other["listener"], other["planned"]) == ("PLAINTEXT", "INTERNAL", False)


def test_the_plan_gives_the_bootstrap_advertised_before_the_run(warnings):
    [entry] = kafka_bootstraps_before(PLAN, "vpc", NEW)
    assert entry == {"bootstrap": OLD.split(","), "listener": "PLAINTEXT", "protocol": "PLAINTEXT",
                     "source": "advertised before the run", "planned": False}
    # the planned bootstrap (another order, another case) is not a second one to probe
    [same] = kafka_bootstraps_before(PLAN, "vpc", [item.upper() for item in reversed(OLD.split(","))])
    assert same["planned"] is True
    assert kafka_bootstraps_before(PLAN, "internet", ["x.example:9092"]) == []
    assert warnings == []


def test_the_newest_earlier_run_that_reached_every_endpoint_gives_its_bootstrap(tmp_path, warnings):
    older = "20261101T000000Z-7"
    newer = "20261102T000000Z-8"
    write(tmp_path, "probes-%s-client.jsonl" % older, [probe(i, run=older, port=9999) for i in (1, 2, 3)])
    # the newest run of the network, from two clients; another cluster's newer records are not this one's
    write(tmp_path, "probes-%s-client.jsonl" % newer,
          [probe(i, run=newer, at="2026-11-02T00:00:00Z") for i in (3, 1)])
    write(tmp_path, "probes-%s-client2.jsonl" % newer, [probe(2, run=newer, at="2026-11-02T00:00:01Z")])
    write(tmp_path, "probes-20261103T000000Z-9-other.jsonl",
          [probe(1, run="20261103T000000Z-9", cluster="other"),
           probe(1, run="20261103T000000Z-9", client_network="internet")])
    used, seen = bootstrap_from_records(str(tmp_path), "kafka_brokers", "vpc")
    assert seen == []
    assert used == {"bootstrap": OLD.split(","), "listener": "PLAINTEXT", "protocol": "PLAINTEXT", "run_id": newer,
                    "observed_at": "2026-11-02T00:00:01Z"}
    # this run's own records are passed over
    used, _seen = bootstrap_from_records(str(tmp_path), "kafka_brokers", "vpc", exclude_run=newer)
    assert used["run_id"] == older and used["bootstrap"][0].endswith(":9999")
    entries = kafka_bootstraps_before(PLAN, "vpc", NEW, records_dir=str(tmp_path), cluster="kafka_brokers",
                                      exclude_run=newer)
    assert [(entry["source"], entry["planned"]) for entry in entries] == [
        ("advertised before the run", False), ("records of 2026-11-01T00:00:00.000Z (run %s)" % older, False)]
    # the same servers from both sources are one bootstrap to check
    assert len(kafka_bootstraps_before(PLAN, "vpc", NEW, records_dir=str(tmp_path), cluster="kafka_brokers")) == 1


def test_a_newest_run_that_failed_gives_no_bootstrap_and_the_protocol_comes_from_the_security_outcomes(tmp_path):
    write(tmp_path, "probes-20261101T000000Z-1-client.jsonl", [probe(1), probe(2, resolvable=False)])
    assert bootstrap_from_records(str(tmp_path), "kafka_brokers", "vpc") == (None, [])
    write(tmp_path, "probes-20261102T000000Z-2-client.jsonl",
          [probe(1, run="20261102T000000Z-2", tls_verified=True, authenticated=True)])
    used, _seen = bootstrap_from_records(str(tmp_path), "kafka_brokers", "vpc")
    assert used["protocol"] == "SASL_SSL"
    write(tmp_path, "probes-20261103T000000Z-3-client.jsonl", [probe(1, run="20261103T000000Z-3", tls_verified=False)])
    assert bootstrap_from_records(str(tmp_path), "kafka_brokers", "vpc")[0] is None
    assert bootstrap_from_records(str(tmp_path / "missing"), "kafka_brokers", "vpc") == (None, [])
    assert bootstrap_from_records("", "kafka_brokers", "vpc") == (None, [])


HOSTILE = [
    ("not json at all", "not a probe record: Expecting value"),
    ('["a", "list"]', "not a JSON object"),
    (probe(1, schema_version=2), "schema_version is 2; this collection reads 1 to 1"),
    (probe(1, schema_version=True), "schema_version is True"),
    (probe(1, run_id=None), "run_id is None, not a non-empty string"),
    (probe(1, cluster=["kafka_brokers"]), "cluster is ['kafka_brokers']"),
    (probe(1, observed_at="yesterday"), "observed_at 'yesterday' is not an ISO 8601 time"),
    (probe(1, advertised_port=0), "advertised_port is 0, not a port"),
    (probe(1, advertised_port="9092"), "advertised_port is '9092'"),
    (probe(1, advertised_port=True), "advertised_port is True"),
    (probe(1, advertised_host="169.254.169.254"), "which no client could use"),
    (probe(1, advertised_host="0.0.0.0"), "which no client could use"),
    (probe(1, advertised_host="evil host\nadvertised.listeners=x"), "advertised_host"),
    (probe(1, connectable="yes"), "connectable is 'yes', not true, false or null"),
    (probe(1, node_id="1"), "node_id is '1'"),
]


@pytest.mark.parametrize("line,why", HOSTILE, ids=[why.split(" ")[0] + str(i) for i, (_l, why) in enumerate(HOSTILE)])
def test_a_hostile_line_is_skipped_with_a_warning_naming_the_file_and_line(tmp_path, warnings, line, why):
    path = write(tmp_path, "probes-20261101T000000Z-1-client.jsonl", [probe(1), line, probe(2), probe(3)])
    entries = kafka_bootstraps_before({"clients": {}}, "vpc", NEW, records_dir=str(tmp_path),
                                      cluster="kafka_brokers")
    # the good lines still count; the bad one is named, and never probed
    assert [entry["bootstrap"] for entry in entries] == [OLD.split(",")]
    assert len(warnings) == 1 and warnings[0].startswith("kafka_bootstraps_before: %s line 2: skipped" % path)
    assert why in warnings[0]


def test_a_docker_hosts_localhost_is_a_bootstrap_its_clients_used(tmp_path, warnings):
    write(tmp_path, "probes-20261101T000000Z-1-dhost.jsonl", [probe(1, advertised_host="localhost")])
    used, seen = bootstrap_from_records(str(tmp_path), "kafka_brokers", "vpc")
    assert (used["bootstrap"], seen) == (["localhost:9092"], [])


def test_an_oversized_or_binary_line_is_skipped_unread(tmp_path, warnings):
    path = tmp_path / "probes-20261101T000000Z-1-client.jsonl"
    path.write_bytes(b"x" * (70 * 1024) + b"\n" + b"\xff\xfe\n" + json.dumps(probe(1)).encode() + b"\n")
    [entry] = kafka_bootstraps_before({}, "vpc", NEW, records_dir=str(tmp_path), cluster="kafka_brokers")
    assert entry["bootstrap"] == ["%s:9092" % PRIVATE[0]]
    assert [warning.split(": skipped, ")[1][:20] for warning in warnings] == [
        "longer than 65536 by", "not a probe record: "]


def test_the_override_replaces_plan_and_records_and_bad_input_is_named(tmp_path, warnings):
    write(tmp_path, "probes-20261101T000000Z-1-client.jsonl", [probe(1)])
    [entry] = kafka_bootstraps_before(PLAN, "vpc", NEW, override=["kafka.example:9092"], records_dir=str(tmp_path),
                                      cluster="kafka_brokers")
    assert entry == {"bootstrap": ["kafka.example:9092"], "listener": "PLAINTEXT", "protocol": "PLAINTEXT",
                     "source": "verify_bootstrap_before", "planned": False}
    with pytest.raises(AnsibleFilterError, match=r"verify_bootstrap_before bootstrap server 'kafka.example' is not "
                                                 r"of the form host:port"):
        kafka_bootstraps_before(PLAN, "vpc", NEW, override=["kafka.example"])
    with pytest.raises(AnsibleFilterError, match=r"verify_bootstrap_before must be a list of host:port strings"):
        kafka_bootstraps_before(PLAN, "vpc", NEW, override="kafka.example:9092")
    with pytest.raises(AnsibleFilterError, match=r"the plan must be a mapping"):
        kafka_bootstraps_before("plan", "vpc", NEW)


def test_the_remove_guard_reads_every_network_of_the_cluster_and_names_each_bad_line_once(tmp_path, monkeypatch):
    """What the listener_plan filter hands the planner for the remove phase (read only when the planner asks)."""
    path = write(tmp_path, "probes-20261101T000000Z-1-client.jsonl",
                 [probe(1), "{not json", probe(2), probe(1, client_network="internet", advertised_port=9094),
                  probe(1, cluster="other", client_network="partners")])
    write(tmp_path, "probes-20261102T000000Z-2-laptop.jsonl",
          [probe(1, run="20261102T000000Z-2", client_network="internet", connectable=False)])
    used, seen = bootstraps_by_network(str(tmp_path), "kafka_brokers")
    assert used == {"vpc": {"bootstrap": OLD.split(",")[:2], "listener": "PLAINTEXT", "protocol": "PLAINTEXT",
                            "run_id": "20261101T000000Z-1", "observed_at": "2026-11-01T00:00:00.000Z"},
                    "internet": None}  # its newest run failed: it shows no bootstrap
    assert len(seen) == 1 and seen[0].startswith("%s line 2: skipped, not a probe record" % path)
    assert bootstraps_by_network(str(tmp_path / "missing"), "kafka_brokers") == ({}, [])

    shown, asked = [], []
    monkeypatch.setattr(plan_plugin.display, "warning", shown.append)
    monkeypatch.setattr(plan_plugin, "plan_listeners", lambda brokers, options, records, remove_in_use, applied:
                        asked.append((records(), remove_in_use, applied)))
    plan_plugin.listener_plan([], {}, records_dir=str(tmp_path), cluster="kafka_brokers", remove_in_use="yes")
    [((read, skipped, source), override, applied)] = asked
    assert (read, skipped, override, applied) == (used, seen, True, True)
    assert source == "%s (cluster kafka_brokers)" % tmp_path
    assert shown == ["listener_plan: %s" % seen[0]]
    plan_plugin.listener_plan([], {}, plan_only=True)
    assert asked[1][1:] == (False, False) and asked[1][0] == ({}, [], "")
    with pytest.raises(AnsibleFilterError, match="remove_in_use must be true or false, got 'maybe'"):
        plan_plugin.listener_plan([], {}, remove_in_use="maybe")
