# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_records_cluster
short_description: The cluster name the verify role's records carry, by default its brokers' first group
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - The cluster name given (C(verify_cluster_name)) when it is not empty, else the first group the brokers' host
    pattern (C(verify_broker_group)) names, else that pattern's default, C(kafka_brokers).
  - The first group of a pattern is its first term that is not an intersection (C(&name)) or an exclusion
    (C(!name)), as Ansible splits the pattern (on commas, else colons), so V(kafka_brokers) gives V(kafka_brokers),
    and so does the KRaft recipe's V(kafka_brokers:kafka_controllers), whose records keep the name they had.
  - A pattern whose first term is not a plain name (a glob with C(*) or C(?), a range C([..]), a regular
    expression C(~...)), or that names no term at all, is refused; set C(verify_cluster_name) for it.
  - The one default of the verify role's C(verify_cluster_name), which the broker role's C(broker_records_cluster)
    reads too, so that the broker role finds the records the verify role wrote whether or not the verify role's
    variables are set where the broker role sees them.
options:
  _input:
    description: The brokers' host pattern (C(verify_broker_group)); empty or V(null) for the default group.
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

- name: The KRaft recipe's pattern keeps the cluster name kafka_brokers
  ansible.builtin.debug:
    msg: "{{ 'kafka_brokers:kafka_controllers' | kafkaops.listeners.kafka_records_cluster }}"
"""

RETURN = r"""
_value:
  description: The cluster name.
  type: str
"""

import re

from ansible.errors import AnsibleFilterError
from ansible.inventory.manager import split_host_pattern

#: the verify role's default host pattern of the brokers (verify_broker_group), and so the default cluster name
DEFAULT_BROKER_GROUP = "kafka_brokers"

#: a term of a host pattern that names one group or host: no glob (* ?), range ([..]) or regular expression (~)
_PLAIN_NAME = re.compile(r"[\w.-]+")


def first_group(broker_group: str) -> str:
    """The first group the host pattern ``broker_group`` names (its first term that neither intersects, ``&``, nor
    excludes, ``!``); raises AnsibleFilterError when that term is not a plain name or there is none."""
    terms = [term for term in split_host_pattern(broker_group) if term[0] not in "&!"]
    if not terms or not _PLAIN_NAME.fullmatch(terms[0]):
        what = "names no group first" if not terms else "starts with %r, not a plain group name" % terms[0]
        raise AnsibleFilterError("kafka_records_cluster: the brokers' host pattern verify_broker_group %r %s, so it "
                                 "gives no cluster name for the records: set verify_cluster_name"
                                 % (broker_group, what))
    return terms[0]


def kafka_records_cluster(broker_group, cluster_name=None):
    """The records' cluster name for ``broker_group`` and ``cluster_name`` (see the plugin documentation)."""
    for value, variable in ((cluster_name, "verify_cluster_name"), (broker_group, "verify_broker_group")):
        if value is not None and not isinstance(value, str):
            raise AnsibleFilterError("kafka_records_cluster: %s must be a string (a host pattern or cluster "
                                     "name), got %r; leave it unset for the default" % (variable, value))
    if cluster_name:
        return cluster_name
    return first_group(broker_group) if broker_group else DEFAULT_BROKER_GROUP


class FilterModule:
    """The kafka_records_cluster filter."""

    def filters(self):
        return {"kafka_records_cluster": kafka_records_cluster}
