# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one default cluster name of the verify role's records (verify_cluster_name, broker_records_cluster)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.kafka_records_cluster import (
    DEFAULT_BROKER_GROUP,
    kafka_records_cluster,
)

ROLES = Path(__file__).resolve().parents[4] / "roles"


def test_the_cluster_name_given_else_the_broker_group_else_the_default_group():
    assert kafka_records_cluster("east_brokers", "east") == "east"
    assert kafka_records_cluster("east_brokers") == "east_brokers"
    assert kafka_records_cluster("east_brokers", "") == "east_brokers"
    assert kafka_records_cluster(None, None) == "kafka_brokers"
    assert kafka_records_cluster("") == "kafka_brokers"


@pytest.mark.parametrize("pattern, cluster", [
    ("brokers", "brokers"),
    ("kafka_brokers:kafka_controllers", "kafka_brokers"),  # the KRaft recipe's: its records keep their name
    ("kafka_brokers,kafka_controllers", "kafka_brokers"),
    ("east_brokers:&staging", "east_brokers"),
    ("east_brokers:!east-b3", "east_brokers"),
    ("!retired:&staging:east_brokers", "east_brokers"),  # intersections and exclusions are not the first group
    ("  east_brokers , kafka_controllers ", "east_brokers"),
    ("east.brokers-1", "east.brokers-1"),
])
def test_a_host_pattern_gives_its_first_group(pattern, cluster):
    assert kafka_records_cluster(pattern) == cluster


def test_a_cluster_name_given_takes_any_pattern():
    assert kafka_records_cluster("b*:kafka_controllers", "east") == "east"


@pytest.mark.parametrize("pattern, why", [
    ("b*:kafka_controllers", "starts with 'b\\*'"),
    ("broker?", "starts with 'broker\\?'"),
    ("b[1:3]:kafka_controllers", "starts with 'b\\[1:3\\]'"),
    ("~east_.*", "starts with '~east_\\.\\*'"),
    ("&staging:!retired", "names no group first"),
    (":", "names no group first"),
    (",,", "names no group first"),
    ("   ", "names no group first"),
])
def test_a_pattern_without_a_plain_first_group_asks_for_the_cluster_name(pattern, why):
    with pytest.raises(AnsibleFilterError, match="verify_broker_group %s %s.*set verify_cluster_name"
                       % (re.escape(repr(pattern)), why)):
        kafka_records_cluster(pattern)


def test_the_default_group_is_the_verify_roles():
    # the broker role falls back to the filter's group when the verify role's variables are not visible to it
    defaults = yaml.safe_load((ROLES / "verify" / "defaults" / "main.yml").read_text())
    assert defaults["verify_broker_group"] == "{{ kafka_broker_group | default('%s') }}" % DEFAULT_BROKER_GROUP


def test_both_roles_read_the_filter():
    broker = yaml.safe_load((ROLES / "broker" / "defaults" / "main.yml").read_text())
    verify = yaml.safe_load((ROLES / "verify" / "defaults" / "main.yml").read_text())
    assert "kafkaops.listeners.kafka_records_cluster" in broker["broker_records_cluster"]
    assert "kafkaops.listeners.kafka_records_cluster" in verify["verify_cluster_name"]
    assert "kafka_brokers" not in broker["broker_records_cluster"]
    # and both follow the playbooks' kafka_broker_group when verify_broker_group is not set
    assert "verify_broker_group | default(kafka_broker_group | default(none))" in broker["broker_records_cluster"]


@pytest.mark.parametrize("group, name, variable", [(3, None, "verify_broker_group"),
                                                   (["kafka_brokers"], None, "verify_broker_group"),
                                                   ("kafka_brokers", ["east"], "verify_cluster_name")])
def test_a_name_that_is_not_a_string_is_named(group, name, variable):
    with pytest.raises(AnsibleFilterError, match="kafka_records_cluster: %s must be a string" % variable):
        kafka_records_cluster(group, name)
