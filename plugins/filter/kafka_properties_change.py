# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_properties_change
short_description: What setting keys in a properties file would change, worked out on the controller
version_added: 0.2.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Given the keys and values a properties file holds (RV(kafkaops.listeners.kafka_broker_facts#module:entries)), says
    what M(kafkaops.listeners.kafka_properties) would report for the same O(properties) in check mode, with the
    same code and without asking the host again (the keys whose value changes, and the Kafka startup rules the
    resulting file breaks).
  - The broker role works out a rollout's changes with it, so that a run that changes nothing makes no module call
    for them.
options:
  _input:
    description:
      - The file's keys and values as written (each key's last value), as
        RV(kafkaops.listeners.kafka_broker_facts#module:entries) returns them.
    type: dict
    required: true
  properties:
    description:
      - The keys to set, with their values; V(null) removes a key (as in M(kafkaops.listeners.kafka_properties)).
    type: dict
    required: true
  format:
    description:
      - The kind of file, as the module's option of that name. For V(env), the keys are environment variables, a
        value such a file cannot hold is an error naming the variable, and the startup rules check the properties
        the variables set.
    type: str
    choices: [properties, env]
    default: properties
  validate_listeners:
    description:
      - Check the resulting keys with Kafka's startup rules (as the module's option of that name).
    type: bool
    default: true
  kafka_version:
    description:
      - The Apache Kafka release whose wording the findings quote; unset, Kafka 3.9's.
    type: str
  refuse_path:
    description:
      - The file's path. Given, a result that breaks the startup rules is refused as
        M(kafkaops.listeners.kafka_properties) refuses it, with an error of the same text that names the file and
        each rule with Kafka's message, instead of returned in RV(_value.findings).
    type: path
seealso:
  - module: kafkaops.listeners.kafka_properties
    description: Writes the keys, with the same check.
  - plugin: kafkaops.listeners.kafka_config_errors
    plugin_type: filter
    description: The startup-rule check alone.
"""

EXAMPLES = r"""
- name: Work out which listener keys a write would change
  ansible.builtin.set_fact:
    change: "{{ broker.entries | kafkaops.listeners.kafka_properties_change(plan.properties, kafka_version='4.4.0') }}"

- name: Work it out, and fail as the module would if the result breaks Kafka's startup rules
  ansible.builtin.set_fact:
    change: >-
      {{ broker.entries | kafkaops.listeners.kafka_properties_change(plan.properties,
                                                                     refuse_path='/etc/kafka/server.properties') }}
"""

RETURN = r"""
_value:
  description: What the edit changes.
  type: dict
  contains:
    changed_keys:
      description: The keys of O(properties) whose value changes, sorted.
      type: list
      elements: str
    findings:
      description: The startup rules the result breaks, each with V(rule) and V(message) (Kafka's text).
      type: list
      elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._properties_file import (
    FORMATS,
    change_outcome,
    managed_changes,
    refusal,
)


def kafka_properties_change(entries, properties, format="properties", validate_listeners=True, kafka_version=None,
                            refuse_path=None):
    """Return kafka_properties' changed_keys and findings for writing ``properties`` over ``entries``; with
    ``refuse_path``, raise kafka_properties' refusal of that file instead of returning findings."""
    if not isinstance(entries, dict) or not isinstance(properties, dict):
        raise AnsibleFilterError("kafka_properties_change: expected mappings, got %s and %s"
                                 % (type(entries).__name__, type(properties).__name__))
    if format not in FORMATS:
        raise AnsibleFilterError("kafka_properties_change: format must be one of %s, got %r"
                                 % (", ".join(sorted(FORMATS)), format))
    try:
        outcome = change_outcome({str(key): str(value) for key, value in entries.items()}, managed_changes(properties),
                                 FORMATS[format], validate_listeners, kafka_version or None)
    except ValueError as exc:
        raise AnsibleFilterError("kafka_properties_change: %s" % exc) from exc
    if refuse_path and outcome["findings"]:
        raise AnsibleFilterError(refusal(refuse_path, outcome["findings"]))
    return outcome


class FilterModule:
    """The kafka_properties_change filter."""

    def filters(self):
        return {"kafka_properties_change": kafka_properties_change}
