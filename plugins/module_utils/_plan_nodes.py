# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The listener plan's node facts: each node's facts checked and normalised (name, node id, process roles, hosts,
external checks, current properties, partitions), the refusal of hosts no client could use, and what a node is
(broker, controller) and where it is reached (its controller host, its private and external hosts).

Private to kafkaops.listeners: no compatibility promise outside the collection.

It also holds :class:`PlanError`, raised by every part of the plan.
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import inter_broker_listener
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import (
    address_class,
    ip_literal,
    special_address,
    validate_host,
)

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
_ROLES = ("broker", "controller")


class PlanError(ValueError):
    """The facts or options cannot give a valid plan; the message names the input and what is wrong."""


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


def _refuse_special(host: str, what: str, allow_loopback: bool, hint: str = "") -> None:
    special = special_address(host)
    if special is not None and not (special[0] == "loopback" and allow_loopback):
        raise PlanError("%s is %s, a %s address: %s%s" % (what, special[1], special[0], _SPECIAL_WHY[special[0]],
                                                          hint))
