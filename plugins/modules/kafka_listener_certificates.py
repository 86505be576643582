#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: kafka_listener_certificates
short_description: Check that each TLS listener's certificate names the hosts a listener plan advertises on it
version_added: 0.2.0
description:
  - Runs on a broker. For every listener of O(plan) that clients reach over TLS (protocol C(SSL) or C(SASL_SSL),
    and the KRaft controller listener when it is mapped to C(SSL)), reads the broker certificate from the key store
    the broker's properties file points to for that listener (C(listener.name.<name>.ssl.keystore.*), else
    C(ssl.keystore.*)) and checks that it names each host the plan advertises there, as a client verifying host
    names would (Kafka's default C(ssl.endpoint.identification.algorithm=https)).
  - C(PEM) key stores are read directly (the file, or the inline C(ssl.keystore.certificate.chain)); C(PKCS12)
    with C(openssl pkcs12) and C(JKS) with C(keytool -list -rfc), when the host has them (otherwise the listener is
    reported as not checked, with a warning). The store password from the properties file is handed to those tools
    in the environment, never on a command line, and never returned.
  - With O(fail_on_missing=true) the module fails, naming the key store, the hosts and the names the certificate
    has, when a certificate lacks an advertised host. The broker role runs it before it writes anything.
author:
  - kafkaops.listeners maintainers (@kafkaops)
requirements:
  - cryptography, optional; without it certificates are read by the collection's own reader, with the same results
extends_documentation_fragment:
  - kafkaops.listeners.attributes
  - kafkaops.listeners.attributes.READ_ONLY
options:
  path:
    description:
      - The broker's C(server.properties), read as Kafka reads it (ISO-8859-1).
    type: path
    required: true
  plan:
    description:
      - This broker's element of the V(brokers) list of P(kafkaops.listeners.listener_plan#filter) (its
        C(endpoints), C(controller_endpoint) and C(properties) are read).
    type: dict
    required: true
  fail_on_missing:
    description:
      - Fail when a certificate does not name a host advertised on its listener.
    type: bool
    default: true
seealso:
  - module: kafkaops.listeners.kafka_metadata
    description: Checks the same from the client's side, per advertised endpoint, over the network.
notes:
  - Wildcards match as Kafka's clients match them - C(*) only as the whole left-most label, for exactly one label;
    the common name counts only when the certificate has no DNS names.
"""

EXAMPLES = r"""
- name: Refuse a plan whose advertised hosts the brokers' certificates do not name, before writing anything
  kafkaops.listeners.kafka_listener_certificates:
    path: /etc/kafka/server.properties
    plan: "{{ broker_listener_plan.brokers | selectattr('name', 'equalto', inventory_hostname) | first }}"
"""

RETURN = r"""
certificates:
  description: One entry per TLS listener of the plan.
  returned: always
  type: list
  elements: dict
  contains:
    listener:
      description: The listener name.
      type: str
      sample: EXTERNAL
    protocol:
      description: Its security protocol.
      type: str
      sample: SASL_SSL
    hosts:
      description: The hosts the plan advertises on it (for the controller listener, the host voters dial).
      type: list
      elements: str
      sample: [ec2-198-19-0-11.us-west-2.compute.amazonaws.com]
    keystore:
      description: Where the certificate was read (the key store's path).
      type: str
      sample: /etc/kafka/tls/broker.pem
    keystore_type:
      description: The key store type (C(PEM), C(PKCS12), C(JKS)).
      type: str
      sample: PEM
    names:
      description: The certificate's DNS names and IP addresses (its common name as C(CN=...) when it has no DNS
        names).
      type: list
      elements: str
      sample: [ip-198-18-0-11.us-west-2.compute.internal, 198.18.0.11]
    not_after:
      description: When the certificate expires (UTC, ISO 8601), null when not read.
      type: str
      sample: "2027-01-01T00:00:00Z"
    expired:
      description: Whether it has expired.
      type: bool
      sample: false
    missing:
      description: The hosts the certificate does not name.
      type: list
      elements: str
      sample: [ec2-198-19-0-11.us-west-2.compute.amazonaws.com]
    error:
      description: Why the certificate was not checked (no key store set, tool missing, unreadable); null when it was.
      type: str
      sample: null
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_certificates import (
    PASSWORD_ENV,
    check_certificates,
    refusal_message,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import PropertiesError, parse_properties


def tool_runner(module):
    """run_tool for check_certificates: None when the tool is not installed; the password only in the environment."""

    def run_tool(argv, password):
        path = module.get_bin_path(argv[0])
        if path is None:
            return None
        return module.run_command([path] + argv[1:], environ_update={PASSWORD_ENV: password}, data="")

    return run_tool


def main():
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "required": True},
            "plan": {"type": "dict", "required": True},
            "fail_on_missing": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    path = module.params["path"]
    try:
        with open(path, "rb") as handle:
            props = parse_properties(handle.read().decode("latin-1")).to_dict()
    except (OSError, PropertiesError) as exc:
        module.fail_json(msg="cannot read %s: %s" % (path, getattr(exc, "strerror", None) or exc))
    results = check_certificates(props, module.params["plan"], tool_runner(module))
    for entry in results:
        if entry["error"]:
            module.warn("listener %s (%s): certificate not checked: %s"
                        % (entry["listener"], entry["protocol"], entry["error"]))
        elif entry["expired"]:
            module.warn("listener %s: the certificate in %s expired on %s"
                        % (entry["listener"], entry["keystore"], entry["not_after"]))
    message = refusal_message(module.params["plan"].get("name") or os.uname()[1], results)
    if message and module.params["fail_on_missing"]:
        module.fail_json(msg=message, certificates=results)
    module.exit_json(changed=False, certificates=results)


if __name__ == "__main__":
    main()
