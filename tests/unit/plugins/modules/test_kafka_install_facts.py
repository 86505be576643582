# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The kafka_install_facts module run through main(), on a folder standing for the machine's root."""

from __future__ import annotations

import functools

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_install
from ansible_collections.kafkaops.listeners.plugins.modules import kafka_install_facts


@pytest.fixture
def machine(tmp_path, monkeypatch):
    monkeypatch.setattr(kafka_install_facts, "find_install", functools.partial(_kafka_install.find_install,
                                                                               root=str(tmp_path)))
    return tmp_path


def run(**args):
    with patch_module_args(args), pytest.raises(SystemExit) as ended:  # see conftest.py
        kafka_install_facts.main()
    return ended.value.code[:2]


def test_found_unit_and_file_are_returned_unchanged(machine):
    unit = machine / "etc/systemd/system/kafka.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=/usr/bin/kafka-server-start /etc/kafka/server.properties\n")
    kind, result = run()
    assert kind == "exit" and result["changed"] is False
    assert (result["properties_path"], result["service_name"], result["kafka_home"]) == (
        "/etc/kafka/server.properties", "kafka", None)
    assert run(properties_path="/srv/other.properties", service_name="broker")[1]["source"] == {
        "properties_path": "given", "service_name": "given"}


def test_nothing_found_fails_naming_the_variable(machine):
    kind, result = run(service_name="kafka")
    assert kind == "fail" and result["msg"].startswith("found no Kafka properties file: ")
    assert "Set broker_properties_path" in result["msg"]
