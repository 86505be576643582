# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_probe_records
short_description: Turn a client's kafka_metadata result into the fleet audit's probe records
version_added: 0.1.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - One record per advertised endpoint the client was given, with whether it resolved and connected from the
    client's network and, for TLS and SASL listeners, whether its certificate verified and its login succeeded
    (null for PLAINTEXT); when the bootstrap failed, one record per endpoint the plan meant for that client, with
    C(bootstrap_ok=false). The fields are documented in the collection's C(docs/records.md).
positional: _input, plan, client, client_network, bootstrap, run_id, observed_at, cluster
extends_documentation_fragment:
  - kafkaops.listeners.records
options:
  _input:
    description:
      - The registered result of M(kafkaops.listeners.kafka_metadata) run with
        O(kafkaops.listeners.kafka_metadata#module:check_endpoints=true).
    type: dict
    required: true
  plan:
    description: The cluster's plan from P(kafkaops.listeners.listener_plan#filter) (names the brokers and listeners).
    type: dict
    required: true
  client:
    description: The client host's name.
    type: str
    required: true
  client_network:
    description: The network the client sits on.
    type: str
    required: true
  bootstrap:
    description: The bootstrap servers the client used.
    type: list
    elements: str
    required: true
  brokers:
    description:
      - The run's brokers records, from P(kafkaops.listeners.kafka_broker_record#filter). Each endpoint's listener
        is then the one its broker actually advertises it on, which before a fix is not the plan's.
      - Without them, the plan's listener of the bootstrap server names every endpoint.
    type: list
    elements: dict
    version_added: 0.2.0
"""

EXAMPLES = r"""
- name: Append this client's probes to a JSON-lines file on the controller
  ansible.builtin.copy:
    content: "{{ records | map('to_json') | join('\n') ~ '\n' }}"
    dest: "records/probes-{{ inventory_hostname }}.jsonl"
    mode: "0644"
  delegate_to: localhost
  vars:
    records: >-
      {{ __metadata | kafkaops.listeners.kafka_probe_records(plan, inventory_hostname, 'internet', bootstrap,
                                                             run_id, observed_at, 'prod', brokers=broker_records) }}
"""

RETURN = r"""
_value:
  description: The probe records, as mappings.
  type: list
  elements: dict
"""

from ansible_collections.kafkaops.listeners.plugins.module_utils._records import probe_records


class FilterModule:
    """The kafka_probe_records filter."""

    def filters(self):
        return {"kafka_probe_records": probe_records}
