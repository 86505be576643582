# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The broker role's files, placed beside the configuration file and the unit."""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils import _prestart
from ansible_collections.kafkaops.listeners.plugins.module_utils._broker_files import role_files


def test_a_broker_with_a_unit_keeps_its_files_beside_the_properties_file_and_the_unit():
    assert role_files("/etc/kafka/server.properties", "/etc/kafka/server.properties", "kafka", None) == {
        "file": "/etc/kafka/server.properties",
        "pending_marker": "/etc/kafka/server.properties.restart-pending",
        "start_decision": "/etc/kafka/server.properties.listeners.json",
        "start_dropin": "/etc/systemd/system/kafka.service.d/kafkaops-listeners.conf"}


def test_a_drop_in_folder_wins_over_the_unit_and_without_either_there_is_no_drop_in():
    assert role_files("/srv/server.properties", "/srv/server.properties", "kafka", "/srv/dropins")[
        "start_dropin"] == "/srv/dropins/kafkaops-listeners.conf"
    assert role_files("/srv/server.properties", "/srv/server.properties", None, None)["start_dropin"] is None


def test_a_container_marks_its_env_file_and_has_no_decision_without_a_properties_file():
    files = role_files("/etc/kafka/kafka.env", None, None, None)
    assert (files["pending_marker"], files["start_decision"]) == ("/etc/kafka/kafka.env.restart-pending", None)


def test_the_pre_start_program_finds_the_decision_where_the_role_stores_it():
    assert _prestart.decision_path("/opt/kafka/config/server.properties") == role_files(
        "/opt/kafka/config/server.properties", "/opt/kafka/config/server.properties", None, None)["start_decision"]
