#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: kafka_metadata
short_description: Ask a Kafka cluster for its metadata and check its advertised endpoints from the managed node
version_added: 0.1.0
description:
  - Does, from the managed node, what a Kafka client does before it produces or consumes. It connects to a
    bootstrap server, negotiates API versions (ApiVersions), and asks for the cluster's metadata (Metadata). This is
    the information C(kcat -L) prints.
  - The brokers listed are the endpoints advertised for the listener the bootstrap connection came in on. Clients
    connect to those next, so an advertised host that does not resolve, or does not accept connections, from the
    client's network makes the client fail after a bootstrap connection that worked (C(Failed to resolve ...)).
  - With O(check_endpoints=true) every advertised endpoint is resolved and connected to from the managed node;
    RV(unreachable_endpoints) lists the ones that fail and RV(summary) explains the outcome in one line. On an
    C(SSL) or C(SASL_SSL) listener each reachable endpoint is also opened with TLS, its certificate verified against
    that endpoint's own advertised host (what a client does when it moves on to a partition leader), and on a SASL
    listener authenticated again; RV(insecure_endpoints) lists the ones that fail, with the reason (unknown CA,
    expired, host not among the certificate's names, the broker's SASL error).
  - Every security protocol is spoken - C(PLAINTEXT), C(SSL), C(SASL_PLAINTEXT), C(SASL_SSL) - with the SASL
    mechanisms C(PLAIN), C(SCRAM-SHA-256), C(SCRAM-SHA-512) and C(OAUTHBEARER) (with a token you give). The client
    is the module's own, standard library only, because the module runs on managed nodes where no Kafka library
    can be assumed (see the collection's docs, "Secured listeners").
  - Passwords and tokens are O(sasl_password), O(sasl_oauthbearer_token) and O(ssl_key_password), all marked
    C(no_log); no message or result carries them.
  - Bootstrap servers are tried in order until one answers. Metadata versions 1 to 12 are spoken; the highest
    version the broker also supports is used. Topics are never created (auto-creation is refused in the request).
  - Advertised hosts are untrusted input; one that is neither a DNS name nor an IP literal is reported as an
    endpoint error.
author:
  - kafkaops.listeners maintainers (@kafkaops)
requirements:
  - cryptography, optional; without it certificates are read by the collection's own reader, with the same results
extends_documentation_fragment:
  - kafkaops.listeners.attributes
  - kafkaops.listeners.attributes.READ_ONLY
  - kafkaops.listeners.kafka_client
options:
  bootstrap:
    description:
      - Bootstrap servers as C(host:port) (IPv6 literals in brackets, C([::1]:9092)), tried in order until one
        answers. A comma-separated string is accepted too, as in Kafka's C(bootstrap.servers).
      - The listener a server belongs to decides which advertised endpoints the answer lists.
    type: list
    elements: str
    required: true
  timeout:
    description:
      - Seconds one bootstrap server may take to resolve, connect, complete TLS and answer ApiVersions and
        Metadata.
      - With O(check_endpoints=true) also the seconds each advertised host may take to resolve; connect checks
        end twice this long after the start of the check. At most 16 advertised ports are probed at once, and a
        port not begun within this many seconds is reported as not checked.
      - A Metadata answer that lists more than 10,000 brokers is refused.
      - The TLS and SASL check of the advertised endpoints (with a SSL or SASL O(security_protocol)) opens 16 at a
        time and ends this many seconds after it starts; an endpoint not opened by then says the check did not
        finish.
    type: float
    default: 5.0
  check_endpoints:
    description:
      - Resolve every advertised endpoint from the managed node and try a TCP connection to it, and return
        RV(endpoints) and RV(unreachable_endpoints).
      - With TLS or SASL, also open every endpoint that connects with the listener's protocol (certificate verified
        against that endpoint's advertised host, SASL with the same credentials), and return RV(insecure_endpoints).
    type: bool
    default: false
  fail_on_endpoint_errors:
    description:
      - With O(check_endpoints=true), fail when an advertised endpoint does not resolve or connect, or fails the TLS
        or SASL check, with RV(summary) as the message; every other return value is returned with the failure.
        Without it such endpoints are only returned (RV(unreachable_endpoints), RV(insecure_endpoints)).
    type: bool
    default: false
    version_added: 0.4.0
  topics:
    description:
      - Topics to describe. Without it every topic is listed, as C(kcat -L) does.
      - A requested topic that does not exist is listed with the error C(UNKNOWN_TOPIC_OR_PARTITION); it is not
        created.
    type: list
    elements: str
  client_id:
    description:
      - Client id sent with every request (it shows in the brokers' request logs and quotas).
    type: str
    default: kafkaops-listeners
  restart_check:
    description:
      - Ask whether one broker may be restarted now, or whether it is back after its restart, and return the answer
        as RV(restart_check). The module does not fail when the answer is no (retry it with C(until)).
      - Before a restart the topics' C(min.insync.replicas) are asked too (DescribeConfigs, the right to describe
        topic configurations).
      - With V(quorum) in O(restart_check.checks), the controller quorum is asked too (DescribeQuorum, which a broker
        forwards to the active controller; the right to describe the cluster).
    type: dict
    suboptions:
      node_id:
        description: The broker's node id.
        type: int
        required: true
      stage:
        description:
          - V(before_restart) - every partition the broker holds in sync keeps at least its topic's
            C(min.insync.replicas) in-sync replicas without it (a partition whose replication factor is at most its
            C(min.insync.replicas) cannot, whatever the timing, and is reported in RV(restart_check.unavoidable)).
          - V(after_restart) - the broker is registered and back in the in-sync replicas of every partition it
            hosts (a partition error on the listener asked is named in the reason).
        type: str
        choices: [before_restart, after_restart]
        required: true
      node_name:
        description: The broker's name in messages (its inventory name); defaults to C(broker <node_id>).
        type: str
      assume_min_insync_replicas:
        description:
          - The C(min.insync.replicas) to assume for every topic when the cluster refuses to tell it (no right to
            describe topic configurations). Without it such a refusal answers no, naming the refusal.
        type: int
      checks:
        description:
          - V(partitions) - the broker's partitions, as O(restart_check.stage) says (for a broker).
          - V(quorum) - the KRaft controller quorum (for a controller, alone or beside a broker).
          - Before a restart, when the node is a voter, the voters other than it that are caught up with the leader
            must still be a majority of all voters (a quorum of one voter cannot keep it through any restart and is
            not waited for). After a restart, the node must be a voter or observer caught up with the leader.
          - A voter is caught up when the leader's last caught-up time minus its own is at most
            O(restart_check.quorum_max_lag_ms) (Strimzi's rule); DescribeQuorum v0 (Kafka before 3.3), without
            times, allows 20 records behind the leader's log end. A refused DescribeQuorum answers no, naming the
            refusal.
        type: list
        elements: str
        choices: [partitions, quorum]
        default: [partitions]
      quorum_max_lag_ms:
        description:
          - How far behind the leader, in milliseconds, a voter still counts as caught up, the cluster's
            C(controller.quorum.fetch.timeout.ms).
        type: int
        default: 2000
seealso:
  - module: kafkaops.listeners.resolvability
    description: Checks name resolution and connectivity for a list of names, the broker side of the same question.
  - module: kafkaops.listeners.kafka_properties
    description: Writes the listener settings that decide what this module sees.
  - plugin: kafkaops.listeners.listener_plan
    plugin_type: filter
    description: Plans listeners whose advertised endpoints work from every client network.
  - name: kcat
    description: The command-line client whose C(-L) output this module reproduces.
    link: https://github.com/edenhill/kcat
notes:
  - Run it on a host in the network of the clients you care about (for example with C(delegate_to)), since the
    point is what resolves and connects from there.
  - A name lookup still running at the deadline is abandoned, not cancelled; its thread ends with the module.
"""

EXAMPLES = r"""
- name: List the brokers a laptop-side client is sent to, and check each one from here
  kafkaops.listeners.kafka_metadata:
    bootstrap:
      - ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092
    check_endpoints: true
  register: __metadata

- name: Fail with the explanation when a client here would fail after bootstrapping
  ansible.builtin.assert:
    that: __metadata.unreachable_endpoints | length == 0
    fail_msg: "{{ __metadata.summary }}"

- name: Describe two topics over an SSL listener with a private CA and a client certificate
  kafkaops.listeners.kafka_metadata:
    bootstrap: kafka-1.example.com:9093,kafka-2.example.com:9093
    security_protocol: SSL
    ssl_ca_file: /etc/kafka/ca.pem
    ssl_cert_file: /etc/kafka/client.pem
    ssl_key_file: /etc/kafka/client.key
    topics:
      - orders
      - payments
  register: __tls_metadata

- name: Check a SASL_SSL listener with SCRAM; every advertised host must be named by its broker's certificate
  kafkaops.listeners.kafka_metadata:
    bootstrap: kafka-1.example.com:9094
    security_protocol: SASL_SSL
    sasl_mechanism: SCRAM-SHA-512
    sasl_username: monitor
    sasl_password: "{{ vault_kafka_monitor_password }}"
    ssl_ca_file: /etc/kafka/ca.pem
    check_endpoints: true
  register: __sasl_metadata
  failed_when: __sasl_metadata.insecure_endpoints | length > 0

- name: Show under-replicated partitions
  ansible.builtin.debug:
    msg: "{{ __tls_metadata.under_replicated | map(attribute='topic') | list }}"
"""

RETURN = r"""
bootstrap_used:
  description: The bootstrap server that answered, as C(host:port).
  returned: always
  type: str
  sample: 127.0.0.1:9092
bootstrap_errors:
  description: The bootstrap servers tried before RV(bootstrap_used), each with why it did not answer.
  returned: always
  type: list
  elements: dict
  contains:
    server:
      description: The server as C(host:port).
      type: str
      sample: kafka-1.example.com:9092
    error:
      description: Why it did not answer.
      type: str
      sample: "TCP connect failed (10.0.0.5:9092: Connection refused)"
metadata_version:
  description: The Metadata request version used (the highest both sides support).
  returned: always
  type: int
  sample: 12
cluster_id:
  description: The cluster id; null when the broker does not send one.
  returned: always
  type: str
  sample: XkZYnTt8Tj6P171oLwNCiA
controller_id:
  description: The controller's node id as the broker reports it (KRaft clusters report a live broker); -1 if unknown.
  returned: always
  type: int
  sample: 1
brokers:
  description: The brokers and the endpoints they advertise on the listener the bootstrap connection used.
  returned: always
  type: list
  elements: dict
  contains:
    # RV(endpoints) repeats these three (YAML aliases below)
    node_id: &broker_node_id
      description: The broker's node id.
      type: int
      sample: 1
    host: &broker_host
      description: The advertised host, as the broker sent it.
      type: str
      sample: ip-172-31-18-160.us-west-2.compute.internal
    port: &broker_port
      description: The advertised port.
      type: int
      sample: 9092
    rack:
      description: The broker's rack (C(broker.rack)), or null.
      type: str
      sample: us-west-2a
topics:
  description: The topics requested in O(topics), or all topics, sorted by name.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The topic name.
      type: str
      sample: orders
    is_internal:
      description: Whether Kafka marks the topic internal (such as C(__consumer_offsets)).
      type: bool
      sample: false
    error:
      description: Kafka's error name for the topic (such as C(UNKNOWN_TOPIC_OR_PARTITION)), or null.
      type: str
      sample: null
    partitions:
      description: The topic's partitions, sorted.
      type: list
      elements: dict
      contains:
        partition:
          description: The partition index.
          type: int
          sample: 0
        leader:
          description: Node id of the leader, -1 when there is none.
          type: int
          sample: 1
        replicas:
          description: Node ids of all replicas.
          type: list
          elements: int
          sample: [1, 2, 3]
        isr:
          description: Node ids of the in-sync replicas.
          type: list
          elements: int
          sample: [1, 2]
        offline_replicas:
          description: Node ids of offline replicas (empty before Metadata v5).
          type: list
          elements: int
          sample: []
        error:
          description:
            - Kafka's error name for the partition, or null.
            - C(LISTENER_NOT_FOUND) means the leader has no endpoint on the listener the request used.
          type: str
          sample: null
under_replicated:
  description: Partitions with fewer in-sync replicas than replicas.
  returned: always
  type: list
  elements: dict
  contains:
    topic:
      description: The topic name.
      type: str
      sample: orders
    partition:
      description: The partition index.
      type: int
      sample: 3
endpoints:
  description: One entry per broker in RV(brokers), with the outcome of resolving and connecting from the managed node.
  returned: when O(check_endpoints=true)
  type: list
  elements: dict
  contains:
    node_id: *broker_node_id
    host: *broker_host
    port: *broker_port
    resolvable:
      description: Whether the host resolved within O(timeout).
      type: bool
      sample: false
    addresses:
      description: The addresses the host resolved to (sorted, IPv4 first); empty when it did not resolve.
      type: list
      elements: str
      sample: []
    connectable:
      description: Whether one of the addresses accepted a TCP connection on the port.
      type: bool
      sample: false
    error:
      description: Why the endpoint cannot be used from here (resolution error, connect errors, or an invalid
        advertised host); null when it works.
      type: str
      sample: Name or service not known
    tls_verified:
      description: Whether the endpoint's certificate chains to the CA and names its advertised host; null without
        TLS or when the endpoint was not reached.
      type: bool
      sample: false
    tls_outcome:
      description:
        - C(verified), or why not - C(unknown_ca), C(expired), C(not_yet_valid), C(name_mismatch) (the advertised
          host is not among the certificate's names), C(handshake_failed); null without TLS or when not reached.
      type: str
      sample: name_mismatch
    authenticated:
      description: Whether SASL authentication on the endpoint succeeded; null without SASL or when not reached.
      type: bool
      sample: true
    security_error:
      description: Why TLS or SASL failed on the endpoint (with the certificate's names, or the broker's own SASL
        error); null when both worked or were not tried.
      type: str
      sample: >-
        TLS certificate verification failed for ec2-198-19-0-11.us-west-2.compute.amazonaws.com: the host is not
        among the certificate's names (Hostname mismatch, certificate is not valid for
        'ec2-198-19-0-11.us-west-2.compute.amazonaws.com'.); the certificate names
        ip-198-18-0-11.us-west-2.compute.internal, 198.18.0.11
unreachable_endpoints:
  description:
    - The entries of RV(endpoints) that did not resolve, did not connect, or are invalid.
    - Not called C(unreachable), a key Ansible reads as "the managed node is unreachable".
  returned: when O(check_endpoints=true)
  type: list
  elements: dict
  sample:
    - node_id: 1
      host: ip-172-31-18-160.us-west-2.compute.internal
      port: 9092
      resolvable: false
      addresses: []
      connectable: false
      error: Name or service not known
insecure_endpoints:
  description:
    - The entries of RV(endpoints) whose certificate was not verified or whose SASL authentication was refused.
  returned: when O(check_endpoints=true)
  type: list
  elements: dict
  sample: []
restart_check:
  description: The answer to O(restart_check).
  returned: when O(restart_check) is set
  type: dict
  contains:
    ready:
      description: Whether the node may be restarted now (V(before_restart)) or is back (V(after_restart)).
      type: bool
      sample: false
    reason:
      description: Why not, with the partitions and the way out; null when RV(restart_check.ready).
      type: str
      sample: >-
        restarting b1 now would take 1 partition(s) below min.insync.replicas, and every acks=all producer of them
        would stop until it is back: orders-0 (ISR [1, 2] of replicas [1, 2, 3], min.insync.replicas 2). Bring the
        missing replicas back in sync first (a broker that is down or still catching up), then run again; b1 was
        not restarted.
    blocking:
      description: Before a restart, the partitions the restart would take below C(min.insync.replicas).
      type: list
      elements: dict
    unavoidable:
      description: Before a restart, the partitions whose replication factor is at most C(min.insync.replicas).
      type: list
      elements: dict
    registered:
      description: Whether the cluster lists the broker.
      type: bool
    lagging:
      description: After a restart, the partitions it hosts whose ISR lacks it, each with its error (or null).
      type: list
      elements: dict
    voter:
      description:
        - Whether the node is a voter of the controller quorum; null when the quorum was not asked or did not answer.
      type: bool
    quorum:
      description: The controller quorum as the active controller described it; null when not asked or not answered.
      type: dict
      contains:
        leader_id:
          description: The node id of the quorum's leader (the active controller), -1 when there is none.
          type: int
        majority:
          description: Before a restart, how many voters make a majority.
          type: int
        caught_up_without:
          description: Before a restart, how many voters other than the node are caught up.
          type: int
        voters:
          description:
            - Each voter, as C({node_id, voter, leader, caught_up, lag_ms, lag_records}); C(lag_ms) is null when a
              time is unknown (the voter has not fetched from this leader, or DescribeQuorum v0).
          type: list
          elements: dict
          sample:
            - {node_id: 1, voter: true, leader: true, caught_up: true, lag_ms: 0, lag_records: 0}
            - {node_id: 3, voter: true, leader: false, caught_up: false, lag_ms: 34519, lag_records: 70}
summary:
  description: One line saying what a client on the managed node experiences after bootstrapping.
  returned: always
  type: str
  sample: >-
    bootstrap ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 reachable, but advertised host
    ip-172-31-18-160.us-west-2.compute.internal does not resolve from this host: clients fail after the first
    connection
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_check import (
    SECURITY_ARGUMENT_SPEC,
    SECURITY_REQUIRED_BY,
    client_security,
    fail_client_error,
    inspect_cluster,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_connection import DEFAULT_CLIENT_ID
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import KafkaClientError


def main():
    module = AnsibleModule(
        argument_spec={
            **SECURITY_ARGUMENT_SPEC,
            "bootstrap": {"type": "list", "elements": "str", "required": True},
            "timeout": {"type": "float", "default": 5.0},
            "check_endpoints": {"type": "bool", "default": False},
            "fail_on_endpoint_errors": {"type": "bool", "default": False},
            "topics": {"type": "list", "elements": "str"},
            "client_id": {"type": "str", "default": DEFAULT_CLIENT_ID},
            "restart_check": {"type": "dict", "options": {
                "node_id": {"type": "int", "required": True},
                "stage": {"type": "str", "choices": ["before_restart", "after_restart"], "required": True},
                "node_name": {"type": "str"},
                "assume_min_insync_replicas": {"type": "int"},
                "checks": {"type": "list", "elements": "str", "choices": ["partitions", "quorum"],
                           "default": ["partitions"]},
                "quorum_max_lag_ms": {"type": "int", "default": 2000},
            }},
        },
        required_by=SECURITY_REQUIRED_BY,
        supports_check_mode=True,
    )
    params = module.params
    restart = params["restart_check"]
    if params["fail_on_endpoint_errors"] and not params["check_endpoints"]:
        module.fail_json(msg="fail_on_endpoint_errors needs check_endpoints=true (the endpoints are only checked then)")
    if restart is not None and restart["quorum_max_lag_ms"] < 0:
        module.fail_json(msg="restart_check.quorum_max_lag_ms must be 0 or more milliseconds, got %d"
                         % restart["quorum_max_lag_ms"])
    try:
        ssl_context, sasl = client_security(params)
        result = inspect_cluster(params["bootstrap"], params["timeout"], ssl_context, sasl,
                                 server_hostname=params["ssl_server_hostname"], topics=params["topics"],
                                 client_id=params["client_id"], endpoints=params["check_endpoints"],
                                 restart=params["restart_check"])
    except KafkaClientError as exc:
        fail_client_error(module, exc)
    for warning in result.pop("warnings"):
        module.warn(warning)
    if params["fail_on_endpoint_errors"] and (result["unreachable_endpoints"] or result["insecure_endpoints"]):
        module.fail_json(msg=result["summary"], changed=False, **result)
    module.exit_json(changed=False, **result)


if __name__ == "__main__":
    main()
