#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: resolvability
short_description: Check that host names resolve, and optionally connect, from the managed node
version_added: 0.1.0
description:
  - Resolves each name in O(names) on the managed node and reports whether it resolved, to which addresses, and
    (with O(port)) whether one of those addresses accepts a TCP connection.
  - This gathers the facts the P(kafkaops.listeners.listener_plan#filter) filter needs to choose between one
    listener advertising the public DNS name (valid when that name also resolves inside the network, as AWS
    split-horizon DNS does) and separate C(INTERNAL)/C(EXTERNAL) listeners. Run it on every broker with every
    broker's public name.
  - Without O(nameservers) the system resolver answers (C(getaddrinfo), which reads C(/etc/hosts) and
    C(/etc/resolv.conf)). With O(nameservers), those servers are asked directly for A and AAAA records.
  - Names are resolved in parallel, each under O(timeout), and the whole call ends within O(total_timeout), so a
    DNS server that never answers costs at most O(timeout), never the resolver's own retries.
  - Every name is checked to be a DNS name or an IP literal before anything is sent; an IP literal resolves to
    itself. Addresses in answers are checked to be IP addresses.
author:
  - kafkaops.listeners maintainers (@kafkaops)
requirements:
  - dnspython >= 2.6, only when O(nameservers) is set
extends_documentation_fragment:
  - kafkaops.listeners.attributes
  - kafkaops.listeners.attributes.READ_ONLY
options:
  names:
    description:
      - Host names (or IP literals) to resolve. A trailing root dot is ignored; names that differ only in case are
        checked once.
      - A value that is neither a DNS name nor an IP literal fails the module, naming the value.
    type: list
    elements: str
    required: true
  timeout:
    description:
      - Seconds each name may take to resolve. A name still unresolved when this has passed since the start is
        reported as not resolvable, with the error C(timed out after <timeout> s).
    type: float
    default: 2.0
  total_timeout:
    description:
      - Seconds the whole check may take, lookups and connect checks together. Must not be shorter than
        O(timeout).
      - Defaults to O(timeout) plus one second.
    type: float
  port:
    description:
      - TCP port to connect to on every address of every name. A name is connectable when at least one of its
        addresses accepts the connection before O(total_timeout).
      - Without it no connection is attempted, and RV(results[].connectable) and RV(all_connectable) are null.
    type: int
  nameservers:
    description:
      - IP addresses of DNS servers to ask directly (A and AAAA records), bypassing C(/etc/hosts) and
        C(/etc/resolv.conf). Needs dnspython on the managed node.
      - Leave unset to use the system resolver, which is what Kafka clients and brokers on the node use.
    type: list
    elements: str
  dns_port:
    description:
      - UDP/TCP port of the servers in O(nameservers). Ignored without O(nameservers).
    type: int
    default: 53
  expected:
    description:
      - Addresses each name should resolve to, as a mapping of name to a list of IP addresses; every key must be in
        O(names).
      - A name that resolves to a different set of addresses is listed in RV(stale), for example a public DNS
        record still holding the IP an instance had before it was stopped and started.
    type: dict
seealso:
  - plugin: kafkaops.listeners.listener_plan
    plugin_type: filter
    description: Chooses the listener layout from the RV(results) of this module, gathered on every broker.
  - module: kafkaops.listeners.kafka_properties
    description: Writes the listener keys the plan computes.
notes:
  - A lookup still running at the deadline is abandoned, not cancelled (C(getaddrinfo) cannot be interrupted);
    its thread ends with the module process.
  - To turn the result into the V(external_checks) fact the P(kafkaops.listeners.listener_plan#filter) filter
    reads, key the results by name, see the examples.
"""

EXAMPLES = r"""
- name: Check from this broker that every broker's public name resolves and accepts connections on 9092
  kafkaops.listeners.resolvability:
    names: "{{ groups['kafka'] | map('extract', hostvars, 'public_dns') | list }}"
    port: 9092
  register: __resolvability

- name: Keep the answers as the facts the listener plan reads
  ansible.builtin.set_fact:
    # {name: {name, resolvable, connectable, addresses, ...}}; the plan reads resolvable and connectable
    external_checks: "{{ dict(__resolvability.results | map(attribute='name') | zip(__resolvability.results)) }}"

- name: Ask the VPC resolver directly, and flag public records that still hold an old address
  kafkaops.listeners.resolvability:
    names:
      - ec2-54-191-84-122.us-west-2.compute.amazonaws.com
    nameservers:
      - 172.31.0.2
    timeout: 1.5
    expected:
      ec2-54-191-84-122.us-west-2.compute.amazonaws.com:
        - 172.31.18.160
  register: __dns

- name: Fail when a record is stale
  ansible.builtin.assert:
    that: __dns.stale | length == 0
    fail_msg: "stale DNS records: {{ __dns.stale | join(', ') }}"
"""

RETURN = r"""
results:
  description: One entry per name, in the order of O(names) (names repeated with another case are left out).
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The name as given, without a trailing root dot.
      type: str
      sample: ec2-54-191-84-122.us-west-2.compute.amazonaws.com
    resolvable:
      description: Whether the name resolved to at least one address within O(timeout).
      type: bool
      sample: true
    addresses:
      description: The addresses the name resolved to, unique and sorted (IPv4 first); empty when it did not resolve.
      type: list
      elements: str
      sample: [172.31.18.160]
    connectable:
      description: With O(port), whether at least one address accepted a TCP connection; null without O(port).
      type: bool
      sample: true
    error:
      description: Why the name did not resolve or connect; null when it did.
      type: str
      sample: timed out after 2.0 s
    elapsed_ms:
      description: Milliseconds from the start of the check until this name's outcome was known.
      type: int
      sample: 12
    matches_expected:
      description:
        - Whether the name resolved to exactly the addresses given in O(expected) for it; false when it did not
          resolve; null when O(expected) has no entry for it.
      type: bool
      sample: true
all_resolvable:
  description: Whether every name resolved.
  returned: always
  type: bool
  sample: false
all_connectable:
  description: With O(port), whether every name is connectable; null without O(port).
  returned: always
  type: bool
  sample: true
stale:
  description: Names that resolved to addresses other than those given in O(expected).
  returned: always
  type: list
  elements: str
  sample: [ec2-54-191-84-122.us-west-2.compute.amazonaws.com]
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import HostError
from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import (
    DEFAULT_DNS_PORT,
    DEFAULT_TIMEOUT,
    ResolverError,
    dnspython_import_error,
    probe_names,
)


def main():
    module = AnsibleModule(
        argument_spec={
            "names": {"type": "list", "elements": "str", "required": True},
            "timeout": {"type": "float", "default": DEFAULT_TIMEOUT},
            "total_timeout": {"type": "float"},
            "port": {"type": "int"},
            "nameservers": {"type": "list", "elements": "str"},
            "dns_port": {"type": "int", "default": DEFAULT_DNS_PORT},
            "expected": {"type": "dict"},
        },
        supports_check_mode=True,
    )
    params = module.params
    if params["nameservers"] and dnspython_import_error() is not None:
        module.fail_json(msg=missing_required_lib("dnspython"), exception=dnspython_import_error())
    try:
        outcome = probe_names(
            params["names"],
            timeout=params["timeout"],
            total_timeout=params["total_timeout"],
            port=params["port"],
            nameservers=params["nameservers"],
            dns_port=params["dns_port"],
            expected=params["expected"],
        )
    except (HostError, ResolverError) as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(changed=False, **outcome)


if __name__ == "__main__":
    main()
