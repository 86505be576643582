# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: listener_plan
short_description: Plan the listeners of every node of a Kafka cluster
version_added: 0.1.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Chooses the cluster's listener layout and computes, for each node, the listener keys of C(server.properties).
  - V(single) is option 1 of Confluent's "Configure Multi-Node Environment" (one C(PLAINTEXT) listener
    advertising the public DNS name, for networks where that name also resolves inside, as AWS public DNS does).
    V(dual) is option 2 (C(INTERNAL) on the private name for the VPC and inter-broker traffic, C(EXTERNAL) on the
    public name). V(docker) advertises one listener per client network (container network, Docker host, outside).
    V(auto) picks V(single) when every broker's public DNS name resolves (and, with V(check_connectivity=true),
    connects) from every broker, and V(dual) otherwise.
  - KRaft nodes (C(process_roles) set) also get the controller listener, bound on their private host and never
    advertised to clients, and the quorum voters (or bootstrap servers) from the controllers' private names.
  - Every host is checked to be a DNS name or an IP literal, and every planned node is checked against Kafka's
    startup rules; the filter fails with a message naming the input otherwise.
positional: _input, options
options:
  _input:
    description:
      - One mapping per node with its facts. V(name) and V(node_id) are required.
      - V(private_host) (private DNS name or IP), V(public_dns) and V(public_ip) (either may be null),
        V(process_roles) (list of V(broker)/V(controller); empty or absent for ZooKeeper mode),
        V(external_checks) (mapping of every broker's public name to V({resolvable, connectable}) as checked from
        this node, for V(auto)), V(container_name) (for V(docker)), V(current_properties) (the node's current
        C(inter.broker.listener.name) and C(security.inter.broker.protocol); in ZooKeeper mode a plan that renames
        the inter-broker listener is refused, since it cannot roll one broker at a time. With its current
        C(listeners), C(advertised.listeners), C(controller.listener.names), C(controller.quorum.voters) and
        C(controller.quorum.bootstrap.servers), a plan that moves a controller of a dynamic quorum is refused unless
        the C(kafka_version) option is 4.4 or later, since older releases keep the voter on its old endpoint).
    type: list
    elements: dict
    required: true
  options:
    description:
      - Planning options; keyword arguments given to the filter are merged over this mapping.
      - V(mode) (V(auto), V(single), V(dual), V(docker); default V(auto)), V(check_connectivity) (default V(false)),
        V(bind_address) (default V(0.0.0.0)), V(single_listener_name) (V(PLAINTEXT)), V(single_port) (V(9092)),
        V(internal_listener_name) (V(INTERNAL)), V(internal_port) (V(19092)), V(external_listener_name)
        (V(EXTERNAL)), V(external_port) (V(9092)), V(security_protocols) (listener name to protocol; default
        V(PLAINTEXT)), V(inter_broker_listener) (default per mode), V(controller_listener_name) (V(CONTROLLER)),
        V(controller_port) (V(9093)), V(quorum) (V(voters) or V(bootstrap)), V(docker_listeners) (list of
        V({name, port, host}) with host V(container), V(localhost), V(external) or a literal host),
        V(client_networks) (client network to the endpoint networks that serve it, most specific first; by default
        V(vpc) by V(internal) then V(all), V(internet) by V(external) then V(all), V(docker-host) and V(container)
        each by the endpoint network of its own name),
        V(allow_loopback) (default V(false)),
        V(kafka_version) (the cluster's Apache Kafka release, for example V(4.4.0); a refusal quotes that release's
        wording of Kafka's startup rules, by default Kafka 3.9's).
    type: dict
    default: {}
seealso:
  - module: kafkaops.listeners.kafka_properties
  - plugin: kafkaops.listeners.to_docker_env
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Plan INTERNAL/EXTERNAL listeners for a broker whose public name does not resolve inside the VPC
  ansible.builtin.set_fact:
    plan: "{{ brokers | kafkaops.listeners.listener_plan(mode='dual') }}"
  vars:
    brokers:
      - name: broker0
        node_id: 0
        private_host: ip-172-31-18-160.us-west-2.compute.internal
        public_dns: ec2-54-191-84-122.us-west-2.compute.amazonaws.com
# plan.brokers[0].properties:
#   listeners: INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092
#   advertised.listeners: INTERNAL://ip-172-31-18-160.us-west-2.compute.internal:19092,EXTERNAL://ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092
#   listener.security.protocol.map: INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT
#   inter.broker.listener.name: INTERNAL
#   security.inter.broker.protocol: null
"""

RETURN = r"""
_value:
  description:
    - V(mode) and V(reason) (one line saying why), V(bootstrap) (per endpoint network, the comma-separated
      host:port list of its endpoints), V(clients) (per client network of the V(client_networks) option that the
      plan serves, and per endpoint network under its own name, its V(bootstrap), V(listener), V(protocol) and
      V(endpoint_network)), V(plaintext_outside) (the listeners serving clients outside the private network in
      PLAINTEXT) and V(brokers), one plan per node in input order with V(name), V(node_id), V(process_roles),
      V(mode), V(properties) (managed keys; null removes a key), V(endpoints) (advertised client endpoints with
      V(listener), V(host), V(port), V(hostport), V(protocol), V(network)), V(health_endpoint) (the endpoint the
      node is checked on from its own machine, the inter-broker one or on a Docker host the host's, null on a
      controller-only node), V(tls_listeners) (its listeners, the controller's included, on C(SSL) or
      C(SASL_SSL)), V(inter_broker_listener) and V(controller_endpoint).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import PlanError, plan_listeners


def listener_plan(brokers, options=None, **kwargs):
    """Plan a cluster's listeners (see the plugin documentation)."""
    merged = dict(options or {})
    merged.update(kwargs)
    try:
        return plan_listeners(brokers, merged)
    except PlanError as exc:
        raise AnsibleFilterError("listener_plan: %s" % exc) from exc


class FilterModule:
    """The listener_plan filter."""

    def filters(self):
        return {"listener_plan": listener_plan}
