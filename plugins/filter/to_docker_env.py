# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: to_docker_env
short_description: Render a node's listener plan as the KAFKA_* environment of the Kafka container images
version_added: 0.1.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Turns the properties of one node plan (from P(kafkaops.listeners.listener_plan#filter)) into the environment
    variables the Apache (C(apache/kafka)) and Confluent (C(confluentinc/cp-kafka)) images turn back into
    C(server.properties) at start-up.
  - Both images use the same convention, which this filter applies. The variable is C(KAFKA_) followed by the
    property name in upper case, with C(.) written as C(_), C(_) as C(__) and C(-) as C(___).
  - Keys the plan removes (null values) are left out. KRaft nodes also get C(KAFKA_NODE_ID) and
    C(KAFKA_PROCESS_ROLES).
options:
  _input:
    description: One element of the plan's V(brokers) list, or a plain mapping of property names to values.
    type: dict
    required: true
  removed:
    description:
      - Also return the variables of the keys the plan removes (value null), with value V(null), so that an env-file
        edit removes them; by default they are left out.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Environment for the broker container of the BOB/FRED/ALICE Docker example ("Kafka Listeners - Explained")
  ansible.builtin.debug:
    msg: "{{ (plan.brokers | first) | kafkaops.listeners.to_docker_env }}"
  vars:
    plan: "{{ [{'name': 'kafka0', 'node_id': 0, 'container_name': 'kafka0', 'public_dns': 'kafka.example.com'}]
              | kafkaops.listeners.listener_plan(mode='docker') }}"
# KAFKA_LISTENERS: DOCKER://0.0.0.0:29092,HOST://0.0.0.0:9092,EXTERNAL://0.0.0.0:29094
# KAFKA_ADVERTISED_LISTENERS: DOCKER://kafka0:29092,HOST://localhost:9092,EXTERNAL://kafka.example.com:29094
# KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: DOCKER:PLAINTEXT,HOST:PLAINTEXT,EXTERNAL:PLAINTEXT
# KAFKA_INTER_BROKER_LISTENER_NAME: DOCKER
"""

RETURN = r"""
_value:
  description: Environment variable names mapped to their string values.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._docker_env import env_name
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import identity_properties


def to_docker_env(node, removed=False):
    """Render one node plan (or a properties mapping) as KAFKA_* environment variables (None for removed keys)."""
    if not isinstance(node, dict):
        raise AnsibleFilterError("to_docker_env: expected a node plan or a mapping, got %s" % type(node).__name__)
    properties = dict(node["properties"]) if isinstance(node.get("properties"), dict) else dict(node)
    if node.get("process_roles"):
        properties.update(identity_properties(node["node_id"], node["process_roles"]))
    env = {}
    for key, value in properties.items():
        if not isinstance(key, str) or not key:
            raise AnsibleFilterError("to_docker_env: invalid property name %r" % (key,))
        if value is not None:
            env[env_name(key)] = str(value)
        elif removed:
            env[env_name(key)] = None
    return env


class FilterModule:
    """The to_docker_env filter."""

    def filters(self):
        return {"to_docker_env": to_docker_env}
