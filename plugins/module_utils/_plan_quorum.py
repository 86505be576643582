# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The listener plan's KRaft controller quorum: the quorum keys of a plan (``controller.quorum.voters`` or
``controller.quorum.bootstrap.servers``), the controller endpoint a node's current file gives, and the refusal of a
plan that moves a controller of a dynamic quorum.

Private to kafkaops.listeners: no compatibility promise outside the collection.
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    EndpointError,
    _split_csv,
    parse_endpoint,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import format_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._plan_nodes import (
    PlanError,
    _controller_host,
    _is_controller,
)


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


def _quorum_set(value: str | None) -> set:
    """The entries of a quorum key, compared as Kafka does: order and the case of host names do not matter."""
    return {item.strip().lower() for item in _split_csv(value or "")}
