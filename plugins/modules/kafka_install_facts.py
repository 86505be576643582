#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: kafka_install_facts
short_description: Find a Kafka broker's server.properties and the systemd unit that starts it
version_added: 0.4.0
description:
  - Finds, on the broker host, the properties file Kafka reads and the systemd service that starts it, from files
    only (unit files and known paths; systemd is not asked, so it also works where systemd is not PID 1).
  - "The order: a value given in O(properties_path) or O(service_name) wins. Else the systemd units (in
    C(/etc/systemd/system), C(/run/systemd/system), C(/usr/local/lib/systemd/system), C(/usr/lib/systemd/system),
    C(/lib/systemd/system), with their drop-ins) whose C(ExecStart) starts a Kafka broker: C(kafka-server-start.sh),
    Confluent's C(kafka-server-start), or the C(kafka.Kafka) main class, directly or through C(sh -c), with the
    properties file as its first argument (C(${NAME}) of the unit's C(Environment=) lines expanded, a relative path
    taken from C(WorkingDirectory=)). The file a unit names is the truth wherever it lies, and that unit's name is
    the service. With O(service_name) given, only that unit's file counts. With O(properties_path) given, the unit
    naming that file (the same file through symlinks) gives the service. When no unit names the file, a C(kafka)
    unit whose C(ExecStart) is not read here (a wrapper script) is the service."
  - "Else the known layouts: C(/etc/kafka/server.properties) (Confluent's and other packages),
    C(/opt/kafka/config/server.properties) (Kafka's tarball, 4.x) and C(/opt/kafka/config/kraft/server.properties)
    (3.x, KRaft), C(/opt/kafka) a folder or a symlink to a release; the versioned C(/opt/kafka_*/config/...) only
    when there is no C(/opt/kafka)."
  - "Two candidates that are not the same file are never chosen between, and a unit that starts Kafka with a file
    that cannot be told (a variable not set by C(Environment=), a specifier, no file) is never passed over for a
    known layout: the module fails, naming what it looked at and the broker role's variables to set
    (C(broker_properties_path), C(broker_service_name)). No unit for the file found is not an error
    (RV(service_name) is V(null)); the caller says whether it needs one."
  - The broker role finds them with the same code inside M(kafkaops.listeners.kafka_broker_facts) (its
    RV(kafkaops.listeners.kafka_broker_facts#module:install)), in the call that reads the file.
author:
  - kafkaops.listeners maintainers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.listeners.attributes
  - kafkaops.listeners.attributes.READ_ONLY
options:
  properties_path:
    description: The broker's properties file, when known (then only the service is looked for).
    type: path
  service_name:
    description: The broker's systemd service (without C(.service)), when known.
    type: str
seealso:
  - module: kafkaops.listeners.kafka_broker_facts
"""

EXAMPLES = r"""
- name: Find the broker's properties file and unit
  kafkaops.listeners.kafka_install_facts:
  register: install

- name: Read what the broker runs with
  kafkaops.listeners.kafka_broker_facts:
    path: "{{ install.properties_path }}"
    kafka_home: "{{ install.kafka_home | default('/opt/kafka', true) }}"
"""

RETURN = r"""
properties_path:
  description: The properties file, as given or as the unit or the known layout spells it.
  returned: success
  type: str
  sample: /opt/kafka/config/kraft/server.properties
service_name:
  description: The systemd service that starts Kafka with that file (given or found), V(null) when no unit does.
  returned: success
  type: str
  sample: kafka
kafka_home:
  description:
    - The Kafka installation (a folder holding C(libs/)) of the unit's start program (C(<home>/bin/...)), else of the
      properties file (C(<home>/config/...)); V(null) when neither is one.
  returned: success
  type: str
  sample: /opt/kafka
source:
  description: How each value was decided, for people.
  returned: success
  type: dict
  sample: {"properties_path": "ExecStart of unit kafka (/etc/systemd/system/kafka.service)", "service_name": "unit
    /etc/systemd/system/kafka.service starts Kafka with /opt/kafka/config/server.properties"}
looked_at:
  description: What was looked at, for people (the units starting Kafka, the known layouts when they were looked at).
  returned: success
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_install import InstallError, find_install


def main():
    module = AnsibleModule(
        argument_spec={"properties_path": {"type": "path"}, "service_name": {"type": "str"}},
        supports_check_mode=True,
    )
    try:
        found = find_install(module.params["properties_path"], module.params["service_name"])
    except InstallError as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(changed=False, **found)


if __name__ == "__main__":
    main()
