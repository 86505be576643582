# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Kafka's listener startup rules R1-R24 (plugins/module_utils/_kafka_rules.py).

Every rule has at least one configuration that makes it fire (``FIRES``) and one near miss that Kafka accepts
(``NEAR_MISSES``); two meta-tests keep both tables covering R1-R24. Messages are compared exactly, or by prefix
where Kafka's message ends with a set whose order Kafka does not fix.
"""

from __future__ import annotations

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import RULES, check_kafka_config

REQ = "requirement failed: "
ALL_RULES = {"R%d" % number for number in range(1, 25)}

# -- configurations from Confluent's "Configure Multi-Node Environment" and "Kafka Listeners - Explained" ---------

PUBLIC = "ec2-54-191-84-122.us-west-2.compute.amazonaws.com"
PRIVATE = "ip-172-31-18-160.us-west-2.compute.internal"

OPTION_1 = {"advertised.listeners": "PLAINTEXT://%s:9092" % PUBLIC}
OPTION_2 = {
    "listeners": "INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092",
    "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
    "advertised.listeners": "INTERNAL://%s:19092,EXTERNAL://%s:9092" % (PRIVATE, PUBLIC),
    "inter.broker.listener.name": "INTERNAL",
}
DOCKER_BOB_FRED = {
    "listeners": "LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092",
    "advertised.listeners": "LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092",
    "listener.security.protocol.map": "LISTENER_BOB:PLAINTEXT,LISTENER_FRED:PLAINTEXT",
    "inter.broker.listener.name": "LISTENER_BOB",
}
DOCKER_BOB_FRED_ALICE = {
    "listeners": "LISTENER_BOB://kafka0:29092,LISTENER_FRED://kafka0:9092,LISTENER_ALICE://kafka0:29094",
    "advertised.listeners": ("LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092,"
                             "LISTENER_ALICE://never-gonna-give-you-up:29094"),
    "listener.security.protocol.map": "LISTENER_BOB:PLAINTEXT,LISTENER_FRED:PLAINTEXT,LISTENER_ALICE:PLAINTEXT",
    "inter.broker.listener.name": "LISTENER_BOB",
}
KRAFT_COMBINED = {
    "process.roles": "broker,controller",
    "node.id": "1",
    "controller.quorum.voters": "1@host:9093",
    "listeners": "PLAINTEXT://:9092,CONTROLLER://:9093",
    "controller.listener.names": "CONTROLLER",
    "advertised.listeners": "PLAINTEXT://host:9092",
}
KRAFT_BROKER = {
    "process.roles": "broker",
    "node.id": "4",
    "controller.quorum.voters": "1@c1.example:9093,2@c2.example:9093,3@c3.example:9093",
    "listeners": "PLAINTEXT://:9092",
    "controller.listener.names": "CONTROLLER",
    "advertised.listeners": "PLAINTEXT://b4.example:9092",
}
KRAFT_CONTROLLER = {
    "process.roles": "controller",
    "node.id": "1",
    "controller.quorum.voters": "1@c1.example:9093,2@c2.example:9093,3@c3.example:9093",
    "listeners": "CONTROLLER://c1.example:9093",
    "controller.listener.names": "CONTROLLER",
}

DOCUMENTED = {
    "option 1 (ZooKeeper, default listeners)": OPTION_1,
    "option 2 (INTERNAL/EXTERNAL)": OPTION_2,
    "Docker BOB/FRED": DOCKER_BOB_FRED,
    "Docker BOB/FRED/ALICE": DOCKER_BOB_FRED_ALICE,
    "KRaft combined node": KRAFT_COMBINED,
    "KRaft broker-only node": KRAFT_BROKER,
    "KRaft controller-only node": KRAFT_CONTROLLER,
}


def with_(base: dict, **changes) -> dict:
    """``base`` with ``changes`` (keys spelled with '_' for '.'); a value of None removes the key."""
    result = dict(base)
    for key, value in changes.items():
        key = key.replace("_", ".")
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def kv(**items) -> dict:
    """A properties mapping from keyword arguments, '_' standing for '.'."""
    return with_({}, **items)


@pytest.mark.parametrize("props", list(DOCUMENTED.values()), ids=list(DOCUMENTED))
def test_documented_configurations_start(props):
    assert check_kafka_config(props) == []


def test_option_2_without_inter_broker_listener_name_fires_r11():
    findings = check_kafka_config(with_(OPTION_2, inter_broker_listener_name=None))
    assert [finding["rule"] for finding in findings] == ["R11"]
    assert findings[0]["message"].startswith(
        REQ + "inter.broker.listener.name must be a listener name defined in advertised.listeners. "
        "The valid options based on currently configured listeners are ")
    assert set(findings[0]["message"].rsplit(" ", 1)[1].split(",")) == {"INTERNAL", "EXTERNAL"}


def test_an_empty_properties_file_starts():
    assert check_kafka_config({}) == []


# -- every rule fires: (rule, props, message, compare by prefix) ----------------------------------------------

WILDCARD = REQ + "advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP address."
PORT_PAIR = "If you have two listeners on the same port then one needs to be IPv4 and the other IPv6, listeners: "

FIRES = [
    # R1: syntax, wrapped as R3 says
    ("R1", kv(listeners="PLAINTEXT://localhost"),
     "Error creating broker listeners from 'PLAINTEXT://localhost': Unable to parse PLAINTEXT://localhost to a "
     "broker endpoint", False),
    ("R1", kv(advertised_listeners=" PLAINTEXT//%s:9092 " % PUBLIC),
     "Error creating broker listeners from 'PLAINTEXT//%s:9092': Unable to parse PLAINTEXT//%s:9092 to a broker "
     "endpoint" % (PUBLIC, PUBLIC), False),
    # R1: KRaft's R7 scan of `listeners` meets an entry without ':' first, and Kafka does not wrap that one
    ("R1", with_(KRAFT_COMBINED, listeners="PLAINTEXT://:9092,CONTROLLER"),
     "Unable to parse a listener name from CONTROLLER", False),
    # R2: an explicit map replaces the default one entirely, so PLAINTEXT is unmapped here
    ("R2", kv(listeners="PLAINTEXT://:9092,INTERNAL://:9093", listener_security_protocol_map="INTERNAL:PLAINTEXT"),
     "Error creating broker listeners from 'PLAINTEXT://:9092,INTERNAL://:9093': No security protocol defined for "
     "listener PLAINTEXT", False),
    ("R2", kv(listeners="INTERNAL://:9092", inter_broker_listener_name="INTERNAL"),
     "Error creating broker listeners from 'INTERNAL://:9092': No security protocol defined for listener INTERNAL",
     False),
    # R3: the entry matches but Java's Integer.parseInt fails on the port
    ("R3", kv(listeners="  PLAINTEXT://:99999999999 "),
     "Error creating broker listeners from 'PLAINTEXT://:99999999999': For input string: \"99999999999\"", False),
    ("R4", kv(listeners="PLAINTEXT://:9092,plaintext://:9093"),
     REQ + "Each listener must have a different name, listeners: PLAINTEXT://:9092,plaintext://:9093", False),
    ("R4", kv(advertised_listeners="PLAINTEXT://a.example:9092,PLAINTEXT://b.example:9092"),
     REQ + "Each listener must have a different name, listeners: PLAINTEXT://a.example:9092,"
     "PLAINTEXT://b.example:9092", False),
    ("R5", kv(listeners="PLAINTEXT://:9092,SSL://:9092"),
     REQ + "Each listener must have a different port, listeners: PLAINTEXT://:9092,SSL://:9092", False),
    ("R5", kv(listeners="PLAINTEXT://127.0.0.1:9092,SSL://10.0.0.1:9092"),
     REQ + PORT_PAIR + "PLAINTEXT://127.0.0.1:9092,SSL://10.0.0.1:9092, port: 9092", False),
    ("R5", kv(listeners="PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092,SASL_SSL://broker.example:9092"),
     PORT_PAIR + "PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092,SASL_SSL://broker.example:9092, port: 9092", False),
    ("R5", kv(listeners="PLAINTEXT://127.0.0.1:9092,SSL://broker.example:9092"),
     "Each listener must have a different port unless exactly one listener has an IPv4 address and the other IPv6 "
     "address, listeners: PLAINTEXT://127.0.0.1:9092,SSL://broker.example:9092, port: 9092", False),
    ("R6", kv(listener_security_protocol_map="PLAINTEXT:PLAINTXT"),
     "Invalid security protocol `PLAINTXT` defined in listener.security.protocol.map", False),
    ("R6", kv(listener_security_protocol_map="PLAINTEXT"),
     "Error parsing configuration property 'listener.security.protocol.map': begin 0, end -1, length 9", False),
    # R7: SSL in use, so KRaft does not map CONTROLLER to PLAINTEXT implicitly
    ("R7", with_(KRAFT_COMBINED, listeners="SSL://:9092,CONTROLLER://:9093", advertised_listeners="SSL://host:9092",
                 security_inter_broker_protocol="SSL"),
     "Error creating broker listeners from 'SSL://:9092,CONTROLLER://:9093': No security protocol defined for "
     "listener CONTROLLER", False),
    ("R8", kv(inter_broker_listener_name="PLAINTEXT", security_inter_broker_protocol="PLAINTEXT"),
     "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.", False),
    ("R9", with_(OPTION_2, inter_broker_listener_name="replication"),
     "Listener with name REPLICATION defined in inter.broker.listener.name not found in "
     "listener.security.protocol.map.", False),
    ("R9", kv(security_inter_broker_protocol="TLS"),
     "Invalid value TLS for configuration security.inter.broker.protocol: String must be one of: PLAINTEXT, SSL, "
     "SASL_PLAINTEXT, SASL_SSL", False),
    ("R10", with_(KRAFT_COMBINED, listeners="CONTROLLER://:9093", advertised_listeners=None),
     REQ + "There must be at least one broker advertised listener. Perhaps all listeners appear in "
     "controller.listener.names?", False),
    ("R10", kv(advertised_listeners=""), REQ + "There must be at least one broker advertised listener.", False),
    # R11 with Kafka's default inter-broker listener (R9: PLAINTEXT when neither key is set)
    ("R11", kv(listeners="SSL://:9093"),
     REQ + "inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options "
     "based on currently configured listeners are SSL", False),
    ("R11", with_(OPTION_2, advertised_listeners="EXTERNAL://%s:9092" % PUBLIC),
     REQ + "inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options "
     "based on currently configured listeners are EXTERNAL", False),
    ("R12", with_(OPTION_2, listeners="INTERNAL://0.0.0.0:19092"),
     REQ + "advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. "
     "Found ", True),
    # R13: also through the fallback to `listeners`
    ("R13", kv(listeners="PLAINTEXT://0.0.0.0:9092"), WILDCARD, False),
    ("R13", kv(advertised_listeners="PLAINTEXT://0.0.0.0:9092"), WILDCARD, False),
    ("R14", with_(KRAFT_BROKER, listener_security_protocol_map="PLAINTEXT:PLAINTEXT",
                  advertised_listeners="PLAINTEXT://b4.example:9092,CONTROLLER://c1.example:9093"),
     "Error creating broker listeners from 'PLAINTEXT://b4.example:9092,CONTROLLER://c1.example:9093': No security "
     "protocol defined for listener CONTROLLER", False),
    ("R15", with_(KRAFT_COMBINED, advertised_listeners="PLAINTEXT://host:9092,CONTROLLER://0.0.0.0:9093"),
     WILDCARD, False),
    ("R16", with_(KRAFT_BROKER, controller_listener_names=None),
     REQ + "controller.listener.names must contain at least one value when running KRaft with just the broker role",
     False),
    ("R17", with_(KRAFT_BROKER, listeners="PLAINTEXT://:9092,CONTROLLER://:9093"),
     REQ + "controller.listener.names must not contain a value appearing in the 'listeners' configuration when "
     "running KRaft with just the broker role", False),
    ("R18", with_(KRAFT_BROKER, listener_security_protocol_map="PLAINTEXT:PLAINTEXT"),
     "Controller listener with name CONTROLLER defined in controller.listener.names not found in "
     "listener.security.protocol.map  (an explicit security mapping for each controller listener is required if "
     "listener.security.protocol.map is non-empty, or if there are security protocols other than PLAINTEXT in use)",
     False),
    ("R19", with_(KRAFT_BROKER, node_id="2"),
     REQ + "If process.roles contains just the 'broker' role, the node id 2 must not be included in the set of "
     "voters controller.quorum.voters=Set(", True),
    ("R20", with_(KRAFT_CONTROLLER, listeners="CONTROLLER://c1.example:9093,PLAINTEXT://:9092"),
     REQ + "The listeners config must only contain KRaft controller listeners from controller.listener.names when "
     "process.roles=controller", False),
    ("R21", with_(KRAFT_COMBINED, node_id="2"),
     REQ + "If process.roles contains the 'controller' role, the node id 2 must be included in the set of voters "
     "controller.quorum.voters=Set(", True),
    ("R21", with_(KRAFT_COMBINED, listeners="PLAINTEXT://:9092"),
     REQ + "controller.listener.names must contain at least one value appearing in the 'listeners' configuration "
     "when running the KRaft controller role", False),
    ("R21", with_(KRAFT_COMBINED, controller_listener_names="CONTROLLER,CONTROLLER2"),
     REQ + "controller.listener.names must only contain values appearing in the 'listeners' configuration when "
     "running the KRaft controller role", False),
    ("R22", with_(KRAFT_COMBINED, controller_quorum_voters=None),
     "If using process.roles, either controller.quorum.bootstrap.servers must contain the set of bootstrap "
     "controllers or controller.quorum.voters must contain a parseable set of controllers.", False),
    ("R22", with_(KRAFT_COMBINED, controller_quorum_voters="1-host:9093"),
     "Invalid configuration value for controller.quorum.voters. Each entry should be in the form "
     "`{id}@{host}:{port}`.", False),
    ("R22", with_(KRAFT_COMBINED, controller_quorum_voters="one@host:9093"),
     "Failed to parse voter ID as an integer from one", False),
    ("R23", with_(KRAFT_COMBINED, process_roles="broker,zookeeper"),
     "Invalid value zookeeper for configuration process.roles: String must be one of: broker, controller", False),
    ("R23", with_(KRAFT_COMBINED, process_roles="broker,"),
     "Invalid value  for configuration process.roles: String must be one of: broker, controller", False),
    ("R23", with_(KRAFT_BROKER, process_roles="broker,broker"),
     "Duplicate role names found in `process.roles`: ", True),
    ("R23", kv(node_id="1", broker_id="2"), "You must set `node.id` to the same value as `broker.id`.", False),
    ("R23", with_(KRAFT_COMBINED, node_id=None),
     "Missing configuration `node.id` which is required when `process.roles` is defined (i.e. when running in "
     "KRaft mode).", False),
    ("R23", kv(node_id="one"), "Invalid value one for configuration broker.id: Not a number of type INT", False),
    ("R24", kv(listeners="SASL_SSL://:9093", security_inter_broker_protocol="SASL_SSL",
               sasl_mechanism_inter_broker_protocol="PLAIN"),
     REQ + "sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms when SASL is used for "
     "inter-broker communication", False),
    # R24: the listener's own sasl.enabled.mechanisms wins over the global one
    ("R24", kv(listeners="INTERNAL://:9093", listener_security_protocol_map="INTERNAL:SASL_PLAINTEXT",
               inter_broker_listener_name="INTERNAL", sasl_mechanism_inter_broker_protocol="PLAIN",
               sasl_enabled_mechanisms="PLAIN", **{"listener_name_internal_sasl_enabled_mechanisms": "SCRAM-SHA-512"}),
     REQ + "sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms when SASL is used for "
     "inter-broker communication", False),
]


@pytest.mark.parametrize(
    ("rule", "props", "message", "by_prefix"), FIRES,
    ids=["%s-%d" % (case[0], index) for index, case in enumerate(FIRES)])
def test_rule_fires_alone_with_kafkas_message(rule, props, message, by_prefix):
    findings = check_kafka_config(props)
    assert [finding["rule"] for finding in findings] == [rule], findings
    if by_prefix:
        assert findings[0]["message"].startswith(message)
    else:
        assert findings[0]["message"] == message


def test_every_rule_has_a_firing_case():
    assert {case[0] for case in FIRES} == ALL_RULES


# -- every rule has a near miss that Kafka accepts ------------------------------------------------------------

NEAR_MISSES = [
    ("R1", kv(listeners="PLAINTEXT://[::1]:9092 , SSL://:9093")),
    ("R1", kv(advertised_listeners="PLAINTEXT://:9092")),  # empty advertised host: the canonical host name
    ("R2", kv(listeners="INTERNAL://:9092", listener_security_protocol_map="internal:plaintext",
              inter_broker_listener_name="INTERNAL")),
    ("R3", kv(listeners="PLAINTEXT://:2147483647")),  # Java int still; binding is not a config rule
    ("R4", kv(listeners="A://:9092,B://:9093", listener_security_protocol_map="A:PLAINTEXT,B:PLAINTEXT",
              advertised_listeners="A://lb.example:9092,B://lb.example:9092", inter_broker_listener_name="A")),
    ("R5", kv(listeners="PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092")),
    ("R5", kv(listeners="PLAINTEXT://:0,SSL://:0")),  # port 0 is ignored
    ("R6", kv(listeners="INTERNAL://:9092,EXTERNAL://:9093",
              listener_security_protocol_map="internal:plaintext, EXTERNAL:Sasl_Ssl ,",
              inter_broker_listener_name="INTERNAL")),
    ("R7", KRAFT_COMBINED),  # no map, no SSL/SASL: CONTROLLER is PLAINTEXT implicitly
    ("R8", kv(listeners="SSL://:9093", security_inter_broker_protocol="ssl")),
    ("R9", with_(OPTION_2, inter_broker_listener_name="internal")),
    ("R10", KRAFT_COMBINED),
    ("R11", OPTION_2),
    ("R12", with_(OPTION_2, advertised_listeners="INTERNAL://%s:19092" % PRIVATE)),
    ("R13", OPTION_2),  # binds 0.0.0.0, advertises names
    ("R13", kv(advertised_listeners="PLAINTEXT://[::]:9092")),  # only the exact string 0.0.0.0 is refused
    # R14: CONTROLLER advertised by a broker-only node is dropped, so it needs no `listeners` entry
    ("R14", with_(KRAFT_BROKER, advertised_listeners="PLAINTEXT://b4.example:9092,CONTROLLER://c1.example:9093")),
    # R15: Kafka after 3.9.0 advertises the host name for a controller listener bound to 0.0.0.0
    ("R15", with_(KRAFT_COMBINED, listeners="PLAINTEXT://:9092,CONTROLLER://0.0.0.0:9093")),
    ("R16", KRAFT_BROKER),
    ("R17", KRAFT_BROKER),
    ("R18", with_(KRAFT_BROKER, listener_security_protocol_map="PLAINTEXT:PLAINTEXT,CONTROLLER:SSL")),
    ("R19", with_(KRAFT_BROKER, node_id="1", controller_quorum_voters=None,
                  controller_quorum_bootstrap_servers="c1.example:9093,c2.example:9093")),
    ("R20", KRAFT_CONTROLLER),
    ("R21", with_(KRAFT_COMBINED, node_id="7", controller_quorum_voters=None,
                  controller_quorum_bootstrap_servers="host:9093")),
    ("R22", with_(KRAFT_CONTROLLER, controller_quorum_voters=None,
                  controller_quorum_bootstrap_servers="c1.example:9093")),
    ("R23", kv(broker_id="3")),  # node.id follows broker.id
    ("R23", with_(KRAFT_COMBINED, node_id=None, broker_id="1")),  # and broker.id stands in for node.id
    ("R24", kv(listeners="SASL_SSL://:9093", security_inter_broker_protocol="SASL_SSL",
               sasl_mechanism_inter_broker_protocol="PLAIN", sasl_enabled_mechanisms="SCRAM-SHA-512, PLAIN")),
    ("R24", kv(listeners="INTERNAL://:9093", listener_security_protocol_map="INTERNAL:SASL_PLAINTEXT",
               inter_broker_listener_name="INTERNAL", sasl_mechanism_inter_broker_protocol="PLAIN",
               **{"listener_name_internal_sasl_enabled_mechanisms": "PLAIN"})),
]


@pytest.mark.parametrize(("rule", "props"), NEAR_MISSES,
                         ids=["%s-%d" % (case[0], index) for index, case in enumerate(NEAR_MISSES)])
def test_near_miss_starts(rule, props):
    assert check_kafka_config(props) == []


def test_every_rule_has_a_near_miss():
    assert {case[0] for case in NEAR_MISSES} == ALL_RULES


# -- rule details ---------------------------------------------------------------------------------------------


def test_r15_kafka_3_9_0_also_refused_a_controller_wildcard_derived_from_listeners():
    props = with_(KRAFT_COMBINED, listeners="PLAINTEXT://:9092,CONTROLLER://0.0.0.0:9093")
    assert check_kafka_config(props, derived_controller_wildcard_fails=True) == [
        {"rule": "R15", "message": WILDCARD}]


def test_r7_controller_names_are_case_sensitive_for_the_implicit_mapping():
    # Kafka adds the implicit mapping under the name as written, but looks listeners up upper-cased
    findings = check_kafka_config(with_(KRAFT_COMBINED, controller_listener_names="controller"))
    assert [finding["rule"] for finding in findings] == ["R7", "R21"]
    assert findings[0]["message"].endswith("No security protocol defined for listener CONTROLLER")


def test_r7_with_sasl_in_use_on_a_broker_only_node_is_reported_by_r18():
    props = with_(KRAFT_BROKER, listeners="SASL_SSL://:9092", advertised_listeners="SASL_SSL://b4.example:9092",
                  security_inter_broker_protocol="SASL_SSL", sasl_enabled_mechanisms="GSSAPI")
    assert [finding["rule"] for finding in check_kafka_config(props)] == ["R18"]


def test_r10_in_zookeeper_mode_has_no_kraft_hint_and_suppresses_r11():
    findings = check_kafka_config(kv(listeners="", inter_broker_listener_name="PLAINTEXT"))
    assert findings == [{"rule": "R10", "message": REQ + "There must be at least one broker advertised listener."}]


def test_r12_names_what_was_found_and_what_is_valid():
    findings = check_kafka_config(with_(OPTION_2, listeners="INTERNAL://0.0.0.0:19092"))
    found, valid = findings[0]["message"].split("Found ", 1)[1].split(". The valid options based on the current "
                                                                      "configuration are ")
    assert set(found.split(",")) == {"INTERNAL", "EXTERNAL"}
    assert valid == "INTERNAL"


def test_r19_and_r21_print_the_voter_ids():
    r19 = check_kafka_config(with_(KRAFT_BROKER, node_id="2"))[0]["message"]
    r21 = check_kafka_config(with_(KRAFT_COMBINED, node_id="2", controller_quorum_voters="1@a:9093,3@b:9093"))
    assert r19.endswith("voters controller.quorum.voters=Set(1, 2, 3)")
    assert r21[0]["message"].endswith("voters controller.quorum.voters=Set(1, 3)")


def test_r21_controller_only_node_with_no_controller_names_is_not_also_r20():
    # (an explicit map: without controller names KRaft's implicit CONTROLLER mapping is gone too, R2)
    props = with_(KRAFT_CONTROLLER, controller_listener_names="", listener_security_protocol_map="CONTROLLER:SSL")
    findings = check_kafka_config(props)
    assert [finding["rule"] for finding in findings] == ["R21"]
    assert "must contain at least one value" in findings[0]["message"]


def test_r23_duplicate_roles_are_reported_but_the_node_is_still_checked_as_a_broker():
    findings = check_kafka_config(with_(KRAFT_BROKER, process_roles="broker,broker", controller_listener_names=None))
    assert [finding["rule"] for finding in findings] == ["R23", "R16"]


def test_r23_process_roles_are_case_sensitive():
    findings = check_kafka_config(with_(KRAFT_BROKER, process_roles="Broker"))
    assert findings == [{"rule": "R23", "message": "Invalid value Broker for configuration process.roles: String "
                                                   "must be one of: broker, controller"}]


# -- messages by release: what Apache Kafka 3.9.2, 4.0.1, 4.1.2, 4.2.2, 4.3.1 and 4.4.0 printed --------------

BY_RELEASE = [
    # (props, {release: message}): the first finding's message under kafka_version=release
    (kv(listeners="PLAINTEXT://localhost"), {
        "3.9": "Error creating broker listeners from 'PLAINTEXT://localhost': Unable to parse PLAINTEXT://localhost "
               "to a broker endpoint",
        "4.2": "Error creating broker listeners from '[PLAINTEXT://localhost]': Unable to parse PLAINTEXT://localhost "
               "to a broker endpoint"}),
    (kv(listeners="PLAINTEXT://:9092,plaintext://:9093"), {
        "4.1": REQ + "Each listener must have a different name, listeners: PLAINTEXT://:9092,plaintext://:9093",
        "4.2": REQ + "Each listener must have a different name, listeners: [PLAINTEXT://:9092, plaintext://:9093]",
        "4.3": "Error creating broker listeners from '[PLAINTEXT://:9092, plaintext://:9093]': Each listener must "
               "have a different name, listeners: [PLAINTEXT://:9092, plaintext://:9093]"}),
    (kv(listeners="PLAINTEXT://127.0.0.1:9092,SSL://10.0.0.1:9092"), {
        "4.4.0": "Error creating broker listeners from '[PLAINTEXT://127.0.0.1:9092, SSL://10.0.0.1:9092]': If you "
                 "have two listeners on the same port then one needs to be IPv4 and the other IPv6, listeners: "
                 "[PLAINTEXT://127.0.0.1:9092, SSL://10.0.0.1:9092], port: 9092"}),
    (kv(advertised_listeners=""), {
        "4.1": REQ + "There must be at least one broker advertised listener.",
        "4.2": "Configuration 'advertised.listeners' must not be empty. Valid values include: any non-empty value"}),
    (with_(KRAFT_BROKER, controller_listener_names=None), {
        "4.1": REQ + "controller.listener.names must contain at least one value when running KRaft with just the "
                     "broker role",
        "4.2": 'Missing required configuration "controller.listener.names" which has no default value.'}),
    (with_(KRAFT_COMBINED, process_roles="broker,"), {
        "4.2": "Configuration 'process.roles' values must not be empty."}),
    (kv(node_id="1", broker_id="2"), {
        "4.3": "You must set `node.id` to the same value as `broker.id`.",
        "4.4": "`node.id` and `broker.id` must be set to the same value. `broker.id` is deprecated, please use "
               "`node.id` instead."}),
    (with_(KRAFT_COMBINED, node_id=None), {
        "3.9.2": "Missing configuration `node.id` which is required when `process.roles` is defined (i.e. when "
                 "running in KRaft mode).",
        "4.0.1": 'Missing required configuration "node.id" which has no default value.'}),
]


@pytest.mark.parametrize(("props", "release", "message"),
                         [(props, release, message) for props, by in BY_RELEASE for release, message in by.items()])
def test_findings_quote_the_message_of_the_release_asked_for(props, release, message):
    findings = check_kafka_config(props, kafka_version=release)
    assert findings and findings[0]["message"] == message, findings


def test_kafka_4_2_and_later_accept_duplicate_roles():
    assert check_kafka_config(with_(KRAFT_BROKER, process_roles="broker,broker"), kafka_version="4.2") == []
    assert check_kafka_config(with_(KRAFT_BROKER, process_roles="broker,broker"))[0]["rule"] == "R23"


def test_kafka_version_must_name_a_release():
    with pytest.raises(ValueError, match="kafka_version"):
        check_kafka_config({}, kafka_version="latest")


# -- stopping policy: independent findings together, consequences never ---------------------------------------


def test_independent_failures_are_all_reported():
    props = kv(listeners="PLAINTEXT://:9092,SSL://:9092", advertised_listeners="PLAINTEXT://0.0.0.0:9092",
               node_id="1", broker_id="2")
    assert [finding["rule"] for finding in check_kafka_config(props)] == ["R23", "R5", "R13"]


def test_unparseable_listeners_hide_checks_that_read_them():
    # the duplicate name and the 0.0.0.0 fallback are not judged once the list does not parse
    findings = check_kafka_config(kv(listeners="PLAINTEXT://0.0.0.0:9092,PLAINTEXT://0.0.0.0:9092,oops"))
    assert [finding["rule"] for finding in findings] == ["R1"]


def test_unparseable_advertised_listeners_hide_what_is_advertised():
    findings = check_kafka_config(with_(OPTION_2, advertised_listeners="INTERNAL://h:19092,EXTERNAL:/h:9092",
                                        inter_broker_listener_name="OTHER"))
    assert [finding["rule"] for finding in findings] == ["R1", "R9"]


def test_a_bad_protocol_map_hides_mapping_checks():
    props = kv(listeners="INTERNAL://:9092", listener_security_protocol_map="INTERNAL:TLS",
               inter_broker_listener_name="INTERNAL")
    assert [finding["rule"] for finding in check_kafka_config(props)] == ["R6"]


def test_an_unmapped_listener_name_is_reported_once():
    props = kv(listeners="INTERNAL://:9092", advertised_listeners="INTERNAL://h:9092",
               inter_broker_listener_name="INTERNAL")
    findings = check_kafka_config(props)
    assert [finding["rule"] for finding in findings] == ["R2"]
    assert findings[0]["message"].startswith("Error creating broker listeners from 'INTERNAL://:9092'")


def test_an_unknown_role_hides_role_checks_but_not_listener_checks():
    props = with_(KRAFT_COMBINED, process_roles="broker,zookeeper", listeners="PLAINTEXT://:9092,CONTROLLER://:9092")
    assert [finding["rule"] for finding in check_kafka_config(props)] == ["R23", "R5"]


def test_conflicting_node_ids_hide_voter_checks():
    props = with_(KRAFT_BROKER, node_id="1", broker_id="4")
    assert [finding["rule"] for finding in check_kafka_config(props)] == ["R23"]


def test_unparseable_voters_hide_voter_checks():
    props = with_(KRAFT_BROKER, node_id="1", controller_quorum_voters="1@c1.example:9093,2@")
    assert [finding["rule"] for finding in check_kafka_config(props)] == ["R22"]


def test_r8_hides_r11_and_r24():
    props = kv(listeners="SASL_SSL://:9093", inter_broker_listener_name="INTERNAL",
               security_inter_broker_protocol="SASL_SSL", sasl_mechanism_inter_broker_protocol="PLAIN")
    assert [finding["rule"] for finding in check_kafka_config(props)] == ["R8"]


# -- the RULES table and input checking -----------------------------------------------------------------------


def test_rules_table_names_r1_to_r24_with_one_line_summaries():
    assert set(RULES) == ALL_RULES
    assert all(summary and "\n" not in summary and len(summary) <= 120 for summary in RULES.values())


def test_findings_are_plain_dicts():
    findings = check_kafka_config(kv(listeners="bad"))
    assert findings == [{"rule": "R1", "message": "Error creating broker listeners from 'bad': Unable to parse bad "
                                                  "to a broker endpoint"}]


@pytest.mark.parametrize("props", [None, [("listeners", "PLAINTEXT://:9092")]])
def test_props_must_be_a_mapping(props):
    with pytest.raises(TypeError, match="mapping of strings"):
        check_kafka_config(props)


def test_property_values_must_be_strings():
    with pytest.raises(TypeError, match="'node.id' must map a string to a string, got int = 1"):
        check_kafka_config({"node.id": 1})
