# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.kafkaops.listeners.plugins.filter.broker_recorded_checks import broker_recorded_checks
from ansible_collections.kafkaops.listeners.plugins.filter.broker_resolve_names import broker_resolve_names
from ansible_collections.kafkaops.listeners.plugins.filter.from_properties import from_properties
from ansible_collections.kafkaops.listeners.plugins.filter.kafka_config_errors import kafka_config_errors
from ansible_collections.kafkaops.listeners.plugins.filter.listener_plan import listener_plan
from ansible_collections.kafkaops.listeners.plugins.filter.listener_plan_options import listener_plan_options
from ansible_collections.kafkaops.listeners.plugins.filter.to_docker_env import env_name, to_docker_env
from ansible_collections.kafkaops.listeners.plugins.filter.to_properties import to_properties

OPTION_2 = {
    "listeners": "INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092",
    "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
    "advertised.listeners": "INTERNAL://ip-172-31-18-160.us-west-2.compute.internal:19092,"
                            "EXTERNAL://ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092",
    "inter.broker.listener.name": "INTERNAL",
}


def test_listener_plan_merges_keyword_options_and_wraps_errors():
    brokers = [{"name": "b0", "node_id": 0, "private_host": "p.internal", "public_dns": "pub.example"}]
    assert listener_plan(brokers, {"mode": "single"}, mode="dual")["mode"] == "dual"
    with pytest.raises(AnsibleFilterError, match="listener_plan: option mode: 'x' is not one of"):
        listener_plan(brokers, mode="x")


def test_to_docker_env_renders_the_bob_fred_alice_example():
    brokers = [{"name": "kafka0", "node_id": 0, "container_name": "kafka0"}]
    plan = listener_plan(brokers, mode="docker", docker_listeners=[
        {"name": "LISTENER_BOB", "port": 29092, "host": "container"},
        {"name": "LISTENER_FRED", "port": 9092, "host": "localhost"},
    ])
    assert to_docker_env(plan["brokers"][0]) == {
        "KAFKA_LISTENERS": "LISTENER_BOB://0.0.0.0:29092,LISTENER_FRED://0.0.0.0:9092",
        "KAFKA_ADVERTISED_LISTENERS": "LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092",
        "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "LISTENER_BOB:PLAINTEXT,LISTENER_FRED:PLAINTEXT",
        "KAFKA_INTER_BROKER_LISTENER_NAME": "LISTENER_BOB",
    }


def test_to_docker_env_adds_kraft_identity():
    node = {"name": "c", "node_id": 3, "process_roles": ["broker", "controller"],
            "properties": {"controller.listener.names": "CONTROLLER", "advertised.listeners": None}}
    assert to_docker_env(node) == {"KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER", "KAFKA_NODE_ID": "3",
                                   "KAFKA_PROCESS_ROLES": "broker,controller"}


@pytest.mark.parametrize(("key", "env"), [
    ("advertised.listeners", "KAFKA_ADVERTISED_LISTENERS"),
    ("confluent.support_metrics", "KAFKA_CONFLUENT_SUPPORT__METRICS"),
    ("some-dashed.key", "KAFKA_SOME___DASHED_KEY"),
])
def test_env_name_follows_the_images_convention(key, env):
    assert env_name(key) == env


def test_kafka_config_errors_accepts_mappings_and_text():
    assert kafka_config_errors(OPTION_2) == []
    broken = dict(OPTION_2)
    del broken["inter.broker.listener.name"]
    assert [f["rule"] for f in kafka_config_errors(broken)] == ["R11"]
    text = "".join("%s=%s\n" % item for item in broken.items())
    assert [f["rule"] for f in kafka_config_errors(text)] == ["R11"]
    with pytest.raises(AnsibleFilterError, match="expected a mapping or properties text, got list"):
        kafka_config_errors([1])


def test_kafka_config_errors_quotes_the_release_it_is_given():
    repeated = {"listeners": "PLAINTEXT://:9092,plaintext://:9093"}
    assert kafka_config_errors(repeated)[0]["message"] == (
        "requirement failed: Each listener must have a different name, listeners: PLAINTEXT://:9092,plaintext://:9093")
    assert kafka_config_errors(repeated, kafka_version="4.4.0")[0]["message"] == (
        "Error creating broker listeners from '[PLAINTEXT://:9092, plaintext://:9093]': Each listener must have a "
        "different name, listeners: [PLAINTEXT://:9092, plaintext://:9093]")
    with pytest.raises(AnsibleFilterError, match="kafka_version must look like 4.4 or 3.9.2, got 'latest'"):
        kafka_config_errors(repeated, kafka_version="latest")


def test_from_properties_reads_like_java_and_names_errors():
    text = "# comment\nnode.id = 3\nprocess.roles:broker\\\n  ,controller\nnode.id=4\n"
    assert from_properties(text) == {"node.id": "4", "process.roles": "broker,controller"}
    with pytest.raises(AnsibleFilterError, match=r"from_properties: line 1: malformed \\uxxxx escape"):
        from_properties("key=\\u12G4\n")
    with pytest.raises(AnsibleFilterError, match="expected the text of a properties file, got dict"):
        from_properties({})


# keys and values as a mapping holds them: any text without lone UTF-16 surrogates (Java strings hold pairs)
PROPERTY_TEXT = st.text(st.one_of(st.sampled_from(list("=:#! \t\f\r\n\\u\x0b\x85\u2028é€")),
                                  st.characters(exclude_categories=["Cs"])))


@given(st.dictionaries(PROPERTY_TEXT.filter(bool), PROPERTY_TEXT, max_size=5))
@settings(max_examples=300, deadline=None)
def test_to_properties_is_ascii_that_java_reads_back_as_iso_8859_1(properties):
    # Java's Properties.load(InputStream) reads ISO-8859-1: the file must mean the same bytes in it
    written = to_properties(properties).encode("ascii")
    assert from_properties(written.decode("latin-1")) == properties
    assert written.count(b"\n") == len(properties)


def test_to_properties_writes_a_non_ascii_password_as_unicode_escapes_and_names_bad_values():
    jaas = 'PlainLoginModule required username="u" password="p\u00e4ss\u20ac";'
    assert to_properties({"sasl.jaas.config": jaas, "retries": 5, "b": True}) == (
        'sasl.jaas.config=PlainLoginModule required username="u" password="p\\u00E4ss\\u20AC";\n'
        "retries=5\nb=true\n")
    with pytest.raises(AnsibleFilterError, match="to_properties: properties.a: expected a string, number, boolean"):
        to_properties({"a": [1]})
    with pytest.raises(AnsibleFilterError, match="to_properties: properties.a is null"):
        to_properties({"a": None})
    with pytest.raises(AnsibleFilterError, match="to_properties: expected a mapping, got str"):
        to_properties("a=b")


def test_to_properties_in_librdkafka_dialect_writes_values_as_given_and_refuses_line_breaks():
    # librdkafka's file reader (kcat -F, confluent-kafka) knows no escapes: the text as is, booleans as true/false
    assert to_properties({"sasl.password": 'pa"ss\\wörd', "linger.ms": 7, "enable.partition.eof": True},
                         "librdkafka") == 'sasl.password=pa"ss\\wörd\nlinger.ms=7\nenable.partition.eof=true\n'
    assert to_properties({}, "librdkafka") == ""
    with pytest.raises(AnsibleFilterError, match="properties.client.id holds a line break, which a librdkafka file"):
        to_properties({"client.id": "a\nb"}, "librdkafka")
    with pytest.raises(AnsibleFilterError, match="properties.a is null"):
        to_properties({"a": None}, "librdkafka")
    with pytest.raises(AnsibleFilterError, match="dialect must be java or librdkafka, got 'c'"):
        to_properties({"a": 1}, "c")


def test_listener_plan_options_fill_defaults_and_name_a_bad_option():
    opts = listener_plan_options({"single_port": 9094}, mode="dual")
    assert (opts["mode"], opts["single_port"], opts["internal_port"]) == ("dual", 9094, 19092)
    with pytest.raises(AnsibleFilterError, match="listener_plan_options: option mode: 'both' is not one of"):
        listener_plan_options({}, mode="both")


def test_to_docker_env_can_name_the_variables_of_removed_keys():
    node = {"name": "k", "node_id": 1, "process_roles": [], "properties": {
        "advertised.listeners": "PLAINTEXT://k:9092", "inter.broker.listener.name": None}}
    assert to_docker_env(node) == {"KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://k:9092"}
    assert to_docker_env(node, removed=True) == {"KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://k:9092",
                                                 "KAFKA_INTER_BROKER_LISTENER_NAME": None}


def test_broker_resolve_names_adds_the_inter_broker_routes_hosts_and_wraps_errors():
    brokers = [{"name": "b%d" % i, "private_host": "p%d.internal" % i, "public_dns": "pub%d.example" % i,
                "public_ip": None} for i in (1, 2)]
    own = ["pub1.example", "pub2.example", "p1.internal", "p2.internal"]
    assert broker_resolve_names(brokers) == own
    assert broker_resolve_names(brokers, {"networks": [{"name": "vpc", "route": "private"}]}) == own
    linked = {"name": "link", "route": "static", "inter_broker": True,
              "endpoints": {"b1": "vpce-1.example:9092", "b2": "vpce-2.example:9092"}}
    assert broker_resolve_names(brokers, {"networks": [linked]}) == [*own, "vpce-1.example", "vpce-2.example"]
    with pytest.raises(AnsibleFilterError, match="broker_resolve_names: option networks"):
        broker_resolve_names(brokers, {"networks": []})


def test_broker_recorded_checks_reads_the_newest_record_and_names_a_bad_argument(tmp_path):
    record = {"schema_version": 1, "cluster": "prod", "broker": "b1",
              "external_checks": '{"p1.internal": {}, "pub1.example": {}}'}
    (tmp_path / "brokers-20261122T030000Z-1.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert broker_recorded_checks(str(tmp_path), "prod", "b1")["names"] == ["p1.internal", "pub1.example"]
    empty = {"names": [], "self_check": None}
    assert broker_recorded_checks("", "prod", "b1") == broker_recorded_checks(None, "prod", "b1") == empty
    with pytest.raises(AnsibleFilterError, match="broker_recorded_checks: expected the records folder as a string"):
        broker_recorded_checks(["x"], "prod", "b1")
    with pytest.raises(AnsibleFilterError, match="broker_recorded_checks: broker must be a non-empty string, got None"):
        broker_recorded_checks(str(tmp_path), "prod", None)
    with pytest.raises(AnsibleFilterError, match="broker_recorded_checks: settings must map listener names"):
        broker_recorded_checks(str(tmp_path), "prod", "b1", settings=["x"])


def test_broker_recorded_checks_gives_the_self_check_the_recorded_listeners_client_settings(tmp_path):
    record = {"schema_version": 1, "cluster": "prod", "broker": "b1", "external_checks": "{}",
              "advertised_listeners": "INTERNAL://p1.internal:19092,EXTERNAL://pub1.example:9092",
              "listener_security_protocol_map": "INTERNAL:SASL_SSL,EXTERNAL:SSL,CONTROLLER:SSL",
              "inter_broker_listener_name": "INTERNAL", "controller_listener_names": "CONTROLLER"}
    (tmp_path / "brokers-20261122T030000Z-1.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    scram = {"ssl_ca_file": "/ca.pem", "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": "broker",
             "sasl_password": "hunter2"}
    found = broker_recorded_checks(str(tmp_path), "prod", "b1", settings={"default": {"ssl_ca_file": "/other.pem"},
                                                                          "INTERNAL": scram}, timeout=3.0)
    assert found["self_check"] == {"bootstrap": "p1.internal:19092", "listener": "INTERNAL", "timeout": 3.0,
                                   "security_protocol": "SASL_SSL", **scram}
    # the listener's own settings lack the SASL mechanism its protocol needs: no check ahead, the role's own says why
    found = broker_recorded_checks(str(tmp_path), "prod", "b1", settings={"default": {"ssl_ca_file": "/ca.pem"}})
    assert found["self_check"] is None


def test_broker_resolve_names_leaves_out_the_names_already_answered():
    brokers = [{"name": "b%d" % i, "private_host": "p%d.internal" % i, "public_dns": "pub%d.example" % i,
                "public_ip": None} for i in (1, 2)]
    answered = {"results": [{"name": name, "resolvable": False} for name in ("pub1.example", "p2.internal", "x.ex")]}
    assert broker_resolve_names(brokers, None, checked=answered) == ["pub2.example", "p1.internal"]
    everything = {"results": [{"name": name} for name in broker_resolve_names(brokers)]}
    assert broker_resolve_names(brokers, None, checked=everything) == []
    assert broker_resolve_names(brokers, None, checked=None) == broker_resolve_names(brokers)
    for bad in ({"results": None}, {"results": [{"name": 1}]}, ["pub1.example"]):
        with pytest.raises(AnsibleFilterError, match="checked must be a resolvability result"):
            broker_resolve_names(brokers, None, checked=bad)
