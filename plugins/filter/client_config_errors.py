# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: client_config_errors
short_description: The rules the client_config role's settings break, as messages
version_added: 0.2.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Checks the settings of the P(kafkaops.listeners.client_config#role) role against Kafka's own rules for the
    producer and against what the role's files can hold, before it writes them.
  - Kafka's rules, with Kafka 4's defaults (C(linger.ms) 5, C(request.timeout.ms) 30000) where the extra properties
    do not set them; C(retries) is 0 or more; the idempotent producer needs C(retries) above 0 and C(acks=all)
    (V(-1)); C(delivery.timeout.ms) is at least C(linger.ms) + C(request.timeout.ms).
  - The extra properties (Java's and librdkafka's, each checked on its own) have plain names (a letter or digit, then
    letters, digits, C(.), C(_), C(-)) and one-line values, and set no key the role writes itself (the managed keys,
    librdkafka's other names for them, and the TLS and SASL keys written for the listener's security options).
  - Messages name the role's variable and the way out, and name keys only, never a value of the security options.
options:
  _input:
    description:
      - The role's settings, by their names without the C(client_config_) prefix, C(retries),
        C(delivery_timeout_ms), C(acks), C(enable_idempotence), C(extra_properties) and
        C(librdkafka_extra_properties). Numbers may be given as text and booleans as Ansible's C(bool) filter reads
        them.
    type: dict
    required: true
  security:
    description:
      - The listener's security options, as P(kafkaops.listeners.kafka_client_security#filter) returns them; an
        option that cannot be written is an error (as with P(kafkaops.listeners.kafka_client_properties#filter)).
    type: dict
    required: true
seealso:
  - plugin: kafkaops.listeners.kafka_client_properties
    plugin_type: filter
  - plugin: kafkaops.listeners.kafka_client_security
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Check the client settings against Kafka's own rules and the extra properties
  ansible.builtin.assert:
    that: broken | length == 0
    fail_msg: "{{ broken | join('; ') }}."
  vars:
    broken: >-
      {{ {'retries': client_config_retries, 'delivery_timeout_ms': client_config_delivery_timeout_ms,
          'acks': client_config_acks, 'enable_idempotence': client_config_enable_idempotence,
          'extra_properties': client_config_extra_properties,
          'librdkafka_extra_properties': client_config_librdkafka_extra_properties}
         | kafkaops.listeners.client_config_errors('SASL_SSL' | kafkaops.listeners.kafka_client_security(
             client_config_client_security, 'EXTERNAL')) }}
"""

RETURN = r"""
_value:
  description: One message per broken rule; empty when the role may write its files.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    ClientSecurityError,
    client_settings_errors,
)


def client_config_errors(settings, security):
    """The messages of the rules the client_config role's ``settings`` break for a listener's ``security`` options."""
    if not isinstance(settings, dict):
        raise AnsibleFilterError("client_config_errors: expects the role's settings as a mapping, not %s"
                                 % type(settings).__name__)
    try:
        return client_settings_errors(settings, security)
    except ClientSecurityError as exc:
        raise AnsibleFilterError("client_config_errors: client_config_client_security: %s" % exc) from None


class FilterModule:
    """The client_config_errors filter."""

    def filters(self):
        return {"client_config_errors": client_config_errors}
