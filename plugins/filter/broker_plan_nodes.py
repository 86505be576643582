# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: broker_plan_nodes
short_description: A cluster's nodes as the listener planner takes them
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Pairs each node's facts (the C(node_facts) of P(kafkaops.listeners.broker_node_facts#filter)) with the results
    of the M(kafkaops.listeners.resolvability) run from that node, which the node's facts carry as
    C(external_checks) into P(kafkaops.listeners.listener_plan#filter).
options:
  _input:
    description: Each node's facts, in the cluster's order.
    type: list
    elements: dict
    required: true
  checks:
    description:
      - The registered result of M(kafkaops.listeners.resolvability) on each node, in the same order; a skipped
        result (nothing to resolve) or null gives no checks.
    type: list
    elements: dict
    required: true
seealso:
  - plugin: kafkaops.listeners.listener_plan
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Plan the cluster from every node's facts and what resolved from each
  ansible.builtin.debug:
    msg: >-
      {{ hosts | map('extract', hostvars, 'node_facts')
         | kafkaops.listeners.broker_plan_nodes(hosts | map('extract', hostvars, 'resolved') | list)
         | kafkaops.listeners.listener_plan }}
"""

RETURN = r"""
_value:
  description: Each node's facts with C(external_checks), the resolvability results made from it.
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError


def broker_plan_nodes(node_facts, checks):
    """Each node's facts with ``external_checks``: the ``results`` of its resolvability run (``[]`` when skipped)."""
    node_facts, checks = list(node_facts or []), list(checks or [])
    if len(node_facts) != len(checks):
        raise AnsibleFilterError(
            "broker_plan_nodes: %d nodes but %d resolvability results: give one result per node, in the same order"
            % (len(node_facts), len(checks)))
    return [dict(facts, external_checks=(result or {}).get("results") or [])
            for facts, result in zip(node_facts, checks, strict=True)]


class FilterModule:
    """The broker_plan_nodes filter."""

    def filters(self):
        return {"broker_plan_nodes": broker_plan_nodes}
