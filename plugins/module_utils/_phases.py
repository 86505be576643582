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

Once no broker replicates over the old listener, the plan is the target itself; with ``in_phases`` a target that
leaves out a listener the brokers run now is the ``remove`` phase, and it is refused (:func:`check_remove`) while
the newest verify records of any client network show its clients bootstrapping on that listener, unless asked to
remove it anyway. A recorded bootstrap server is on the listener when its port is the listener's port and its host is
one a broker advertises that listener on now or any broker's private or public DNS name or IP (compared without case
and trailing dot, IP addresses as addresses), so a client that bootstraps on a broker's IP is caught as well as one
on the advertised name. Only the verify role's records can show use: a network without records does not stop it.
"""

from __future__ import annotations

import ipaddress

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import HostPortError, parse_hostport

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


def _host_key(host: str) -> str:
    try:
        return ipaddress.ip_address(host.strip("[]")).compressed
    except ValueError:
        return host.rstrip(".").lower()


def bootstraps_on(removed: dict, used: dict) -> list:
    """[(client network, server, listener)] for each network whose recorded bootstrap has a server on a listener
    the plan removes (the matching rule in this module's docstring).

    ``removed`` is {listener: (port, hosts)}: each listener the brokers run now that the plan leaves out, its port
    and the hosts that reach it (those it is advertised on, every broker's names and IPs); ``used`` is
    {client network: the answer of ``_records.bootstrap_from_records`` or None}."""
    keys = {listener: (port, {_host_key(host) for host in hosts if host})
            for listener, (port, hosts) in removed.items()}
    found = []
    for network in sorted(used):
        for server in (used[network] or {}).get("bootstrap", []):
            try:
                host, port = parse_hostport(server, "recorded bootstrap server")
            except HostPortError:
                continue  # a record's bootstrap is a checked host and port; nothing else can be on the listener
            listener = next((name for name, (bound, hosts) in sorted(keys.items())
                             if port == bound and _host_key(host) in hosts), None)
            if listener is not None:
                found.append((network, server, listener))
                break
    return found


def _listeners_of(clients: dict) -> str:
    """``LISTENER :port`` of each listener the plan serves its client networks on, for a message."""
    ports = {}
    for client in clients.values():
        servers = (client.get("bootstrap") or "").split(",")
        try:
            ports.setdefault(client["listener"], parse_hostport(servers[0], "planned bootstrap server")[1])
        except (HostPortError, KeyError):
            continue
    return ", ".join("%s :%d" % item for item in sorted(ports.items()))


def _shown(in_use: list) -> str:
    return ", ".join("%s bootstrapping on %s" % (network, server) for network, server, _listener in in_use)


def check_remove(removed: dict, records: tuple, clients: dict, remove_in_use: bool, applied: bool = True) -> str:
    """The plan's note on the ``remove`` phase, which takes the ``removed`` listeners away (see
    :func:`bootstraps_on`); PhaseError, naming the network, the endpoint its records show, their run and time, the
    listener and the way out, when a client network's newest records show it in use and not ``remove_in_use``. A
    plan that is not ``applied`` (planned only, nothing written) is not refused: its note says what would be.

    ``records`` is ``(used, warnings, source)``: ``used`` as :func:`bootstraps_on` takes it, the records' warnings
    (lines skipped) and where they were read; ``clients`` is the plan's answer per client network."""
    used, warnings, source = records
    gone = ", ".join("%s (:%d)" % (name, removed[name][0]) for name in sorted(removed))
    skipped = "; %d record line(s) skipped as malformed (see the warnings)" % len(warnings) if warnings else ""
    in_use = bootstraps_on(removed, used)
    shown = _shown(in_use)
    if in_use and not remove_in_use and not applied:
        return "remove %s, which a run applying this plan refuses while the newest verify records show %s%s" % (
            gone, shown, skipped)
    if in_use and not remove_in_use:
        network, server, listener = in_use[0]
        record = used[network]
        client = clients.get(network) or {}
        to = ("listener %s (bootstrap %s)" % (client["listener"], client["bootstrap"]) if client.get("bootstrap")
              else "one of the listeners the layout gives its networks (%s)" % _listeners_of(clients))
        raise PhaseError(
            "the remove phase would take listener %s (:%d) away, but the newest verify records of client network %s "
            "in %s (run %s at %s) show its clients bootstrapping on %s%s%s. Move that network's clients to "
            "%s and run the verify role from it again so that its records show the new bootstrap, or set "
            "broker_remove_listener_in_use (the listener_plan filter's remove_in_use) to remove it anyway"
            % (listener, removed[listener][0], network, source, record["run_id"], record["observed_at"], server,
               "; also %s" % _shown(in_use[1:]) if in_use[1:] else "", skipped, to))
    if in_use:
        return "remove %s although the newest verify records show %s (remove_in_use)%s" % (gone, shown, skipped)
    if not used:
        return ("remove %s: no verify records of this cluster were found %s (only the verify role's records can "
                "show a listener in use)%s" % (gone, "in %s" % source if source else "(no records folder given)",
                                               skipped))
    failed = sorted(network for network, answer in used.items() if answer is None)
    return "remove %s: no client network's newest verify records in %s show a bootstrap on it (%s)%s%s" % (
        gone, source, ", ".join(sorted(used)),
        "; the newest run of %s did not reach every endpoint, so shows no bootstrap" % ", ".join(failed)
        if failed else "", skipped)
