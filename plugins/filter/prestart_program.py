# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: prestart_program
short_description: The broker's pre-start program as one self-contained Python script
version_added: 0.2.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Returns the text of C(kafka-listeners-prestart), the program the broker role installs for its systemd drop-in
    (option C(broker_start_rediscover)). Before Kafka starts, it asks the instance metadata service for the node's
    names again, re-plans the node from the decision the role stored beside C(server.properties), checks the result
    with Kafka's startup rules and replaces the file atomically; on any problem it keeps the file and exits 0.
  - The script carries the collection's own planner, rule checker, properties editor and metadata clients (the
    C(module_utils) files it imports, found the way Ansible's module packer finds them) as source text, and imports
    them from there. One file, standard library only, nothing else to install on the broker, and the same code the
    role plans with.
  - The output depends only on the collection's files and the interpreter path, so installing it again changes
    nothing.
options:
  _input:
    description: The Python 3 interpreter on the broker that runs the script (its C(#!) line).
    type: path
    required: true
seealso:
  - ref: kafkaops.listeners.broker role <ansible_collections.kafkaops.listeners.broker_role>
    description: The role that installs it.
"""

EXAMPLES = r"""
- name: Install the pre-start program
  ansible.builtin.copy:
    dest: /usr/local/sbin/kafka-listeners-prestart
    content: "{{ '/usr/bin/python3' | kafkaops.listeners.prestart_program }}"
    mode: "0755"
"""

RETURN = r"""
_value:
  description: The script's text.
  type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._prestart_bundle import program_text


def prestart_program(interpreter):
    """The pre-start program's text for ``interpreter`` (see the plugin documentation)."""
    try:
        return program_text(interpreter)
    except ValueError as exc:
        raise AnsibleFilterError("prestart_program: %s" % exc) from exc


class FilterModule:
    """The prestart_program filter."""

    def filters(self):
        return {"prestart_program": prestart_program}
