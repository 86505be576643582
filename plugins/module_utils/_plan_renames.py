# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The listener plan's rules for renaming the inter-broker listener: which renames a plan makes, which of them cannot
roll one broker at a time, and their refusal (the phases that make them safely are in ``_phases``).

Private to kafkaops.listeners: no compatibility promise outside the collection.
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import EndpointError, parse_listener_list
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_nodes import PlanError, _is_broker


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
