# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_config_errors
short_description: List the Kafka startup rules a broker or controller configuration breaks
version_added: 0.1.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Applies the listener rules Kafka checks when a broker or controller starts (endpoint syntax, listener names and
    ports, the security protocol map, the inter-broker listener, advertised listeners, KRaft roles, controller
    listeners and quorum) to a configuration, with Kafka's defaults for keys that are not set.
  - Returns one finding per broken rule with the rule id and Kafka's own message; an empty list means Kafka would
    start with these listener settings.
options:
  _input:
    description:
      - The configuration, either as a mapping of property names to values or as the text of a
        C(server.properties) file.
    type: raw
    required: true
  kafka_version:
    description:
      - The Apache Kafka release that will read the configuration, for example V(4.4.0). Releases word several
        messages differently, and Kafka 4.2 and later accept repeated process roles; the findings quote this
        release. Unset, they quote Kafka 3.9.
    type: str
seealso:
  - module: kafkaops.listeners.kafka_properties
    description: Runs the same check before it writes.
"""

EXAMPLES = r"""
- name: Refuse INTERNAL/EXTERNAL listeners without inter.broker.listener.name
  ansible.builtin.assert:
    that: (config | kafkaops.listeners.kafka_config_errors | map(attribute='rule') | list) == ['R11']
  vars:
    config:
      listeners: INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092
      listener.security.protocol.map: INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT
      advertised.listeners: INTERNAL://ip-172-31-18-160.us-west-2.compute.internal:19092,EXTERNAL://ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092

- name: Quote Kafka 4.4's wording of the findings
  ansible.builtin.debug:
    msg: "{{ config | kafkaops.listeners.kafka_config_errors(kafka_version='4.4.0') }}"
  vars:
    config:
      listeners: PLAINTEXT://:9092,plaintext://:9093

- name: Check a server.properties file read from the broker
  ansible.builtin.debug:
    msg: "{{ (lookup('ansible.builtin.file', 'server.properties')) | kafkaops.listeners.kafka_config_errors }}"
"""

RETURN = r"""
_value:
  description: The findings, each a mapping with V(rule) (C(R1) to C(R24)) and V(message) (Kafka's text).
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import PropertiesError, parse_properties


def kafka_config_errors(config, kafka_version=None):
    """Return Kafka's startup-rule findings for a properties mapping or properties text, worded as ``kafka_version``."""
    if isinstance(config, str):
        try:
            config = parse_properties(config).to_dict()
        except PropertiesError as exc:
            raise AnsibleFilterError("kafka_config_errors: cannot parse the properties text: %s" % exc) from exc
    if not isinstance(config, dict):
        raise AnsibleFilterError("kafka_config_errors: expected a mapping or properties text, got %s"
                                 % type(config).__name__)
    try:
        return check_kafka_config({str(key): str(value) for key, value in config.items() if value is not None},
                                  kafka_version=kafka_version)
    except ValueError as exc:
        raise AnsibleFilterError("kafka_config_errors: %s" % exc) from exc


class FilterModule:
    """The kafka_config_errors filter."""

    def filters(self):
        return {"kafka_config_errors": kafka_config_errors}
