# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The client_config_errors filter: the client_config role's rules (module_utils/_client_security.py, whose tests
cover each rule), and its errors naming the input."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.client_config_errors import (
    FilterModule,
    client_config_errors,
)

SETTINGS = {"retries": 2147483647, "delivery_timeout_ms": 120000, "acks": "all", "enable_idempotence": True,
            "extra_properties": {}, "librdkafka_extra_properties": {}}


def test_the_filter_lists_the_broken_rules():
    assert FilterModule().filters() == {"client_config_errors": client_config_errors}
    assert client_config_errors(SETTINGS, {"security_protocol": "PLAINTEXT"}) == []
    assert client_config_errors(dict(SETTINGS, acks="0", retries=0), {"security_protocol": "PLAINTEXT"}) == [
        "the idempotent producer (client_config_enable_idempotence) needs client_config_retries above 0: raise it, "
        "or set client_config_enable_idempotence false",
        "the idempotent producer (client_config_enable_idempotence) needs client_config_acks all (got 0): set it, or "
        "set client_config_enable_idempotence false"]


def test_bad_input_names_the_input():
    with pytest.raises(AnsibleFilterError, match="client_config_errors: expects the role's settings as a mapping, "
                                                 "not list"):
        client_config_errors([], {"security_protocol": "PLAINTEXT"})
    with pytest.raises(AnsibleFilterError, match="client_config_errors: client_config_client_security: SASL SCRAM-SHA-"
                                                 "512 needs sasl_username and sasl_password") as error:
        client_config_errors(SETTINGS, {"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512",
                                        "sasl_password": "s3cret"})
    assert "s3cret" not in str(error.value)
