# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""client_security: kafka_metadata's security options, as the module and `kafka-listeners doctor` both give them."""

from __future__ import annotations

import ssl

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_check import client_security
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import KafkaClientError


def test_plaintext_has_neither_tls_nor_sasl():
    assert client_security({"security_protocol": "PLAINTEXT"}) == (None, None)
    assert client_security({}) == (None, None)


def test_sasl_ssl_gives_a_verifying_context_and_credentials_that_hide_the_password():
    context, sasl = client_security({"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512",
                                     "sasl_username": "kafkaops", "sasl_password": "hunter2"})
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    assert (sasl.mechanism, sasl.username) == ("SCRAM-SHA-512", "kafkaops")
    assert "hunter2" not in repr(sasl)


@pytest.mark.parametrize(("options", "message"), [
    ({"security_protocol": "PLAINTEXT", "ssl_ca_file": "/ca.pem"},
     "ssl_ca_file only apply with security_protocol SSL or SASL_SSL, but security_protocol is PLAINTEXT"),
    ({"security_protocol": "SSL", "sasl_mechanism": "PLAIN"},
     "sasl_mechanism only apply with security_protocol SASL_PLAINTEXT or SASL_SSL, but security_protocol is SSL"),
    ({"security_protocol": "SASL_PLAINTEXT"}, "security_protocol SASL_PLAINTEXT needs sasl_mechanism"),
    ({"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN", "sasl_password": "hunter2"},
     "sasl_mechanism PLAIN needs sasl_username and sasl_password"),
    ({"security_protocol": "TLS"}, "security_protocol 'TLS' is not one of"),
])
def test_misused_or_missing_options_are_named(options, message):
    with pytest.raises(KafkaClientError) as raised:
        client_security(options)
    assert message in str(raised.value)
    assert "hunter2" not in str(raised.value)
