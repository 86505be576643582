#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: kafka_properties
short_description: Set or remove keys in a Kafka server.properties or container env file, keeping every other byte
version_added: 0.1.0
description:
  - Edits a Java properties file such as Kafka's C(server.properties) the way C(java.util.Properties) reads it
    (C(=), C(:) and whitespace separators, C(#) and C(!) comments, line continuations, escapes, last duplicate wins).
  - Only the keys given in O(properties) change. Comments, blank lines, the order and spelling of every other key
    and the presence or absence of a final newline are kept byte for byte.
  - An existing key is changed in place (where its last occurrence stood; earlier duplicates, which Kafka ignores,
    are removed). A new key is written just below its commented template line when the file has one (a comment
    line of that key, the comment character directly followed by it and C(=) or C(:), as Kafka ships
    C(#advertised.listeners=PLAINTEXT://your.host.name:9092)), else appended at the end of the file. With
    O(format=env) a new variable is appended at the end.
  - By default the resulting file is checked against the listener rules Kafka applies at startup, and nothing is
    written when it breaks one of them.
  - The file is written atomically (a temporary file in the same directory, then a rename).
  - A symbolic link at O(path) is followed, as M(ansible.builtin.lineinfile) does; the file it leads to is changed
    (RV(target)) and the link stays. A path that is not a regular file (a directory, a FIFO, a device) is refused
    without being opened for reading.
  - The read, edit and replace hold an exclusive lock (C(flock)) on the file's directory, which the broker's
    pre-start program takes too, so that two writers never lose each other's change; a writer that holds it for
    more than 30 seconds fails the module, naming the file.
  - Check mode makes every check the real run makes (a missing or unwritable directory fails both).
  - The cost is linear in the size of the file, which is parsed once whatever the number of keys.
  - With O(format=env) it edits a container's C(KAFKA_*) environment file the same way.
author:
  - kafkaops.listeners maintainers (@kafkaops)
extends_documentation_fragment:
  - ansible.builtin.files
  - kafkaops.listeners.attributes
  - kafkaops.listeners.attributes.FILES
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  idempotent:
    support: full
  safe_file_operations:
    support: full
options:
  path:
    description:
      - Path of the properties file on the managed node.
    type: path
    required: true
  properties:
    description:
      - Keys to set, with their values. A value of V(null) removes every occurrence of the key.
      - Booleans are written as V(true)/V(false); numbers as their decimal text.
      - Characters Kafka would misread are escaped, so a value can never add another key.
    type: dict
    required: true
  create:
    description:
      - Create the file when it does not exist. Otherwise a missing file is an error.
    type: bool
    default: false
  backup:
    description:
      - Keep a timestamped copy of the original file before changing it, beside the file changed (after links).
        The copy is written under a temporary name and renamed when complete, so a failed backup leaves no file and
        fails the module before the file is changed.
    type: bool
    default: false
  validate_listeners:
    description:
      - Check the resulting file with the listener rules Kafka applies at startup
        and fail without writing when any rule fires. The failure lists each finding.
      - Set to V(false) only for files that are not broker or controller configurations.
    type: bool
    default: true
  format:
    description:
      - V(properties) for a Java properties file such as C(server.properties).
      - V(env) for a container's environment file (Compose C(env_file), C(docker run --env-file)), where
        O(properties) names variables such as C(KAFKA_ADVERTISED_LISTENERS) (see
        P(kafkaops.listeners.to_docker_env#filter)). It is read as Docker Compose reads it (C(export), C(#)
        comments, quoted values) and written as UTF-8. A value is written bare when Compose and C(docker run) read
        it alike, else in single quotes (Compose's form; C(docker run --env-file) keeps quotes as part of the
        value). A value that an env file cannot hold (a line break, a control character, or a C(') or a final
        backslash in a value that needs quotes) fails the module, naming the variable. O(validate_listeners) checks
        the properties the C(KAFKA_*) variables set.
    type: str
    default: properties
    choices: [properties, env]
    version_added: 0.2.0
  pending_marker:
    description:
      - Path of a marker file that says a restart on the file's new settings is still to happen. When set, the
        module creates it (if it does not exist yet, with a line that says what it is) before it writes the file,
        whether or not the file changes; whoever restarts the service removes it after the restart.
      - A run that stops between the write and the restart leaves the marker, so that the next run still restarts
        the service although the file already holds its settings. The broker role passes
        C(<file>.restart-pending) and reads it back with M(kafkaops.listeners.kafka_broker_facts).
    type: path
    version_added: 0.2.0
  kafka_version:
    description:
      - The Apache Kafka release that reads the file, for example V(4.4.0). The findings of O(validate_listeners)
        quote that release's wording (releases word several messages differently, and Kafka 4.2 and later accept
        repeated process roles). Unset, they quote Kafka 3.9.
    type: str
seealso:
  - plugin: kafkaops.listeners.listener_plan
    plugin_type: filter
    description: Computes the listener keys this module writes.
  - plugin: kafkaops.listeners.kafka_config_errors
    plugin_type: filter
    description: The same startup-rule check, as a filter.
  - module: ansible.builtin.lineinfile
    description: Edits single lines, but does not understand properties syntax (continuations, escapes, separators).
notes:
  - With O(format=properties) the file is read and written as ISO-8859-1, as Kafka reads it; characters outside
    ASCII in new values are written as C(\\uXXXX) escapes.
"""

EXAMPLES = r"""
- name: Advertise INTERNAL/EXTERNAL listeners (private name inside the VPC, public name outside)
  kafkaops.listeners.kafka_properties:
    path: /etc/kafka/server.properties
    backup: true
    properties:
      listeners: INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092
      listener.security.protocol.map: INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT
      advertised.listeners: INTERNAL://ip-172-31-18-160.us-west-2.compute.internal:19092,EXTERNAL://ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092
      inter.broker.listener.name: INTERNAL
      security.inter.broker.protocol: null

- name: Advertise the broker container's listeners in its Compose env file (the container must be recreated)
  kafkaops.listeners.kafka_properties:
    path: /srv/kafka/kafka.env
    format: env
    properties: "{{ (plan.brokers | selectattr('name', 'equalto', inventory_hostname) | first)
                    | kafkaops.listeners.to_docker_env(removed=true) }}"

- name: Write the keys a listener plan computed for this broker
  kafkaops.listeners.kafka_properties:
    path: /etc/kafka/server.properties
    properties: "{{ (plan.brokers | selectattr('name', 'equalto', inventory_hostname) | first).properties }}"
  register: __broker_properties
"""

RETURN = r"""
path:
  description: The file that was edited.
  returned: always
  type: str
  sample: /etc/kafka/server.properties
target:
  description: The file changed, that is O(path) or where its symbolic links lead.
  returned: always
  type: str
  sample: /opt/kafka/config/server.properties
  version_added: 0.3.0
changed_keys:
  description: The keys whose value changed (or would change in check mode), sorted.
  returned: always
  type: list
  elements: str
  sample: [advertised.listeners, inter.broker.listener.name]
findings:
  description:
    - Kafka startup rules the resulting file breaks, each with the rule id and Kafka's own message.
    - Empty when O(validate_listeners=false) or when the file passes.
  returned: always
  type: list
  elements: dict
  contains:
    rule:
      description: The rule id, C(R1) to C(R24).
      type: str
      sample: R11
    message:
      description: Kafka's message for the rule.
      type: str
      sample: "requirement failed: inter.broker.listener.name must be a listener name defined in advertised.listeners."
pending_marker_created:
  description: Whether the module created O(pending_marker) (or would, in check mode); false when it already existed.
  returned: always
  type: bool
  sample: true
backup_file:
  description: Path of the backup copy, when O(backup=true) and the file changed; otherwise null.
  returned: always
  type: str
  sample: /etc/kafka/server.properties.12345.2026-11-22@03:10:00~
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.listeners.plugins.module_utils._properties_file import PropertiesFileBackend


def main():
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "required": True},
            "properties": {"type": "dict", "required": True},
            "create": {"type": "bool", "default": False},
            "backup": {"type": "bool", "default": False},
            "format": {"type": "str", "default": "properties", "choices": ["properties", "env"]},
            "validate_listeners": {"type": "bool", "default": True},
            "kafka_version": {"type": "str"},
            "pending_marker": {"type": "path"},
        },
        add_file_common_args=True,
        supports_check_mode=True,
    )
    module.exit_json(**PropertiesFileBackend(module).run())


if __name__ == "__main__":
    main()
