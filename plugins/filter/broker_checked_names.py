# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: broker_checked_names
short_description: The names a broker resolved in the newest verify run recorded on the controller
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - The keys of the C(external_checks) of the broker's newest C(brokers) record in the verify role's records
    folder (docs/records.md), that is, the names the broker resolved when that run planned it.
  - The broker role has M(kafkaops.listeners.kafka_broker_facts) resolve them in its first call on the broker
    (O(kafkaops.listeners.kafka_broker_facts#module:resolve)), so a run whose names have not changed since needs
    no M(kafkaops.listeners.resolvability) call of its own.
  - Records on disk are untrusted input. A line that is not a C(brokers) record of schema 1 is passed over; so is
    every name that is neither a DNS name nor an IP literal, and every name no other machine could use (loopback,
    link-local such as the instance metadata service, unspecified, multicast, broadcast). A record with more than
    256 names gives none.
  - An empty list when the folder is empty or not set, not there, or holds no such record of the broker.
options:
  _input:
    description: The verify role's records folder (C(verify_records_dir)), on the controller.
    type: str
    required: true
  cluster:
    description: The cluster's name in the records (C(verify_cluster_name)).
    type: str
    required: true
  broker:
    description: The broker's inventory name.
    type: str
    required: true
seealso:
  - module: kafkaops.listeners.kafka_broker_facts
  - plugin: kafkaops.listeners.broker_resolve_names
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Show the names this broker resolved in the newest verify run
  ansible.builtin.debug:
    msg: "{{ verify_records_dir | kafkaops.listeners.broker_checked_names('prod-kafka', inventory_hostname) }}"
"""

RETURN = r"""
_value:
  description: The names, each once, in the order of the record.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._records import checked_names_from_records


def broker_checked_names(directory, cluster, broker):
    """The names ``broker`` of ``cluster`` resolved in the newest verify run recorded in ``directory``."""
    if directory is not None and not isinstance(directory, str):
        raise AnsibleFilterError("broker_checked_names: expected the records folder as a string, got %r" % (directory,))
    for option, value in (("cluster", cluster), ("broker", broker)):
        if not isinstance(value, str) or not value:
            raise AnsibleFilterError("broker_checked_names: %s must be a non-empty string, got %r" % (option, value))
    return checked_names_from_records(directory or "", cluster, broker)


class FilterModule:
    """The broker_checked_names filter."""

    def filters(self):
        return {"broker_checked_names": broker_checked_names}
