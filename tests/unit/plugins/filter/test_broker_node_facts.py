# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.kafkaops.listeners.plugins.filter.broker_node_facts import broker_node_facts

METADATA = {"provider": "aws", "private_dns": "ip-10-0-0-11.ec2.internal", "private_ip": "10.0.0.11",
            "public_dns": "ec2-54-0-0-11.compute-1.amazonaws.com", "public_ip": "54.0.0.11"}
FACTS = {"exists": True, "node_id": "1", "process_roles": ["broker"], "kafka_version": "3.7.1",
         "instance_metadata": METADATA, "listener_properties": {"inter.broker.listener.name": "INTERNAL"},
         "partitions": ["orders-0"]}
SETTINGS = {"name": "b1", "file": "/etc/kafka/server.properties", "cluster_hosts": ["b1", "b2"],
            "static_facts": {}, "mode": "host", "docker_container_name": "kafka", "kafka_version": None,
            "node_id": None, "process_roles": None, "restart_method": "systemd", "restart_command": "",
            "start_rediscover": False, "start_dropin_dir": None, "service_name": "kafka"}


def found(facts=None, **settings):
    return broker_node_facts(dict(FACTS, **(facts or {})), dict(SETTINGS, **settings))


def test_metadata_names_and_the_files_identity():
    result = found()
    assert result["identity"] == {"name": "b1", "private_host": METADATA["private_dns"],
                                  "private_ip": METADATA["private_ip"], "public_dns": METADATA["public_dns"],
                                  "public_ip": METADATA["public_ip"],
                                  "container_name": None, "provider": "aws", "source": "instance metadata (aws)"}
    assert result["node_facts"] == {"name": "b1", "node_id": 1, "process_roles": ["broker"],
                                    "private_host": METADATA["private_dns"], "private_ip": METADATA["private_ip"],
                                    "public_dns": METADATA["public_dns"],
                                    "public_ip": METADATA["public_ip"], "container_name": None,
                                    "source": "instance metadata (aws)",
                                    "current_properties": FACTS["listener_properties"],
                                    "partitions": ["orders-0"]}
    assert (result["release"], result["node_id"], result["process_roles"]) == ("3.7.1", "1", ["broker"])
    assert result["problems"] == []
    # the role's other tasks read the cluster's hosts from the result (one fact, rendered once)
    assert result["cluster_hosts"] == ["b1", "b2"]


def test_metadata_with_a_private_ip_only():
    metadata = dict(METADATA, private_dns=None, public_dns=None)
    result = found({"instance_metadata": metadata})
    assert result["identity"]["private_host"] == "10.0.0.11"
    assert result["node_facts"]["public_dns"] is None


def test_static_facts_override_the_metadata():
    static = {"private_host": "10.1.0.5", "public_dns": "kafka1.example.com"}
    result = found({"instance_metadata": {"provider": "none"}}, static_facts=static)
    identity = result["identity"]
    assert (identity["private_host"], identity["public_dns"], identity["public_ip"]) == (
        "10.1.0.5", "kafka1.example.com", None)
    assert (identity["provider"], identity["source"]) == ("static", "broker_static_facts")


def test_static_overrides_without_a_private_host_keep_the_metadata_provider():
    result = found(static_facts={"public_ip": "198.19.0.7"})
    assert result["identity"]["public_ip"] == "198.19.0.7"
    assert result["identity"]["private_host"] == METADATA["private_dns"]
    assert result["identity"]["source"] == "instance metadata (aws), with broker_static_facts overrides"


def test_settings_win_over_what_the_host_runs_with():
    result = found(kafka_version="4.0.0", node_id=7, process_roles=["broker", "controller"])
    assert (result["release"], result["node_id"], result["process_roles"]) == ("4.0.0", 7, ["broker", "controller"])
    assert result["node_facts"]["node_id"] == 7


def test_docker_mode_uses_the_container_name_as_private_host():
    result = found(mode="docker", docker_container_name="kafka1")
    assert result["identity"]["container_name"] == "kafka1"
    assert result["identity"]["private_host"] == METADATA["private_dns"]
    assert result["node_facts"]["private_host"] == "kafka1"
    static = found(mode="docker", static_facts={"container_name": "broker-a"})
    assert static["node_facts"]["private_host"] == "broker-a"
    unnamed = found(mode="docker", static_facts={"container_name": None})
    assert unnamed["node_facts"]["private_host"] == METADATA["private_dns"]


@pytest.mark.parametrize(("facts", "settings", "message"), [
    ({}, {"restart_method": "command"}, "broker_restart_method command needs broker_restart_command"),
    ({}, {"start_rediscover": True, "mode": "docker"},
     "broker_start_rediscover re-renders server.properties; a broker in a container (broker_mode docker) has none"),
    ({}, {"name": "b9"}, "it must be one of broker_cluster_hosts (b1, b2)"),
    ({"exists": False}, {},
     "/etc/kafka/server.properties does not exist. Set broker_properties_path to the server.properties Kafka reads;"
     " for a broker in a container, set broker_mode: docker and broker_docker_env_file."),
    ({"exists": False}, {"mode": "docker", "file": "/etc/kafka/kafka.env"},
     "/etc/kafka/kafka.env does not exist. Set broker_docker_env_file to the env file the broker container is"
     " created from."),
    ({"node_id": None}, {},
     'no node id: set broker_node_id, or node.id / broker.id in /etc/kafka/server.properties (found "")'),
    ({"node_id": "x1"}, {}, 'no node id: set broker_node_id, or node.id / broker.id in /etc/kafka/server.properties'
     ' (found "x1")'),
    ({"instance_metadata": {"provider": "none"}}, {},
     "the metadata service (provider none) gave no private DNS name or IP; set broker_static_facts.private_host"
     " (and public_dns / public_ip) for hosts outside a cloud"),
])
def test_each_problem_has_its_message(facts, settings, message):
    assert found(facts, **settings)["problems"] == [message]


def test_a_missing_file_is_not_also_missing_a_node_id():
    assert len(found({"exists": False, "node_id": None})["problems"]) == 1


def test_settings_that_need_nothing_else_pass():
    assert found(restart_method="command", restart_command="systemctl restart kafka")["problems"] == []
    assert found(start_rediscover=True)["problems"] == []


def test_a_misspelt_static_fact_is_named():
    # the verify playbook runs the role's tasks without its argument validation: the typo is named here as well
    result = found({"instance_metadata": {"provider": "none"}}, static_facts={"private_hst": "10.1.0.5"})
    assert result["problems"][0] == ("broker_static_facts has unknown key(s) private_hst; known: private_host, "
                                     "private_ip, public_dns, public_ip, container_name")
    assert len(result["problems"]) == 2  # and, without private_host, no private name either


# kafka_broker_facts found the file but no unit starting Kafka with it
INSTALL = {"properties_path": "/opt/kafka/config/server.properties", "service_name": None,
           "source": {"properties_path": "known layout",
                      "service_name": "none: no systemd unit starts Kafka with /opt/kafka/config/server.properties"},
           "looked_at": ["systemd units starting Kafka in /etc/systemd/system: none"]}


def test_no_unit_is_a_problem_only_where_a_unit_is_used():
    def unknown(**settings):
        return found({"install": INSTALL}, service_name=None, **settings)

    assert unknown()["problems"] == [
        "no systemd unit to use (broker_restart_method systemd restarts it): none: no systemd unit starts Kafka with"
        " /opt/kafka/config/server.properties (looked at systemd units starting Kafka in /etc/systemd/system: none)."
        " Set broker_service_name to the unit that starts Kafka (or broker_restart_method command with"
        " broker_restart_command, and broker_start_dropin_dir or broker_start_rediscover false)"]
    # names from instance metadata turn start-time self-healing on, and its drop-in goes beside the unit
    assert "start-time self-healing puts its drop-in beside it" in unknown(
        restart_method="command", restart_command="kafka-ctl restart", start_rediscover=None)["problems"][0]
    assert unknown(restart_method="command", restart_command="kafka-ctl restart")["problems"] == []
    assert unknown(restart_method="none", start_rediscover=True, start_dropin_dir="/srv/dropins")["problems"] == []
    assert unknown(mode="docker", restart_method="command", restart_command="x")["problems"] == []


def test_start_time_self_healing_is_on_with_names_from_instance_metadata_outside_a_container():
    assert found(start_rediscover=None)["start_rediscover"] is True
    assert found(start_rediscover=None, mode="docker")["start_rediscover"] is False
    assert found(start_rediscover=None, static_facts={"public_ip": "198.19.0.7"})["start_rediscover"] is False
    assert found({"instance_metadata": {"provider": "none"}}, start_rediscover=None)["start_rediscover"] is False
    assert found(start_rediscover=False)["start_rediscover"] is False
