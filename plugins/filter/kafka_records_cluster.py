# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_records_cluster
short_description: The cluster name the verify role's records carry, by default its broker group
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - The cluster name given (C(verify_cluster_name)) when it is not empty, else the inventory group of the brokers
    (C(verify_broker_group)), else that group's default, C(kafka_brokers).
  - The one default of the verify role's C(verify_cluster_name), which the broker role's C(broker_records_cluster)
    reads too, so that the broker role finds the records the verify role wrote whether or not the verify role's
    variables are set where the broker role sees them.
options:
  _input:
    description: The brokers' inventory group (C(verify_broker_group)); empty or V(null) for the default group.
    type: str
    required: true
  cluster_name:
    description: The cluster name set by the user (C(verify_cluster_name)); empty or V(null) for the group's.
    type: str
"""

EXAMPLES = r"""
- name: Show the cluster name the verify role writes into its records by default
  ansible.builtin.debug:
    msg: "{{ verify_broker_group | default(none) | kafkaops.listeners.kafka_records_cluster }}"
"""

RETURN = r"""
_value:
  description: The cluster name.
  type: str
"""

from ansible.errors import AnsibleFilterError

#: the verify role's default inventory group of the brokers (verify_broker_group), and so the default cluster name
DEFAULT_BROKER_GROUP = "kafka_brokers"


def kafka_records_cluster(broker_group, cluster_name=None):
    """The records' cluster name for ``broker_group`` and ``cluster_name`` (see the plugin documentation)."""
    for value, variable in ((cluster_name, "verify_cluster_name"), (broker_group, "verify_broker_group")):
        if value is not None and not isinstance(value, str):
            raise AnsibleFilterError("kafka_records_cluster: %s must be a string (an inventory group or cluster "
                                     "name), got %r; leave it unset for the default" % (variable, value))
    return cluster_name or broker_group or DEFAULT_BROKER_GROUP


class FilterModule:
    """The kafka_records_cluster filter."""

    def filters(self):
        return {"kafka_records_cluster": kafka_records_cluster}
