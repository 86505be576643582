# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a listener plan gives its clients: per client network, the bootstrap servers, listener and protocol it uses;
each listener's endpoint network and route; the listeners serving clients outside the private network in
PLAINTEXT.

Private to kafkaops.listeners: no compatibility promise outside the collection.
"""

from __future__ import annotations


def _clients(plans: list, bootstrap: dict, client_networks: dict) -> dict:
    """Per client network: the bootstrap servers, listener and protocol its clients use (networks the plan serves)."""
    endpoints = [endpoint for plan in plans for endpoint in plan["endpoints"]]
    clients = {}
    for client, served_by in client_networks.items():
        network = next((name for name in served_by if name in bootstrap), None)
        if network is None:
            continue
        endpoint = next(endpoint for endpoint in endpoints if endpoint["network"] == network)
        clients[client] = {"bootstrap": bootstrap[network], "endpoint_network": network,
                           "listener": endpoint["listener"], "protocol": endpoint["protocol"]}
    # an endpoint network no client network names serves the client network of its own name (a docker listener's)
    for endpoint in endpoints:
        clients.setdefault(endpoint["network"], {
            "bootstrap": bootstrap[endpoint["network"]], "endpoint_network": endpoint["network"],
            "listener": endpoint["listener"], "protocol": endpoint["protocol"]})
    return clients


def listener_routes(plan: dict) -> dict:
    """{listener: {"endpoint_network", "route"}} of a plan from :func:`._listener_plan.plan_listeners`: the endpoint
    network each listener's endpoints are labelled with (a networks route's first network) and the route its clients
    take (``private``, ``public``, ... as in ``_client_routes``; a docker layout's listener for its container network
    is ``container``, one with a fixed host such as localhost ``literal``)."""
    routes = {}
    if plan.get("mode") == "networks":
        for entry in plan.get("networks") or []:
            routes.setdefault(entry["listener"], {"endpoint_network": entry["name"], "route": entry["route"]})
        return routes
    for node in plan.get("brokers") or []:
        for endpoint in node["endpoints"]:
            network = endpoint["network"]
            if plan.get("mode") == "docker":
                route = {"container": "container", "external": "public"}.get(network, "literal")
            else:
                route = "private" if network == "internal" else "public"
            routes.setdefault(endpoint["listener"], {"endpoint_network": network, "route": route})
    return routes


def _plaintext_outside(plans: list, outside: tuple) -> list:
    """The listeners that serve clients outside the private network (``outside`` endpoint networks) in PLAINTEXT."""
    names = []
    for plan in plans:
        for endpoint in plan["endpoints"]:
            if endpoint["network"] in outside and endpoint["protocol"] == "PLAINTEXT" \
                    and endpoint["listener"] not in names:
                names.append(endpoint["listener"])
    return names
