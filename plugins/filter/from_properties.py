# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: from_properties
short_description: Read the text of a Java properties file (such as server.properties) into a mapping
version_added: 0.1.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Parses the text the way C(java.util.Properties) loads it (C(=), C(:) and whitespace separators, C(#) and C(!)
    comments, line continuations, escapes including C(\\uXXXX)); when a key appears twice the last one wins, as in
    Kafka.
options:
  _input:
    description: The text of the file, for example from M(ansible.builtin.slurp) decoded with C(b64decode).
    type: str
    required: true
seealso:
  - module: kafkaops.listeners.kafka_properties
    description: Writes keys back without touching the rest of the file.
"""

EXAMPLES = r"""
- name: Read a broker's node id and roles
  ansible.builtin.slurp:
    src: /etc/kafka/server.properties
  register: __server_properties

- name: Show them
  ansible.builtin.debug:
    msg: >-
      {{ (__server_properties.content | b64decode | kafkaops.listeners.from_properties)['node.id']
         | default('no node.id (ZooKeeper mode?)') }}
"""

RETURN = r"""
_value:
  description: Property names mapped to their values, both as strings.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import PropertiesError, parse_properties


def from_properties(text):
    """Return the properties in ``text`` as a dict (last duplicate wins)."""
    if not isinstance(text, str):
        raise AnsibleFilterError("from_properties: expected the text of a properties file, got %s"
                                 % type(text).__name__)
    try:
        return parse_properties(text).to_dict()
    except PropertiesError as exc:
        raise AnsibleFilterError("from_properties: %s" % exc) from exc


class FilterModule:
    """The from_properties filter."""

    def filters(self):
        return {"from_properties": from_properties}
