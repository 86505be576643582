# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_client_bootstrap
short_description: The bootstrap servers a client network uses, from an override or the listener plan
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Picks the bootstrap servers of one client network the way the collection's roles do (client_config, verify,
    drill), in this order. O(override) when it names a server; else the plan's C(clients) entry for the network
    (see P(kafkaops.listeners.listener_plan#filter)); else none.
  - With the plan's entry come its C(listener), C(protocol) and C(endpoint_network), also with an override, which
    names other addresses (a load balancer, an alias) of the listener the plan gives the network, so the client
    speaks that listener's protocol (the verify role checks it so). Without an entry for the network they are empty
    and the protocol is V(PLAINTEXT); a caller's explicit protocol option wins over both.
positional: _input, client_network
options:
  _input:
    description:
      - The cluster's plan from P(kafkaops.listeners.listener_plan#filter).
      - V({}) when there is none (no broker planned yet); then only O(override) gives servers.
    type: dict
    required: true
  client_network:
    description: Whose entry of the plan's C(clients) to take (V(vpc), V(internet), ...).
    type: str
    required: true
  override:
    description:
      - Bootstrap servers (V(host:port)) to use instead of the plan's, as a list or a comma-separated string.
      - Empty (the default) takes the plan's.
    type: raw
    default: []
"""

EXAMPLES = r"""
- name: The bootstrap servers of this host's network, unless verify_bootstrap names some
  ansible.builtin.debug:
    msg: >-
      {{ (broker_listener_plan | kafkaops.listeners.kafka_client_bootstrap('internet', override=verify_bootstrap))
         .bootstrap | join(',') }}
"""

RETURN = r"""
_value:
  description: Where the bootstrap servers come from and what the plan says of them.
  type: dict
  contains:
    bootstrap:
      description: The servers (V(host:port)), in the order given; empty when neither source names one.
      type: list
      elements: str
    source:
      description: V(override), V(plan) or V(none).
      type: str
    listener:
      description: The plan's listener for the network; empty when the plan has no entry for it.
      type: str
    protocol:
      description: The security protocol of that listener; V(PLAINTEXT) when the plan has no entry for the network.
      type: str
    endpoint_network:
      description: The plan's endpoint network of that listener, when it plans client networks; else empty.
      type: str
"""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError


def _servers(value, what):
    """The servers of a list or comma-separated string, stripped, empty entries dropped."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)) or not all(isinstance(server, str) for server in value):
        raise AnsibleFilterError("kafka_client_bootstrap: %s must be a list of host:port strings or a comma-separated "
                                 "string, not %r" % (what, value))
    return [server.strip() for server in value if server.strip()]


def kafka_client_bootstrap(plan, client_network, override=()):
    """The bootstrap servers of ``client_network``: ``override`` when it names one, else the plan's, else none."""
    if not isinstance(plan, Mapping):
        raise AnsibleFilterError("kafka_client_bootstrap: expects the listener plan (a mapping), not %s"
                                 % type(plan).__name__)
    servers = _servers(override or [], "override")
    if override and not servers:
        raise AnsibleFilterError("kafka_client_bootstrap: override %r names no server: give host:port entries, or "
                                 "leave it empty to take the plan's" % (override,))
    clients = plan.get("clients") or {}
    if not isinstance(clients, Mapping):
        raise AnsibleFilterError("kafka_client_bootstrap: the plan's clients must map client networks to their "
                                 "bootstrap, not %s" % type(clients).__name__)
    planned = clients.get(client_network) or {}
    if not isinstance(planned, Mapping):
        raise AnsibleFilterError("kafka_client_bootstrap: the plan's entry for client network %s must be a mapping, "
                                 "not %s" % (client_network, type(planned).__name__))
    listener = {"listener": planned.get("listener") or "", "protocol": planned.get("protocol") or "PLAINTEXT",
                "endpoint_network": planned.get("endpoint_network") or ""}
    if servers:
        return dict(listener, bootstrap=servers, source="override")
    if not planned:
        return {"bootstrap": [], "source": "none", "listener": "", "protocol": "PLAINTEXT", "endpoint_network": ""}
    servers = _servers(planned.get("bootstrap") or "", "the plan's bootstrap for client network %s" % client_network)
    return dict(listener, bootstrap=servers, source="plan" if servers else "none")


class FilterModule:
    """The kafka_client_bootstrap filter."""

    def filters(self):
        return {"kafka_client_bootstrap": kafka_client_bootstrap}
