# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The per-cluster evaluation (planner + rule checker) as plain Python: no Spark needed."""

import json

import numpy as np
import pandas as pd
import pytest
from records import broker_record

from kafka_listeners_audit.evaluate import (
    EVALUATION_SCHEMA,
    advertised_endpoints,
    config_drift,
    evaluate_cluster,
    evaluate_cluster_frame,
    host_class,
)


def _by_broker(results):
    return {item["broker"]: item for item in results}


def test_internal_external_cluster_matches_its_plan():
    results = _by_broker(evaluate_cluster([broker_record(1), broker_record(2)]))
    b1 = results["b1"]
    assert b1["plan_mode"] == "dual"
    assert b1["plan_error"] is None
    assert b1["drift"] == []
    assert b1["startup_violations"] == []
    assert b1["inter_broker_listener"] == "INTERNAL"
    assert b1["endpoints"] == [
        {"listener": "INTERNAL", "host": "b1.internal", "port": 19092, "protocol": "PLAINTEXT", "host_class": None},
        {"listener": "EXTERNAL", "host": "b1.example.com", "port": 9092, "protocol": "PLAINTEXT",
         "host_class": None},
    ]
    assert results["b2"]["drift"] == []


def test_order_and_spacing_of_list_values_are_not_drift():
    reordered = broker_record(1, advertised_listeners=" EXTERNAL://b1.example.com:9092 , INTERNAL://b1.internal:19092",
                              listeners="EXTERNAL://0.0.0.0:9092,INTERNAL://0.0.0.0:19092")
    assert evaluate_cluster([reordered, broker_record(2)])[0]["drift"] == []


def test_a_changed_advertised_host_is_drift_with_both_values():
    edited = broker_record(2, advertised_listeners="INTERNAL://b2.internal:19092,EXTERNAL://ip-10-0-0-2:9092")
    result = _by_broker(evaluate_cluster([broker_record(1), edited]))["b2"]
    assert result["drift"] == [{
        "key": "advertised.listeners",
        "current": "INTERNAL://b2.internal:19092,EXTERNAL://ip-10-0-0-2:9092",
        "planned": "INTERNAL://b2.internal:19092,EXTERNAL://b2.example.com:9092",
    }]
    assert result["startup_violations"] == []


def test_option_2_without_inter_broker_listener_breaks_kafka_rule_r11_and_drifts():
    broken = broker_record(1, inter_broker_listener_name=None)
    result = evaluate_cluster([broken, broker_record(2)])[0]
    assert [item["rule"] for item in result["startup_violations"]] == ["R11"]
    assert result["startup_violations"][0]["message"].startswith(
        "requirement failed: inter.broker.listener.name must be a listener name defined in advertised.listeners")
    assert result["drift"] == [{"key": "inter.broker.listener.name", "current": None, "planned": "INTERNAL"}]
    assert result["inter_broker_listener"] == "PLAINTEXT"  # Kafka's default when neither key is set


@pytest.mark.parametrize(("kafka_version", "message"), [
    (None, "requirement failed: Each listener must have a different name, listeners: INTERNAL://0.0.0.0:19092,"),
    ("4.4.0", "Error creating broker listeners from '[INTERNAL://0.0.0.0:19092, EXTERNAL://0.0.0.0:9092, "),
])
def test_startup_violations_quote_the_release_of_the_plan_options(kafka_version, message):
    options = json.dumps({"mode": "dual", **({"kafka_version": kafka_version} if kafka_version else {})})
    repeated = broker_record(1, listeners="INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092,external://0.0.0.0:9093",
                             plan_options=options)
    result = evaluate_cluster([repeated, broker_record(2, plan_options=options)])[0]
    assert [item["rule"] for item in result["startup_violations"]] == ["R4"]
    assert result["startup_violations"][0]["message"].startswith(message)


def test_an_unreadable_kafka_version_is_the_plans_error_and_the_rules_quote_3_9():
    options = json.dumps({"mode": "dual", "kafka_version": "latest"})
    repeated = broker_record(1, listeners="INTERNAL://0.0.0.0:19092,INTERNAL://0.0.0.0:9092", plan_options=options)
    result = evaluate_cluster([repeated, broker_record(2, plan_options=options)])[0]
    assert result["plan_error"] == "option kafka_version must look like 4.4 or 3.9.2, got 'latest'"
    assert result["startup_violations"][0]["message"].startswith("requirement failed: Each listener must have")


def test_facts_the_planner_refuses_give_plan_error_and_unknown_drift():
    results = evaluate_cluster([broker_record(1), broker_record(2, private_host=None)])
    assert {item["plan_error"] for item in results} == {
        "broker b2: private_host is required for the INTERNAL listener"}
    assert [item["drift"] for item in results] == [None, None]
    assert [item["startup_violations"] for item in results] == [[], []]  # the config itself is still checked


def test_unparseable_json_facts_name_the_broker_and_field():
    results = evaluate_cluster([broker_record(1, external_checks="{not json"), broker_record(2)])
    assert results[0]["plan_error"].startswith("broker b1: external_checks is not valid JSON")
    assert results[0]["drift"] is None


def test_other_config_must_map_strings_to_strings():
    record = broker_record(1, other_config=json.dumps({"sasl.enabled.mechanisms": ["PLAIN"]}))
    results = evaluate_cluster([record, broker_record(2)])
    assert results[0]["plan_error"] == "broker b1: other_config['sasl.enabled.mechanisms'] must be a string, got list"


def test_brokers_of_one_cluster_must_share_plan_options():
    results = evaluate_cluster([broker_record(1), broker_record(2, plan_options=json.dumps({"mode": "single"}))])
    assert results[0]["plan_error"] == (
        "the brokers' plan_options differ (2 versions); one plan needs one set of options")


def test_other_config_reaches_the_rule_checker():
    sasl = {"inter_broker_listener_name": None, "security_inter_broker_protocol": "SASL_PLAINTEXT",
            "listeners": "SASL_PLAINTEXT://0.0.0.0:9092", "advertised_listeners": "SASL_PLAINTEXT://b1.example.com:9092",
            "listener_security_protocol_map": None}
    record = broker_record(1, other_config=json.dumps({"sasl.enabled.mechanisms": "PLAIN"}), **sasl)
    result = evaluate_cluster([record])[0]
    assert [item["rule"] for item in result["startup_violations"]] == ["R24"]


def test_advertised_endpoints_fall_back_to_listeners_and_leave_out_controllers():
    props = {"listeners": "PLAINTEXT://:9092,CONTROLLER://c1.internal:9093", "controller.listener.names": "CONTROLLER",
             "process.roles": "broker,controller", "node.id": "1"}
    assert advertised_endpoints(props) == (
        [{"listener": "PLAINTEXT", "host": "", "port": 9092, "protocol": "PLAINTEXT", "host_class": "default"}],
        "PLAINTEXT")


def test_advertised_endpoints_of_an_unparseable_list_are_empty():
    assert advertised_endpoints({"advertised.listeners": "INTERNAL:b1:19092", "inter.broker.listener.name": "x"}) \
        == ([], "X")


def test_config_drift_treats_empty_as_unset():
    assert config_drift({"security.inter.broker.protocol": "  "}, {"security.inter.broker.protocol": None}) == []


@pytest.mark.parametrize(("host", "expected"), [
    ("localhost", "loopback"), ("kafka.localhost", "loopback"), ("127.0.0.2", "loopback"), ("::1", "loopback"),
    ("0.0.0.0", "wildcard"), ("::", "wildcard"), ("", "default"), ("b1.example.com", None), ("198.19.0.1", None),
    (None, None),
])
def test_host_class(host, expected):
    assert host_class(host) == expected


def test_frame_wrapper_handles_arrow_arrays_and_keeps_the_schema_columns():
    records = [broker_record(2), broker_record(1, process_roles=np.array([], dtype=object))]
    result = evaluate_cluster_frame(pd.DataFrame(records))
    assert list(result.columns) == [field.name for field in EVALUATION_SCHEMA.fields]
    assert list(result["broker"]) == ["b1", "b2"]  # sorted by broker before planning
    assert list(result["plan_mode"]) == ["dual", "dual"]
