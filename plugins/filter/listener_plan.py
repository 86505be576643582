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
  - With the V(networks) option the layout is given as named client networks instead, each saying how its clients
    reach every broker (V(route)), one of V(private) (the private DNS name or IP), V(public) (the public DNS name,
    else the public IP), V(public_dns), V(public_ip), V(load_balancer) (one V(host) and a port per broker,
    V(base_port) plus the node id or a V(ports) map of broker name to port) or V(static) (an V(endpoints) map of
    broker name to host:port, for private endpoints and tunnels). Networks with the same route share one listener. A
    listener's name is the network's V(listener), else its name upper-cased with V(_) for every other character; its
    port (the one the broker binds) is the network's V(port), else 29100 plus the CRC-32 of the network's name
    modulo 900, the next free port when that one is taken (in declared order). Names and ports depend on each
    network's own name, never on its position, so a network added at the end of the list moves no listener (one
    declared before others, or a new pinned V(port), can take a derived port and move that listener on, so pin V(port)
    on listeners clients already use).
  - With V(networks), V(mode=auto) lets the brokers' own network (the route marked V(inter_broker), else the first
    V(private) route) share the first public route when every broker's public DNS name resolves (and, with
    V(check_connectivity=true), connects) from every broker, as V(single) does; V(mode=networks) gives each route
    its own listener whatever the checks say. V(single), V(dual) and V(docker) are fixed sets of such routes.
  - With V(networks), a host of the inter-broker route that a broker's C(external_checks) say does not resolve is
    refused, naming the network, the broker it belongs to and the brokers it does not resolve from (hosts not
    checked pass; P(kafkaops.listeners.broker_resolve_names#filter) lists the ones to check).
  - KRaft nodes (C(process_roles) set) also get the controller listener, bound on their private host (or, with
    V(controller_host=private_ip), their private IP) and never advertised to clients, and the quorum voters (or
    bootstrap servers) from the controllers' private names.
  - A cluster in service (a broker's C(current_properties) set C(advertised.listeners) with a host other machines
    can use, or, with nothing advertised explicitly, a partition of the nodes' C(partitions) has replicas on more
    than one of them, whose clients use the machines' own names from C(listeners)) is planned from what it runs
    when V(mode=auto) and no V(networks) are given. The controllers keep their listener name, port and host
    spelling and the quorum its style. When the documented layout then keeps
    every advertised listener's name, port and protocol and the inter-broker listener, it is the plan. Otherwise
    every advertised listener stays (name, port, protocol, hosts) as a client network route (V(vpc) for private
    names, V(internet) for public names, a V(static) route for anything else), the inter-broker listener keeps its
    name, and only the client networks no listener serves get a listener of their own (for the internet
    V(EXTERNAL) on 9094, or V(external_port) when set and free; for the VPC V(INTERNAL) on V(internal_port)); the
    plan's C(mode) is then V(networks). A plan
    of an explicit mode that renames the inter-broker listener of a KRaft cluster in service is refused, as it is
    in ZooKeeper mode (V(in_service=false) plans a cluster without data as new), and so is a switch to a listener
    every broker runs that also removes the old one.
  - With V(in_phases=true) and the layout given as V(networks), such a rename is planned in phases instead, each
    a complete rolling restart, the plan being the next one the nodes' C(current_properties) call for - V(add)
    (the new listeners beside the old inter-broker listener, which stays the inter-broker listener), V(switch)
    (C(inter.broker.listener.name) to the new one, the old listener still running everywhere), V(remove) (the
    layout as given, when V(networks) leaves the old listener out) - and C(phases) lists the phases left.
  - With V(in_phases=true), a plan that leaves out a listener the brokers advertise now (the V(remove) phase) is
    refused while the newest verify records in O(records_dir) of any client network of O(cluster) show its clients
    bootstrapping on it (a recorded server on that listener's port whose host is one the listener is advertised on
    or any broker's private or public DNS name or IP), naming the network, the endpoint, the record's run and time
    and the way out; O(remove_in_use) removes it anyway. Without records it goes ahead, and the plan's reason says
    none were found. A malformed record line is skipped with a warning naming the file and line.
  - Every host is checked to be a DNS name or an IP literal, and every planned node is checked against Kafka's
    startup rules; the filter fails with a message naming the input otherwise.
positional: _input, options
options:
  _input:
    description:
      - One mapping per node with its facts. V(name) and V(node_id) are required.
      - V(private_host) (private DNS name or IP), V(private_ip), V(public_dns) and V(public_ip) (any may be
        null),
        V(process_roles) (list of V(broker)/V(controller); empty or absent for ZooKeeper mode),
        V(external_checks) (mapping of every broker's public name to V({resolvable, connectable}) as checked from
        this node, for V(auto)), V(container_name) (for V(docker)), V(partitions) (the C(topic-N) replicas the node
        keeps now, as M(kafkaops.listeners.kafka_broker_facts) returns them; null when not known),
        V(current_properties) (the node's current
        C(listeners), C(advertised.listeners), C(listener.security.protocol.map), C(inter.broker.listener.name),
        C(security.inter.broker.protocol), C(controller.listener.names), C(controller.quorum.voters) and
        C(controller.quorum.bootstrap.servers); a cluster in service is planned from them (see above), a plan that
        renames the inter-broker listener in ZooKeeper mode or on a KRaft cluster in service is refused, since it
        cannot roll one broker at a time, and so is a plan that moves a controller of a dynamic quorum).
    type: list
    elements: dict
    required: true
  options:
    description:
      - Planning options; keyword arguments given to the filter are merged over this mapping.
      - V(mode) (V(auto), V(single), V(dual), V(docker), V(networks); default V(auto)), V(check_connectivity)
        (default V(false)),
        V(bind_address) (default V(0.0.0.0)), V(single_listener_name) (V(PLAINTEXT)), V(single_port) (V(9092)),
        V(internal_listener_name) (V(INTERNAL)), V(internal_port) (V(19092)), V(external_listener_name)
        (V(EXTERNAL)), V(external_port) (V(9092)), V(security_protocols) (listener name to protocol; default
        V(PLAINTEXT)), V(inter_broker_listener) (default per mode), V(controller_listener_name) (V(CONTROLLER)),
        V(controller_port) (V(9093)), V(quorum) (V(voters) or V(bootstrap)), V(controller_host) (V(private_host)
        or V(private_ip)), V(in_service) (V(auto) plans from what runs when a broker advertises a client
        listener now or the cluster holds replicated data, V(true) also when neither is so, V(false) plans it as a
        new cluster),
        V(docker_listeners) (list of
        V({name, port, host}) with host V(container), V(localhost), V(external) or a literal host),
        V(client_networks) (client network to the endpoint networks that serve it, most specific first; by default
        V(vpc) by V(internal) then V(all), V(internet) by V(external) then V(all), V(docker-host) and V(container)
        each by the endpoint network of its own name),
        V(networks) (list of client networks V({name, route, listener, port, protocol, inter_broker}) plus V(host)
        and V(base_port) or V(ports) for V(route=load_balancer), V(endpoints) for V(route=static); see above;
        default none, which plans the layout of V(mode)),
        V(allow_loopback) (default V(false)), V(in_phases) (default V(false); see above),
        V(kafka_version) (the cluster's Apache Kafka release, for example V(4.4.0); a refusal quotes that release's
        wording of Kafka's startup rules, by default Kafka 3.9's).
    type: dict
    default: {}
  records_dir:
    description:
      - The folder of the verify role's records on the controller (C(probes-*.jsonl)), read only for the V(remove)
        phase; empty reads none.
    type: str
    default: ""
  cluster:
    description: The cluster name the records carry (the verify role's C(verify_cluster_name)).
    type: str
    default: ""
  remove_in_use:
    description: Remove the listener in the V(remove) phase even when the records show a client network using it.
    type: bool
    default: false
  plan_only:
    description:
      - The plan is only shown, never applied (the broker role's C(plan) entry point, which the verify playbook
        runs). A V(remove) phase the records show in use is not refused then, and the plan's reason says that a run
        applying it refuses it, so the verify role can still record the clients' new bootstrap.
    type: bool
    default: false
seealso:
  - module: kafkaops.listeners.kafka_properties
  - plugin: kafkaops.listeners.to_docker_env
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Plan one listener per client network, one of them through a load balancer with a port per broker
  ansible.builtin.set_fact:
    plan: "{{ brokers | kafkaops.listeners.listener_plan(networks=networks) }}"
  vars:
    networks:
      - {name: vpc, route: private, port: 19092}
      - {name: internet-nlb, route: load_balancer, host: kafka-nlb.elb.us-east-1.amazonaws.com, base_port: 9100,
         port: 9094}
    brokers:
      - name: broker1
        node_id: 1
        private_host: ip-172-31-18-160.ec2.internal
# plan.brokers[0].properties.advertised.listeners:
#   VPC://ip-172-31-18-160.ec2.internal:19092,INTERNET_NLB://kafka-nlb.elb.us-east-1.amazonaws.com:9101

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
      host:port list of its endpoints), V(clients) (per network of the V(networks) option, per client network of
      the V(client_networks) option that the plan serves, and per endpoint network under its own name, its
      V(bootstrap), V(listener), V(protocol) and V(endpoint_network)), V(plaintext_outside) (the listeners serving
      clients outside the private network in PLAINTEXT), V(in_service) (whether the cluster was planned as one in
      service, one where a broker advertises a client listener now or that holds replicated data),
      V(bootstrap_before) (per client network, the V(bootstrap), V(listener) and V(protocol) its clients could use
      before this run, the first listener serving it among those the brokers advertise now, explicitly or, with
      V(in_service=true) or replicated data, also from C(listeners); V(vpc) for private names, V(internet) for
      public ones (and V(vpc) when they resolve from every broker), a listener's own network for other names;
      whatever the plan does with it, empty when nothing is advertised; when several listeners serve a network,
      as the private names on PLAINTEXT :9092 and INTERNAL :19092 during the add phase of a rename, the others in
      the brokers' order under V(also), a list of the same keys; the verify role checks each still works) and
      V(brokers), one plan per node in input order with V(name), V(node_id), V(process_roles), V(mode),
      V(properties) (managed keys; null removes a key),
      V(endpoints) (advertised client endpoints with V(listener), V(host), V(port), V(hostport), V(protocol),
      V(network)), V(health_endpoint) (the endpoint the node is checked on from its own machine, the inter-broker
      one or on a Docker host the host's, null on a controller-only node), V(tls_listeners) (its listeners, the
      controller's included, on C(SSL) or C(SASL_SSL)), V(inter_broker_listener) and V(controller_endpoint).
    - With the V(networks) option, also V(networks), the option spelt out as planned (each network's route,
      listener, port and protocol, the inter-broker route marked), which with V(mode=networks) plans the same
      listeners again whatever the resolvability checks say (the broker role stores it for start-time
      re-discovery).
    - In phases (V(in_phases=true)), also V(phases), the phases left as V({phase, does}), this plan's first; absent
      when nothing goes in phases.
    - For a cluster planned from what it runs (in service), also V(options), the controller and quorum options the
      plan derived (V(controller_listener_name), V(controller_port), V(controller_host), V(quorum)); given again
      with V(mode) and V(networks) they plan the same listeners.
  type: dict
"""

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.utils.display import Display

from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import PlanError, plan_listeners
from ansible_collections.kafkaops.listeners.plugins.module_utils._records import bootstraps_by_network

display = Display()


def listener_plan(brokers, options=None, records_dir="", cluster="", remove_in_use=False, plan_only=False,
                  **kwargs):
    """Plan a cluster's listeners (see the plugin documentation)."""
    merged = dict(options or {})
    merged.update(kwargs)

    def records():
        used, warnings = bootstraps_by_network(str(records_dir or ""), str(cluster or ""))
        for warning in warnings:
            display.warning("listener_plan: %s" % warning)
        return used, warnings, "%s (cluster %s)" % (records_dir, cluster) if records_dir else ""

    flags = {}
    for name, value in (("remove_in_use", remove_in_use), ("plan_only", plan_only)):
        try:
            flags[name] = boolean(value, strict=True)
        except TypeError:
            raise AnsibleFilterError("listener_plan: %s must be true or false, got %r" % (name, value)) from None
    try:
        return plan_listeners(brokers, merged, records=records, remove_in_use=flags["remove_in_use"],
                              applied=not flags["plan_only"])
    except PlanError as exc:
        raise AnsibleFilterError("listener_plan: %s" % exc) from exc


class FilterModule:
    """The listener_plan filter."""

    def filters(self):
        return {"listener_plan": listener_plan}
