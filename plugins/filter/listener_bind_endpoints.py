# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: listener_bind_endpoints
short_description: Each host and port a node's planned listeners bind
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Reads the C(listeners) key of one node's plan (an entry of the C(brokers) of
    P(kafkaops.listeners.listener_plan#filter)) as Kafka binds it. A wildcard bind (no host, C(0.0.0.0) or C(::)) is
    reached on the host of the node's health endpoint, or on a controller-only node its controller endpoint.
  - The broker role checks with it that a broker whose restart was left to the operator accepts connections on every
    port it should bind.
options:
  _input:
    description: The node's plan, with C(properties), C(health_endpoint) and C(controller_endpoint).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Check that every port the planned listeners bind accepts connections
  ansible.builtin.wait_for:
    host: "{{ item.host }}"
    port: "{{ item.port }}"
  loop: "{{ node_plan | kafkaops.listeners.listener_bind_endpoints }}"
"""

RETURN = r"""
_value:
  description: One C(host) and C(port) (an integer) per listener, in the order of the C(listeners) key.
  type: list
  elements: dict
"""

import re

from ansible.errors import AnsibleFilterError

# NAME://HOST:PORT, an IPv6 host in brackets; an entry of another shape binds nothing the check could ask
_BIND = re.compile(r"^[^:]*://\[?([^\]]*)\]?:([0-9]+)$")
_WILDCARDS = ("", "0.0.0.0", "::")


def listener_bind_endpoints(node_plan):
    """``[{'host', 'port'}]`` of each ``listeners`` entry, a wildcard bind replaced by the node's own endpoint host."""
    if not isinstance(node_plan, dict) or not isinstance(node_plan.get("properties"), dict):
        raise AnsibleFilterError("listener_bind_endpoints: expected one node's plan (an entry of the listener plan's "
                                 "brokers, with properties), got %r" % (node_plan,))
    own = node_plan.get("health_endpoint") or node_plan.get("controller_endpoint") or {}
    endpoints = []
    for entry in filter(None, (node_plan["properties"].get("listeners") or "").split(",")):
        found = _BIND.search(entry)
        if not found:
            continue
        host = found.group(1)
        if host in _WILDCARDS:
            if not own.get("host"):
                raise AnsibleFilterError("listener_bind_endpoints: listener %s binds every address, but node %s has "
                                         "no health or controller endpoint to reach it on"
                                         % (entry, node_plan.get("name")))
            host = own["host"]
        endpoints.append({"host": host, "port": int(found.group(2))})
    return endpoints


class FilterModule:
    """The listener_bind_endpoints filter."""

    def filters(self):
        return {"listener_bind_endpoints": listener_bind_endpoints}
