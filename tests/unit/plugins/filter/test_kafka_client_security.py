# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The kafka_client_security filter: kafka_metadata's security options for one planned listener."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.kafka_client_security import kafka_client_security

SETTINGS = {
    "EXTERNAL": {"ssl_ca_file": "/etc/kafka/ca.pem", "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": "app",
                 "sasl_password": "pw"},
    "default": {"ssl_ca_file": "/etc/kafka/ca.pem", "ssl_cert_file": "/etc/kafka/client.pem"},
}


def test_each_protocol_gets_only_its_own_options():
    sasl_ssl = kafka_client_security("SASL_SSL", SETTINGS, "external")
    assert sasl_ssl == {"security_protocol": "SASL_SSL", "ssl_ca_file": "/etc/kafka/ca.pem",
                        "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": "app", "sasl_password": "pw"}
    ssl_only = kafka_client_security("SSL", SETTINGS, "INTERNAL")  # no entry of its own: the default one
    assert ssl_only == {"security_protocol": "SSL", "ssl_ca_file": "/etc/kafka/ca.pem",
                        "ssl_cert_file": "/etc/kafka/client.pem"}
    assert kafka_client_security("PLAINTEXT", SETTINGS, "EXTERNAL") == {"security_protocol": "PLAINTEXT"}


def test_mistakes_are_named_without_the_secret():
    with pytest.raises(AnsibleFilterError, match="settings name no sasl_mechanism"):
        kafka_client_security("SASL_SSL", {"INTERNAL": {"sasl_password": "hunter2"}}, "INTERNAL")
    with pytest.raises(AnsibleFilterError, match="unknown client setting.*sasl_pasword") as typo:
        kafka_client_security("SSL", {"default": {"sasl_pasword": "hunter2"}}, "X")
    assert "hunter2" not in str(typo.value)
    with pytest.raises(AnsibleFilterError, match="not a Kafka security protocol"):
        kafka_client_security("TLS")


def test_a_planned_endpoint_gives_its_protocol_and_listener():
    endpoint = {"listener": "EXTERNAL", "host": "b1.example.com", "port": 9092, "protocol": "SASL_SSL"}
    assert kafka_client_security(endpoint, SETTINGS) == kafka_client_security("SASL_SSL", SETTINGS, "EXTERNAL")
    # a listener given beside the endpoint picks the settings: INTERNAL has none of its own, so `default`, which
    # names no SASL mechanism for this SASL_SSL endpoint
    with pytest.raises(AnsibleFilterError, match="listener INTERNAL speaks SASL_SSL"):
        kafka_client_security(endpoint, SETTINGS, "INTERNAL")
    assert "sasl_username" not in kafka_client_security({"listener": "INTERNAL", "protocol": "SSL"}, SETTINGS)
