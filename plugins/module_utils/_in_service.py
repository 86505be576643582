# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A cluster in service: the listeners its brokers run now, read as client networks, and what a plan may change.

Private to kafkaops.listeners: no compatibility promise outside the collection.

A cluster is *in service* when one of its brokers advertises a client listener explicitly (``advertised.listeners``
names a host that other machines can use), or when it advertises nothing explicitly but holds replicated data: a
partition with replicas on more than one broker (its brokers' log directories, ``partitions`` of the node facts).
Such a cluster serves clients on the listeners it runs with Kafka's defaults (``listeners``, the machine's own name),
and a rename of its inter-broker listener in one roll would take every partition a restarted broker follows out of
its ISR. Its clients use those endpoints today, so the default plan adds and never takes away (the planner,
:mod:`._listener_plan`, decides when this applies):

* every listener a broker advertises now stays, with its name, port, protocol and advertised hosts; each becomes a
  client network route: ``private`` when it advertises every broker's private host, ``public_dns`` or ``public_ip``
  when it advertises that name of every broker, else ``static`` with the endpoints as they are written;
* the inter-broker listener keeps its name, the controllers keep their listener name, port and the spelling of
  their host (private DNS name or private IP), and the quorum keeps its style (``controller.quorum.voters`` or
  ``controller.quorum.bootstrap.servers``);
* a client network that no kept listener serves gets a listener of its own on a port nobody uses: the internet
  (``EXTERNAL`` on 9094 unless option ``external_port`` names another free port) when no listener advertises public
  names, the VPC (``INTERNAL`` on 19092) when none advertises names the brokers resolve.

A cluster whose brokers advertise nothing explicitly (Kafka's default: ``listeners`` with the machine's own name, or
``localhost`` from the shipped files) and keep no partition on more than one broker is planned as new: the documented
layouts apply.

Whatever the plan, :func:`bootstrap_before` reads the same listeners as the bootstrap each client network could use
before the run, for the verify role to check that it still works afterwards.
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    EndpointError,
    _split_csv,
    controller_listener_names,
    effective_protocol_map,
    identity_properties,
    parse_listener_list,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import ip_literal, special_address
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import format_hostport

#: the client networks a cluster in service is checked for: the brokers' own network and everybody else
VPC, INTERNET = "vpc", "internet"
#: the first port tried for a listener the plan adds for the internet (the VPC's clients keep 9092)
ADDED_EXTERNAL_PORT = 9094


class InServiceError(ValueError):
    """What runs now cannot be read as a plan's input; the message names the broker, the key and what is wrong."""


def _props(node: dict) -> dict:
    props = dict(node["current"])
    props.update(identity_properties(node["node_id"], node["roles"]))
    return props


def _client_endpoints(node: dict, explicit: bool = True) -> list:
    """The endpoints a broker advertises to clients now, in order (controller listeners left out): those of
    ``advertised.listeners``, else (``explicit`` False) those of ``listeners``, as Kafka falls back to them."""
    props = node["current"]
    key = "advertised.listeners"
    if not props.get(key, "").strip():
        if explicit:
            return []
        key = "listeners"
    try:
        endpoints = parse_listener_list(props.get(key, "PLAINTEXT://:9092"))
    except EndpointError as exc:
        raise InServiceError("broker %s: %s %r in its current file does not parse: %s" % (
            node["name"], key, props.get(key), exc)) from None
    controllers = controller_listener_names(props)
    return [endpoint for endpoint in endpoints if endpoint.listener not in controllers]


def current_client_endpoints(node: dict, explicit: bool = True) -> list:
    """[(listener, host, port, protocol)] a broker advertises explicitly to clients now (``explicit`` False: or
    from ``listeners``); an empty host is the machine's own name, taken as its private host."""
    if not node["current"]:
        return []
    try:
        mapping = effective_protocol_map(_props(node))
    except EndpointError as exc:
        raise InServiceError("broker %s: listener.security.protocol.map in its current file does not parse: %s"
                             % (node["name"], exc)) from None
    return [(endpoint.listener, endpoint.host or node["private_host"] or "", endpoint.port,
             mapping.get(endpoint.listener, "PLAINTEXT")) for endpoint in _client_endpoints(node, explicit)]


def node_in_service(node: dict, explicit: bool = True) -> bool:
    """Whether the node advertises a client listener explicitly, on a host other machines can use (``explicit``
    False: or serves one from ``listeners``, an empty host being the machine's own name)."""
    return any((endpoint.host or not explicit) and special_address(endpoint.host or "host") is None
               for endpoint in _client_endpoints(node, explicit))


def keeps_private_names(node: dict, brokers: list, current: list, planned: list) -> bool:
    """Whether each listener of ``current`` (see :func:`current_client_endpoints`) that serves the node's private name
    (private DNS name or IP: the VPC's clients use it) keeps serving a name every broker resolves in ``planned`` (the
    node plan's endpoints): a private name, or a public one that resolves inside the VPC (split-horizon DNS). Moving
    such a listener to public names the VPC does not resolve breaks the clients that bootstrap on its port."""
    private = [name for name in (node["private_host"], node["private_ip"]) if name]
    for listener, host, _port, _protocol in current:
        if not any(_same(host, name) for name in private):
            continue
        for endpoint in planned:
            if endpoint["listener"] != listener or any(_same(endpoint["host"], name) for name in private):
                continue
            wanted = endpoint["host"].rstrip(".").lower()
            if not all((checker["external_checks"].get(wanted) or {}).get("resolvable") for checker in brokers):
                return False
    return True


def is_in_service(nodes: list) -> bool:
    """Whether some broker advertises a client listener explicitly, on a host other machines can use."""
    return any(node_in_service(node) for node in nodes)


def replicated_partitions(nodes: list) -> list:
    """The partitions with replicas on more than one node now, sorted (from each node's ``partitions``)."""
    owners: dict = {}
    for node in nodes:
        for partition in node.get("partitions") or ():
            owners.setdefault(partition, set()).add(node["name"])
    return sorted(partition for partition, names in owners.items() if len(names) > 1)


def service_state(nodes: list, setting) -> tuple:
    """(in_service, advertised_only, why) for option ``in_service`` (``setting``: "auto", True or False).

    ``advertised_only``: only the listeners brokers advertise explicitly are what clients use now; else Kafka's
    fallback to ``listeners`` counts too (an empty host being the machine's own name). ``why`` says, for the plan's
    reason, why a cluster that advertises nothing explicitly is in service ("" otherwise)."""
    if setting is False:
        return False, True, ""
    if setting is True:
        return True, False, ""
    if is_in_service(nodes):
        return True, True, ""
    replicated = replicated_partitions(nodes)
    if not replicated:
        return False, True, ""
    return True, False, (
        "replicated data: nothing is advertised explicitly, but %d partition%s ha%s replicas on more than one broker "
        "(%s%s), so clients use the brokers' own names on the listeners they run now"
        % (len(replicated), "" if len(replicated) == 1 else "s", "s" if len(replicated) == 1 else "ve",
           ", ".join(replicated[:3]), ", ..." if len(replicated) > 3 else ""))


def _bound_ports(node: dict) -> dict:
    """{listener: port} of the node's current ``listeners`` (Kafka's default when unset)."""
    props = node["current"]
    try:
        return {endpoint.listener: endpoint.port
                for endpoint in parse_listener_list(props.get("listeners", "PLAINTEXT://:9092"))}
    except EndpointError as exc:
        raise InServiceError("broker %s: listeners %r in its current file does not parse: %s" % (
            node["name"], props.get("listeners"), exc)) from None


def _same(host: str, other: str | None) -> bool:
    return other is not None and host.rstrip(".").lower() == other.rstrip(".").lower()


def _route_of(endpoints: dict, brokers: list) -> str:
    """The route a kept listener's advertised hosts take: the node name they are for every broker, else static."""
    for route, key in (("private", "private_host"), ("private_ip", "private_ip"), ("public", "public"),
                       ("public_dns", "public_dns"), ("public_ip", "public_ip")):
        if all(node["name"] in endpoints and _same(endpoints[node["name"]][0], _host(node, key)) for node in brokers):
            return route
    return "static"


def _host(node: dict, key: str) -> str | None:
    return node["public_dns"] or node["public_ip"] if key == "public" else node[key]


def _resolves_everywhere(brokers: list, key: str) -> bool:
    """Every broker's ``key`` name resolves from every broker (split-horizon DNS serves the VPC with it)."""
    for owner in brokers:
        name = owner[key]
        if name is None or ip_literal(name) is not None:
            return False
        for checker in brokers:
            if not (checker["external_checks"].get(name.rstrip(".").lower()) or {}).get("resolvable"):
                return False
    return True


def _free_port(wanted: int, explicit: bool, taken: dict, option: str) -> int:
    if wanted in taken:
        if explicit:
            raise InServiceError("option %s: port %d is %s now; the cluster in service keeps it, so choose a port "
                                 "no listener uses" % (option, wanted, taken[wanted]))
        while wanted in taken:
            wanted += 1
    return wanted


def _quorum_hosts(node: dict) -> list:
    """The hosts the current quorum keys give this node's controller: its ``controller.quorum.voters`` entry, else
    the ``controller.quorum.bootstrap.servers`` entries (any of which may be it)."""
    props = node["current"]
    hosts = []
    for entry in _split_csv(props.get("controller.quorum.voters", "")):
        node_id, _at, where = entry.partition("@")
        if node_id.strip() == str(node["node_id"]):
            hosts.append(where.rpartition(":")[0].strip("[]"))
    for entry in _split_csv(props.get("controller.quorum.bootstrap.servers", "")):
        hosts.append(entry.rpartition(":")[0].strip("[]"))
    return hosts


def _controller_spelling(nodes: list, explicit: bool) -> dict:
    """The controllers' listener name, port and host spelling as the current files of the nodes in service give them
    ({} when unknown): a controller is spelt by its private IP when its advertised or bound controller endpoint, else
    its quorum entry, is that IP. A node that advertises nothing explicitly (a package install, or not rolled yet)
    is planned as new."""
    found = {}
    for node in nodes:
        if "controller" not in node["roles"] or not node_in_service(node, explicit):
            continue
        names = controller_listener_names(node["current"])
        if not names:
            continue
        found.setdefault("controller_listener_name", names[0])
        hosts = []
        for key in ("advertised.listeners", "listeners"):
            try:
                endpoint = next((item for item in parse_listener_list(node["current"].get(key, ""))
                                 if item.listener == names[0]), None)
            except EndpointError:
                endpoint = None
            if endpoint is not None:
                found.setdefault("controller_port", endpoint.port)
                hosts.append(endpoint.host)
        hosts = [host for host in hosts if host] or _quorum_hosts(node)
        if hosts and _same(hosts[0], node["private_ip"]) and not _same(hosts[0], node["private_host"]):
            found["controller_host"] = "private_ip"
    return found


def _quorum_style(nodes: list, explicit: bool) -> str | None:
    for node in [node for node in nodes if node_in_service(node, explicit)] or nodes:
        if node["current"].get("controller.quorum.voters", "").strip():
            return "voters"
        if node["current"].get("controller.quorum.bootstrap.servers", "").strip():
            return "bootstrap"
    return None


def running_controller_options(nodes: list, given: set, explicit: bool = True) -> dict:
    """The options that plan the controllers and the quorum as they run: the controller listener's name, port and
    host spelling, and the quorum style; none the user set (``given``). ``explicit``: see :func:`node_in_service`."""
    options = _controller_spelling(nodes, explicit)
    style = _quorum_style(nodes, explicit)
    if style is not None:
        options["quorum"] = style
    return {key: value for key, value in options.items() if key not in given}


def _running_listeners(nodes: list, is_broker) -> tuple:
    """(listeners, bound, protocols, taken, inter_broker) of what the brokers run now: {listener: {broker: (host,
    advertised port)}}, {listener: {broker: bound port}}, {listener: protocol}, {port: whose it is} (every node's)
    and the set of inter-broker listener names."""
    listeners: dict = {}
    bound: dict = {}
    protocols: dict = {}
    inter_broker = set()
    taken: dict = {}
    for node in nodes:
        ports = _bound_ports(node)
        for name, port in ports.items():
            taken.setdefault(port, "listener %s's" % name)
        if not is_broker(node):
            continue
        try:
            mapping = effective_protocol_map(_props(node))
        except EndpointError as exc:
            raise InServiceError("broker %s: listener.security.protocol.map in its current file does not parse: %s"
                                 % (node["name"], exc)) from None
        inter_broker.add(node["running_inter_broker"] or "PLAINTEXT")
        for endpoint in _client_endpoints(node, explicit=False):
            host = endpoint.host or node["private_host"]
            listeners.setdefault(endpoint.listener, {})[node["name"]] = (host, endpoint.port)
            bound.setdefault(endpoint.listener, {})[node["name"]] = ports.get(endpoint.listener, endpoint.port)
            protocols.setdefault(endpoint.listener, mapping.get(endpoint.listener, "PLAINTEXT"))
    return listeners, bound, protocols, taken, inter_broker


def _kept_route(name: str, endpoints: dict, bound: dict, protocol: str, brokers: list) -> tuple:
    """(entry, route class) of option networks that keeps listener ``name`` as the brokers run it: its bound port,
    protocol and route (``private``, ``public``, ``public_dns``, ``public_ip``, else ``static`` with the endpoints as
    they are written; private IPs too, as the node's private host is its DNS name). ``endpoints``: {broker: (host,
    advertised port)}; ``bound``: {broker: bound port}."""
    ports = set(bound.values())
    if len(ports) > 1:
        raise InServiceError("listener %s binds different ports on the brokers now (%s); a plan gives each "
                             "listener one port: state the layout with option networks" % (
                                 name, ", ".join("%s: %d" % item for item in sorted(bound.items()))))
    port = ports.pop()
    route = _route_of(endpoints, brokers)
    if route != "static" and any(item[1] != port for item in endpoints.values()):
        route = "static"  # advertised on another port than it binds (NAT, a proxy): keep the endpoints as written
    entry = {"listener": name, "port": port, "protocol": protocol,
             "route": "private" if route == "private" else route}
    if route in ("private_ip", "static"):
        entry.update(route="static", endpoints={broker: format_hostport(*where) for broker, where in endpoints.items()})
    return entry, route


def running_route(nodes: list, name: str, is_broker) -> dict:
    """The entry of option networks that keeps listener ``name`` as the brokers run it (see :func:`_kept_route`),
    named after the listener; InServiceError when no broker serves it."""
    listeners, bound, protocols, _taken, _inter = _running_listeners(nodes, is_broker)
    if name not in listeners:
        raise InServiceError("no broker runs listener %s now" % name)
    entry, _route = _kept_route(name, listeners[name], bound[name], protocols[name],
                                [node for node in nodes if is_broker(node)])
    return dict(entry, name=name.lower().replace("_", "-"))


def in_service_options(nodes: list, opts: dict, explicit: set, is_broker) -> tuple:
    """(options, reason) that plan the client listeners of the cluster in service: ``networks`` with every listener
    kept as a route and the routes added for the client networks no kept listener serves. ``explicit`` holds the
    option names the user set; ``is_broker`` tells a node with the broker role."""
    brokers = [node for node in nodes if is_broker(node)]
    listeners, bound, protocols, taken, inter_broker = _running_listeners(nodes, is_broker)
    if len(inter_broker) > 1:
        raise InServiceError("the brokers run different inter-broker listeners now (%s): an earlier rollout stopped "
                             "half-way. Finish it with the options of the run that started it (an explicit mode or "
                             "networks), or, for a cluster that holds no data, plan it as new with in_service: false"
                             % ", ".join(sorted(inter_broker)))
    inter = inter_broker.pop() if inter_broker else None
    networks, kept, served = [], [], set()
    for name, endpoints in listeners.items():
        entry, route = _kept_route(name, endpoints, bound[name], protocols[name], brokers)
        port = entry["port"]
        entry["inter_broker"] = name == inter
        if route in ("private", "private_ip"):
            served.add(VPC)
            entry["name"] = VPC if VPC not in [item["name"] for item in networks] else name.lower()
            who = "the VPC (private names)"
        elif route in ("public", "public_dns", "public_ip"):
            served.add(INTERNET)
            split = route != "public_ip" and _resolves_everywhere(brokers, "public_dns")
            if split:
                served.add(VPC)
            entry["name"] = INTERNET if INTERNET not in [item["name"] for item in networks] else name.lower()
            who = "the internet%s (public names)" % (" and the VPC" if split else "")
        else:
            entry["name"] = name.lower().replace("_", "-")
            who = "its own clients (%s)" % ", ".join(format_hostport(*where) for where in endpoints.values())
        networks.append(entry)
        if route in ("public", "public_dns") and split and VPC not in [item["name"] for item in networks]:
            networks.append(dict(entry, name=VPC, inter_broker=False))  # the same listener serves the VPC's clients
        kept.append("%s :%d for %s" % (name, port, who))
    added = []
    used_names = set(listeners) | set(protocols)
    if INTERNET not in served and brokers and all(node["public_dns"] or node["public_ip"] for node in brokers):
        listener = opts["external_listener_name"]
        if listener in used_names:
            raise InServiceError("option external_listener_name: %s is a listener the cluster runs now; name the "
                                 "listener for the internet another way (and give it a protocol in option "
                                 "security_protocols: it is PLAINTEXT otherwise)" % listener)
        port = _free_port(opts["external_port"] if "external_port" in explicit else ADDED_EXTERNAL_PORT,
                          "external_port" in explicit, taken, "external_port")
        taken[port] = "listener %s's" % listener
        networks.append({"name": INTERNET, "route": "public", "listener": listener, "port": port,
                         "protocol": opts["security_protocols"].get(listener, "PLAINTEXT"), "inter_broker": False})
        added.append("%s :%d for the internet (public names)" % (listener, port))
    if VPC not in served and brokers:
        listener = opts["internal_listener_name"]
        if listener in used_names:
            raise InServiceError("option internal_listener_name: %s is a listener the cluster runs now; name the "
                                 "listener for the VPC another way (and give it a protocol in option "
                                 "security_protocols: it is PLAINTEXT otherwise)" % listener)
        port = _free_port(opts["internal_port"], "internal_port" in explicit, taken, "internal_port")
        networks.append({"name": VPC, "route": "private", "listener": listener, "port": port,
                         "protocol": opts["security_protocols"].get(listener, "PLAINTEXT"), "inter_broker": False})
        added.append("%s :%d for the VPC (private names)" % (listener, port))
    options = {"mode": "networks", "networks": networks, "inter_broker_listener": None}
    reason = "in service: kept %s" % "; ".join(kept)
    if added:
        reason += "; added %s" % "; ".join(added)
    else:
        reason += "; nothing to add (every client network is served)"
    return options, reason


def _before_route(endpoints: dict, brokers: list) -> str:
    """How a listener's advertised hosts name the brokers that advertise it: ``private`` (each its private DNS name
    or IP), ``public_dns``, ``public_ip``, else ``static``. Brokers that do not advertise the listener (a rollout
    stopped half-way) do not count."""
    owners = [node for node in brokers if node["name"] in endpoints]
    for route, keys in (("private", ("private_host", "private_ip")), ("public_dns", ("public_dns",)),
                        ("public_ip", ("public_ip",))):
        if owners and all(any(_same(endpoints[node["name"]][0], node[key]) for key in keys) for node in owners):
            return route
    return "static"


def bootstrap_before(nodes: list, is_broker, explicit: bool = True) -> dict:
    """Per client network, the bootstrap its clients could use before this run, from the listeners the brokers
    advertise now: ``{network: {"bootstrap": "host:port,...", "listener", "protocol"[, "also": [...]]}}``.

    A listener advertising the brokers' private names (DNS name or IP) serves ``vpc``; one advertising their public
    DNS names ``internet``, and ``vpc`` too when no private listener does and the public names resolve from every
    broker (split-horizon DNS); one advertising their public IPs ``internet``; any other listener the network of its
    own name, lower-cased with ``-`` for ``_`` (as :func:`in_service_options` names it).

    A network served by more than one listener (the VPC during the add phase of a rename: ``PLAINTEXT`` :9092 and
    ``INTERNAL`` :19092 both advertise the private names) has clients on any of them, so each is kept: the first in
    the brokers' order gives the entry's ``bootstrap``, ``listener`` and ``protocol`` as before, and the others follow
    in order under ``also``, a list of entries of the same keys (absent when there is none), for the verify role to
    check each. The split-horizon public listener serves ``vpc`` only when no private one does, and then the first
    alone (the VPC's clients are not known to use public names when they have private ones).

    Only explicit ``advertised.listeners`` count (``explicit`` False: also ``listeners``, an empty host being the
    machine's own name); loopback and other hosts no client can use, and a
    broker whose current file does not parse, are left out, so a cluster that advertises nothing gives ``{}``.
    """
    brokers = [node for node in nodes if is_broker(node)]
    listeners: dict = {}  # name -> {"endpoints": {broker: (host, port)}, "protocol"}
    for node in brokers:
        if not node["current"]:
            continue
        try:
            endpoints = _client_endpoints(node, explicit)
            mapping = effective_protocol_map(_props(node))
        except (InServiceError, EndpointError):
            continue
        for endpoint in endpoints:
            host = endpoint.host or ("" if explicit else node["private_host"] or "")
            if not host or special_address(host) is not None:
                continue
            entry = listeners.setdefault(endpoint.listener, {
                "endpoints": {}, "protocol": mapping.get(endpoint.listener, "PLAINTEXT")})
            entry["endpoints"].setdefault(node["name"], (host, endpoint.port))
    served_by: dict = {}  # network -> [served, ...] in the brokers' order
    split: list = []
    for name, entry in listeners.items():
        route = _before_route(entry["endpoints"], brokers)
        served = {"bootstrap": ",".join(format_hostport(*where) for where in entry["endpoints"].values()),
                  "listener": name, "protocol": entry["protocol"]}
        if route == "private":
            served_by.setdefault(VPC, []).append(served)
        elif route in ("public_dns", "public_ip"):
            served_by.setdefault(INTERNET, []).append(served)
            if route == "public_dns":
                split.append(served)
        else:
            served_by.setdefault(name.lower().replace("_", "-"), []).append(served)
    if VPC not in served_by and split and _resolves_everywhere(brokers, "public_dns"):
        served_by[VPC] = split[:1]
    before = {}
    for network, served in served_by.items():
        before[network] = dict(served[0])
        if served[1:]:
            before[network]["also"] = served[1:]
    return before
