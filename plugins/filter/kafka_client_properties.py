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

DIALECTS = ("java", "librdkafka")
SASL_LOGIN_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}


def _jaas_quoted(value):
    """``value`` as a double-quoted JAAS option value (Kafka's JAAS parser reads backslash escapes in quotes)."""
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


def _tls_properties(options, dialect):
    ca_file, cert_file = options.get("ssl_ca_file"), options.get("ssl_cert_file")
    key_file, key_password = options.get("ssl_key_file"), options.get("ssl_key_password")
    if (key_file or key_password) and not cert_file:
        raise AnsibleFilterError("kafka_client_properties: ssl_key_file and ssl_key_password need ssl_cert_file "
                                 "(the client certificate)")
    props = {"ssl.endpoint.identification.algorithm": "https"}
    if dialect == "java":
        if key_file and key_file != cert_file:
            raise AnsibleFilterError(
                "kafka_client_properties: Java clients read the client key and certificate from one PEM file "
                "(ssl.keystore.location): put both in the file ssl_cert_file names, and drop ssl_key_file")
        if ca_file:
            props.update({"ssl.truststore.type": "PEM", "ssl.truststore.location": ca_file})
        if cert_file:
            props.update({"ssl.keystore.type": "PEM", "ssl.keystore.location": cert_file})
        if key_password:
            props["ssl.key.password"] = key_password
        return props
    props["enable.ssl.certificate.verification"] = "true"
    if ca_file:
        props["ssl.ca.location"] = ca_file
    if cert_file:
        props.update({"ssl.certificate.location": cert_file, "ssl.key.location": key_file or cert_file})
    if key_password:
        props["ssl.key.password"] = key_password
    return props


def _sasl_properties(options, dialect):
    mechanism = str(options.get("sasl_mechanism") or "")
    if mechanism == "OAUTHBEARER":
        # the token endpoint and login settings are the site's (further properties); a fixed token would expire
        return {"sasl.mechanisms" if dialect == "librdkafka" else "sasl.mechanism": mechanism}
    if mechanism not in SASL_LOGIN_MODULES:
        raise AnsibleFilterError("kafka_client_properties: client files are written for the SASL mechanisms %s, not %r"
                                 % (", ".join(("OAUTHBEARER",) + tuple(SASL_LOGIN_MODULES)), mechanism))
    username, password = options.get("sasl_username"), options.get("sasl_password")
    if not username or password is None:
        raise AnsibleFilterError("kafka_client_properties: SASL %s needs sasl_username and sasl_password" % mechanism)
    if dialect == "librdkafka":
        return {"sasl.mechanisms": mechanism, "sasl.username": str(username), "sasl.password": str(password)}
    jaas = "%s required username=%s password=%s;" % (
        SASL_LOGIN_MODULES[mechanism], _jaas_quoted(str(username)), _jaas_quoted(str(password)))
    return {"sasl.mechanism": mechanism, "sasl.jaas.config": jaas}


def kafka_client_properties(options, dialect="java"):
    """The TLS and SASL client properties (Java or librdkafka names) for kafka_metadata's security ``options``."""
    if dialect not in DIALECTS:
        raise AnsibleFilterError("kafka_client_properties: dialect must be one of %s, not %r"
                                 % (", ".join(DIALECTS), dialect))
    if not isinstance(options, dict):
        raise AnsibleFilterError("kafka_client_properties: expects the mapping kafka_client_security returns")
    protocol = str(options.get("security_protocol") or "PLAINTEXT").upper()
    props = {}
    if protocol in ("SSL", "SASL_SSL"):
        props.update(_tls_properties(options, dialect))
    if protocol.startswith("SASL_"):
        props.update(_sasl_properties(options, dialect))
    multiline = sorted(key for key, value in options.items() if any(c in str(value) for c in "\r\n"))
    if multiline:
        raise AnsibleFilterError("kafka_client_properties: %s must be one line" % ", ".join(multiline))
    return props


class FilterModule:
    """The kafka_client_properties filter."""

    def filters(self):
        return {"kafka_client_properties": kafka_client_properties}
