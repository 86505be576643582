# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The records a run leaves for the fleet audit: one ``brokers`` record per broker, one ``probes`` record per
advertised endpoint per client. ``docs/records.md`` documents every field; the audit reads them with the same names.

Private to kafkaops.listeners: no compatibility promise outside the collection.
"""

from __future__ import annotations

import json

from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoint_security import SECURITY_KEYS
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    EndpointError,
    advertised_broker_endpoints,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import listener_routes

SCHEMA_VERSION = 1

#: server.properties keys a ``brokers`` record carries, with the column that holds each (dots are awkward in Spark).
CONFIG_COLUMNS = {
    "listeners": "listeners",
    "advertised.listeners": "advertised_listeners",
    "listener.security.protocol.map": "listener_security_protocol_map",
    "inter.broker.listener.name": "inter_broker_listener_name",
    "security.inter.broker.protocol": "security_inter_broker_protocol",
    "controller.listener.names": "controller_listener_names",
    "controller.quorum.voters": "controller_quorum_voters",
    "controller.quorum.bootstrap.servers": "controller_quorum_bootstrap_servers",
}
# the other keys the planner and the rule checker need to judge a node
_IDENTITY_KEYS = ("process.roles", "node.id", "broker.id", "sasl.enabled.mechanisms",
                  "sasl.mechanism.inter.broker.protocol")


def _common(run_id: str, observed_at: str, cluster: str) -> dict:
    return {"schema_version": SCHEMA_VERSION, "run_id": str(run_id), "observed_at": str(observed_at),
            "cluster": str(cluster)}


def broker_record(node_facts: dict, config: dict, applied: dict | None, plan_options: dict | None, provider: str | None,
                  run_id: str, observed_at: str, cluster: str) -> dict:
    """The ``brokers`` record of one node.

    ``config`` is server.properties as read before the run; ``applied`` the managed keys written during it (None
    removes a key), so the record holds the configuration the broker has after the run.
    """
    current = dict(config)
    for key, value in (applied or {}).items():
        if value is None:
            current.pop(key, None)
        else:
            current[key] = str(value)
    record = _common(run_id, observed_at, cluster)
    record.update({
        "broker": str(node_facts["name"]),
        "node_id": int(node_facts["node_id"]),
        "provider": provider,
        "private_host": node_facts.get("private_host"),
        "public_dns": node_facts.get("public_dns"),
        "public_ip": node_facts.get("public_ip"),
        "container_name": node_facts.get("container_name"),
        "process_roles": list(node_facts.get("process_roles") or []),
    })
    for key, column in CONFIG_COLUMNS.items():
        record[column] = current.get(key)
    record["other_config"] = json.dumps({key: current[key] for key in _IDENTITY_KEYS if key in current},
                                        sort_keys=True)
    checks = node_facts.get("external_checks") or {}
    if isinstance(checks, list):
        checks = {item["name"]: item for item in checks if isinstance(item, dict) and "name" in item}
    record["external_checks"] = json.dumps(
        {name: {"resolvable": item.get("resolvable"), "connectable": item.get("connectable")}
         for name, item in checks.items()}, sort_keys=True)
    record["plan_options"] = json.dumps(plan_options or {}, sort_keys=True)
    return record


def _configured_endpoints(brokers: list | None) -> dict:
    """{node_id: [Endpoint]} of ``brokers`` records: what each broker advertises after the run
    (:func:`advertised_broker_endpoints` of its configuration). A value Kafka could not parse gives no endpoints: the
    rule checker reports it, and the probe keeps the plan's listener name."""
    table = {}
    for record in brokers or []:
        props = {key: record[column] for key, column in CONFIG_COLUMNS.items() if record.get(column) is not None}
        try:
            table[record.get("node_id")] = advertised_broker_endpoints(props)
        except (EndpointError, TypeError):
            table[record.get("node_id")] = []
    return table


def _configured_listener(configured: dict, node_id, host, port) -> str | None:
    """The name of the listener on which broker ``node_id`` advertises ``host:port``: the entry with that host and
    port, else the only entry with that port (a listener advertising the default interface, i.e. the canonical
    host name); None when the configuration does not tell."""
    endpoints = configured.get(node_id) or []
    exact = [item.listener for item in endpoints
             if item.port == port and item.host.lower() == str(host or "").lower()]
    if exact:
        return exact[0]
    by_port = [item.listener for item in endpoints if item.port == port]
    return by_port[0] if len(by_port) == 1 else None


def _route_fields(routes: dict, listener: str) -> dict:
    route = routes.get(listener) or {}
    return {"endpoint_network": route.get("endpoint_network"), "route": route.get("route")}


def probe_records(metadata: dict, plan: dict | None, client: str, client_network: str, bootstrap: list,
                  run_id: str, observed_at: str, cluster: str, brokers: list | None = None) -> list:
    """The ``probes`` records of one client: one per advertised endpoint it was given (or, when bootstrap failed,
    one per planned endpoint it should have been given, with ``bootstrap_ok`` false).

    An endpoint's listener is the one its broker advertises it on in ``brokers`` (the run's ``brokers`` records,
    i.e. the configuration the client actually met, which before a fix is not the plan's); without them, or when
    they do not tell, the plan's listener of the bootstrap server. Each record also carries the endpoint's TLS and
    SASL outcome as kafka_metadata checked it (:data:`SECURITY_KEYS`; null where the listener has no TLS or SASL,
    or the endpoint was not reached), and the plan's endpoint network and route of its listener
    (:func:`listener_routes`; null for a listener the plan does not have, such as the one a broker advertised
    before a fix).
    """
    plan_endpoints = [dict(endpoint, broker=node["name"], node_id=node["node_id"])
                      for node in (plan or {}).get("brokers", []) for endpoint in node.get("endpoints", [])]
    by_hostport = {endpoint["hostport"]: endpoint for endpoint in plan_endpoints}
    # every endpoint of one metadata answer belongs to the listener the client bootstrapped on
    listener = next((by_hostport[server]["listener"] for server in bootstrap if server in by_hostport), None)
    names = {endpoint["node_id"]: endpoint["broker"] for endpoint in plan_endpoints}
    names.update({record.get("node_id"): record.get("broker") for record in brokers or [] if record.get("broker")})
    configured = _configured_endpoints(brokers)
    routes = listener_routes(plan or {})
    common = _common(run_id, observed_at, cluster)
    common.update({"client": str(client), "client_network": str(client_network)})
    records = []
    if metadata.get("failed") or "endpoints" not in metadata:
        error = str(metadata.get("msg") or "no metadata answer")
        for endpoint in plan_endpoints:
            if endpoint["hostport"] not in bootstrap and endpoint["listener"] != listener:
                continue
            records.append(dict(common, listener=endpoint["listener"], **_route_fields(routes, endpoint["listener"]),
                                broker=endpoint["broker"],
                                node_id=endpoint["node_id"], advertised_host=endpoint["host"],
                                advertised_port=endpoint["port"], bootstrap_ok=False, resolvable=None, addresses=None,
                                connectable=None, error=error, elapsed_ms=None,
                                **dict.fromkeys(SECURITY_KEYS)))
        return records
    for endpoint in metadata["endpoints"]:
        node_id, host, port = endpoint.get("node_id"), endpoint.get("host"), endpoint.get("port")
        name = _configured_listener(configured, node_id, host, port) or listener or "UNKNOWN"
        records.append(dict(common, listener=name, **_route_fields(routes, name),
                            broker=names.get(node_id, "node-%s" % node_id),
                            node_id=node_id, advertised_host=host, advertised_port=port,
                            bootstrap_ok=True, resolvable=endpoint.get("resolvable"),
                            addresses=list(endpoint.get("addresses") or []), connectable=endpoint.get("connectable"),
                            error=endpoint.get("error"), elapsed_ms=endpoint.get("elapsed_ms"),
                            **{key: endpoint.get(key) for key in SECURITY_KEYS}))
    return records
