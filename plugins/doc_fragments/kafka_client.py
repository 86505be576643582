# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    """The security options of the modules that speak to Kafka with the collection's own client (their argument
    spec is _client_check.SECURITY_ARGUMENT_SPEC)."""

    DOCUMENTATION = r"""
options:
  security_protocol:
    description:
      - Protocol of the listener the bootstrap servers belong to, as in the broker's
        C(listener.security.protocol.map).
      - C(SASL_PLAINTEXT) and C(SASL_SSL) need O(sasl_mechanism) and its credentials.
    type: str
    choices: [PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL]
    default: PLAINTEXT
  sasl_mechanism:
    description:
      - SASL mechanism (Kafka's C(sasl.mechanism)); the listener must enable it (C(sasl.enabled.mechanisms)).
      - Only with O(security_protocol=SASL_PLAINTEXT) or O(security_protocol=SASL_SSL).
    type: str
    choices: [PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER]
  sasl_username:
    description:
      - User name for C(PLAIN) and C(SCRAM-*).
    type: str
  sasl_password:
    description:
      - Password for C(PLAIN) and C(SCRAM-*). Never logged or returned.
    type: str
  sasl_oauthbearer_token:
    description:
      - The OAuth 2 bearer token (a JWT) sent with C(OAUTHBEARER); this module does not fetch tokens. Never logged or
        returned.
    type: str
  ssl_ca_file:
    description:
      - PEM file with the CA certificates the broker certificate must chain to (Kafka's C(ssl.truststore.location)
        with a PEM truststore). Defaults to the system's CA certificates.
      - Only with O(security_protocol=SSL) or O(security_protocol=SASL_SSL) (as the other C(ssl_*) options).
    type: path
  ssl_cert_file:
    description:
      - PEM client certificate (chain), for listeners with C(ssl.client.auth=required). May also hold the key.
      - Only with O(security_protocol=SSL) or O(security_protocol=SASL_SSL).
    type: path
  ssl_key_file:
    description:
      - PEM private key of O(ssl_cert_file), when the key is not in that file.
      - Only with O(security_protocol=SSL) or O(security_protocol=SASL_SSL).
    type: path
  ssl_key_password:
    description:
      - Password of an encrypted private key.
      - Only with O(security_protocol=SSL) or O(security_protocol=SASL_SSL).
    type: str
  ssl_verify:
    description:
      - Verify the broker certificate (chain and host name), as Kafka clients do by default.
      - V(false) accepts any certificate; use it only to diagnose.
    type: bool
    default: true
  ssl_server_hostname:
    description:
      - Name the broker certificate must match and that is sent as TLS SNI. Defaults to the host of each
        bootstrap server.
      - Only with O(security_protocol=SSL) or O(security_protocol=SASL_SSL).
    type: str
"""
