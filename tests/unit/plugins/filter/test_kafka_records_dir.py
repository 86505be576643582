# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one default folder of the verify role's records (verify_records_dir, broker_records_dir)."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.kafka_records_dir import kafka_records_dir


def test_beside_the_playbook_or_for_the_collections_own_playbooks_where_ansible_playbook_started(monkeypatch):
    monkeypatch.setenv("PWD", "/home/ops/site")
    monkeypatch.setenv("HOME", "/home/ops")
    assert kafka_records_dir("/home/ops/playbooks") == "/home/ops/playbooks/kafka-listener-records"
    installed = "/home/ops/.ansible/collections/ansible_collections/kafkaops/listeners/playbooks"
    assert kafka_records_dir(installed) == "/home/ops/site/kafka-listener-records"
    monkeypatch.setenv("PWD", "")
    assert kafka_records_dir(installed) == "/home/ops/kafka-listener-records"


@pytest.mark.parametrize("bad", [None, "", 3])
def test_no_playbook_folder_is_named(bad):
    with pytest.raises(AnsibleFilterError, match="kafka_records_dir: expected the playbook's folder"):
        kafka_records_dir(bad)


def test_the_audit_roles_output_folder_follows_the_same_rule(monkeypatch):
    monkeypatch.setenv("PWD", "/home/ops/site")
    installed = "/home/ops/.ansible/collections/ansible_collections/kafkaops/listeners/playbooks"
    assert kafka_records_dir(installed, "kafka-listener-audit") == "/home/ops/site/kafka-listener-audit"
    assert kafka_records_dir("/srv/pb", folder="kafka-listener-audit") == "/srv/pb/kafka-listener-audit"


@pytest.mark.parametrize("bad", [None, "", "a/b", "..", ".", 3])
def test_the_folder_is_one_name(bad):
    with pytest.raises(AnsibleFilterError, match="folder must be the name of one folder"):
        kafka_records_dir("/srv/pb", bad)
