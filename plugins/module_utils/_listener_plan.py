# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The listener plan: which listeners every node of a Kafka cluster binds and advertises.

Private to kafkaops.listeners: no compatibility promise outside the collection.

This is the one place that decides listener layouts. Modules, filters, the lint command and the fleet audit all
call :func:`plan_listeners`; nothing re-implements this logic in Jinja or Spark.

This module plans a cluster: a new one, one in service (see ``_in_service``) or the next phase of a rename of the
inter-broker listener (see ``_phases``), and checks every node plan with Kafka's startup rules. Its parts, each in
a module of its own: the options (``_plan_options``), the node facts (``_plan_nodes``), the layouts and node plans
(``_plan_layout``), the controller quorum (``_plan_quorum``), the rules for renaming the inter-broker listener
(``_plan_renames``) and what the plan gives its clients (``_plan_clients``).
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_routes import RouteError
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import HostError
from ansible_collections.kafkaops.listeners.plugins.module_utils._in_service import (
    InServiceError,
    bootstrap_before,
    current_client_endpoints,
    in_service_options,
    keeps_private_names,
    node_in_service,
    running_controller_options,
    running_route,
    service_state,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._phases import (
    PhaseError,
    check_remove,
    describe,
    phase_networks,
    phases_to_come,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_clients import (
    _clients,
    _plaintext_outside,
    listener_routes,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_layout import (
    _choose_mode,
    _layout,
    _plan_node,
    inter_broker_hosts,
    names_to_resolve,
    node_properties,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_nodes import (
    PlanError,
    _is_broker,
    _normalise_brokers,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_options import (
    DEFAULT_OPTIONS,
    _normalise_options,
    plan_options,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_quorum import (
    _check_dynamic_quorum_moves,
    _current_controller_endpoint,
    _quorum,
    _quorum_set,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_renames import (
    _refuse_inter_broker_rename,
    _renames,
    _running_names,
)

__all__ = [
    "PlanError",
    "inter_broker_hosts",
    "listener_routes",
    "names_to_resolve",
    "node_properties",
    "plan_listeners",
    "plan_options",
]

#: the quorum keys a node of a cluster in service keeps (compared as sets of entries)
KRAFT_KEYS = ("controller.listener.names", "controller.quorum.voters", "controller.quorum.bootstrap.servers")


def plan_listeners(brokers: list, options: dict | None = None, records=None, remove_in_use: bool = False,
                   applied: bool = True) -> dict:
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
    ``bootstrap_before`` ({client network: {"bootstrap", "listener", "protocol"[, "also"]}}) what each client network
    could bootstrap on before this run: the listeners serving it among those the brokers advertise now (the first,
    and the others under ``also`` when several serve it; explicitly; with
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

    With ``in_phases``, a plan that leaves out a listener the brokers run now (the ``remove`` phase) is refused while
    the verify records show a client network bootstrapping on it, unless ``remove_in_use`` (see
    :func:`._phases.check_remove`); ``records`` is a callable returning ``(used, warnings, source)`` as it takes them,
    called only then (None: no records). A plan that will not be ``applied`` (planned only) is not refused; its
    reason says what a run applying it would refuse.
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
    if opts["in_phases"] and not plan.get("phases"):
        removed = _removed_listeners(nodes, plan, advertised_only)
        if removed:
            try:
                note = check_remove(removed, records() if records else ({}, [], ""),
                                    plan.get("clients") or {}, remove_in_use, applied)
            except PhaseError as exc:
                raise PlanError("option in_phases: %s. Nothing was written" % exc) from None
            plan["reason"] = "in phases, the last (remove): %s; %s" % (note, plan["reason"])
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


def _removed_listeners(nodes: list, plan: dict, advertised_only: bool) -> dict:
    """{listener: (port, hosts)} of the client listeners brokers advertise now that ``plan`` leaves out: the hosts
    they are advertised on and every broker's names and IPs (the hosts a client may bootstrap on them with)."""
    brokers = [node for node in nodes if _is_broker(node)]
    names = [node[key] for node in brokers for key in ("private_host", "private_ip", "public_dns", "public_ip")]
    removed: dict = {}
    for node, node_plan in zip(nodes, plan["brokers"]):  # noqa: B905 - one plan per node; strict= is 3.10+
        if not _is_broker(node):
            continue
        kept = {item["listener"] for item in node_plan["endpoints"]} | {node_plan["inter_broker_listener"]}
        try:
            current = current_client_endpoints(node, advertised_only)
        except InServiceError:
            continue  # a file that does not parse is refused by the plan itself
        for listener, host, port, _protocol in current:
            if listener not in kept:
                removed.setdefault(listener, (port, list(names)))[1].append(host)
    return removed


def _keeps_what_runs(nodes: list, plan: dict, advertised_only: bool = True) -> bool:
    """Whether ``plan`` keeps every client listener each broker advertises now (its name, advertised port and
    protocol: the names it advertises may change, as a public name does when an instance restarts, but not from the
    private names to public names the VPC does not resolve: see keeps_private_names), the inter-broker
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
        if not keeps_private_names(node, [item for item in nodes if _is_broker(item)], current,
                                   node_plan["endpoints"]):
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
