# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: broker_recorded_checks
short_description: What a broker checked in the newest verify run recorded on the controller
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - From the broker's newest C(brokers) record in the verify role's records folder (docs/records.md), the names the
    broker resolved when that run planned it (the keys of C(external_checks)) and the inter-broker endpoint its
    configuration advertised, where the broker role's self check asked it.
  - The broker role has M(kafkaops.listeners.kafka_broker_facts) check both in its first call on the broker
    (O(kafkaops.listeners.kafka_broker_facts#module:resolve),
    O(kafkaops.listeners.kafka_broker_facts#module:self_check)), so a run whose names and endpoints have not changed
    since makes no M(kafkaops.listeners.resolvability) call and no self check of its own.
  - Records on disk are untrusted input. A line that is not a C(brokers) record of schema 1 is passed over; so is
    every name that is neither a DNS name nor an IP literal, and every name no other machine could use (loopback,
    link-local such as the instance metadata service, unspecified, multicast, broadcast). A record with more than
    256 names gives none.
options:
  _input:
    description: The verify role's records folder (C(verify_records_dir)), on the controller.
    type: str
    required: true
  cluster:
    description: The cluster's name in the records (C(verify_cluster_name)).
    type: str
    required: true
  broker:
    description: The broker's inventory name.
    type: str
    required: true
  settings:
    description:
      - Client settings per listener name, as the broker role's C(broker_client_security) (the entry C(default)
        for listeners without one); the recorded inter-broker listener's are put in the result's C(self_check).
    type: dict
    default: {}
  timeout:
    description:
      - The check's timeout in seconds, put in the result's C(self_check); kafka_broker_facts' default without it.
    type: float
seealso:
  - module: kafkaops.listeners.kafka_broker_facts
  - plugin: kafkaops.listeners.broker_resolve_names
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Show what this broker checked in the newest verify run
  ansible.builtin.debug:
    msg: "{{ verify_records_dir | kafkaops.listeners.broker_recorded_checks('prod-kafka', inventory_hostname) }}"
"""

RETURN = r"""
_value:
  description:
    - C(names), the names the broker resolved, each once, in the order of the record (empty when the folder is
      empty or not set, not there, or holds no such record of the broker).
    - C(self_check), the options of O(kafkaops.listeners.kafka_broker_facts#module:self_check) for the inter-broker
      endpoint the broker advertised then (C(bootstrap), C(listener), C(timeout), C(security_protocol) and the
      listener's client settings from O(settings) that the protocol uses); null without a record, for a node that is
      not a broker, when the record's configuration does not give one endpoint on a host other machines can use, or
      when O(settings) do not fit the listener's protocol (the role's own check then says why). It may hold a
      password; give it to the module, never set it as a fact.
  type: dict
  sample:
    names: [ec2-198-19-0-11.us-west-2.compute.amazonaws.com, ip-198-18-0-11.us-west-2.compute.internal]
    self_check:
      bootstrap: ip-198-18-0-11.us-west-2.compute.internal:19092
      listener: INTERNAL
      timeout: 5.0
      security_protocol: PLAINTEXT
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    ClientSecurityError,
    listener_options,
    listener_settings,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._records import recorded_checks


def broker_recorded_checks(directory, cluster, broker, settings=None, timeout=None):
    """What ``broker`` of ``cluster`` checked in the newest verify run recorded in ``directory``: the names it
    resolved and kafka_broker_facts' ``self_check`` options for its recorded inter-broker endpoint."""
    if directory is not None and not isinstance(directory, str):
        raise AnsibleFilterError("broker_recorded_checks: expected the records folder as a string, got %r"
                                 % (directory,))
    for option, value in (("cluster", cluster), ("broker", broker)):
        if not isinstance(value, str) or not value:
            raise AnsibleFilterError("broker_recorded_checks: %s must be a non-empty string, got %r" % (option, value))
    if settings is not None and not isinstance(settings, dict):
        raise AnsibleFilterError("broker_recorded_checks: settings must map listener names to client settings, got %r"
                                 % (type(settings).__name__,))
    found = recorded_checks(directory or "", cluster, broker)
    endpoint = found["self_check"]
    if endpoint is None:
        return found
    try:
        security = listener_options(endpoint["protocol"], listener_settings(settings or {}, endpoint["listener"]),
                                    endpoint["listener"])
    except ClientSecurityError:
        return dict(found, self_check=None)
    options = dict(security, bootstrap=endpoint["hostport"], listener=endpoint["listener"])
    if timeout is not None:
        options["timeout"] = timeout
    return dict(found, self_check=options)


class FilterModule:
    """The broker_recorded_checks filter."""

    def filters(self):
        return {"broker_recorded_checks": broker_recorded_checks}
