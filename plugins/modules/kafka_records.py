#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: kafka_records
short_description: Write JSON-lines records to a file on the controller
version_added: 0.2.0
description:
  - Writes O(records), one JSON object per line, to O(dest) on the Ansible controller, replacing the file through a
    temporary file and a rename. Makes the folder (mode C(0755)) when it is missing; the file gets mode C(0644).
  - Runs in the controller's own process (an action plugin), so it costs no connection and no module run, whatever
    host the task runs for. The C(kafkaops.listeners.verify) role writes its broker and probe records with it.
  - Records are an append-only log of what a run saw, not managed state, so writing them never reports a change.
author:
  - kafkaops.listeners maintainers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.listeners.attributes
attributes:
  action:
    description: Runs on the controller as an action plugin.
    support: full
  check_mode:
    support: full
    details:
      - In check mode nothing is written.
  diff_mode:
    support: none
  idempotent:
    support: none
    details:
      - Each call writes the file again; the role names each run's files apart.
  platform:
    details:
      - The controller's file system, never the managed host's.
options:
  dest:
    description:
      - The file to write, on the controller.
    type: path
    required: true
  records:
    description:
      - The records, each a mapping that serializes to JSON.
    type: list
    elements: dict
    required: true
seealso:
  - plugin: kafkaops.listeners.kafka_probe_records
    plugin_type: filter
    description: Turns a M(kafkaops.listeners.kafka_metadata) result into probe records.
  - plugin: kafkaops.listeners.kafka_broker_record
    plugin_type: filter
    description: Makes a broker record.
"""

EXAMPLES = r"""
- name: Write this client's probe records on the controller
  kafkaops.listeners.kafka_records:
    dest: "{{ playbook_dir }}/kafka-listener-records/probes-{{ run_id }}-{{ inventory_hostname }}.jsonl"
    records: >-
      {{ probe | kafkaops.listeners.kafka_probe_records(plan, inventory_hostname, 'vpc', bootstrap, run_id,
         observed_at) }}
"""

RETURN = r"""
dest:
  description: The file written (or, in check mode, that would be written).
  returned: always
  type: str
  sample: /srv/ansible/kafka-listener-records/probes-20261124T090000Z-123456-client.jsonl
count:
  description: How many records were given.
  returned: always
  type: int
  sample: 4
"""
