#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: kafka_preferred_leaders
short_description: Give a restarted Kafka broker back the leadership of the partitions it is the preferred leader of
version_added: 0.4.0
description:
  - Kafka's controlled shutdown hands the leadership of every partition a broker leads to another replica before the
    broker stops. After the broker is back in sync, this module asks the cluster (Metadata, then ElectLeaders with
    the preferred election type) to make it leader again of the partitions whose preferred replica (the first of
    their replicas) it is, that another broker leads now, and whose in-sync replicas hold it. Without it, Kafka
    moves them back only when C(auto.leader.rebalance.enable) is on (its default), at its next check
    (C(leader.imbalance.check.interval.seconds), 300 by default) and only once the broker's share of them passes
    C(leader.imbalance.per.broker.percentage), so after a rolling restart the last broker restarted leads nothing for
    minutes and the others carry its load.
  - Asks nothing when there is no such partition. Electing needs the right to alter the cluster (C(ALTER) on
    C(CLUSTER)); a refusal, a cluster that does not speak ElectLeaders (Kafka before 2.2) or partitions it did not
    elect are reported in RV(error) and RV(not_elected), not as a module failure, since Kafka's own rebalance still
    applies. The broker role calls it after each broker's restart (option C(broker_restart_elect_preferred_leaders)).
author:
  - kafkaops.listeners maintainers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.listeners.attributes
  - kafkaops.listeners.kafka_client
attributes:
  check_mode:
    support: full
    details:
      - In check mode the cluster is asked its metadata only, and RV(asked) lists the partitions that would be
        elected.
  diff_mode:
    support: none
  idempotent:
    support: full
    details:
      - Once the broker leads what it prefers, a second call asks nothing and reports no change.
options:
  bootstrap:
    description:
      - Bootstrap servers as C(host:port), tried in order until one answers (a comma-separated string is accepted
        too). The election is asked of the server that answered Metadata.
    type: list
    elements: str
    required: true
  node_id:
    description: The node id of the broker whose preferred leadership is given back.
    type: int
    required: true
  timeout:
    description:
      - Seconds a bootstrap server may take to resolve, connect, complete TLS and answer ApiVersions and Metadata;
        also the time the controller is given to complete the elections.
    type: float
    default: 10.0
"""

EXAMPLES = r"""
- name: Give broker 2 back the leadership a restart moved away
  kafkaops.listeners.kafka_preferred_leaders:
    bootstrap: ip-10-0-0-12.ec2.internal:19092
    node_id: 2
"""

RETURN = r"""
asked:
  description:
    - The partitions (C(topic-N)) whose preferred replica is the broker, that another broker led and whose ISR held
      the broker when the cluster was asked; the ones an election was asked for (in check mode, would be).
  returned: always
  type: list
  elements: str
  sample: [orders-0, orders-3]
elected:
  description: The partitions the cluster elected the broker leader of.
  returned: always
  type: list
  elements: str
  sample: [orders-0, orders-3]
not_needed:
  description: The partitions the cluster answered C(ELECTION_NOT_NEEDED) for (their preferred replica leads already).
  returned: always
  type: list
  elements: str
  sample: []
not_elected:
  description: The partitions the cluster did not elect, each with Kafka's error (and message).
  returned: always
  type: list
  elements: dict
  sample: [{"partition": "orders-5", "error": "PREFERRED_LEADER_NOT_AVAILABLE"}]
msg:
  description: One line saying what was elected, or why nothing was.
  returned: always
  type: str
  sample: elected broker 2 leader of orders-0, orders-3
error:
  description:
    - Why the cluster elected nothing (it refused the request, or does not offer ElectLeaders); null otherwise.
  returned: always
  type: str
  sample: "ElectLeaders v2: the cluster refused: CLUSTER_AUTHORIZATION_FAILED"
bootstrap_used:
  description: The bootstrap server that answered, as C(host:port).
  returned: always
  type: str
  sample: ip-10-0-0-12.ec2.internal:19092
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_check import (
    SECURITY_ARGUMENT_SPEC,
    SECURITY_REQUIRED_BY,
    client_security,
    fail_client_error,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_connection import fetch_metadata
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import KafkaClientError


def main():
    module = AnsibleModule(
        argument_spec={
            **SECURITY_ARGUMENT_SPEC,
            "bootstrap": {"type": "list", "elements": "str", "required": True},
            "node_id": {"type": "int", "required": True},
            "timeout": {"type": "float", "default": 10.0},
        },
        required_by=SECURITY_REQUIRED_BY,
        supports_check_mode=True,
    )
    params = module.params
    if params["node_id"] < 0:
        module.fail_json(msg="node_id must be 0 or more, got %d" % params["node_id"])
    try:
        ssl_context, sasl = client_security(params)
        answer = fetch_metadata(params["bootstrap"], params["timeout"], ssl_context=ssl_context,
                                server_hostname=params["ssl_server_hostname"], sasl=sasl,
                                elect_preferred_of=params["node_id"], dry_run=module.check_mode)
    except KafkaClientError as exc:
        fail_client_error(module, exc)
    election = answer["election"]
    module.exit_json(changed=bool(election["elected"] if not module.check_mode else election["asked"]),
                     msg=summary(params["node_id"], election, answer.get("election_error"), module.check_mode),
                     error=answer.get("election_error"), bootstrap_used=answer["bootstrap_used"], **election)


def summary(node_id, election, error, check_mode):
    """One line saying what was elected, or why nothing was."""
    if not election["asked"]:
        return "broker %d leads every partition it is the preferred replica of: nothing to elect" % node_id
    asked = ", ".join(election["asked"])
    if check_mode:
        return "would elect broker %d leader of %s" % (node_id, asked)
    if error:
        return "broker %d was not elected leader of %s: %s" % (node_id, asked, error)
    parts = []
    if election["elected"]:
        parts.append("elected broker %d leader of %s" % (node_id, ", ".join(election["elected"])))
    if election["not_needed"]:
        parts.append("%s already led by it" % ", ".join(election["not_needed"]))
    if election["not_elected"]:
        refused = ["%s (%s)" % (item["partition"], item["error"]) for item in election["not_elected"]]
        parts.append("not elected: %s" % "; ".join(refused))
    return "; ".join(parts)


if __name__ == "__main__":
    main()
