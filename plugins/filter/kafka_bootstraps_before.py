# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_bootstraps_before
short_description: The bootstraps a client network used before this run, to check that they still work
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Lists the bootstrap servers the clients of one network used before this run, each with where it is known
    from, so that the C(kafkaops.listeners.verify) role can check them after the run as well as the planned one.
  - By default two sources, in this order. The plan's C(bootstrap_before) for the network (what the brokers
    advertised to it before the run, whatever the plan does with it, each listener that served it when several did,
    the first then those under its C(also); see P(kafkaops.listeners.listener_plan#filter)). The records of the
    newest earlier verify run of this cluster in O(records_dir) from this network, when that run reached every
    endpoint (C(probes-*.jsonl), see the collection's C(docs/records.md)); its bootstrap is the endpoints it was
    given, its protocol is read from the records' TLS and SASL outcomes.
  - O(override), when not empty, replaces both.
  - A bootstrap with the same servers as the planned one (O(planned)) is listed once, marked C(planned), and a
    bootstrap found twice is listed once.
  - The records are untrusted input. A line that is not a probe record as C(docs/records.md) describes it (not
    JSON, a field missing or of the wrong type, a host no client could use such as a link-local address like the
    metadata service's) is skipped with a warning naming the file and the line; the other lines are used.
positional: _input, client_network, planned
options:
  _input:
    description: The cluster's plan from P(kafkaops.listeners.listener_plan#filter).
    type: dict
    required: true
  client_network:
    description: The client network (V(vpc), V(internet), ...).
    type: str
    required: true
  planned:
    description: The bootstrap servers the run checks for the network (V(host:port)).
    type: list
    elements: str
    required: true
  override:
    description:
      - Bootstrap servers (V(host:port)) the network's clients used before, replacing the plan's and the
        records'. Checked with the protocol of the listener that served the network before the run, else the
        planned one.
    type: list
    elements: str
    default: []
  records_dir:
    description: The folder of the verify role's records on the controller; empty reads none.
    type: str
    default: ""
  cluster:
    description: The cluster name the records carry.
    type: str
    default: ""
  exclude_run:
    description: A run id whose records are passed over (this run's).
    type: str
    default: ""
"""

EXAMPLES = r"""
- name: Ask for metadata on each bootstrap the VPC's clients used before the run
  kafkaops.listeners.kafka_metadata:
    bootstrap: "{{ item.bootstrap }}"
    check_endpoints: true
  loop: >-
    {{ plan | kafkaops.listeners.kafka_bootstraps_before('vpc', plan.clients.vpc.bootstrap.split(','),
       records_dir=playbook_dir ~ '/kafka-listener-records', cluster='prod') | rejectattr('planned') }}
"""

RETURN = r"""
_value:
  description:
    - One entry per bootstrap, with V(bootstrap) (the V(host:port) servers), V(listener) (its listener name, empty
      when unknown), V(protocol) (the security protocol to check it with), V(source) (where it is known from,
      V(advertised before the run), V(records of <time> (run <id>)) or V(verify_bootstrap_before)) and V(planned)
      (true when it is the planned bootstrap, already checked).
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import HostPortError, parse_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._records import bootstrap_from_records

display = Display()


def _servers(items, what: str) -> list:
    servers = []
    for item in items:
        try:
            host, port = parse_hostport(item, what)
        except HostPortError as exc:
            raise AnsibleFilterError("kafka_bootstraps_before: %s" % exc) from None
        servers.append("%s:%d" % (host.lower(), port))
    return servers


def kafka_bootstraps_before(plan, client_network, planned, override=None, records_dir="", cluster="",
                            exclude_run=""):
    """The bootstraps ``client_network``'s clients used before this run (see the plugin documentation)."""
    if not isinstance(plan, dict):
        raise AnsibleFilterError("kafka_bootstraps_before: the plan must be a mapping (listener_plan's result), got %s"
                                 % type(plan).__name__)
    if isinstance(override, str) or not isinstance(override or [], (list, tuple)):
        raise AnsibleFilterError("kafka_bootstraps_before: verify_bootstrap_before must be a list of host:port "
                                 "strings, got %r" % (override,))
    before = (plan.get("bootstrap_before") or {}).get(client_network) or {}
    client = (plan.get("clients") or {}).get(client_network) or {}
    found = []
    if override:
        found.append({"bootstrap": list(override), "listener": before.get("listener") or client.get("listener") or "",
                      "protocol": before.get("protocol") or client.get("protocol") or "PLAINTEXT",
                      "source": "verify_bootstrap_before"})
    else:
        # a network several listeners served before has clients on each (the first, then the plan's "also")
        for served in [before] + list(before.get("also") or []):
            if served.get("bootstrap"):
                found.append({"bootstrap": [item for item in served["bootstrap"].split(",") if item],
                              "listener": served.get("listener") or "",
                              "protocol": served.get("protocol") or "PLAINTEXT", "source": "advertised before the run"})
        used, warnings = bootstrap_from_records(records_dir or "", str(cluster), str(client_network),
                                                str(exclude_run or ""))
        for warning in warnings:
            display.warning("kafka_bootstraps_before: %s" % warning)
        if used is not None:
            found.append({"bootstrap": used["bootstrap"], "listener": used["listener"], "protocol": used["protocol"],
                          "source": "records of %s (run %s)" % (used["observed_at"], used["run_id"])})
    planned_set = set(_servers(planned or [], "planned bootstrap server"))
    seen, result = [], []
    for entry in found:
        servers = set(_servers(entry["bootstrap"], "%s bootstrap server" % entry["source"]))
        if servers in seen:
            continue
        seen.append(servers)
        result.append(dict(entry, planned=servers == planned_set))
    return result


class FilterModule:
    """The kafka_bootstraps_before filter."""

    def filters(self):
        return {"kafka_bootstraps_before": kafka_bootstraps_before}
