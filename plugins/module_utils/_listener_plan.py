# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The listener plan: which listeners every node of a Kafka cluster binds and advertises.

Private to kafkaops.listeners: no compatibility promise outside the collection.

This is the one place that decides listener layouts. Modules, filters, the lint command and the fleet audit all
call :func:`plan_listeners`; nothing re-implements this logic in Jinja or Spark.

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

import copy
import re

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_routes import (
    RouteError,
    check_broker_maps,
    normalise_networks,
    pinned_networks,
    route_target,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    SECURITY_PROTOCOLS,
    EndpointError,
    _split_csv,
    format_endpoint,
    identity_properties,
    inter_broker_listener,
    parse_endpoint,
    parse_listener_list,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import (
    HostError,
    address_class,
    ip_literal,
    special_address,
    validate_host,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import format_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._in_service import (
    InServiceError,
    bootstrap_before,
    current_client_endpoints,
    in_service_options,
    node_in_service,
    running_controller_options,
    running_route,
    service_state,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config, kafka_release
from ansible_collections.kafkaops.listeners.plugins.module_utils._phases import (
    PhaseError,
    describe,
    phase_networks,
    phases_to_come,
)

MODES = ("auto", "single", "dual", "docker", "networks")
QUORUM_STYLES = ("voters", "bootstrap")
CONTROLLER_HOSTS = ("private_host", "private_ip")
IN_SERVICE = ("auto", True, False)

#: The keys a plan owns in server.properties. ``None`` in a plan means "remove the key".
LISTENER_KEYS = (
    "listeners",
    "advertised.listeners",
    "listener.security.protocol.map",
    "inter.broker.listener.name",
    "security.inter.broker.protocol",
)
KRAFT_KEYS = ("controller.listener.names", "controller.quorum.voters", "controller.quorum.bootstrap.servers")

DEFAULT_DOCKER_LISTENERS = (
    {"name": "DOCKER", "port": 29092, "host": "container"},
    {"name": "HOST", "port": 9092, "host": "localhost"},
    {"name": "EXTERNAL", "port": 29094, "host": "external"},
)

DEFAULT_OPTIONS = {
    "mode": "auto",
    "check_connectivity": False,
    "bind_address": "0.0.0.0",
    "single_listener_name": "PLAINTEXT",
    "single_port": 9092,
    "internal_listener_name": "INTERNAL",
    "internal_port": 19092,
    "external_listener_name": "EXTERNAL",
    "external_port": 9092,
    "security_protocols": {},
    "inter_broker_listener": None,
    "controller_listener_name": "CONTROLLER",
    "controller_port": 9093,
    "quorum": "voters",
    # the host a controller binds and is reached at: the node's private host (its DNS name, else its IP) or its IP
    "controller_host": "private_host",
    # auto: a cluster whose brokers advertise a client listener now keeps every listener and gets only what its
    # client networks miss (see _in_service); True: so even when nothing is advertised; False: plan it as new
    "in_service": "auto",
    "docker_listeners": DEFAULT_DOCKER_LISTENERS,
    # a single-machine development setup may advertise loopback hosts; nothing else may
    "allow_loopback": False,
    # which of the plan's endpoint networks serve each client network, most specific first
    "client_networks": {
        "vpc": ["internal", "all"],
        "internet": ["external", "all"],
        "docker-host": ["docker-host"],
        "container": ["container"],
    },
    # the cluster's Apache Kafka release (e.g. "4.4.0"): whose wording a startup-rule refusal quotes; None: 3.9's
    "kafka_version": None,
    # named client networks and how each reaches every broker (see _client_routes); None: the layout of ``mode``
    "networks": None,
    # a rename of the inter-broker listener of a cluster in service, asked with ``networks``, planned as the next of
    # its phases (see _phases) instead of refused
    "in_phases": False,
}

# the node facts that hold hosts
HOST_KEYS = ("private_host", "private_ip", "public_dns", "public_ip", "container_name")
# why a host of each refused class cannot be advertised
_SPECIAL_WHY = {
    "loopback": "each client would connect to its own machine (allow_loopback permits it, for a single-machine setup)",
    "unspecified": "they name no machine; Kafka refuses 0.0.0.0 and a client cannot connect to one",
    "link-local": "they are only valid on one network segment (169.254.169.254 is the metadata service itself)",
    "multicast": "a TCP connection cannot go to one",
    "broadcast": "a TCP connection cannot go to one",
}
# which client network each kind of docker listener serves, for the plan's endpoints and bootstrap lists
_DOCKER_NETWORKS = {"container": "container", "localhost": "docker-host", "external": "external"}
_LISTENER_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
_ROLES = ("broker", "controller")


class PlanError(ValueError):
    """The facts or options cannot give a valid plan; the message names the input and what is wrong."""


# ---------------------------------------------------------------------------------------------------- options


def _listener_name(value: object, option: str) -> str:
    name = str(value).upper() if isinstance(value, str) else value
    if not isinstance(name, str) or not _LISTENER_NAME.match(name):
        raise PlanError("option %s: invalid listener name %r (letters, digits and '_', starting with a letter)"
                        % (option, value))
    return name


def _port(value: object, option: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).isdigit():
        raise PlanError("option %s: port %r is not a number" % (option, value))
    port = int(value)
    if not 1 <= port <= 65535:
        raise PlanError("option %s: port %d is outside 1-65535" % (option, port))
    return port


def _normalise_options(options: dict | None) -> dict:
    unknown = sorted(set(options or {}) - set(DEFAULT_OPTIONS))
    if unknown:
        raise PlanError("unknown option(s) %s; known: %s" % (", ".join(unknown), ", ".join(sorted(DEFAULT_OPTIONS))))
    opts = copy.deepcopy(DEFAULT_OPTIONS)
    opts.update({key: value for key, value in (options or {}).items() if value is not None})
    if opts["mode"] not in MODES:
        raise PlanError("option mode: %r is not one of %s" % (opts["mode"], ", ".join(MODES)))
    if opts["quorum"] not in QUORUM_STYLES:
        raise PlanError("option quorum: %r is not one of %s" % (opts["quorum"], ", ".join(QUORUM_STYLES)))
    if opts["controller_host"] not in CONTROLLER_HOSTS:
        raise PlanError("option controller_host: %r is not one of %s" % (opts["controller_host"],
                                                                         ", ".join(CONTROLLER_HOSTS)))
    opts["in_service"] = _in_service_setting(opts["in_service"])
    if opts["kafka_version"] is not None:
        opts["kafka_version"] = str(opts["kafka_version"])
        try:
            kafka_release(opts["kafka_version"])
        except ValueError as exc:
            raise PlanError("option %s" % exc) from exc
    opts["check_connectivity"] = bool(opts["check_connectivity"])
    opts["allow_loopback"] = bool(opts["allow_loopback"])
    opts["in_phases"] = _boolean("in_phases", opts["in_phases"])
    opts["bind_address"] = validate_host(opts["bind_address"], "option bind_address")
    for key in ("internal_listener_name", "external_listener_name", "controller_listener_name"):
        opts[key] = _listener_name(opts[key], key)
    for key in ("single_port", "internal_port", "external_port", "controller_port"):
        opts[key] = _port(opts[key], key)
    protocols = {}
    if not isinstance(opts["security_protocols"], dict):
        raise PlanError("option security_protocols: expected a mapping of listener name to protocol")
    for name, protocol in opts["security_protocols"].items():
        proto = str(protocol).upper()
        if proto not in SECURITY_PROTOCOLS:
            raise PlanError("option security_protocols: %r for listener %s is not one of %s"
                            % (protocol, name, ", ".join(SECURITY_PROTOCOLS)))
        protocols[_listener_name(name, "security_protocols")] = proto
    opts["security_protocols"] = protocols
    # option 1 keeps Kafka's default listener name, PLAINTEXT
    opts["single_listener_name"] = _listener_name(opts["single_listener_name"], "single_listener_name")
    if opts["inter_broker_listener"] is not None:
        opts["inter_broker_listener"] = _listener_name(opts["inter_broker_listener"], "inter_broker_listener")
    docker = []
    for index, item in enumerate(opts["docker_listeners"] or ()):
        where = "docker_listeners[%d]" % index
        if not isinstance(item, dict) or set(item) - {"name", "port", "host"} or "host" not in item:
            raise PlanError("option %s: expected {name, port, host} with host container|localhost|external|<a host>"
                            % where)
        host = item["host"]
        if host not in ("container", "localhost", "external"):
            host = validate_host(host, "option %s.host" % where)
            _refuse_special(host, "option %s.host %r" % (where, item["host"]), opts["allow_loopback"],
                            " (the keyword localhost serves clients on the Docker host)")
        docker.append({"name": _listener_name(item.get("name"), where + ".name"),
                       "port": _port(item.get("port"), where + ".port"), "host": host})
    opts["docker_listeners"] = docker
    opts["client_networks"] = _client_networks(opts["client_networks"])
    if opts["networks"] is not None and opts["mode"] not in ("auto", "networks"):
        raise PlanError("option networks replaces the layout of mode %s: use mode auto (private networks share a "
                        "public route whose names resolve from every broker) or networks (each route its own "
                        "listener)" % opts["mode"])
    if opts["mode"] == "networks" and opts["networks"] is None:
        raise PlanError("option mode: networks needs the networks option (the client networks and their routes)")
    if opts["networks"] is not None:
        try:
            normalise_networks(opts["networks"], opts["controller_listener_name"], opts["controller_port"])
        except RouteError as exc:
            raise PlanError(str(exc)) from exc
        opts["networks"] = copy.deepcopy(list(opts["networks"]))
    return opts


def _boolean(option: str, value: object) -> bool:
    """A boolean option, also as the words YAML and ``-e`` give (a string "false" is not true)."""
    words = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise PlanError("option %s: %r is not true or false" % (option, value))


def _in_service_setting(value: object):
    words = {"auto": "auto", "true": True, "yes": True, "false": False, "no": False}
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise PlanError("option in_service: %r is not auto, true or false" % (value,))


def plan_options(options: dict | None) -> dict:
    """Return the planning options checked and with every default filled in (PlanError names a bad one)."""
    try:
        opts = _normalise_options(options)
    except HostError as exc:
        raise PlanError(str(exc)) from exc
    opts["docker_listeners"] = [dict(item) for item in opts["docker_listeners"]]
    return opts


def _client_networks(value: object) -> dict:
    if not isinstance(value, dict):
        raise PlanError("option client_networks: expected a mapping of client network to the endpoint networks that "
                        "serve it (a list, most specific first), got %r" % (value,))
    networks = {}
    for client, served_by in value.items():
        items = [served_by] if isinstance(served_by, str) else served_by
        if not isinstance(client, str) or not client.strip() or not isinstance(items, (list, tuple)) or not items \
                or not all(isinstance(item, str) and item.strip() for item in items):
            raise PlanError("option client_networks: %r: expected a non-empty list of endpoint network names "
                            "(internal, external, all, docker-host, container or a docker listener's network), "
                            "got %r" % (client, served_by))
        networks[client.strip()] = [item.strip() for item in items]
    return networks


def _protocol(opts: dict, name: str) -> str:
    # a listener named after a protocol defaults to it, as in Kafka's default map; anything else to PLAINTEXT
    return opts["security_protocols"].get(name, name if name in SECURITY_PROTOCOLS else "PLAINTEXT")


# ---------------------------------------------------------------------------------------------------- facts


def _roles(value: object, where: str) -> tuple:
    if value in (None, "", []):
        return ()
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise PlanError("%s: process_roles must be a list of broker/controller" % where)
    roles = tuple(sorted({str(role).strip().lower() for role in items}))
    bad = [role for role in roles if role not in _ROLES]
    if bad:
        raise PlanError("%s: unknown process role(s) %s (only broker and controller)" % (where, ", ".join(bad)))
    return roles


def _normalise_brokers(brokers: list, allow_loopback: bool = False) -> list:
    if not isinstance(brokers, (list, tuple)) or not brokers:
        raise PlanError("brokers: expected a non-empty list of broker facts")
    nodes, names, ids, refused = [], set(), set(), []
    for index, facts in enumerate(brokers):
        if not isinstance(facts, dict):
            raise PlanError("brokers[%d]: expected a mapping of facts, got %s" % (index, type(facts).__name__))
        name = str(facts.get("name") or "")
        where = "broker %s" % name if name else "brokers[%d]" % index
        if not name:
            raise PlanError("%s: 'name' is required (the inventory host name)" % where)
        node_id = facts.get("node_id")
        if isinstance(node_id, bool) or not isinstance(node_id, (int, str)) or not str(node_id).isdigit():
            raise PlanError("%s: node_id %r is not a non-negative integer" % (where, node_id))
        node_id = int(node_id)
        if name in names:
            raise PlanError("%s: the name appears twice in the broker list" % where)
        if node_id in ids:
            raise PlanError("%s: node_id %d is used by another node" % (where, node_id))
        names.add(name)
        ids.add(node_id)
        node = {"name": name, "node_id": node_id, "roles": _roles(facts.get("process_roles"), where)}
        source = facts.get("source")
        for key in HOST_KEYS:
            value = facts.get(key)
            what = "%s of %s%s" % (key, where, " (from %s)" % source if source else "")
            node[key] = None if value in (None, "") else validate_host(value, what)
            special = None if node[key] is None else special_address(node[key])
            if special is not None and not (special[0] == "loopback" and allow_loopback):
                refused.append((special[0], "%s %r is %s" % (what, value, special[1])))
        node["external_checks"] = _external_checks(facts.get("external_checks"), where)
        current = facts.get("current_properties")
        if current is not None and not isinstance(current, dict):
            raise PlanError("%s: current_properties must be a mapping of server.properties keys" % where)
        node["current"] = {str(key): str(value) for key, value in (current or {}).items() if value is not None}
        # the inter-broker listener it runs now; None when its current properties were not given
        node["running_inter_broker"] = None if current is None else inter_broker_listener(node["current"])
        node["partitions"] = _partitions(facts.get("partitions"), where)
        nodes.append(node)
    refused.extend(_resolved_to_special(nodes, allow_loopback))
    if refused:
        classes = sorted({klass for klass, line in refused}, key=list(_SPECIAL_WHY).index)
        raise PlanError("hosts no client could use in advertised listeners (nothing was written): %s. %s" % (
            "; ".join(line for klass, line in refused),
            " ".join("%s addresses: %s." % (klass.capitalize(), _SPECIAL_WHY[klass]) for klass in classes)))
    kraft = {bool(node["roles"]) for node in nodes}
    if len(kraft) > 1:
        raise PlanError("brokers: some nodes have process_roles (KRaft) and some have none (ZooKeeper mode); "
                        "a cluster runs one or the other")
    return nodes


def _partitions(value: object, where: str) -> list | None:
    """A node's ``partitions`` (the ``topic-N`` replicas it keeps now), None when not known."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise PlanError("%s: partitions must be a list of partition names (topic-N), got %r" % (where, value))
    return list(value)


def _renames(nodes: list, plans: list, in_service: bool) -> list:
    """The (old, new) inter-broker listener renames of ``plans`` that matter, sorted: in ZooKeeper mode, or on a
    KRaft cluster in service of more than one broker (one broker fetches from nobody)."""
    brokers = [node for node in nodes if _is_broker(node)]
    renames = {(node["running_inter_broker"], plan["inter_broker_listener"])
               for node, plan in zip(nodes, plans)  # noqa: B905 - one plan per node; strict= is 3.10+
               if _is_broker(node) and plan["inter_broker_listener"] is not None
               and node["running_inter_broker"] not in (None, plan["inter_broker_listener"])}
    if nodes[0]["roles"] and (not in_service or len(brokers) < 2):
        return []
    return sorted(renames)


def _unsafe_renames(nodes: list, plans: list, in_service: bool) -> list:
    """The renames of :func:`_renames` that cannot roll one broker at a time (see
    :func:`_refuse_inter_broker_rename`); a switch to a listener every broker runs already rolls when every broker
    keeps the old one, which the brokers not restarted yet fetch over."""
    renames = _renames(nodes, plans, in_service)
    if not renames:
        return []
    brokers = [node for node in nodes if _is_broker(node)]
    everywhere = set.intersection(*(_running_names(node) for node in brokers))
    kept = set.intersection(*(_planned_names(plan) for node, plan in zip(nodes, plans)  # noqa: B905
                              if _is_broker(node)))
    return sorted(pair for pair in renames if pair[1] not in everywhere or pair[0] not in kept)


def _planned_names(plan: dict) -> set:
    """The listener names a node plan binds."""
    return {endpoint.listener for endpoint in parse_listener_list(plan["properties"].get("listeners") or "")}


def _refuse_inter_broker_rename(nodes: list, plans: list, in_service: bool) -> None:
    """Refuse a plan that renames the inter-broker listener in one rolling restart: in ZooKeeper mode always, on a
    KRaft cluster in service (``in_service``).

    A ZooKeeper-mode controller sends each broker its metadata over the controller's own inter-broker listener
    name, looked up in the broker's registration: a broker restarted without a listener of that name gets no
    metadata at all (real Kafka 3.9.2 lists no broker, not even itself). In both modes a broker restarted with the
    new name fetches from its partitions' leaders on that name, which the brokers not restarted yet do not advertise
    (LISTENER_NOT_FOUND): every partition it hosts leaves its ISR and the rollout stops half-way (an independent lab
    on Kafka 3.9.1 and 4.1.1 with a replicated topic). An empty cluster has no partitions to lose, which is why only
    a cluster in service of more than one broker is refused in KRaft mode.
    """
    renamed = _unsafe_renames(nodes, plans, in_service)
    if not renamed:
        return
    pairs = ", ".join("%s -> %s" % pair for pair in renamed)
    old = " / ".join(sorted({name for name, _new in renamed}))
    if nodes[0]["roles"]:
        why = ("KRaft cluster in service: the plan renames the inter-broker listener (%s), which cannot roll one "
               "broker at a time: a broker restarted with the new name fetches from its partitions' leaders on it, the "
               "brokers not restarted yet do not advertise it (LISTENER_NOT_FOUND), and its partitions leave their "
               "ISR" % pairs)
        empty = " For a cluster that holds no data yet, in_service: false plans it as new."
    else:
        why = ("ZooKeeper mode: the plan renames the inter-broker listener (%s), which cannot roll one broker at a "
               "time: the controller reaches each broker by the inter-broker listener name it runs, so a restarted "
               "broker without it gets no metadata" % pairs)
        empty = ""
    raise PlanError(
        "%s. Keep the name (option internal_listener_name or single_listener_name, or inter_broker_listener, set to "
        "%s; the default mode auto keeps it), or change it in three rolling restarts (add the new listener beside "
        "the old, switch inter.broker.listener.name once every broker runs the new one, remove the old listener: "
        "in_phases: true with the layout as option networks plans them, one after the other; the guide 'A cluster "
        "already in service' gives them).%s Nothing was written." % (why, old, empty))


def _running_names(node: dict) -> set:
    """The listener names a node's current file binds (empty when its file was not given or does not parse)."""
    try:
        return {endpoint.listener for endpoint in parse_listener_list(node["current"].get("listeners", ""))}
    except EndpointError:
        return set()


def _resolved_to_special(nodes: list, allow_loopback: bool) -> list:
    """(class, line) for each name of the cluster that resolved, from some node, to an address no other machine can
    use; names refused for their spelling already are not repeated."""
    names = [(owner["name"], key, owner[key]) for owner in nodes for key in HOST_KEYS if owner[key] is not None
             and ip_literal(owner[key]) is None and special_address(owner[key]) is None]
    wanted = {host.lower() for _owner, _key, host in names}
    # one pass over every node's checks, not one per name: {name: {(address, class): the nodes it was seen from}}
    seen: dict = {}
    classes: dict = {}
    for checker in nodes:
        for name, check in checker["external_checks"].items():
            addresses = check.get("addresses") if name in wanted else None
            for address in addresses if isinstance(addresses, (list, tuple)) else ():
                address = str(address)
                if address not in classes:
                    classes[address] = address_class(address)
                klass = classes[address]
                if klass is not None and not (klass == "loopback" and allow_loopback):
                    seen.setdefault(name, {}).setdefault((address, klass), []).append(checker["name"])
    return [(klass, "%s %r of broker %s resolves to %s, a %s address, from broker %s"
             % (key, host, owner, address, klass, ", ".join(checkers)))
            for owner, key, host in names for (address, klass), checkers in seen.get(host.lower(), {}).items()]


def _external_checks(checks: object, where: str) -> dict:
    """Accept {name: {resolvable, connectable}} or the resolvability module's list of per-name results."""
    if isinstance(checks, (list, tuple)):
        if not all(isinstance(item, dict) and isinstance(item.get("name"), str) for item in checks):
            raise PlanError("%s: external_checks as a list needs one mapping with a 'name' per checked name" % where)
        checks = {item["name"]: item for item in checks}
    if not isinstance(checks or {}, dict):
        raise PlanError("%s: external_checks must map each external name to {resolvable, connectable}" % where)
    return {str(k).rstrip(".").lower(): v for k, v in (checks or {}).items() if isinstance(v, dict)}


def _is_broker(node: dict) -> bool:
    return not node["roles"] or "broker" in node["roles"]


def _is_controller(node: dict) -> bool:
    return "controller" in node["roles"]


def _controller_host(node: dict, opts: dict, why: str) -> str:
    if opts["controller_host"] == "private_ip":
        if node["private_ip"] is None:
            raise PlanError("broker %s: private_ip is required %s (option controller_host is private_ip)"
                            % (node["name"], why))
        return node["private_ip"]
    return _require_private(node, why)


def _require_private(node: dict, why: str) -> str:
    if node["private_host"] is None:
        raise PlanError("broker %s: private_host is required %s" % (node["name"], why))
    return node["private_host"]


def _external_host(node: dict) -> str | None:
    return node["public_dns"] or node["public_ip"]


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


def _refuse_special(host: str, what: str, allow_loopback: bool, hint: str = "") -> None:
    special = special_address(host)
    if special is not None and not (special[0] == "loopback" and allow_loopback):
        raise PlanError("%s is %s, a %s address: %s%s" % (what, special[1], special[0], _SPECIAL_WHY[special[0]],
                                                          hint))


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


def _quorum(nodes: list, opts: dict) -> dict:
    controllers = [node for node in nodes if _is_controller(node)]
    if not controllers:
        raise PlanError("KRaft: no node has the controller role; at least one is needed for the quorum. Plan the "
                        "controllers together with the brokers (dedicated controllers in another inventory group: "
                        "run the site playbook with kafka_broker_group=kafka_brokers:kafka_controllers)")
    port = opts["controller_port"]
    if opts["quorum"] == "voters":
        voters = ",".join("%d@%s" % (node["node_id"], format_hostport(
            _controller_host(node, opts, "for the controller quorum"), port)) for node in controllers)
        return {"controller.quorum.voters": voters, "controller.quorum.bootstrap.servers": None}
    servers = ",".join(format_hostport(_controller_host(node, opts, "for the controller quorum"), port)
                       for node in controllers)
    return {"controller.quorum.voters": None, "controller.quorum.bootstrap.servers": servers}


def _current_controller_endpoint(props: dict) -> tuple | None:
    """(host, port) a node's current file gives its first controller listener, as Kafka derives the advertised
    controller endpoint (``advertised.listeners``, else ``listeners``); None when there is none or it does not parse."""
    names = _split_csv(props.get("controller.listener.names", ""))
    if not names:
        return None
    for key in ("advertised.listeners", "listeners"):
        for entry in _split_csv(props.get(key, "")):
            try:
                endpoint = parse_endpoint(entry)
            except EndpointError:
                return None
            if endpoint.listener == names[0].upper():
                return endpoint.host, endpoint.port
    return None


def _check_dynamic_quorum_moves(nodes: list, plans: list) -> None:
    """Refuse a plan that moves a controller's endpoint when the cluster runs a dynamic quorum: a rollout of file
    edits does not reliably move the voters (see docs/docsite/rst/recipe-kraft.rst)."""
    dynamic = [node["name"] for node in nodes if node["current"].get("controller.quorum.bootstrap.servers", "").strip()
               and not node["current"].get("controller.quorum.voters", "").strip()]
    if not dynamic:
        return
    moves = []
    for index, node in enumerate(nodes):
        old = _current_controller_endpoint(node["current"])
        planned = plans[index]["controller_endpoint"]
        if old is None or planned is None or (old[0].lower(), old[1]) == (planned["host"].lower(), planned["port"]):
            continue
        moves.append("controller %s (node %d) from %s to %s" % (
            node["name"], node["node_id"], format_hostport(*old), format_hostport(planned["host"], planned["port"])))
    if moves:
        raise PlanError(
            "this plan moves %s, but the cluster runs a dynamic KRaft quorum (controller.quorum.bootstrap.servers on "
            "%s): the voters' endpoints live in the metadata log, not in server.properties. Nothing was written. "
            "Restarting the controllers one after another on edited files does not reliably move the voters: in the "
            "lab Kafka 3.9.2 kept the old endpoints and lost its quorum, and Kafka 4.4.0 once kept two of three "
            "voters on their old endpoints for two minutes. Move one controller at a time with Kafka's own "
            "procedure (kafka-metadata-quorum remove-controller, format it again, start it, kafka-metadata-quorum "
            "add-controller, and check kafka-metadata-quorum describe --replication), or keep its current endpoint "
            "(controller_port, or the node's private host in broker_static_facts)"
            % ("; ".join(moves), ", ".join(dynamic)))


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


def plan_listeners(brokers: list, options: dict | None = None) -> dict:
    """Plan the listeners of every node of one cluster.

    ``brokers`` is a list of per-node facts: ``name`` (inventory name), ``node_id``, ``private_host``,
    ``public_dns`` and/or ``public_ip`` (either may be null), ``process_roles`` (empty for ZooKeeper mode),
    ``external_checks`` ({name: {resolvable, connectable, addresses}} as seen from this node, or the resolvability
    module's ``results`` list; ``auto`` reads the public names' entries), for ``docker``, ``container_name``, and
    optionally ``source`` (where the hosts came from, for messages) and ``current_properties`` (the node's current
    inter-broker and controller keys: in ZooKeeper mode a rename of the inter-broker listener is refused, and so is
    a moved controller endpoint of a dynamic quorum below Kafka 4.4).
    ``options`` overrides :data:`DEFAULT_OPTIONS`; with ``networks`` the plan's mode is ``networks`` and the plan
    also holds ``networks``: the option spelt out as planned (each network's route, listener, port and protocol, the
    inter-broker route marked), which with ``mode: networks`` plans the same listeners again without the checks.

    Returns ``{"mode", "reason", "bootstrap": {endpoint network: "host:port,..."}, "clients": {client network:
    {"bootstrap", "listener", "protocol", "endpoint_network"}}, "plaintext_outside": [listener, ...], "brokers":
    [node plan, ...]}``: ``clients`` answers each client network of the ``client_networks`` option that the plan
    serves, ``plaintext_outside`` names the listeners serving clients outside the private network in PLAINTEXT,
    ``in_service`` says whether the cluster was planned as one in service (see _in_service), and
    ``bootstrap_before`` ({client network: {"bootstrap", "listener", "protocol"}}) what each client network could
    bootstrap on before this run: the listener serving it among those the brokers advertise now (explicitly; with
    ``in_service: true`` also from ``listeners``), whatever the plan does with it, {} when nothing is advertised
    (see :func:`._in_service.bootstrap_before`). The verify role checks that it still works after the run.
    Each node plan holds ``properties`` (managed server.properties keys; None removes a key), ``endpoints``
    (advertised client endpoints: listener, host, port, hostport (IPv6 bracketed), protocol and the network each is
    meant for), ``health_endpoint`` (the endpoint its own machine checks it on, or None on a controller-only node),
    ``tls_listeners`` (its listeners, the controller's included, on SSL or SASL_SSL) and ``controller_endpoint``.
    Every host is validated as a
    DNS name or IP literal that is not, and does not resolve from any node to, a loopback (unless ``allow_loopback``),
    unspecified, link-local, multicast or broadcast address, and every node's result passes Kafka's startup rules;
    else PlanError says why, naming every refused host at once.
    """
    try:
        opts = _normalise_options(options)
        nodes = _normalise_brokers(brokers, opts["allow_loopback"])
        in_service, advertised_only, why = service_state(nodes, opts["in_service"])
    except HostError as exc:
        raise PlanError(str(exc)) from exc
    except InServiceError as exc:
        raise PlanError(str(exc)) from None
    plan = _plan_cluster(nodes, opts, options, in_service, advertised_only)
    if why:
        plan["reason"] = "%s; %s" % (why, plan["reason"])
    # what each client network could bootstrap on before this run, whether or not the plan keeps it
    plan["bootstrap_before"] = bootstrap_before(nodes, _is_broker, advertised_only)
    return plan


def _plan_cluster(nodes: list, opts: dict, options: dict | None, in_service: bool, advertised_only: bool) -> dict:
    """The plan of :func:`plan_listeners` but ``bootstrap_before``; ``advertised_only``: only explicitly advertised
    listeners count as what clients use now (else ``listeners`` too, an empty host being the machine's own name)."""
    if not in_service or opts["mode"] != "auto" or opts["networks"] is not None:
        plan = _plan(nodes, opts)
        checked = in_service and opts["in_service"] is not False
        if opts["in_phases"]:
            renamed = _renames(nodes, plan["brokers"], checked)
            if renamed:  # the switch too, which rolls as asked once every broker runs both: named as a phase
                return _phase_plan(nodes, opts, options, renamed)
        if checked or not nodes[0]["roles"]:
            _refuse_inter_broker_rename(nodes, plan["brokers"], in_service=checked)
        plan["in_service"] = in_service
        return plan
    # a cluster in service: the documented layout when it keeps everything that runs, else what runs plus what the
    # client networks miss
    # what the user set: the broker role passes every option, its defaults included
    explicit = {key for key, value in (options or {}).items()
                if value is not None and value != DEFAULT_OPTIONS.get(key)}
    running = running_controller_options(nodes, explicit, advertised_only)
    try:
        fresh = _plan(nodes, _normalise_options(dict(options or {}, **running)))
    except PlanError:
        fresh = None
    if fresh is not None and _keeps_what_runs(nodes, fresh, advertised_only):
        fresh["reason"] = "in service, and the layout keeps every listener's name and port: " + fresh["reason"]
        fresh["options"] = running
        fresh["in_service"] = True
        return fresh
    try:
        derived, reason = in_service_options(nodes, opts, explicit, _is_broker)
    except InServiceError as exc:
        raise PlanError("cluster in service: %s. Nothing was written" % exc) from None
    plan = _plan(nodes, _normalise_options(dict(options or {}, **running, **derived)))
    plan["reason"] = reason
    plan["options"] = dict(running, inter_broker_listener=None)
    plan["in_service"] = True
    return plan


def _phase_plan(nodes: list, opts: dict, options: dict | None, renamed: list) -> dict:
    """The plan of the next phase of the inter-broker listener's rename ``renamed`` [(old, new)] (see _phases)."""
    if opts["networks"] is None:
        raise PlanError("option in_phases: the rename of the inter-broker listener (%s) goes in phases from a layout "
                        "given as option networks (the guide 'A cluster already in service' spells the dual layout "
                        "that way); mode %s is not. Nothing was written"
                        % (", ".join("%s -> %s" % pair for pair in renamed), opts["mode"]))
    olds, news = {old for old, _new in renamed}, {new for _old, new in renamed}
    if len(olds) > 1 or len(news) > 1:
        raise PlanError("option in_phases: the brokers would rename different inter-broker listeners (%s); one "
                        "rename goes in phases at a time. Nothing was written"
                        % ", ".join("%s -> %s" % pair for pair in renamed))
    old, new = olds.pop(), news.pop()
    brokers = [node for node in nodes if _is_broker(node)]
    try:
        old_entry = running_route(nodes, old, _is_broker)
        phases = phases_to_come(opts["networks"], old, new, all(new in _running_names(node) for node in brokers))
        networks = phase_networks(opts["networks"], old_entry, new, phases[0])
    except (InServiceError, PhaseError) as exc:
        raise PlanError("option in_phases: %s. Nothing was written" % exc) from None
    plan = _plan(nodes, _normalise_options(dict(options or {}, networks=networks, inter_broker_listener=None,
                                                in_phases=False)))
    total = 2 + ("remove" in phases)
    steps = ["phase %d of %d (%s): %s" % (total - len(phases) + 1 + index, total, phase, describe(phase, old, new))
             for index, phase in enumerate(phases)]
    plan["reason"] = "in phases, the inter-broker listener renamed %s -> %s: now %s%s; %s" % (
        old, new, steps[0], "; to come in the next rolling restarts: %s" % "; ".join(steps[1:]) if steps[1:] else "",
        plan["reason"])
    plan["phases"] = [{"phase": phase, "does": step} for phase, step in zip(phases, steps)]  # noqa: B905
    # what the start-time program re-plans a node from: this phase's listeners, not the target's
    plan["options"] = {"in_phases": False, "inter_broker_listener": None}
    plan["in_service"] = True
    return plan


def _keeps_what_runs(nodes: list, plan: dict, advertised_only: bool = True) -> bool:
    """Whether ``plan`` keeps every client listener each broker advertises now (its name, advertised port and
    protocol: the names it advertises may change, as a public name does when an instance restarts), the inter-broker
    listener, the controllers' endpoints and the quorum's style, on every node that advertises a client listener
    explicitly (the others are planned as new: a rollout of this layout stopped half-way finishes)."""
    for node, node_plan in zip(nodes, plan["brokers"]):  # noqa: B905 - one plan per node; strict= is 3.10+
        try:
            if not node_in_service(node, advertised_only):
                continue
        except InServiceError:
            return False
        planned = {(item["listener"], item["port"], item["protocol"]) for item in node_plan["endpoints"]}
        running = node["running_inter_broker"]
        if running is not None and _is_broker(node) and running != node_plan["inter_broker_listener"]:
            return False
        try:
            current = current_client_endpoints(node, advertised_only)
        except InServiceError:
            return False
        if not all((name, port, protocol) in planned for name, _host, port, protocol in current):
            return False
        old = _current_controller_endpoint(node["current"])
        new = node_plan["controller_endpoint"]
        if old is not None and old[0] and new is not None \
                and (old[0].lower(), old[1]) != (new["host"].lower(), new["port"]):
            return False
        props = node_plan["properties"]
        for key in KRAFT_KEYS[1:]:
            now = node["current"].get(key, "")
            if now.strip() and _quorum_set(now) != _quorum_set(props.get(key)):
                return False
    return True


def _quorum_set(value: str | None) -> set:
    """The entries of a quorum key, compared as Kafka does: order and the case of host names do not matter."""
    return {item.strip().lower() for item in _split_csv(value or "")}


def _plan(nodes: list, opts: dict) -> dict:
    """The plan of ``nodes`` (normalised facts) with ``opts`` (normalised options)."""
    try:
        mode, reason = _choose_mode(nodes, opts)
        layout = _layout(mode, nodes, opts)
    except (HostError, RouteError) as exc:
        raise PlanError(str(exc)) from exc
    reason += layout["reason"]
    opts = dict(opts, security_protocols=layout["security_protocols"])
    quorum = _quorum(nodes, opts) if nodes[0]["roles"] else None
    plans = [_plan_node(node, mode, layout, opts, quorum) for node in nodes]
    if quorum is None and not opts["in_phases"]:  # in phases: _plan_cluster plans the next phase instead
        _refuse_inter_broker_rename(nodes, plans, in_service=False)
    else:
        _check_dynamic_quorum_moves(nodes, plans)
    if mode == "dual":
        internal_only = [plan["name"] for plan in plans if plan["endpoints"] and len(plan["endpoints"]) == 1]
        if internal_only:
            reason += "; internal listener only (no public address) on: %s" % ", ".join(internal_only)
    for plan in plans:
        findings = check_kafka_config(node_properties(plan), kafka_version=opts["kafka_version"])
        if findings:
            raise PlanError("broker %s: the planned listeners break Kafka's startup rules: %s" % (
                plan["name"], "; ".join("%s: %s" % (f["rule"], f["message"]) for f in findings)))
    bootstrap = {}
    for plan in plans:
        for endpoint in plan["endpoints"]:
            bootstrap.setdefault(endpoint["network"], []).append(endpoint["hostport"])
    bootstrap = {network: ",".join(items) for network, items in bootstrap.items()}
    plan = {
        "mode": mode,
        "reason": reason,
        "bootstrap": bootstrap,
        "clients": _clients(plans, bootstrap, layout["client_networks"]),
        "plaintext_outside": _plaintext_outside(plans, layout["outside"]),
        "brokers": plans,
    }
    if mode == "networks":
        plan["networks"] = layout["networks"]
    return plan


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
    """{listener: {"endpoint_network", "route"}} of a plan from :func:`plan_listeners`: the endpoint network each
    listener's endpoints are labelled with (a networks route's first network) and the route its clients take
    (``private``, ``public``, ... as in ``_client_routes``; a docker layout's listener for its container network is
    ``container``, one with a fixed host such as localhost ``literal``)."""
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
