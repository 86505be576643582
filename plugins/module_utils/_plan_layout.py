# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The listener plan's layout and node plans: the cluster's mode (``auto`` decides between ``single`` and ``dual``),
the routes of a preset layout or of the ``networks`` option (see ``_client_routes``) and the hosts its inter-broker
route needs, then each node's plan: its listeners, advertised listeners, protocol map and endpoints.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Layouts (options 1 and 2 of Confluent's "Configure Multi-Node Environment"; the Docker example of "Kafka Listeners -
Explained"):

* ``single`` (option 1): the external name resolves inside the network too (AWS public DNS is split
  horizon), so one listener serves everybody: ``advertised.listeners=PLAINTEXT://<public-dns>:9092``.
* ``dual`` (option 2): ``INTERNAL://<private-dns>:19092`` for the VPC and inter-broker traffic and
  ``EXTERNAL://<public-dns>:9092`` for everybody else; ``inter.broker.listener.name=INTERNAL``.
* ``docker``: one listener per client network (the BOB/FRED/ALICE example): the container's name on the
  container network, ``localhost`` for clients on the Docker host, the host's external name for the rest.
* ``auto``: ``single`` when every broker's public DNS name resolves (and, when asked, connects) from every broker,
  ``dual`` otherwise. The cluster always gets one mode.

The ``networks`` option states the layout as named client networks instead, each with the route its clients take
to every broker (private or public names, a load balancer with a port per broker, a static map: see
``_client_routes``); single, dual and docker are fixed sets of such routes (``_preset_routes``). With ``auto`` the
brokers' own network shares the first public route when the public names resolve from every broker, as ``single``
does.

KRaft nodes (``process_roles`` set) also get the controller listener: bound on the node's private host (not
0.0.0.0) and never put in ``advertised.listeners``, because Kafka 3.3-3.8 refuse controller names there and 3.9.0
derives the advertised controller endpoint from ``listeners``, refusing 0.0.0.0 (R14, R15 of
docs/docsite/rst/kafka-rules.rst).
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_routes import (
    RouteError,
    check_broker_maps,
    normalise_networks,
    pinned_networks,
    route_target,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    SECURITY_PROTOCOLS,
    format_endpoint,
    identity_properties,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import ip_literal
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import format_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_nodes import (
    HOST_KEYS,
    PlanError,
    _controller_host,
    _external_host,
    _is_broker,
    _is_controller,
    _refuse_special,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_options import _protocol, plan_options

# which client network each kind of docker listener serves, for the plan's endpoints and bootstrap lists
_DOCKER_NETWORKS = {"container": "container", "localhost": "docker-host", "external": "external"}


# ---------------------------------------------------------------------------------------------------- mode


def _choose_mode(nodes: list, opts: dict) -> tuple:
    """Return (mode, reason) for the cluster."""
    mode = opts["mode"]
    brokers = [node for node in nodes if _is_broker(node)]
    if opts["networks"] is not None:
        return "networks", "%s: client networks %s" % (mode, ", ".join(
            item["name"] for item in opts["networks"]))
    if mode == "docker":
        return "docker", "docker: requested; one listener per client network (container network, Docker host, outside)"
    if mode == "single":
        missing = [node["name"] for node in brokers if _external_host(node) is None]
        if missing:
            raise PlanError("mode single needs a public DNS name or IP for every broker; none for: %s"
                            % ", ".join(missing))
        return "single", "single: requested; one listener advertising each broker's public name"
    if mode == "dual":
        return "dual", "dual: requested; INTERNAL for the private network and brokers, EXTERNAL for outside"
    for node in brokers:
        if node["public_dns"] is None and node["public_ip"] is None:
            return "dual", "dual: broker %s has no public address, so one name cannot serve inside and outside" % (
                node["name"])
        if node["public_dns"] is None:
            return "dual", ("dual: broker %s has a public IP (%s) but no public DNS name; an address cannot resolve "
                            "to the private IP inside the network (split horizon)" % (node["name"], node["public_ip"]))
    for owner in brokers:
        name = owner["public_dns"].lower()
        for checker in brokers:
            check = checker["external_checks"].get(name)
            if check is None:
                return "dual", "dual: resolvability of %s (broker %s) was not checked from broker %s" % (
                    owner["public_dns"], owner["name"], checker["name"])
            if not check.get("resolvable"):
                return "dual", "dual: %s (public name of broker %s) does not resolve from broker %s" % (
                    owner["public_dns"], owner["name"], checker["name"])
            if opts["check_connectivity"] and not check.get("connectable"):
                return "dual", "dual: %s (public name of broker %s) resolves but does not connect from broker %s" % (
                    owner["public_dns"], owner["name"], checker["name"])
    checked = "resolves and connects" if opts["check_connectivity"] else "resolves"
    return "single", "single: every broker's public DNS name %s from every broker (split-horizon DNS)" % checked


# ---------------------------------------------------------------------------------------------------- layouts


def _route(listener: str, port: int, kind: str, network: str, missing: str | None = None,
           host: str | None = None) -> dict:
    """A preset's route; ``missing`` (the broker's name goes in its %s) refuses a broker without the host, None skips
    the broker."""
    return {"listener": listener, "port": port, "route": kind, "network": network, "networks": [network],
            "host": host, "base_port": None, "ports": None, "endpoints": None, "targets": None, "protocol": None,
            "inter_broker": False, "missing": missing}


def _preset_routes(mode: str, opts: dict) -> list:
    """The routes of the layouts single, dual and docker (client networks as the planner knew them first)."""
    if mode == "single":
        return [_route(opts["single_listener_name"], opts["single_port"], "public", "all")]
    if mode == "dual":
        return [_route(opts["internal_listener_name"], opts["internal_port"], "private", "internal",
                       "broker %s: private_host is required for the INTERNAL listener"),
                _route(opts["external_listener_name"], opts["external_port"], "public", "external")]
    routes = []
    for item in opts["docker_listeners"]:
        network = _DOCKER_NETWORKS.get(item["host"], item["name"].lower())
        if item["host"] == "container":
            routes.append(_route(item["name"], item["port"], "container", network,
                                 "broker %%s: docker listener %s needs container_name (the container's name on its "
                                 "network)" % item["name"]))
        elif item["host"] == "external":
            routes.append(_route(item["name"], item["port"], "public", network,
                                 "broker %%s: docker listener %s needs the Docker host's public_dns or public_ip"
                                 % item["name"]))
        else:
            routes.append(_route(item["name"], item["port"], "literal", network, host=item["host"]))
    return routes


def _layout(mode: str, nodes: list, opts: dict) -> dict:
    """The cluster's routes, the inter-broker listener, the outside endpoint networks and the client networks."""
    if mode != "networks":
        routes = _preset_routes(mode, opts)
        inter_broker = opts["inter_broker_listener"] or (routes[0]["listener"] if routes else None)
        return {"routes": routes, "inter_broker": inter_broker, "outside": ("external", "all"),
                "client_networks": opts["client_networks"], "reason": "",
                "security_protocols": opts["security_protocols"]}
    routes = _network_routes(opts)
    reason = _share_private_routes(routes, nodes, opts) if opts["mode"] == "auto" else ""
    brokers = [node for node in nodes if _is_broker(node)]
    check_broker_maps(routes, brokers)
    for route in routes:
        route["missing"] = "network %s (route %s): broker %%s has no %s" % (route["network"], route["route"], {
            "private": "private_host", "public": "public_dns or public_ip", "public_dns": "public_dns",
            "public_ip": "public_ip"}.get(route["route"], "entry"))
        _refuse_special_hosts(route, brokers, opts)
    client_networks = {name: [route["network"]] for route in routes for name in route["networks"]}
    for client, served_by in opts["client_networks"].items():
        client_networks.setdefault(client, served_by)
    inter_broker = opts["inter_broker_listener"] or next(route["listener"] for route in routes if route["inter_broker"])
    _refuse_unresolved_inter_broker(next((route for route in routes if route["listener"] == inter_broker), None),
                                    brokers)
    protocols = dict(opts["security_protocols"])
    for route in routes:
        if route["protocol"] is None:
            continue
        if protocols.setdefault(route["listener"], route["protocol"]) != route["protocol"]:
            raise PlanError("network %s: protocol %s, but option security_protocols gives listener %s %s" % (
                route["network"], route["protocol"], route["listener"], protocols[route["listener"]]))
    return {"routes": routes, "inter_broker": inter_broker, "client_networks": client_networks, "reason": reason,
            "outside": tuple(route["network"] for route in routes if route["outside"]),
            "security_protocols": protocols, "networks": pinned_networks(opts["networks"], routes)}


def _network_routes(opts: dict) -> list:
    """The routes of the ``networks`` option, the inter-broker one marked: as declared, else the brokers' own network
    (the first private route, else the first route) unless option ``inter_broker_listener`` names a listener."""
    routes = normalise_networks(opts["networks"], opts["controller_listener_name"], opts["controller_port"])
    if opts["inter_broker_listener"] is None and not any(route["inter_broker"] for route in routes):
        next((route for route in routes if route["route"] == "private"), routes[0])["inter_broker"] = True
    return routes


def inter_broker_hosts(brokers: list, options: dict | None) -> list:
    """The hosts every broker must resolve to reach the others on a ``networks`` plan's inter-broker route (before
    ``auto`` moves it to a public route, whose names are the brokers' public DNS names): a load balancer's name or a
    static map's hosts, or the brokers' own names; IP literals and brokers without such a host left out. ``brokers``
    hold ``name``, ``node_id`` and the host facts (``private_host``, ``public_dns``, ``public_ip``); empty without
    the ``networks`` option. PlanError names a bad option."""
    opts = plan_options(options)
    if opts["networks"] is None:
        return []
    try:
        routes = _network_routes(opts)
    except RouteError as exc:
        raise PlanError(str(exc)) from exc
    route = next((item for item in routes if item["inter_broker"] or item["listener"] == opts["inter_broker_listener"]),
                 None)
    hosts: dict = {}  # insertion-ordered, and a set: a list's search would make it quadratic in brokers
    for node in brokers:
        # hosts only: a node id, where missing, matters for no host (only for a load balancer's derived port)
        facts = dict({key: node.get(key) for key in ("name", *HOST_KEYS)}, node_id=int(node.get("node_id") or 0))
        try:
            target = route_target(route, facts) if route is not None else None
        except (KeyError, RouteError):  # a broker the map does not name: the plan refuses it, naming the network
            target = None
        if target is not None and ip_literal(target[0]) is None:
            hosts.setdefault(target[0])
    return list(hosts)


def names_to_resolve(brokers: list, options: dict | None) -> list:
    """The names to resolve from every broker before planning (the resolvability facts the plan reads): each broker's
    public DNS name and private host, then the hosts of :func:`inter_broker_hosts`; each once, in that order."""
    names = [node.get("public_dns") for node in brokers] + [node.get("private_host") for node in brokers]
    return [name for name in dict.fromkeys(names + inter_broker_hosts(brokers, options)) if name]


def _refuse_unresolved_inter_broker(route: dict | None, brokers: list) -> None:
    """Brokers reach each other on the inter-broker route: a host of it that some broker's resolvability check found
    not to resolve is refused, naming the network, the broker it belongs to and the brokers it does not resolve
    from. A host not checked passes (the broker role checks those of :func:`inter_broker_hosts` from every broker)."""
    if route is None:
        return
    unresolved_from: dict = {}  # name -> the brokers it does not resolve from, in one pass over every broker's checks
    for checker in brokers:
        for name, check in checker["external_checks"].items():
            if check.get("resolvable") is False:
                unresolved_from.setdefault(name, []).append(checker["name"])
    failures = []
    for owner in brokers:
        target = route_target(route, owner)
        if target is None or ip_literal(target[0]) is not None:
            continue
        unresolved = unresolved_from.get(target[0].lower())
        if unresolved:
            failures.append("host %s of broker %s does not resolve from broker %s" % (
                target[0], owner["name"], ", ".join(unresolved)))
    if failures:
        raise PlanError("network %s (route %s) carries the inter-broker listener %s, which every broker must reach: "
                        "%s. Nothing was written; fix the name or its DNS, or put inter_broker on a route the brokers "
                        "resolve" % (route["network"], route["route"], route["listener"], "; ".join(failures)))


def _share_private_routes(routes: list, nodes: list, opts: dict) -> str:
    """``auto`` over client networks, as ``single`` generalised: when the brokers' own network takes a private route
    and every broker's public DNS name resolves (and, with check_connectivity, connects) from every broker, that
    route's networks join the first public route and its listener goes. Other private routes stay: the brokers'
    lookups say nothing about a network with a resolver of its own. Returns why, as a clause of the plan's reason."""
    private = next((route for route in routes if route["inter_broker"] and route["route"] == "private"), None)
    public = next((route for route in routes if route["route"] in ("public", "public_dns")), None)
    if private is None or public is None:
        return ""
    names = ", ".join(private["networks"])
    failure = _public_names_fail([node for node in nodes if _is_broker(node)], opts)
    if failure is not None:
        return "; %s keep listener %s: %s" % (names, private["listener"], failure)
    routes.remove(private)
    public["networks"].extend(private["networks"])
    public["inter_broker"] = True
    return "; %s share listener %s with %s: every broker's public DNS name %s from every broker" % (
        names, public["listener"], public["network"],
        "resolves and connects" if opts["check_connectivity"] else "resolves")


def _public_names_fail(brokers: list, opts: dict) -> str | None:
    """Why the brokers' public DNS names cannot serve the private network (None: they can)."""
    for node in brokers:
        if node["public_dns"] is None:
            return "broker %s has no public DNS name" % node["name"]
    for owner in brokers:
        for checker in brokers:
            check = checker["external_checks"].get(owner["public_dns"].lower())
            if check is None:
                return "%s (broker %s) was not checked from broker %s" % (
                    owner["public_dns"], owner["name"], checker["name"])
            if not check.get("resolvable"):
                return "%s (broker %s) does not resolve from broker %s" % (
                    owner["public_dns"], owner["name"], checker["name"])
            if opts["check_connectivity"] and not check.get("connectable"):
                return "%s (broker %s) resolves but does not connect from broker %s" % (
                    owner["public_dns"], owner["name"], checker["name"])
    return None


def _refuse_special_hosts(route: dict, brokers: list, opts: dict) -> None:
    """A load balancer's or a static map's host that no client could use is refused, naming the network."""
    for node in brokers:
        target = route_target(route, node)
        if target is not None and route["route"] in ("load_balancer", "static"):
            _refuse_special(target[0], "network %s: the host for broker %s" % (route["network"], node["name"]),
                            opts["allow_loopback"])


def _client_listeners(node: dict, layout: dict, opts: dict) -> list:
    """The client-facing listeners of a broker: [(name, bind_host, bind_port, advertised_host, port, network)]."""
    listeners = []
    for route in layout["routes"]:
        target = route_target(route, node)
        if target is None:
            if route["missing"] is None:
                continue
            raise PlanError(route["missing"] % node["name"])
        listeners.append((route["listener"], opts["bind_address"], route["port"], target[0], target[1],
                          route["network"]))
    return listeners


def _uses_default_map(names_protocols: list) -> bool:
    return all(name == protocol and name in SECURITY_PROTOCOLS for name, protocol in names_protocols)


def _plan_node(node: dict, mode: str, layout: dict, opts: dict, quorum: dict | None) -> dict:
    client = _client_listeners(node, layout, opts) if _is_broker(node) else []
    names = [item[0] for item in client]
    ports = [item[2] for item in client]
    controller = None
    if _is_controller(node):
        controller = (opts["controller_listener_name"], _controller_host(node, opts, "for the controller listener"),
                      opts["controller_port"])
        names.append(controller[0])
        ports.append(controller[2])
    if len(set(names)) != len(names):
        raise PlanError("broker %s: listener names %s repeat; choose distinct names in the options"
                        % (node["name"], ", ".join(names)))
    if len(set(ports)) != len(ports):
        raise PlanError("broker %s: listener ports %s repeat; choose distinct ports in the options"
                        % (node["name"], ", ".join(str(p) for p in ports)))

    listeners = [format_endpoint(name, bind, port) for name, bind, port, _host, _advertised, _net in client]
    if controller is not None:
        listeners.append(format_endpoint(*controller))
    advertised = [format_endpoint(name, host, port) for name, _bind, _port, host, port, _net in client]
    mapped = [(name, _protocol(opts, name)) for name in names]
    if node["roles"] and not _is_controller(node):
        # broker-only KRaft nodes still need to know the controller listener's protocol (R18)
        mapped.append((opts["controller_listener_name"], _protocol(opts, opts["controller_listener_name"])))
    inter_broker = layout["inter_broker"] if client else None
    if inter_broker is not None and inter_broker not in [item[0] for item in client]:
        raise PlanError("option inter_broker_listener: %s is not one of this layout's listeners (%s)"
                        % (inter_broker, ", ".join(item[0] for item in client)))

    default_map = _uses_default_map(mapped) and not node["roles"]
    properties = {
        "listeners": ",".join(listeners),
        "advertised.listeners": ",".join(advertised) if advertised else None,
        "listener.security.protocol.map": None if default_map else ",".join("%s:%s" % item for item in mapped),
        # PLAINTEXT is Kafka's inter-broker default when neither key is set; say it only when it differs
        "inter.broker.listener.name": None if inter_broker in (None, "PLAINTEXT") and default_map else inter_broker,
        "security.inter.broker.protocol": None,
    }
    if node["roles"]:
        properties["controller.listener.names"] = opts["controller_listener_name"]
        properties.update(quorum)
    endpoints = [{"listener": name, "host": host, "port": port, "hostport": format_hostport(host, port),
                  "protocol": _protocol(opts, name), "network": net}
                 for name, _bind, _port, host, port, net in client]
    # where the broker is checked from its own machine (the restart's health gate, its self check): its
    # inter-broker endpoint, or on a Docker host the endpoint for clients on the host (container names do not
    # resolve there); a controller-only node has none (its controller endpoint is waited for instead)
    health_network = "docker-host" if mode == "docker" else None
    health = [endpoint for endpoint in endpoints
              if (endpoint["network"] == health_network if health_network else endpoint["listener"] == inter_broker)]
    return {
        "name": node["name"],
        "node_id": node["node_id"],
        "process_roles": list(node["roles"]),
        "mode": mode,
        "properties": properties,
        "endpoints": endpoints,
        "inter_broker_listener": inter_broker,
        "health_endpoint": health[0] if health else None,
        # the listeners of this node whose certificates clients verify
        "tls_listeners": [name for name in names if _protocol(opts, name) in ("SSL", "SASL_SSL")],
        "controller_endpoint": None if controller is None else {
            "listener": controller[0], "host": controller[1], "port": controller[2]},
    }


def node_properties(node_plan: dict) -> dict:
    """Return the full property set Kafka would see for a planned node: its managed keys plus role and id keys.

    Used to check a plan with Kafka's own startup rules; keys the plan removes are left out.
    """
    props = {key: value for key, value in node_plan["properties"].items() if value is not None}
    props.update(identity_properties(node_plan["node_id"], node_plan["process_roles"]))
    return props
