# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A rename of the inter-broker listener, in phases that each roll one broker at a time (option ``in_phases``).

Private to kafkaops.listeners: no compatibility promise outside the collection.

A broker restarted with a new inter-broker listener name fetches from its partitions' leaders on that name; brokers
not restarted yet do not advertise it (LISTENER_NOT_FOUND), so one rolling restart cannot rename it on a cluster
holding data. Asked for with ``in_phases``, the planner plans the next of these phases instead of the layout asked for
(the ``networks`` option, the target), each a complete rolling restart after which every replica and every client
works:

1. ``add``: the target's listeners beside the inter-broker listener the brokers run now, which stays the
   inter-broker listener (kept with its port, protocol and advertised names);
2. ``switch``: ``inter.broker.listener.name`` to the target's, the old listener still running on every broker, so a
   broker not restarted yet fetches from a restarted one over it;
3. ``remove``: the target as asked, when it leaves the old listener out.

The phase a cluster is in is read from its brokers' files, which hold what runs (the rollout writes a broker's file
just before its restart, and a restart left unfinished is marked and done by the next run): the target's
inter-broker listener on every broker means ``add`` is done; every broker replicating over it means ``switch`` is.
So a run stopped between two phases, or in the middle of one, is resumed by the next run with the same options.
"""

from __future__ import annotations

#: the phases in order, and what each does (for the plan's reason and check mode)
PHASES = ("add", "switch", "remove")


class PhaseError(ValueError):
    """The change asked for cannot go in phases; the message says why and what to change."""


def _entries_of(networks: list, listener: str) -> list:
    return [item for item in networks if item.get("listener") == listener]


def phase_networks(target: list, old_entry: dict, new: str, phase: str) -> list:
    """Option ``networks`` of ``phase`` (one of :data:`PHASES`) for the ``target`` networks, whose inter-broker
    listener is ``new``, from a cluster replicating over ``old_entry``'s listener (an entry of option networks that
    keeps it as it runs, see ``_in_service.running_route``)."""
    old = old_entry["listener"]
    networks = [dict(item) for item in target]
    if phase == "remove":
        return networks
    kept = _entries_of(networks, old)
    for item in kept:
        if int(item.get("port", old_entry["port"])) != old_entry["port"] \
                or item.get("protocol", old_entry["protocol"]) != old_entry["protocol"]:
            raise PhaseError(
                "network %s gives listener %s port %s and protocol %s, but the brokers replicate over it on :%d "
                "(%s) now: a listener keeps its port and protocol while it is renamed in phases (move it in a run of "
                "its own afterwards)" % (item.get("name"), old, item.get("port"), item.get("protocol", "default"),
                                         old_entry["port"], old_entry["protocol"]))
    if not kept:
        names = {item.get("name") for item in networks}
        name = old_entry["name"]
        while name in names:
            name += "-before"
        ports = {int(item["port"]): item.get("listener") for item in networks if "port" in item}
        if old_entry["port"] in ports and ports[old_entry["port"]] != old:
            raise PhaseError(
                "listener %s, which the brokers replicate over now, binds :%d, and the networks option gives that port "
                "to listener %s: in phases the old listener keeps its port until the last phase removes it, so give "
                "%s another port (moving a client port is a change of its own)"
                % (old, old_entry["port"], ports[old_entry["port"]], ports[old_entry["port"]]))
        networks.append(dict(old_entry, name=name, inter_broker=False))
    for item in networks:
        if phase == "add":
            item["inter_broker"] = item is _entries_of(networks, old)[0]
        else:
            item["inter_broker"] = item is _entries_of(networks, new)[0]
    return networks


def phases_to_come(target: list, old: str, new: str, new_everywhere: bool) -> list:
    """The phases left, this run's first: ``add`` unless every broker runs the ``new`` listener already
    (``new_everywhere``), then ``switch``, then ``remove`` when the ``target`` networks leave listener ``old`` out."""
    phases = [] if new_everywhere else ["add"]
    phases.append("switch")
    if not _entries_of(target, old):
        phases.append("remove")
    return phases


def describe(phase: str, old: str, new: str) -> str:
    """What ``phase`` does, in the plan's words."""
    return {
        "add": "add the new listeners beside %s, which stays the inter-broker listener" % old,
        "switch": "switch inter.broker.listener.name from %s to %s, %s still running on every broker" % (old, new, old),
        "remove": "remove listener %s, which the networks option leaves out" % old,
    }[phase]
