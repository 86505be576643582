# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_broker_records
short_description: The fleet audit's records of the brokers after a run, from their broker_record facts
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - P(kafkaops.listeners.kafka_broker_record#filter) for each broker, from the C(broker_record) fact the broker role
    sets on it (its node facts, the configuration read before the run, the keys the run wrote, the plan options and
    the name provider). The fields are documented in C(docs/records.md).
positional: _input, run_id, observed_at, cluster
extends_documentation_fragment:
  - kafkaops.listeners.records
options:
  _input:
    description: The brokers' C(broker_record) facts.
    type: list
    elements: dict
    required: true
seealso:
  - plugin: kafkaops.listeners.kafka_broker_record
    plugin_type: filter
"""

EXAMPLES = r"""
- name: The records of the brokers of group kafka_brokers
  ansible.builtin.debug:
    msg: >-
      {{ groups['kafka_brokers'] | map('extract', hostvars) | selectattr('broker_record', 'defined')
         | map(attribute='broker_record') | kafkaops.listeners.kafka_broker_records(run_id, observed_at, 'prod') }}
"""

RETURN = r"""
_value:
  description: One broker record per fact, in the same order.
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._records import run_broker_records


def kafka_broker_records(records, run_id, observed_at, cluster):
    """The ``brokers`` records of the brokers whose ``broker_record`` facts are given (see the documentation)."""
    try:
        return run_broker_records(list(records or []), run_id, observed_at, cluster)
    except ValueError as exc:
        raise AnsibleFilterError("kafka_broker_records: %s" % exc) from exc


class FilterModule:
    """The kafka_broker_records filter."""

    def filters(self):
        return {"kafka_broker_records": kafka_broker_records}
