# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_broker_record
short_description: The fleet audit's record of one broker after a run
version_added: 0.1.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Combines the facts the plan was made from (names, resolvability checks) with the broker's configuration after
    the run, so the audit can recompute the plan and compare. The fields are documented in C(docs/records.md).
positional: _input, config, applied, plan_options, provider, run_id, observed_at, cluster
extends_documentation_fragment:
  - kafkaops.listeners.records
options:
  _input:
    description: The node's facts as given to P(kafkaops.listeners.listener_plan#filter).
    type: dict
    required: true
  config:
    description: The broker's server.properties as read before the run (P(kafkaops.listeners.from_properties#filter)).
    type: dict
    required: true
  applied:
    description: The managed keys written during the run (null removes a key); null when nothing was written.
    type: dict
  plan_options:
    description: The options the plan was made with.
    type: dict
  provider:
    description: Where the names came from (the metadata provider, or V(static)).
    type: str
"""

EXAMPLES = r"""
- name: The record of this broker
  ansible.builtin.debug:
    msg: >-
      {{ facts | kafkaops.listeners.kafka_broker_record(config, plan_node.properties, {'mode': 'auto'}, 'aws',
                                                        run_id, observed_at, 'prod') }}
"""

RETURN = r"""
_value:
  description: The broker record.
  type: dict
"""

from ansible_collections.kafkaops.listeners.plugins.module_utils._records import broker_record


class FilterModule:
    """The kafka_broker_record filter."""

    def filters(self):
        return {"kafka_broker_record": broker_record}
