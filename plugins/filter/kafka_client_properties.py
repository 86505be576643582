# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_client_properties
short_description: Kafka client properties (Java or librdkafka) for a listener's security options
version_added: 0.2.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Turns the security options that P(kafkaops.listeners.kafka_client_security#filter) returns for a listener
    (C(security_protocol), C(ssl_*), C(sasl_*)) into the TLS and SASL properties of a Kafka client, in Java's names
    or in librdkafka's (kcat, confluent-kafka).
  - TLS (C(SSL), C(SASL_SSL)) always turns host name verification on (C(ssl.endpoint.identification.algorithm=https);
    librdkafka also C(enable.ssl.certificate.verification=true)); the CA file is a PEM trust store. A client
    certificate is C(ssl_cert_file), its key C(ssl_key_file) (or in the same file) and C(ssl_key_password) the key's
    password. Java clients read the key and certificate from one PEM file, so for them both must be in C(ssl_cert_file).
  - SASL C(PLAIN) and C(SCRAM-SHA-256/512) give C(sasl.mechanism) and the C(sasl.jaas.config) line (Java), or
    C(sasl.mechanisms), C(sasl.username) and C(sasl.password) (librdkafka). C(OAUTHBEARER) gives the mechanism
    only, since a client needs a token endpoint (given with the further properties), not the fixed token the checks
    use, which is never written.
  - Error messages name options, never their values.
  - C(security.protocol) itself is not among the result (the caller writes it).
options:
  _input:
    description:
      - The security options of one listener, as P(kafkaops.listeners.kafka_client_security#filter) returns them.
    type: dict
    required: true
  dialect:
    description: Whose property names to use.
    type: str
    choices: [java, librdkafka]
    default: java
"""

EXAMPLES = r"""
# templated where used, never set as a fact: it may hold a password
- name: The librdkafka properties for the EXTERNAL listener
  ansible.builtin.debug:
    msg: "{{ (protocol | kafkaops.listeners.kafka_client_security(client_config_client_security, 'EXTERNAL')
              | kafkaops.listeners.kafka_client_properties('librdkafka')).keys() | list }}"
  vars:
    protocol: SASL_SSL
"""

RETURN = r"""
_value:
  description: The client properties, in the order a file should list them (values are strings).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    ClientSecurityError,
    options_to_properties,
)


def kafka_client_properties(options, dialect="java"):
    """The TLS and SASL client properties (Java or librdkafka names) for kafka_metadata's security ``options``."""
    try:
        return options_to_properties(options, dialect)
    except ClientSecurityError as exc:
        raise AnsibleFilterError("kafka_client_properties: %s" % exc) from None


class FilterModule:
    """The kafka_client_properties filter."""

    def filters(self):
        return {"kafka_client_properties": kafka_client_properties}
