# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: broker_node_facts
short_description: A broker's identity, its node as the plan sees it, and what stops it from being planned
version_added: 0.2.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Works out, from what M(kafkaops.listeners.kafka_broker_facts) found on a broker host and the broker role's
    settings, the broker's names (static facts override the instance metadata; the private host is the private DNS
    name, else the private IP), its node id, process roles and Kafka release, the node the listener plan is made
    from (in a container, its private host is the container's name) and the problems that stop it from being
    planned, as messages.
options:
  _input:
    description: The result of M(kafkaops.listeners.kafka_broker_facts) for this broker.
    type: dict
    required: true
  settings:
    description:
      - The broker role's settings, by their names without the C(broker_) prefix (C(static_facts), C(mode),
        C(docker_container_name), C(kafka_version), C(node_id), C(process_roles), C(restart_method),
        C(restart_command), C(start_rediscover), C(start_dropin_dir)), with C(name) (the inventory name), C(file)
        (the configuration file read), C(cluster_hosts) (the hosts of its cluster) and C(service_name) (the systemd
        service, given or found; none when unknown). What was looked at to find the service is taken from the
        input's RV(kafkaops.listeners.kafka_broker_facts#module:install).
    type: dict
    required: true
seealso:
  - module: kafkaops.listeners.kafka_broker_facts
  - plugin: kafkaops.listeners.listener_plan
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Record the broker's node facts and its problems
  ansible.builtin.set_fact:
    node: "{{ found }}"
    problems: "{{ found.problems }}"
  vars:
    found: >-
      {{ facts | kafkaops.listeners.broker_node_facts({'name': inventory_hostname, 'file': broker_properties_path,
         'cluster_hosts': groups['kafka'], 'mode': 'host', 'static_facts': {}, 'kafka_version': none,
         'node_id': none, 'process_roles': none, 'docker_container_name': none, 'restart_method': 'systemd',
         'restart_command': '', 'start_rediscover': false}) }}
"""

RETURN = r"""
_value:
  description: What the broker's facts and the role's settings give.
  type: dict
  contains:
    release:
      description: The Kafka release (C(broker_kafka_version), else the installed one; none for Kafka 3.9's wording).
      type: str
    node_id:
      description: The node id (C(broker_node_id), else the file's C(node.id) / C(broker.id); empty when none).
      type: raw
    process_roles:
      description: The process roles (C(broker_process_roles), else the file's).
      type: list
    start_rediscover:
      description:
        - Whether start-time self-healing is on (C(broker_start_rediscover), else on when the names come from instance
          metadata and the broker is not in a container).
      type: bool
    identity:
      description:
        - The names, with C(name) (the inventory name), C(provider) and C(source) (where they came from, for
          messages).
      type: dict
    node_facts:
      description: The node as P(kafkaops.listeners.listener_plan#filter) takes it.
      type: dict
    problems:
      description: The messages of what stops this broker from being planned.
      type: list
      elements: str
    cluster_hosts:
      description: The hosts of its cluster, as given in O(settings) (C(cluster_hosts)).
      type: list
      elements: str
"""

import json
import re

STATIC = "broker_static_facts"
# The keys _identity reads; the role's argument spec lists the same (a unit test holds them equal). Checked here too
# because the verify playbook runs the role's tasks without the role's argument validation.
STATIC_KEYS = ("private_host", "private_ip", "public_dns", "public_ip", "container_name")
NODE_ID = re.compile(r"^[0-9]+$")


def _identity(facts, settings):
    static = settings.get("static_facts") or {}
    metadata = facts.get("instance_metadata") or {}
    is_static = "private_host" in static
    provider = "static" if is_static else metadata.get("provider")
    if is_static:
        source = STATIC
    else:
        source = "instance metadata (%s)%s" % (provider, ", with %s overrides" % STATIC if static else "")
    docker_name = settings.get("docker_container_name") if settings.get("mode") == "docker" else None
    return {
        "name": settings.get("name"),
        "private_host": static.get("private_host") or metadata.get("private_dns") or metadata.get("private_ip") or None,
        "private_ip": static.get("private_ip", metadata.get("private_ip")),
        "public_dns": static.get("public_dns", metadata.get("public_dns")),
        "public_ip": static.get("public_ip", metadata.get("public_ip")),
        "container_name": static.get("container_name", docker_name),
        "provider": provider,
        "source": source,
    }


def _start_rediscover(settings, identity):
    """broker_start_rediscover, else on when the names come from instance metadata and not in a container."""
    if settings.get("start_rediscover") is not None:
        return bool(settings["start_rediscover"])
    return (not settings.get("static_facts") and settings.get("mode") != "docker"
            and identity["provider"] not in ("none", "static"))


def _service_problem(facts, settings, identity):
    """Why the run needs the Kafka unit's name and has none (None when it has one or needs none)."""
    if settings.get("mode") == "docker" or settings.get("service_name"):
        return None
    uses = []
    if settings.get("restart_method") == "systemd":
        uses.append("broker_restart_method systemd restarts it")
    if _start_rediscover(settings, identity) and not settings.get("start_dropin_dir"):
        uses.append("start-time self-healing puts its drop-in beside it")
    if not uses:
        return None
    install = facts.get("install") or {}
    found = (install.get("source") or {}).get("service_name", "broker_service_name is not set")
    looked_at = "; ".join(install.get("looked_at") or []) or "nothing"
    return ("no systemd unit to use (%s): %s (looked at %s). Set broker_service_name to the unit that starts Kafka"
            " (or broker_restart_method command with broker_restart_command, and broker_start_dropin_dir or"
            " broker_start_rediscover false)" % (" and ".join(uses), found, looked_at))


def _problems(facts, settings, node_id, identity):
    docker = settings.get("mode") == "docker"
    path = settings.get("file")
    hosts = list(settings.get("cluster_hosts") or [])
    if docker:
        missing_hint = "Set broker_docker_env_file to the env file the broker container is created from."
    else:
        missing_hint = ("Set broker_properties_path to the server.properties Kafka reads; for a broker in a container,"
                        " set broker_mode: docker and broker_docker_env_file.")
    unknown = sorted(set(settings.get("static_facts") or {}) - set(STATIC_KEYS), key=str)
    checks = [
        (not unknown, "%s has unknown key(s) %s; known: %s" % (STATIC, ", ".join(map(str, unknown)),
                                                               ", ".join(STATIC_KEYS))),
        (settings.get("restart_method") != "command" or len(settings.get("restart_command") or "") > 0,
         "broker_restart_method command needs broker_restart_command"),
        (settings.get("start_rediscover") is not True or not docker,
         "broker_start_rediscover re-renders server.properties; a broker in a container (broker_mode docker) has none"),
        (settings.get("name") in hosts, "it must be one of broker_cluster_hosts (%s)" % ", ".join(hosts)),
        (bool(facts.get("exists")), "%s does not exist. %s" % (path, missing_hint)),
        (not facts.get("exists") or NODE_ID.match(str(node_id)) is not None,
         "no node id: set broker_node_id, or node.id / broker.id in %s (found %s)" % (path, json.dumps(str(node_id)))),
        (bool(identity["private_host"]),
         "the metadata service (provider %s) gave no private DNS name or IP; set broker_static_facts.private_host"
         " (and public_dns / public_ip) for hosts outside a cloud" % identity["provider"]),
    ]
    service = _service_problem(facts, settings, identity)
    return [msg for ok, msg in checks if not ok] + ([service] if service else [])


def _given(settings, key, found):
    """The role's setting when it is set (not none), else what was found on the host."""
    value = settings.get(key)
    return found if value is None else value


def broker_node_facts(facts, settings):
    """A broker's identity, node facts and problems (see the plugin documentation)."""
    facts = facts or {}
    settings = settings or {}
    node_id = _given(settings, "node_id", facts.get("node_id") or "")
    process_roles = _given(settings, "process_roles", facts.get("process_roles"))
    identity = _identity(facts, settings)
    container = identity["container_name"]
    node_facts = {
        "name": settings.get("name"),
        "node_id": int(node_id) if NODE_ID.match(str(node_id)) else 0,
        "process_roles": process_roles,
        # a broker in a container binds (and its controller is reached) on the container network, under its name
        "private_host": container if settings.get("mode") == "docker" and container else identity["private_host"],
        "private_ip": identity["private_ip"],
        "public_dns": identity["public_dns"],
        "public_ip": identity["public_ip"],
        "container_name": container,
        "source": identity["source"],
        # the listeners, inter-broker listener and controller endpoints it runs now: a cluster in service is planned
        # from them, and no plan renames the inter-broker listener or moves a dynamic quorum's controller in one roll
        "current_properties": facts.get("listener_properties"),
        # the partitions it keeps a replica of: replicas on several brokers make a cluster in service
        "partitions": facts.get("partitions"),
    }
    return {
        "release": _given(settings, "kafka_version", facts.get("kafka_version")),
        "node_id": node_id,
        "process_roles": process_roles,
        "identity": identity,
        "node_facts": node_facts,
        "start_rediscover": _start_rediscover(settings, identity),
        "problems": _problems(facts, settings, node_id, identity),
        "cluster_hosts": list(settings.get("cluster_hosts") or []),
    }


class FilterModule:
    """The broker_node_facts filter."""

    def filters(self):
        return {"broker_node_facts": broker_node_facts}
