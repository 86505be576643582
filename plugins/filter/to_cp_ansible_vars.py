# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: to_cp_ansible_vars
short_description: Render a broker's listener plan as cp-ansible's listener variables
version_added: 0.2.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Turns one node plan (from P(kafkaops.listeners.listener_plan#filter)) into the variables through which
    Confluent's C(confluent.platform) collection (cp-ansible) writes a broker's listener keys when it templates
    C(server.properties), so that cp-ansible writes the plan's listeners on every run instead of undoing them.
  - C(kafka_broker_listeners) holds one entry per planned listener, keyed by the listener name in lower case, with
    C(name), C(port), C(hostname) (the advertised host), C(ip) (the bind host; IPv6 literals in brackets,
    since cp-ansible writes both as given), C(ssl_enabled) and C(sasl_protocol).
    cp-ansible builds C(listeners), C(advertised.listeners) and C(listener.security.protocol.map) from these
    (roles/variables/vars/main.yml of confluentinc/cp-ansible). The plan replaces cp-ansible's own listener set, so
    none of its default C(internal)/C(broker) listeners is left beside it.
  - C(kafka_broker_inter_broker_listener_name) is the key of the plan's inter-broker listener.
  - cp-ansible derives a listener's security protocol from C(ssl_enabled) and C(sasl_protocol). V(SASL_PLAINTEXT)
    and V(SASL_SSL) listeners therefore need the SASL mechanism in cp-ansible's spelling (O(sasl_protocol)).
  - Brokers only. cp-ansible runs KRaft controllers as nodes of their own (group C(kafka_controller)) and writes
    C(controller.listener.names) and C(controller.quorum.voters) itself, so a node with the V(controller) role is
    refused and the plan's controller keys are left to cp-ansible.
options:
  _input:
    description: One element of the plan's V(brokers) list.
    type: dict
    required: true
  sasl_protocol:
    description:
      - The cp-ansible SASL mechanism (V(plain), V(scram), V(scram256), V(kerberos), V(oauth)) of the SASL
        listeners, either one value for all of them or a mapping of listener name to value.
    type: raw
seealso:
  - plugin: kafkaops.listeners.listener_plan
    plugin_type: filter
  - plugin: kafkaops.listeners.to_docker_env
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Hand the plan of this broker to cp-ansible (run before importing confluent.platform.all)
  ansible.builtin.set_fact:
    kafka_broker_listeners: "{{ _cp_vars.kafka_broker_listeners }}"
    kafka_broker_inter_broker_listener_name: "{{ _cp_vars.kafka_broker_inter_broker_listener_name }}"
  vars:
    _cp_vars: >-
      {{ broker_listener_plan.brokers | selectattr('name', 'equalto', inventory_hostname) | first
         | kafkaops.listeners.to_cp_ansible_vars }}
# kafka_broker_listeners:
#   internal: {name: INTERNAL, port: 19092, ip: 0.0.0.0, hostname: ip-172-31-18-160.us-west-2.compute.internal,
#              ssl_enabled: false, sasl_protocol: none}
#   external: {name: EXTERNAL, port: 9092, ip: 0.0.0.0, hostname: ec2-54-191-84-122.us-west-2.compute.amazonaws.com,
#              ssl_enabled: false, sasl_protocol: none}
# kafka_broker_inter_broker_listener_name: internal
"""

RETURN = r"""
_value:
  description: V(kafka_broker_listeners) and V(kafka_broker_inter_broker_listener_name), as cp-ansible names them.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    SECURITY_PROTOCOLS,
    uses_sasl,
    uses_tls,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    EndpointError,
    effective_protocol_map,
    inter_broker_listener,
    parse_listener_list,
)

# cp-ansible's SASL mechanism names (its normalize_sasl_protocol filter)
CP_SASL_PROTOCOLS = ("plain", "scram", "scram256", "kerberos", "oauth")


def _sasl_protocol_for(listener, option):
    value = option.get(listener, option.get(listener.lower())) if isinstance(option, dict) else option
    if value is None:
        raise AnsibleFilterError(
            "to_cp_ansible_vars: listener %s uses SASL, and cp-ansible needs its mechanism: pass sasl_protocol "
            "(one of %s, or a mapping of listener name to one)" % (listener, ", ".join(CP_SASL_PROTOCOLS)))
    if value not in CP_SASL_PROTOCOLS:
        raise AnsibleFilterError("to_cp_ansible_vars: sasl_protocol %r for listener %s is not one of %s"
                                 % (value, listener, ", ".join(CP_SASL_PROTOCOLS)))
    return value


def _cp_host(host):
    # cp-ansible writes NAME://<host>:<port> as given: an IPv6 literal must come bracketed
    return "[%s]" % host if ":" in host else host


def to_cp_ansible_vars(node, sasl_protocol=None):
    """Render one broker's node plan as cp-ansible's ``kafka_broker_listeners`` and inter-broker listener name."""
    if not isinstance(node, dict) or not isinstance(node.get("properties"), dict):
        raise AnsibleFilterError("to_cp_ansible_vars: expected one element of a listener plan's brokers list, got %r"
                                 % (node,))
    name = node.get("name", "?")
    if "controller" in (node.get("process_roles") or ()):
        raise AnsibleFilterError(
            "to_cp_ansible_vars: %s has the controller role; cp-ansible runs KRaft controllers as nodes of their own "
            "(group kafka_controller) and writes their listeners itself: plan only brokers for it" % name)
    # the keys the plan sets (None: a key it removes), read as the broker reads them
    properties = {key: value for key, value in node["properties"].items() if value is not None}
    try:
        bound = {endpoint.listener: endpoint for endpoint in parse_listener_list(properties["listeners"])}
        advertised = parse_listener_list(properties["advertised.listeners"])
        protocols = effective_protocol_map(properties)
    except (KeyError, TypeError, EndpointError) as exc:
        raise AnsibleFilterError("to_cp_ansible_vars: the plan of %s has no usable listener keys: %s"
                                 % (name, exc)) from exc
    listeners = {}
    for endpoint in advertised:
        protocol = protocols.get(endpoint.listener)
        if protocol not in SECURITY_PROTOCOLS or endpoint.listener not in bound:
            raise AnsibleFilterError("to_cp_ansible_vars: listener %s of %s has no protocol or no bind address in the "
                                     "plan" % (endpoint.listener, name))
        listeners[endpoint.listener.lower()] = {
            "name": endpoint.listener,
            "port": endpoint.port,
            "ip": _cp_host(bound[endpoint.listener].host),
            "hostname": _cp_host(endpoint.host),
            "ssl_enabled": uses_tls(protocol),
            "sasl_protocol": _sasl_protocol_for(endpoint.listener, sasl_protocol) if uses_sasl(protocol)
            else "none",
        }
    inter_broker = node.get("inter_broker_listener") or inter_broker_listener(properties)
    if inter_broker.lower() not in listeners:
        raise AnsibleFilterError("to_cp_ansible_vars: the inter-broker listener %s of %s is not advertised"
                                 % (inter_broker, name))
    return {"kafka_broker_listeners": listeners, "kafka_broker_inter_broker_listener_name": inter_broker.lower()}


class FilterModule:
    """The to_cp_ansible_vars filter."""

    def filters(self):
        return {"to_cp_ansible_vars": to_cp_ansible_vars}
