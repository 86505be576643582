# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: to_properties
short_description: Write a mapping as the lines of a Java properties file (as Java reads it) or a librdkafka file
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
  - With O(dialect=librdkafka), the lines of a librdkafka configuration file (C(kcat -F), confluent-kafka's
    C(read_config)), which knows no escapes; C(key=value) as given, a value with a line break refused.
options:
  _input:
    description: Property names mapped to values (strings, numbers or booleans, written as C(true)/C(false)).
    type: dict
    required: true
  dialect:
    description: The file's reader.
    type: str
    choices: [java, librdkafka]
    default: java
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

- name: The same settings for kcat -F
  ansible.builtin.copy:
    dest: /etc/kafka/client-librdkafka.conf
    content: "{{ {'security.protocol': 'sasl_ssl', 'linger.ms': 5} | kafkaops.listeners.to_properties('librdkafka') }}"
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


def to_properties(properties, dialect="java"):
    """``properties`` as properties-file lines (``dialect`` java: ASCII, escaped as Java reads them; librdkafka:
    ``key=value`` as given), one per key, ``\\n`` after each."""
    if not isinstance(properties, dict):
        raise AnsibleFilterError("to_properties: expected a mapping, got %s" % type(properties).__name__)
    if dialect not in ("java", "librdkafka"):
        raise AnsibleFilterError("to_properties: dialect must be java or librdkafka, got %r" % (dialect,))
    lines = []
    for key, value in properties.items():
        try:
            text = property_value(str(key), value)
        except ValueError as exc:
            raise AnsibleFilterError("to_properties: %s" % exc) from None
        if text is None:
            raise AnsibleFilterError("to_properties: properties.%s is null: give a value or leave the key out" % key)
        if dialect == "java":
            lines.append(format_property(str(key), text) + "\n")
        elif "\n" in text or "\r" in text:
            raise AnsibleFilterError("to_properties: properties.%s holds a line break, which a librdkafka file cannot "
                                     "hold: give a value of one line" % key)
        else:
            lines.append("%s=%s\n" % (key, text))
    return "".join(lines)


class FilterModule:
    """The to_properties filter."""

    def filters(self):
        return {"to_properties": to_properties}
