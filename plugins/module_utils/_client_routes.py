# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Client networks and the routes they take to each broker: the planner's ``networks`` option.

Private to kafkaops.listeners: no compatibility promise outside the collection.

A client network names how its clients reach every broker (``route``):

* ``private``: the broker's private DNS name or IP (``private_host``);
* ``public``: its public DNS name, else its public IP; ``public_dns`` and ``public_ip`` take only that one;
* ``load_balancer``: one name (``host``) with a port per broker on it, ``base_port`` plus the broker's node id or an
  explicit ``ports`` map of broker name to port (a network load balancer, a NAT gateway that maps ports);
* ``static``: an explicit ``endpoints`` map of broker name to ``host:port`` (private endpoints, tunnels).

Networks with the same route share one listener. A listener's name is the network's ``listener``, else its
network name upper-cased with every character outside ``A-Z0-9_`` turned into ``_``. Its port (the one the broker
binds; a load balancer or a static map advertises its own ports in front of it) is the network's ``port``, else
29100 plus the CRC-32 of the network's name modulo 900; a derived port already taken goes to the next free one, in
the order the networks are declared. A port depends on the network's own name, never on its position, so a network
added at the end of the list moves no existing listener. One declared before others, or a new pinned ``port``, can
take a port another network had derived (one chance in 900 per pair), which then moves on: set ``port`` on the
listeners clients already use to pin them.
"""

from __future__ import annotations

import re
import zlib

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import SECURITY_PROTOCOLS
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import validate_host
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import HostPortError, parse_hostport

ROUTES = ("private", "public", "public_dns", "public_ip", "load_balancer", "static")
#: routes that reach the brokers from outside the private network (their PLAINTEXT listeners are reported)
OUTSIDE_ROUTES = ("public", "public_dns", "public_ip", "load_balancer")
DERIVED_PORT_BASE = 29100
DERIVED_PORT_SPAN = 900

_KEYS = {"name", "route", "listener", "port", "protocol", "host", "base_port", "ports", "endpoints", "inter_broker"}
_NETWORK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}\Z")
_LISTENER_NAME = re.compile(r"^[A-Z][A-Z0-9_]*\Z")


class RouteError(ValueError):
    """A client network's route cannot be planned; the message names the network, the broker and what is wrong."""


def _port(value: object, where: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).isdigit():
        raise RouteError("%s: port %r is not a number" % (where, value))
    port = int(value)
    if not low <= port <= 65535:
        raise RouteError("%s: port %d is outside %d-65535" % (where, port, low))
    return port


def derived_listener_name(network: str) -> str:
    """The listener name a network gets when it names none: upper-cased, ``_`` for anything outside A-Z0-9_."""
    name = re.sub(r"[^A-Z0-9_]", "_", network.upper())
    return name if name[:1].isalpha() else "N_" + name


def derived_port(network: str) -> int:
    """The listener port a network gets when it names none, before collisions: from its name only."""
    return DERIVED_PORT_BASE + zlib.crc32(network.encode("utf-8")) % DERIVED_PORT_SPAN


def _broker_map(value: object, where: str, what: str) -> dict:
    if not isinstance(value, dict) or not value:
        raise RouteError("%s: %s must be a non-empty mapping of broker name to %s" % (
            where, "ports" if what == "port" else "endpoints", what))
    return {str(key): item for key, item in value.items()}


def _route_spec(item: dict, where: str) -> tuple:
    """(route, host, base_port, ports, endpoints) of one network entry, checked."""
    route = item.get("route")
    if route not in ROUTES:
        raise RouteError("%s: route %r is not one of %s" % (where, route, ", ".join(ROUTES)))
    allowed = {"load_balancer": {"host", "base_port", "ports"}, "static": {"endpoints"}}.get(route, set())
    stray = sorted((set(item) & {"host", "base_port", "ports", "endpoints"}) - allowed)
    if stray:
        raise RouteError("%s: %s do(es) not apply to route %s" % (where, ", ".join(stray), route))
    host = base_port = ports = endpoints = None
    if route == "load_balancer":
        if "host" not in item:
            raise RouteError("%s: route load_balancer needs host (the load balancer's one name)" % where)
        host = validate_host(item["host"], "%s, host" % where)
        if ("base_port" in item) == ("ports" in item):
            raise RouteError("%s: route load_balancer needs exactly one of base_port (each broker's port is base_port "
                             "plus its node id) and ports (broker name to port)" % where)
        if "base_port" in item:
            base_port = _port(item["base_port"], "%s, base_port" % where)
        else:
            ports = tuple(sorted((name, _port(port, "%s, port of broker %s" % (where, name)))
                                 for name, port in _broker_map(item["ports"], where, "port").items()))
    elif route == "static":
        if "endpoints" not in item:
            raise RouteError("%s: route static needs endpoints (broker name to host:port)" % where)
        parsed = []
        for name, value in _broker_map(item["endpoints"], where, "host:port").items():
            what = "%s, endpoint of broker %s" % (where, name)
            try:
                entry_host, entry_port = parse_hostport(value, what)
            except HostPortError as exc:
                raise RouteError(str(exc)) from exc
            parsed.append((name, entry_host, entry_port))
        endpoints = tuple(sorted(parsed))
    return route, host, base_port, ports, endpoints


def normalise_networks(value: object, controller_listener: str, controller_port: int) -> list:
    """The ``networks`` option as a list of routes, each shared by the networks that take it.

    Each route is a dict: ``listener``, ``port`` (bound), ``protocol`` (None: the planner's default), ``route``,
    ``host``, ``base_port``, ``ports``, ``endpoints`` (tuples of (broker, ...)), ``targets`` (either map as
    {broker: (host, port)}, else None), ``networks`` (client network names in declared order), ``network`` (its
    first network: the endpoint network its endpoints are labelled with), ``inter_broker`` and ``outside``.
    RouteError names the network and what is wrong.
    """
    if not isinstance(value, (list, tuple)) or not value:
        raise RouteError("option networks: expected a non-empty list of client networks, each {name, route, ...}")
    routes: list = []
    by_spec: dict = {}
    names: dict = {}
    for index, item in enumerate(value):
        where = "option networks[%d]" % index
        if not isinstance(item, dict):
            raise RouteError("%s: expected a mapping {name, route, ...}, got %r" % (where, item))
        item = {key: entry for key, entry in item.items() if entry is not None}  # null: not set
        name = item.get("name")
        if not isinstance(name, str) or not _NETWORK_NAME.match(name):
            raise RouteError("%s: name %r is not a network name (letters, digits, '_', '.', '-', up to 63 "
                             "characters, starting with a letter or digit)" % (where, name))
        where = "network %s" % name
        if name in names:
            raise RouteError("%s: declared twice (networks[%d] and networks[%d])" % (where, names[name], index))
        names[name] = index
        unknown = sorted(set(item) - _KEYS)
        if unknown:
            raise RouteError("%s: unknown key(s) %s; known: %s" % (where, ", ".join(unknown), ", ".join(sorted(_KEYS))))
        spec = _route_spec(item, where)
        listener = item.get("listener")
        if listener is not None:
            listener = str(listener).upper() if isinstance(listener, str) else listener
            if not isinstance(listener, str) or not _LISTENER_NAME.match(listener):
                raise RouteError("%s: listener %r is not a listener name (letters, digits and '_', starting with a "
                                 "letter)" % (where, item["listener"]))
        port = None if item.get("port") is None else _port(item["port"], "%s, port" % where)
        protocol = item.get("protocol")
        if protocol is not None:
            protocol = str(protocol).upper()
            if protocol not in SECURITY_PROTOCOLS:
                raise RouteError("%s: protocol %r is not one of %s" % (where, item["protocol"],
                                                                       ", ".join(SECURITY_PROTOCOLS)))
        key = spec + (listener, port, protocol)
        if key in by_spec:
            shared = by_spec[key]
            shared["networks"].append(name)
            shared["inter_broker"] = shared["inter_broker"] or bool(item.get("inter_broker"))
            continue
        route = {"route": spec[0], "host": spec[1], "base_port": spec[2], "ports": spec[3], "endpoints": spec[4],
                 "targets": _mapped_targets(spec), "listener": listener, "port": port, "protocol": protocol,
                 "networks": [name], "network": name, "inter_broker": bool(item.get("inter_broker")),
                 "outside": spec[0] in OUTSIDE_ROUTES}
        by_spec[key] = route
        routes.append(route)
    _allocate(routes, controller_listener, controller_port)
    if sum(route["inter_broker"] for route in routes) > 1:
        raise RouteError("option networks: inter_broker is set on more than one route (%s); brokers use one listener "
                         "among themselves" % ", ".join(r["network"] for r in routes if r["inter_broker"]))
    return routes


def _mapped_targets(spec: tuple) -> dict | None:
    """{broker name: (host, port)} of a route with a ports or endpoints map (None without one): looked up once per
    broker, where a search of the map would make a plan quadratic in brokers."""
    route, host, _base_port, ports, endpoints = spec
    if ports is not None:
        return {name: (host, port) for name, port in ports}
    if endpoints is not None:
        return {name: (entry_host, entry_port) for name, entry_host, entry_port in endpoints}
    return None


def _allocate(routes: list, controller_listener: str, controller_port: int) -> None:
    """Give each route its listener name and port: the declared ones, else derived from its first network's name."""
    owners = {controller_listener: "the controller listener"}
    for route in routes:
        route["listener"] = route["listener"] or derived_listener_name(route["network"])
        if route["listener"] in owners:
            raise RouteError("network %s: listener name %s is also %s; set listener on one of them" % (
                route["network"], route["listener"], owners[route["listener"]]))
        owners[route["listener"]] = "network %s's" % route["network"]
    taken = {controller_port: "the controller listener"}
    for route in routes:
        if route["port"] is not None:
            if route["port"] in taken:
                raise RouteError("network %s: port %d is also %s's; each listener needs a port of its own" % (
                    route["network"], route["port"], taken[route["port"]]))
            taken[route["port"]] = "network %s" % route["network"]
    for route in routes:
        if route["port"] is None:
            port = derived_port(route["network"])
            while port in taken:
                port = DERIVED_PORT_BASE + (port - DERIVED_PORT_BASE + 1) % DERIVED_PORT_SPAN
            route["port"] = port
            taken[port] = "network %s" % route["network"]


def check_broker_maps(routes: list, brokers: list) -> None:
    """Every port or endpoint map names every broker (by name; other names are ignored, so that one map serves when
    only part of the cluster is planned), and no two brokers share a host:port on one route."""
    names = [node["name"] for node in brokers]
    for route in routes:
        if route["targets"] is not None:
            what = "ports" if route["ports"] else "endpoints"
            missing = [name for name in names if name not in route["targets"]]
            if missing:
                raise RouteError("network %s: %s has no entry for broker(s) %s" % (
                    route["network"], what, ", ".join(missing)))
        seen: dict = {}
        for node in brokers:
            hostport = route_target(route, node)
            if hostport is None:
                continue
            key = (hostport[0].lower(), hostport[1])
            if key in seen:
                raise RouteError("network %s: brokers %s and %s would both be reached at %s:%d; each broker needs a "
                                 "host:port of its own on a route" % (route["network"], seen[key], node["name"],
                                                                      hostport[0], hostport[1]))
            seen[key] = node["name"]


def pinned_networks(networks: list, routes: list) -> list:
    """The ``networks`` option that plans ``routes`` again as they are, whatever the resolvability checks say and
    however names and ports were derived: each network with its route's route, listener, port and protocol spelt
    out, ``inter_broker`` on the inter-broker route's first network only, listed route by route so that the
    listeners keep their order (for ``mode: networks``)."""
    spec_keys = ("route", "host", "base_port", "ports", "endpoints")
    pinned = []
    for route in routes:
        source = next(entry for entry in networks if entry["name"] == route["network"])
        for name in route["networks"]:
            entry = {key: value for key, value in source.items() if key in spec_keys and value is not None}
            entry.update(name=name, listener=route["listener"], port=route["port"])
            if route["protocol"] is not None:
                entry["protocol"] = route["protocol"]
            if route["inter_broker"] and name == route["networks"][0]:
                entry["inter_broker"] = True
            pinned.append(entry)
    return pinned


def route_target(route: dict, node: dict) -> tuple | None:
    """(host, port) the route's clients reach broker ``node`` at, or None when the broker has no such host.

    ``node`` holds the planner's normalised facts (``name``, ``node_id``, ``private_host``, ``public_dns``,
    ``public_ip``).
    """
    kind = route["route"]
    if kind == "load_balancer" and route["base_port"] is not None:
        port = route["base_port"] + node["node_id"]
        if port > 65535:
            raise RouteError("network %s: base_port %d plus node id %d of broker %s is past 65535" % (
                route["network"], route["base_port"], node["node_id"], node["name"]))
        return route["host"], port
    if route["targets"] is not None:  # a load balancer's ports map or a static map
        return route["targets"][node["name"]]
    if kind == "literal":  # a preset's fixed host, e.g. localhost for clients on a Docker host
        return route["host"], route["port"]
    host = {"private": node["private_host"], "public": node["public_dns"] or node["public_ip"],
            "public_dns": node["public_dns"], "public_ip": node["public_ip"],
            "container": node["container_name"] or node["private_host"]}[kind]
    return None if host is None else (host, route["port"])
