# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import plan_listeners
from ansible_collections.kafkaops.listeners.plugins.module_utils._records import (
    broker_record,
    probe_records,
    recorded_checks,
)

FACTS = {"name": "b1", "node_id": 1, "private_host": "ip-198-18-0-11.internal", "public_dns": "ec2-198-19-0-11.example",
         "public_ip": "198.19.0.11", "process_roles": [],
         "external_checks": [{"name": "ec2-198-19-0-11.example", "resolvable": False, "connectable": None}]}
PLAN = plan_listeners([FACTS])
RUN = ("run-1", "2026-11-22T03:00:00.000Z", "prod")


def test_broker_record_holds_the_configuration_after_the_run():
    config = {"listeners": "PLAINTEXT://:9092", "broker.id": "1", "log.dirs": "/var/lib/kafka"}
    record = broker_record(FACTS, config, PLAN["brokers"][0]["properties"], {"mode": "auto"}, "aws", *RUN)
    assert record["listeners"] == "INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092"
    assert record["inter_broker_listener_name"] == "INTERNAL"
    assert record["security_inter_broker_protocol"] is None
    assert json.loads(record["other_config"]) == {"broker.id": "1"}
    assert json.loads(record["external_checks"]) == {"ec2-198-19-0-11.example": {"resolvable": False,
                                                                                 "connectable": None}}
    assert (record["schema_version"], record["run_id"], record["cluster"], record["provider"]) == (
        1, "run-1", "prod", "aws")
    unchanged = broker_record(FACTS, config, None, None, "aws", *RUN)
    assert unchanged["listeners"] == "PLAINTEXT://:9092"
    assert unchanged["advertised_listeners"] is None


def test_probe_records_name_broker_and_listener_from_the_plan():
    metadata = {"endpoints": [{"node_id": 1, "host": "ec2-198-19-0-11.example", "port": 9092, "resolvable": True,
                               "addresses": ["198.19.0.11"], "connectable": True, "error": None}]}
    [record] = probe_records(metadata, PLAN, "laptop", "internet", ["ec2-198-19-0-11.example:9092"], *RUN)
    assert (record["listener"], record["broker"], record["bootstrap_ok"], record["connectable"]) == (
        "EXTERNAL", "b1", True, True)


def test_a_failed_bootstrap_gives_one_record_per_planned_endpoint_of_that_listener():
    failed = {"failed": True, "msg": "no bootstrap server answered"}
    records = probe_records(failed, PLAN, "laptop", "internet", ["ec2-198-19-0-11.example:9092"], *RUN)
    assert [(r["listener"], r["bootstrap_ok"], r["error"], r["tls_verified"], r["authenticated"])
            for r in records] == [("EXTERNAL", False, "no bootstrap server answered", None, None)]


def security(record: dict) -> tuple:
    return tuple(record[key] for key in ("tls_verified", "tls_outcome", "authenticated", "security_error"))


def test_probe_records_carry_each_endpoints_tls_and_sasl_outcome():
    reached = {"node_id": 1, "host": "ec2-198-19-0-11.example", "port": 9092, "resolvable": True,
               "addresses": ["198.19.0.11"], "connectable": True, "error": None}
    bootstrap = ["ec2-198-19-0-11.example:9092"]
    mismatch = "TLS certificate verification failed for ec2-198-19-0-11.example: the host is not among ..."
    refused = "SASL authentication failed: SCRAM-SHA-512 SASL_AUTHENTICATION_FAILED: Authentication failed ..."
    outcomes = [
        ({"tls_verified": True, "tls_outcome": "verified", "authenticated": True, "security_error": None},
         (True, "verified", True, None)),
        ({"tls_verified": False, "tls_outcome": "name_mismatch", "authenticated": None, "security_error": mismatch},
         (False, "name_mismatch", None, mismatch)),
        ({"tls_verified": True, "tls_outcome": "verified", "authenticated": False, "security_error": refused},
         (True, "verified", False, refused)),
        # PLAINTEXT: kafka_metadata adds the keys as null; an older result without them reads the same
        ({"tls_verified": None, "tls_outcome": None, "authenticated": None, "security_error": None},
         (None, None, None, None)),
        ({}, (None, None, None, None)),
    ]
    for checked, expected in outcomes:
        metadata = {"endpoints": [dict(reached, **checked)]}
        [record] = probe_records(metadata, PLAN, "laptop", "internet", bootstrap, *RUN)
        assert security(record) == expected, checked


def test_probe_records_name_the_listener_the_broker_actually_advertises():
    # the single-listener failure: one PLAINTEXT listener advertising the private name; the laptop bootstrapped on
    # the public name, which the plan puts on EXTERNAL, but the broker answered on PLAINTEXT
    config = {"listeners": "PLAINTEXT://0.0.0.0:9092", "advertised.listeners": "PLAINTEXT://ip-198-18-0-11.internal:9092"}
    brokers = [broker_record(FACTS, config, None, None, "aws", *RUN)]
    metadata = {"endpoints": [{"node_id": 1, "host": "ip-198-18-0-11.internal", "port": 9092, "resolvable": False,
                               "addresses": [], "connectable": None, "error": "Name or service not known"}]}
    bootstrap = ["ec2-198-19-0-11.example:9092"]
    [record] = probe_records(metadata, PLAN, "laptop", "internet", bootstrap, *RUN, brokers=brokers)
    assert (record["listener"], record["broker"], record["advertised_host"]) == (
        "PLAINTEXT", "b1", "ip-198-18-0-11.internal")
    # without the brokers' records, the plan's name of the bootstrap listener, as before
    [record] = probe_records(metadata, PLAN, "laptop", "internet", bootstrap, *RUN)
    assert record["listener"] == "EXTERNAL"


def test_probe_records_fall_back_when_the_configuration_does_not_tell():
    metadata = {"endpoints": [{"node_id": 1, "host": "kafka-1.example", "port": 9092, "resolvable": True,
                               "addresses": ["198.19.0.11"], "connectable": True, "error": None}]}
    bootstrap = ["ec2-198-19-0-11.example:9092"]

    def listener_with(config):
        brokers = [broker_record(FACTS, config, None, None, "aws", *RUN)]
        return probe_records(metadata, PLAN, "laptop", "internet", bootstrap, *RUN, brokers=brokers)[0]["listener"]

    # no advertised.listeners: Kafka advertises listeners (default interface: the canonical host name)
    assert listener_with({"listeners": "CLIENT://:9092,REPLICATION://:9093"}) == "CLIENT"
    # two listeners on the port (not a configuration Kafka starts with) or one it cannot parse: the plan's name
    assert listener_with({"advertised.listeners": "A://x:9092,B://y:9092"}) == "EXTERNAL"
    assert listener_with({"advertised.listeners": "not a listener"}) == "EXTERNAL"


def test_probe_records_name_the_endpoint_network_and_route_of_the_listener_probed():
    metadata = {"endpoints": [{"node_id": 1, "host": "ec2-198-19-0-11.example", "port": 9092, "resolvable": True,
                               "addresses": ["198.19.0.11"], "connectable": True, "error": None}]}
    bootstrap = ["ec2-198-19-0-11.example:9092"]
    [record] = probe_records(metadata, PLAN, "laptop", "internet", bootstrap, *RUN)
    assert (record["client_network"], record["listener"], record["endpoint_network"], record["route"]) == (
        "internet", "EXTERNAL", "external", "public")
    failed = probe_records({"failed": True, "msg": "timed out"}, PLAN, "laptop", "internet", bootstrap, *RUN)
    assert [(r["endpoint_network"], r["route"]) for r in failed] == [("external", "public")]


def test_probe_records_of_client_networks_name_the_network_whose_route_they_probed():
    nlb = "kafka-nlb.elb.example"
    plan = plan_listeners([FACTS], {"networks": [
        {"name": "vpc", "route": "private"}, {"name": "peered", "route": "private"},
        {"name": "internet-nlb", "route": "load_balancer", "host": nlb, "base_port": 9100}]})
    lb_port = next(e["port"] for e in plan["brokers"][0]["endpoints"] if e["host"] == nlb)
    metadata = {"endpoints": [{"node_id": 1, "host": nlb, "port": lb_port, "resolvable": True,
                               "addresses": ["198.19.0.100"], "connectable": True, "error": None}]}
    [record] = probe_records(metadata, plan, "laptop", "internet-nlb", ["%s:%d" % (nlb, lb_port)], *RUN)
    assert (record["listener"], record["endpoint_network"], record["route"]) == (
        "INTERNET_NLB", "internet-nlb", "load_balancer")
    # a client of the peered network shares the vpc network's listener: the record says both
    private = next(e for e in plan["brokers"][0]["endpoints"] if e["network"] == "vpc")
    metadata = {"endpoints": [{"node_id": 1, "host": private["host"], "port": private["port"], "resolvable": True,
                               "addresses": ["198.18.0.11"], "connectable": True, "error": None}]}
    [record] = probe_records(metadata, plan, "peer-1", "peered", [private["hostport"]], *RUN)
    assert (record["client_network"], record["listener"], record["endpoint_network"], record["route"]) == (
        "peered", "VPC", "vpc", "private")


def test_a_listener_the_plan_does_not_have_has_no_endpoint_network():
    config = {"listeners": "PLAINTEXT://0.0.0.0:9092", "advertised.listeners": "PLAINTEXT://ip-198-18-0-11.internal:9092"}
    brokers = [broker_record(FACTS, config, None, None, "aws", *RUN)]
    metadata = {"endpoints": [{"node_id": 1, "host": "ip-198-18-0-11.internal", "port": 9092, "resolvable": False,
                               "addresses": [], "connectable": None, "error": "Name or service not known"}]}
    [record] = probe_records(metadata, PLAN, "laptop", "internet", ["ec2-198-19-0-11.example:9092"], *RUN,
                             brokers=brokers)
    assert (record["listener"], record["endpoint_network"], record["route"]) == ("PLAINTEXT", None, None)


# ---------------------------------------------------------------- the names a broker resolved, read back from disk

def brokers_file(folder, run_id: str, records: list) -> None:
    """A brokers file as the verify role writes it (one JSON line per record)."""
    lines = [record if isinstance(record, str) else json.dumps(record) for record in records]
    (folder / ("brokers-%s.jsonl" % run_id)).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def names_of(directory: str, cluster: str, broker: str) -> list:
    return recorded_checks(directory, cluster, broker)["names"]


def resolved(names: list, broker: str = "b1", cluster: str = "prod", run_id: str = "20261122T030000Z-1") -> dict:
    facts = dict(FACTS, name=broker, external_checks=[{"name": name, "resolvable": True, "connectable": True}
                                                      for name in names])
    return broker_record(facts, {}, None, {}, "aws", run_id, "2026-11-22T03:00:00.000Z", cluster)


def test_the_names_a_broker_resolved_come_from_its_newest_record_of_its_cluster(tmp_path):
    brokers_file(tmp_path, "20261121T000000Z-1", [resolved(["old.example"], run_id="20261121T000000Z-1")])
    brokers_file(tmp_path, "20261122T030000Z-1", [resolved(["pub1.example", "p1.internal"]),
                                                  resolved(["other.example"], broker="b2")])
    brokers_file(tmp_path, "20261123T000000Z-9", [resolved(["elsewhere.example"], cluster="staging",
                                                           run_id="20261123T000000Z-9")])
    (tmp_path / "probes-20261124T000000Z-1-client.jsonl").write_text("{}\n", encoding="utf-8")
    assert names_of(str(tmp_path), "prod", "b1") == ["p1.internal", "pub1.example"]
    assert names_of(str(tmp_path), "prod", "b2") == ["other.example"]
    assert names_of(str(tmp_path), "staging", "b1") == ["elsewhere.example"]
    assert names_of(str(tmp_path), "prod", "b9") == []
    assert names_of(str(tmp_path / "none"), "prod", "b1") == []
    assert names_of("", "prod", "b1") == []


def test_records_that_are_not_the_verify_roles_give_no_names_and_no_name_reaches_a_special_address(tmp_path):
    hostile = ["169.254.169.254", "0251.0376.0251.0376", "[fe80::1%eth0]", "localhost", "LOCALHOST.", "127.0.0.1",
               "x.localhost", "0.0.0.0", "224.0.0.1", "255.255.255.255", "bad name", "a" * 300, "pub1.example.",
               "p1.internal"]
    record = resolved([])
    record["external_checks"] = json.dumps({name: {} for name in hostile})
    too_many = resolved(["n%d.example" % index for index in range(300)], run_id="20261125T000000Z-1")
    brokers_file(tmp_path, "20261122T030000Z-1", [record])
    brokers_file(tmp_path, "20261123T000000Z-1", [
        "not json", "[1, 2]", "\xff", json.dumps(dict(resolved(["v2.example"]), schema_version=2)),
        json.dumps(dict(resolved(["text.example"]), external_checks="not json")),
        json.dumps(dict(resolved(["list.example"]), external_checks='["a.example"]')),
        json.dumps(dict(resolved(["none.example"]), external_checks=None)),
        json.dumps(dict(resolved(["flag.example"]), schema_version=True)),
        json.dumps(dict(resolved(["long.example"]), padding="x" * 70000))])
    brokers_file(tmp_path, "20261125T000000Z-1", [too_many])
    # the newer files hold nothing usable for b1: the names come from the newest record that is usable
    assert names_of(str(tmp_path), "prod", "b1") == ["pub1.example", "p1.internal"]


def test_the_recorded_self_check_is_the_inter_broker_endpoint_the_record_advertises(tmp_path):
    applied = dict(PLAN["brokers"][0]["properties"])
    record = broker_record(FACTS, {}, applied, {}, "aws", "20261122T030000Z-1", "2026-11-22T03:00:00.000Z", "prod")
    brokers_file(tmp_path, "20261122T030000Z-1", [record])
    assert recorded_checks(str(tmp_path), "prod", "b1") == {
        "names": ["ec2-198-19-0-11.example"],
        "self_check": {"listener": "INTERNAL", "protocol": "PLAINTEXT", "host": "ip-198-18-0-11.internal",
                       "port": 19092, "hostport": "ip-198-18-0-11.internal:19092"}}
    assert recorded_checks(str(tmp_path), "prod", "b2") == {"names": [], "self_check": None}


@pytest.mark.parametrize(("changes", "why"), [
    ({"advertised_listeners": "INTERNAL://169.254.169.254:19092"}, "the metadata service's address"),
    ({"advertised_listeners": "INTERNAL://0251.0376.0251.0376:19092"}, "the same in octal"),
    ({"advertised_listeners": "INTERNAL://[fe80::1%eth0]:19092"}, "an IPv6 link-local address"),
    ({"advertised_listeners": "INTERNAL://LOCALHOST.:19092"}, "a loopback name"),
    ({"advertised_listeners": "INTERNAL://:19092", "listeners": "INTERNAL://:19092"}, "no host"),
    ({"advertised_listeners": "INTERNAL://bad name:19092"}, "not a host"),
    ({"advertised_listeners": "INTERNAL//p1.internal:19092"}, "does not parse"),
    ({"advertised_listeners": "EXTERNAL://p1.internal:9092"}, "nothing on the inter-broker listener"),
    ({"listener_security_protocol_map": "EXTERNAL:PLAINTEXT"}, "the listener has no protocol"),
    ({"inter_broker_listener_name": 7}, "not text: Kafka's default PLAINTEXT listener, not advertised"),
    ({"process_roles": ["controller"]}, "a controller only"),
])
def test_no_recorded_self_check_reaches_a_host_no_other_machine_could_use_or_a_configuration_that_does_not_parse(
        tmp_path, changes, why):
    applied = dict(PLAN["brokers"][0]["properties"])
    record = broker_record(FACTS, {}, applied, {}, "aws", "20261122T030000Z-1", "2026-11-22T03:00:00.000Z", "prod")
    record.update(changes)
    brokers_file(tmp_path, "20261122T030000Z-1", [record])
    found = recorded_checks(str(tmp_path), "prod", "b1")
    assert found["self_check"] is None, why
    assert found["names"] == ["ec2-198-19-0-11.example"]
