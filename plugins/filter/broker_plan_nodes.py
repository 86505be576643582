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
  checked:
    description:
      - Answers each node gathered earlier in the run (the broker role's
        RV(kafkaops.listeners.kafka_broker_facts#module:resolvability)), in the same order; null for none.
      - A node's checks then also take its answers for the names of O(names) that its O(checks) do not hold, so that
        a node that resolved every name earlier needs no M(kafkaops.listeners.resolvability) run; answers for other
        names are left out.
    type: list
    elements: dict
    version_added: 0.4.0
  names:
    description:
      - The names the plan needs resolved (P(kafkaops.listeners.broker_resolve_names#filter)); needed with
        O(checked).
    type: list
    elements: str
    version_added: 0.4.0
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


def _node_checks(result, earlier, names: list) -> list:
    """A node's checks: its resolvability run's results, then its earlier answers for the other names it needs."""
    results = list((result or {}).get("results") or [])
    if not isinstance(earlier, dict):
        return results
    have = {item.get("name") for item in results}
    answers = {item.get("name"): item for item in (earlier.get("results") or []) if isinstance(item, dict)}
    return results + [answers[name] for name in names if name in answers and name not in have]


def broker_plan_nodes(node_facts, checks, checked=None, names=None):
    """Each node's facts with ``external_checks``: the ``results`` of its resolvability run (``[]`` when skipped),
    with ``checked``, followed by the node's earlier answers for the other ``names``."""
    node_facts, checks = list(node_facts or []), list(checks or [])
    if len(node_facts) != len(checks):
        raise AnsibleFilterError(
            "broker_plan_nodes: %d nodes but %d resolvability results: give one result per node, in the same order"
            % (len(node_facts), len(checks)))
    checked = [None] * len(checks) if checked is None else list(checked)
    if len(checked) != len(checks) or (names is None and any(checked)):
        raise AnsibleFilterError(
            "broker_plan_nodes: checked must give one answer (or null) per node, %d here for %d nodes, and comes "
            "with names, the names the plan needs resolved" % (len(checked), len(checks)))
    return [dict(facts, external_checks=_node_checks(result, earlier, list(names or [])))
            for facts, result, earlier in zip(node_facts, checks, checked, strict=True)]


class FilterModule:
    """The broker_plan_nodes filter."""

    def filters(self):
        return {"broker_plan_nodes": broker_plan_nodes}
