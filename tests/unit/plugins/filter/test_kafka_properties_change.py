# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""kafka_properties_change answers as the kafka_properties module does in check mode, from the file's entries."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.kafka_properties_change import kafka_properties_change
from ansible_collections.kafkaops.listeners.plugins.module_utils._env_file import parse_env_file
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import parse_properties
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties_file import PropertiesFileBackend

FILES = {
    "fresh install": "node.id=1\nprocess.roles=broker,controller\nlisteners=PLAINTEXT://:9092\n",
    "duplicates, separators, a continuation and escapes": (
        "# managed elsewhere\nlisteners = PLAINTEXT://:9092\nlisteners:PLAINTEXT://:9092\n"
        "advertised.listeners=PLAINTEXT://old.\\\n    example:9092\nlog.dirs=/var/lib/kafka\\u0041\nnode.id 1\n"
        "process.roles=broker,controller\n"
    ),
    "container env file": "KAFKA_NODE_ID=1\nKAFKA_LISTENERS=PLAINTEXT://:9092\nCLUSTER_ID=abc\n",
}
# Compose env files: quoted values, export, a repeated variable, one taken from the environment, CRLF
ENV_FILES = {
    "container env file": "KAFKA_NODE_ID=1\nKAFKA_PROCESS_ROLES=broker,controller\nKAFKA_LISTENERS=PLAINTEXT://:9092\n"
                          "CLUSTER_ID=abc\n",
    "quotes, export, repeats and CRLF": (
        "# compose\r\nexport KAFKA_NODE_ID='1'\r\nKAFKA_LISTENERS=\"PLAINTEXT://:9092\"  # ours\r\n"
        "KAFKA_LISTENERS=PLAINTEXT://:19092\r\nKAFKA_INTER_BROKER_LISTENER_NAME\r\nKAFKA_PROCESS_ROLES=broker\r\n"
    ),
}
ENV_CHANGES = {
    "nothing to change": {"KAFKA_LISTENERS": "PLAINTEXT://:9092", "KAFKA_NODE_ID": 1},
    "set, add and remove": {"KAFKA_LISTENERS": "INTERNAL://:19092,EXTERNAL://:9092",
                            "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
                            "KAFKA_INTER_BROKER_LISTENER_NAME": "INTERNAL", "CLUSTER_ID": None,
                            "KAFKA_ADVERTISED_LISTENERS": "INTERNAL://b1:19092,EXTERNAL://b1.example:9092"},
    "a value that needs quotes": {"KAFKA_LOG4J_OPTS": "-Dlog4j.configuration=file:/etc/kafka/a b.properties"},
}
CHANGES = {
    "nothing to change": {"listeners": "PLAINTEXT://:9092", "node.id": 1},
    "set, add and remove": {"listeners": "INTERNAL://:19092", "advertised.listeners": "PLAINTEXT://b1.example:9092",
                            "inter.broker.listener.name": None, "log.dirs": None, "auto.create.topics.enable": True},
    "env names": {"KAFKA_LISTENERS": "PLAINTEXT://:9092", "KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://b1:9092",
                  "CLUSTER_ID": None, "KAFKA_INTER_BROKER_LISTENER_NAME": None},
}


class FailJson(Exception):
    pass


class CheckModeModule:
    """What PropertiesFileBackend reads of an AnsibleModule, in check mode."""

    check_mode = True
    _diff = False

    def __init__(self, **params):
        self.params = dict({"create": False, "backup": False, "validate_listeners": True, "kafka_version": None},
                           **params)

    def fail_json(self, **kwargs):
        raise FailJson(kwargs)


def module_answer(path, properties, validate, file_format="properties"):
    backend = PropertiesFileBackend(CheckModeModule(path=str(path), properties=properties, validate_listeners=validate,
                                                    format=file_format))
    backend.compute()
    return {"changed_keys": backend.changed_keys, "findings": backend.findings}


# (format, the file's text, the keys to set): every file of a format with every change for it
CASES = {f"{fmt}: {text_id}, {change_id}": (fmt, text, changes)
         for fmt, files, all_changes in (("properties", FILES, CHANGES), ("env", ENV_FILES, ENV_CHANGES))
         for text_id, text in files.items() for change_id, changes in all_changes.items()}
# how each format reads a file's text into the entries kafka_broker_facts returns
READ = {"properties": (parse_properties, "latin-1"), "env": (parse_env_file, "utf-8")}


@pytest.mark.parametrize(("file_format", "text", "changes"), CASES.values(), ids=CASES.keys())
def test_the_filter_answers_as_the_module(tmp_path, file_format, text, changes):
    parse, encoding = READ[file_format]
    path = tmp_path / "broker.conf"
    path.write_bytes(text.encode(encoding))
    entries = parse(text).to_dict()
    # unvalidated, the two must agree key for key; validated, on the findings too
    for validate in (False, True):
        assert kafka_properties_change(entries, changes, format=file_format, validate_listeners=validate) == (
            module_answer(path, changes, validate, file_format))


def test_an_env_value_the_file_cannot_hold_is_refused_naming_the_variable(tmp_path):
    path = tmp_path / "kafka.env"
    path.write_bytes(b"KAFKA_NODE_ID=1\n")
    changes = {"KAFKA_NODE_ID": "1", "KAFKA_LISTENERS": "PLAINTEXT://:9092\nKAFKA_NODE_ID=2"}
    with pytest.raises(FailJson) as refused:
        module_answer(path, changes, False, "env")
    with pytest.raises(AnsibleFilterError, match="KAFKA_LISTENERS: the value holds a line break"):
        kafka_properties_change({"KAFKA_NODE_ID": "1"}, changes, format="env")
    assert "KAFKA_LISTENERS: the value holds a line break" in refused.value.args[0]["msg"]
    # the same value is an ordinary (escaped) value in a properties file
    assert kafka_properties_change({}, changes)["changed_keys"] == ["KAFKA_LISTENERS", "KAFKA_NODE_ID"]


def test_changed_keys_and_findings():
    entries = {"node.id": "1", "process.roles": "broker,controller", "listeners": "PLAINTEXT://:9092",
               "controller.quorum.voters": "1@b1:9093"}
    split = {"listeners": "INTERNAL://:19092,EXTERNAL://:9092,CONTROLLER://:9093",
             "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
             "advertised.listeners": "INTERNAL://b1:19092,EXTERNAL://b1.example:9092",
             "controller.listener.names": "CONTROLLER"}
    answer = kafka_properties_change(entries, split, kafka_version="4.4.0")
    assert answer["changed_keys"] == sorted(split)
    assert [finding["rule"] for finding in answer["findings"]] == ["R11"]
    assert kafka_properties_change(entries, dict(split, **{"inter.broker.listener.name": "INTERNAL"}))["findings"] == []
    assert kafka_properties_change(entries, split, validate_listeners=False)["findings"] == []


def test_with_refuse_path_a_result_that_breaks_the_rules_is_refused_with_the_modules_message(tmp_path):
    entries = {"node.id": "1", "process.roles": "broker,controller", "listeners": "PLAINTEXT://:9092",
               "controller.quorum.voters": "1@b1:9093"}
    split = {"listeners": "INTERNAL://:19092,EXTERNAL://:9092,CONTROLLER://:9093",
             "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
             "controller.listener.names": "CONTROLLER"}
    path = tmp_path / "server.properties"
    path.write_text("".join("%s=%s\n" % item for item in entries.items()), encoding="latin-1")
    with pytest.raises(FailJson) as module_refusal:
        PropertiesFileBackend(CheckModeModule(path=str(path), properties=split, format="properties")).run()
    with pytest.raises(AnsibleFilterError) as filter_refusal:
        kafka_properties_change(entries, split, refuse_path=str(path))
    assert str(filter_refusal.value) == module_refusal.value.args[0]["msg"]
    assert str(filter_refusal.value).startswith("refusing to write %s: the result breaks Kafka's startup rules: R11: "
                                                % path)
    # a result within the rules is returned as without refuse_path
    fixed = dict(split, **{"inter.broker.listener.name": "INTERNAL"})
    assert kafka_properties_change(entries, fixed, refuse_path=str(path)) == kafka_properties_change(entries, fixed)


@pytest.mark.parametrize(("entries", "changes", "message"), [
    ({}, {"listeners": ["a"]}, "properties.listeners: expected a string, number, boolean or null, got list"),
    ({}, {" listeners": "x"}, "invalid key"),
    ([], {}, "expected mappings"),
])
def test_bad_input_names_the_problem(entries, changes, message):
    with pytest.raises(AnsibleFilterError, match=message):
        kafka_properties_change(entries, changes)


def test_an_unknown_format_is_an_error():
    with pytest.raises(AnsibleFilterError, match="format must be one of env, properties, got 'yaml'"):
        kafka_properties_change({}, {}, format="yaml")


def test_an_unknown_release_is_an_error():
    with pytest.raises(AnsibleFilterError, match="kafka_properties_change: kafka_version must look like 4.4"):
        kafka_properties_change({}, {"listeners": "PLAINTEXT://:9092"}, kafka_version="latest")
