# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_failed_endpoints
short_description: Each advertised endpoint that failed from a client, named by the broker the plan gives it to
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Words the C(unreachable_endpoints) and C(insecure_endpoints) of a M(kafkaops.listeners.kafka_metadata) answer
    as the verify role reports them, each with its broker's inventory name from the plan (else its node id), its
    host and port, and why it failed.
positional: _input, plan
options:
  _input:
    description: The registered answer of M(kafkaops.listeners.kafka_metadata) with C(check_endpoints).
    type: dict
    required: true
  plan:
    description: The cluster's plan from P(kafkaops.listeners.listener_plan#filter), for the brokers' names.
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Name each endpoint that failed
  ansible.builtin.debug:
    msg: "{{ answer | kafkaops.listeners.kafka_failed_endpoints(broker_listener_plan) | join(', ') }}"
"""

RETURN = r"""
_value:
  description: One line per failed endpoint, the unreachable ones first.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError


def failed_endpoints(metadata, plan=None):
    """``broker NAME at HOST:PORT (why)`` for each endpoint the answer lists as unreachable or insecure."""
    if not isinstance(metadata, dict):
        raise AnsibleFilterError("kafka_failed_endpoints: expected kafka_metadata's answer (a mapping), got %r"
                                 % (metadata,))
    names = {broker.get("node_id"): broker.get("name") for broker in (plan or {}).get("brokers") or []}
    endpoints = list(metadata.get("unreachable_endpoints") or []) + list(metadata.get("insecure_endpoints") or [])
    return ["broker %s at %s:%s (%s)" % (
        names.get(endpoint.get("node_id"), "with node id %s" % endpoint.get("node_id")), endpoint.get("host"),
        endpoint.get("port"), endpoint.get("error") or endpoint.get("security_error") or "not reached")
        for endpoint in endpoints]


class FilterModule:
    """The kafka_failed_endpoints filter."""

    def filters(self):
        return {"kafka_failed_endpoints": failed_endpoints}
