# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_client_security
short_description: The kafka_metadata security options for one planned listener
version_added: 0.2.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Given a listener's security protocol and your client settings per listener, returns the security options of
    M(kafkaops.listeners.kafka_metadata) for that listener - C(security_protocol), the C(ssl_*) options for C(SSL)
    and C(SASL_SSL), the C(sasl_*) options for C(SASL_PLAINTEXT) and C(SASL_SSL) - with null for every option the
    protocol does not use left out, so that the result can be given whole as the module's C(module_defaults).
  - The roles use it to check each listener with its planned protocol (the broker role's health gate and self
    check, the verify role, the failure drill).
options:
  _input:
    description:
      - The listener's security protocol (C(PLAINTEXT), C(SSL), C(SASL_PLAINTEXT), C(SASL_SSL)), or a planned
        endpoint (an element of a node plan's C(endpoints), its C(health_endpoint), or a client network of the
        plan's C(clients)), whose C(protocol) and C(listener) are then used.
    type: raw
    required: true
  settings:
    description:
      - Client settings per listener name (C(EXTERNAL), C(INTERNAL), ...), each a mapping of kafka_metadata's
        C(ssl_ca_file), C(ssl_cert_file), C(ssl_key_file), C(ssl_key_password), C(sasl_mechanism),
        C(sasl_username), C(sasl_password), C(sasl_oauthbearer_token). The entry C(default) applies to listeners
        without one of their own.
    type: dict
    default: {}
  listener:
    description: The listener's name, to pick its entry in O(settings); by default the planned endpoint's.
    type: str
    default: ""
"""

EXAMPLES = r"""
- name: Ask the broker's inter-broker listener (SASL_SSL) for metadata with its planned protocol
  kafkaops.listeners.kafka_metadata:
    bootstrap: ["{{ node_plan.health_endpoint.hostport }}"]
  # module_defaults, not set_fact: a fact holding the password would show in verbose output
  module_defaults:
    kafkaops.listeners.kafka_metadata: >-
      {{ node_plan.health_endpoint | kafkaops.listeners.kafka_client_security(broker_client_security) }}
"""

RETURN = r"""
_value:
  description: The kafka_metadata options the protocol uses and the settings give (C(security_protocol) always).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    SECURITY_PROTOCOLS,
    ClientSecurityError,
    listener_options,
    listener_settings,
)


def kafka_client_security(protocol, settings=None, listener=""):
    """kafka_metadata's security options for a listener speaking ``protocol``, from ``settings[listener]``.

    ``protocol`` may be a planned endpoint, whose protocol and listener name are used.
    """
    if isinstance(protocol, dict):
        listener = listener or protocol.get("listener") or ""
        protocol = protocol.get("protocol")
    protocol = str(protocol or "PLAINTEXT").upper()
    if protocol not in SECURITY_PROTOCOLS:
        raise AnsibleFilterError("kafka_client_security: %r is not a Kafka security protocol (%s)"
                                 % (protocol, ", ".join(SECURITY_PROTOCOLS)))
    settings = settings or {}
    if not isinstance(settings, dict):
        raise AnsibleFilterError("kafka_client_security: settings must map listener names to client settings")
    try:
        return listener_options(protocol, listener_settings(settings, listener), listener)
    except ClientSecurityError as exc:
        raise AnsibleFilterError("kafka_client_security: %s" % exc) from None


class FilterModule:
    """The kafka_client_security filter."""

    def filters(self):
        return {"kafka_client_security": kafka_client_security}
