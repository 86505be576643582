# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The kafka_client_properties filter: a listener's security options as Java and librdkafka client properties."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.from_properties import from_properties
from ansible_collections.kafkaops.listeners.plugins.filter.kafka_client_properties import kafka_client_properties

CA = "/etc/kafka/tls/ca.pem"
CLIENT = "/etc/kafka/tls/client.pem"
SCRAM = {"security_protocol": "SASL_SSL", "ssl_ca_file": CA, "sasl_mechanism": "SCRAM-SHA-512",
         "sasl_username": "app", "sasl_password": 'p"w\\x'}


def test_plaintext_and_sasl_plaintext_have_no_tls_settings():
    assert kafka_client_properties({"security_protocol": "PLAINTEXT", "ssl_ca_file": CA}) == {}
    plain = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN", "sasl_username": "u",
             "sasl_password": "pw"}
    rdkafka = {"sasl.mechanisms": "PLAIN", "sasl.username": "u", "sasl.password": "pw"}
    assert kafka_client_properties(plain, "librdkafka") == rdkafka
    assert kafka_client_properties(plain)["sasl.jaas.config"] == (
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="pw";')


def test_tls_verifies_the_host_name_against_the_pem_ca():
    java = kafka_client_properties({"security_protocol": "SSL", "ssl_ca_file": CA})
    assert java == {"ssl.endpoint.identification.algorithm": "https", "ssl.truststore.type": "PEM",
                    "ssl.truststore.location": CA}
    rdkafka = kafka_client_properties({"security_protocol": "SSL", "ssl_ca_file": CA}, "librdkafka")
    assert rdkafka == {"ssl.endpoint.identification.algorithm": "https",
                       "enable.ssl.certificate.verification": "true", "ssl.ca.location": CA}


def test_a_client_certificate_and_its_key_password():
    options = {"security_protocol": "SSL", "ssl_ca_file": CA, "ssl_cert_file": CLIENT, "ssl_key_password": "kp"}
    java = kafka_client_properties(options)
    assert (java["ssl.keystore.type"], java["ssl.keystore.location"], java["ssl.key.password"]) == ("PEM", CLIENT, "kp")
    rdkafka = kafka_client_properties({**options, "ssl_key_file": "/k.pem"}, "librdkafka")
    assert (rdkafka["ssl.certificate.location"], rdkafka["ssl.key.location"], rdkafka["ssl.key.password"]) == (
        CLIENT, "/k.pem", "kp")
    # one PEM file holding both: librdkafka reads the key from it too
    assert kafka_client_properties(options, "librdkafka")["ssl.key.location"] == CLIENT


def test_the_jaas_line_quotes_the_password_so_that_it_reads_back_unchanged():
    java = kafka_client_properties(SCRAM)
    assert java["sasl.mechanism"] == "SCRAM-SHA-512"
    assert java["sasl.jaas.config"] == ('org.apache.kafka.common.security.scram.ScramLoginModule required '
                                        'username="app" password="p\\"w\\\\x";')
    # as the role's template writes it (backslashes doubled for the properties format) and Java reads it
    line = "sasl.jaas.config=" + java["sasl.jaas.config"].replace("\\", "\\\\")
    assert from_properties(line)["sasl.jaas.config"] == java["sasl.jaas.config"]


def test_mistakes_are_refused_without_the_secret():
    with pytest.raises(AnsibleFilterError, match="one PEM file") as separate:
        kafka_client_properties({"security_protocol": "SSL", "ssl_cert_file": CLIENT, "ssl_key_file": "/k.pem",
                                 "ssl_key_password": "hunter2"})
    with pytest.raises(AnsibleFilterError, match="need ssl_cert_file"):
        kafka_client_properties({"security_protocol": "SSL", "ssl_key_password": "hunter2"}, "librdkafka")
    with pytest.raises(AnsibleFilterError, match="SASL mechanisms OAUTHBEARER, PLAIN") as gssapi:
        kafka_client_properties({**SCRAM, "sasl_mechanism": "GSSAPI"})
    with pytest.raises(AnsibleFilterError, match="needs sasl_username and sasl_password"):
        kafka_client_properties({**SCRAM, "sasl_password": None})
    with pytest.raises(AnsibleFilterError, match="sasl_password must be one line") as multiline:
        kafka_client_properties({**SCRAM, "sasl_password": "hunter2\nsasl.mechanism=PLAIN"}, "librdkafka")
    with pytest.raises(AnsibleFilterError, match="dialect"):
        kafka_client_properties(SCRAM, "go")
    assert not any("hunter2" in str(error.value) for error in (separate, gssapi, multiline))


def test_oauthbearer_gets_the_mechanism_and_never_the_fixed_token():
    options = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "OAUTHBEARER", "sasl_oauthbearer_token": "t0k"}
    assert kafka_client_properties(options) == {"sasl.mechanism": "OAUTHBEARER"}
    assert kafka_client_properties(options, "librdkafka") == {"sasl.mechanisms": "OAUTHBEARER"}
