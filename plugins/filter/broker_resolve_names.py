# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: broker_resolve_names
short_description: The names to resolve from every broker before its listeners are planned
version_added: 0.2.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Each broker's public DNS name and private host (a public name that resolves from every broker lets V(auto)
    share one listener; a name that resolves to an address no client can use is refused), then, with client
    networks (the planner's C(networks) option), the hosts of the route the brokers use among themselves (a load
    balancer's name or a static map's hosts). Each name once; IP literals of those routes left out.
  - M(kafkaops.listeners.resolvability) resolves them from every broker, and
    P(kafkaops.listeners.listener_plan#filter) refuses a plan whose inter-broker host does not resolve from some
    broker, naming the network, the broker and the host.
options:
  _input:
    description:
      - The brokers of the cluster, each with C(name) (inventory name), C(private_host), C(public_dns),
        C(public_ip) and optionally C(node_id).
    type: list
    elements: dict
    required: true
  options:
    description: The planning options (as P(kafkaops.listeners.listener_plan#filter) takes them).
    type: dict
  checked:
    description:
      - Answers this broker already has, as M(kafkaops.listeners.resolvability) returns them (the broker role's
        RV(kafkaops.listeners.kafka_broker_facts#module:resolvability)); V(null) for none.
      - Given, only the names its C(results) do not hold are returned, that is, the names still to resolve.
    type: dict
    version_added: 0.4.0
seealso:
  - module: kafkaops.listeners.resolvability
  - plugin: kafkaops.listeners.listener_plan
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Resolve, from this broker, every name the plan needs resolved
  kafkaops.listeners.resolvability:
    names: "{{ brokers | kafkaops.listeners.broker_resolve_names(broker_listener_options) }}"
  vars:
    brokers:
      - {name: b1, private_host: ip-10-0-0-11.ec2.internal, public_dns: ec2-54-0-0-11.compute-1.amazonaws.com}
      - {name: b2, private_host: ip-10-0-0-12.ec2.internal, public_dns: ec2-54-0-0-12.compute-1.amazonaws.com}
"""

RETURN = r"""
_value:
  description: The names, each once (with O(checked), those it has no answer for).
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import PlanError, names_to_resolve


def checked_names(checked) -> set:
    """The names a resolvability answer (``{"results": [{"name", ...}, ...]}``, or None) holds results for."""
    if checked is None:
        return set()
    results = checked.get("results") if isinstance(checked, dict) else None
    if not isinstance(results, list) or not all(isinstance(item, dict) and isinstance(item.get("name"), str)
                                                for item in results):
        raise AnsibleFilterError("broker_resolve_names: checked must be a resolvability result ({'results': [{'name': "
                                 "...}, ...]}) or null, got %r" % (checked,))
    return {item["name"] for item in results}


def broker_resolve_names(brokers, options=None, checked=None):
    """The names to resolve from every broker (see the plugin documentation), less those ``checked`` answers."""
    done = checked_names(checked)
    try:
        return [name for name in names_to_resolve(list(brokers or []), options) if name not in done]
    except PlanError as exc:
        raise AnsibleFilterError("broker_resolve_names: %s" % exc) from exc


class FilterModule:
    """The broker_resolve_names filter."""

    def filters(self):
        return {"broker_resolve_names": broker_resolve_names}
