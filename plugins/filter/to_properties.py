# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: to_properties
short_description: Write a mapping as the lines of a Java properties file, in the encoding Java reads
version_added: 0.3.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - One C(key=value) line per entry, in the mapping's order, spelled as C(java.util.Properties.store) spells them
    so that C(Properties.load) reads back exactly the mapping. Java reads a properties file as ISO-8859-1, so
    every character outside printable ASCII becomes a C(\\uXXXX) escape (a SASL password with C(é) would otherwise be
    written as UTF-8 and read as two other characters); a backslash, a line break, and a leading blank of a value,
    and C(=), C(:), C(#), C(!) and blanks in a key are escaped too.
  - The result is ASCII, so it reads the same whatever encoding the file is written in.
options:
  _input:
    description: Property names mapped to values (strings, numbers or booleans, written as C(true)/C(false)).
    type: dict
    required: true
seealso:
  - plugin: kafkaops.listeners.from_properties
    plugin_type: filter
    description: Reads such text back.
"""

EXAMPLES = r"""
- name: A client file with a SASL password that is not ASCII
  ansible.builtin.copy:
    dest: /etc/kafka/client.properties
    content: "{{ {'sasl.jaas.config': jaas, 'security.protocol': 'SASL_SSL'} | kafkaops.listeners.to_properties }}"
    mode: "0600"
"""

RETURN = r"""
_value:
  description: The lines, each ended by a newline.
  type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import format_property
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties_file import property_value


def to_properties(properties):
    """``properties`` as properties-file lines (ASCII, one per key, ``\\n`` after each)."""
    if not isinstance(properties, dict):
        raise AnsibleFilterError("to_properties: expected a mapping, got %s" % type(properties).__name__)
    lines = []
    for key, value in properties.items():
        try:
            text = property_value(str(key), value)
        except ValueError as exc:
            raise AnsibleFilterError("to_properties: %s" % exc) from None
        if text is None:
            raise AnsibleFilterError("to_properties: properties.%s is null: give a value or leave the key out" % key)
        lines.append(format_property(str(key), text) + "\n")
    return "".join(lines)


class FilterModule:
    """The to_properties filter."""

    def filters(self):
        return {"to_properties": to_properties}
