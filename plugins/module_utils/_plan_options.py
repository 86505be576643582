# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The listener plan's options: their defaults (:data:`DEFAULT_OPTIONS`), how each is checked and normalised, and
:func:`plan_options`, the options filled in.

Private to kafkaops.listeners: no compatibility promise outside the collection.
"""

from __future__ import annotations

import copy
import re

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_routes import RouteError, normalise_networks
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import SECURITY_PROTOCOLS
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import HostError, validate_host
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import kafka_release
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_nodes import PlanError, _refuse_special

MODES = ("auto", "single", "dual", "docker", "networks")
QUORUM_STYLES = ("voters", "bootstrap")
CONTROLLER_HOSTS = ("private_host", "private_ip")

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

_LISTENER_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


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
