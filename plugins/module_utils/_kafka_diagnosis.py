# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a client on this host experiences after bootstrapping, in plain words: the Metadata answer summed up,
every advertised endpoint resolved and connected, and one line saying what fails and for which brokers.

Private to kafkaops.listeners: no compatibility promise outside the collection. Metadata answers are untrusted
input: advertised hosts are validated with ``validate_host`` before they are resolved, and an invalid one becomes
an endpoint error. Standard library only (modules run on managed nodes).
"""

from __future__ import annotations

import threading
import time

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import (
    HostError,
    special_address,
    validate_host,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import parse_hostport, show_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import (
    ERROR_LISTENER_NOT_FOUND,
    ERROR_NAMES,
    error_name,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import probe_names


def summarize_metadata(metadata):
    """The module's view of a decoded answer: sorted brokers and topics, error names, under-replicated partitions."""
    brokers = sorted(
        ({"node_id": b["node_id"], "host": b["host"], "port": b["port"], "rack": b["rack"]}
         for b in metadata["brokers"]),
        key=lambda b: b["node_id"],
    )
    topics = []
    under_replicated = []
    for topic in sorted(metadata["topics"], key=lambda t: (t["name"] is None, t["name"] or "")):
        partitions = []
        for part in sorted(topic["partitions"], key=lambda p: p["partition"]):
            partitions.append({
                "partition": part["partition"],
                "leader": part["leader"],
                "replicas": list(part["replicas"]),
                "isr": list(part["isr"]),
                "offline_replicas": list(part["offline_replicas"]),
                "error": error_name(part["error_code"]),
            })
            if len(set(part["isr"])) < len(set(part["replicas"])):
                under_replicated.append({"topic": topic["name"], "partition": part["partition"]})
        topics.append({
            "name": topic["name"],
            "is_internal": topic["is_internal"],
            "error": error_name(topic["error_code"]),
            "partitions": partitions,
        })
    return {
        "cluster_id": metadata["cluster_id"],
        "controller_id": metadata["controller_id"],
        "brokers": brokers,
        "topics": topics,
        "under_replicated": under_replicated,
    }


# ports probed at once (one thread each); a cluster's brokers share a few ports, a hostile answer lists thousands
PROBE_THREADS = 16


def check_endpoints(brokers, timeout, probe=probe_names, usable_only=False):
    """Resolve every advertised endpoint from this host and try a TCP connect; one result per broker, in order.

    Hosts are validated first: an invalid host or port is reported in that endpoint's ``error`` (never raised), and
    so, with ``usable_only``, is a host no other machine could use (``special_address``: loopback, link-local such as
    the metadata service, ...), which is then neither looked up nor connected to.
    Names are resolved by ``probe`` (``_resolver.probe_names``: getaddrinfo under a deadline of ``timeout``
    seconds, connects until twice that), one call per advertised port, at most PROBE_THREADS of them at once; a port
    not begun within ``timeout`` seconds is not probed (its endpoints' error says the check did not finish).
    Each result: {"node_id", "host", "port", "resolvable", "addresses", "connectable", "error"}.
    """
    endpoints = []
    by_port = {}
    for broker in brokers:
        endpoint = {"node_id": broker["node_id"], "host": broker["host"], "port": broker["port"],
                    "resolvable": False, "addresses": [], "connectable": False, "error": None}
        endpoints.append(endpoint)
        try:
            host = validate_host(broker["host"], "the Metadata answer (broker %d)" % broker["node_id"])
        except HostError as exc:
            endpoint["error"] = str(exc)
            continue
        special = special_address(host) if usable_only else None
        if special is not None:
            endpoint["error"] = "not checked: broker %d advertises %s, a %s host (%s)" % (
                broker["node_id"], host, special[0], special[1])
            continue
        if not 1 <= broker["port"] <= 65535:
            endpoint["error"] = "broker %d advertises port %d, which is not a TCP port" % (
                broker["node_id"], broker["port"])
            continue
        by_port.setdefault(broker["port"], []).append((endpoint, host))

    outcomes = {}

    def probe_port(port, names):
        try:
            outcomes[port] = probe(names, timeout=timeout, total_timeout=2 * timeout, port=port)
        except Exception as exc:  # a failed probe must still give its endpoints a result
            outcomes[port] = exc

    work = []
    for port, members in by_port.items():
        names = {}
        for _endpoint, host in members:
            names.setdefault(host.lower(), host)
        work.append((port, list(names.values())))
    # probe_names returns within its total timeout; the extra seconds only guard against a hang in it
    guard = time.monotonic() + 2 * timeout + 5
    taken = threading.Lock()

    def worker():
        # a few threads, whatever the number of ports a hostile answer lists; a port not started before the total
        # timeout is not probed at all (its endpoints say the check did not finish)
        while time.monotonic() < guard - timeout - 5:
            with taken:
                if not work:
                    return
                port, names = work.pop()
            probe_port(port, names)

    threads = [threading.Thread(target=worker, daemon=True) for _thread in range(min(PROBE_THREADS, len(work)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(guard - time.monotonic(), 0))

    for port, members in by_port.items():
        outcome = outcomes.get(port)
        if outcome is None or isinstance(outcome, Exception):
            reason = "did not finish" if outcome is None else "failed: %s" % (outcome,)
            for endpoint, _host in members:
                endpoint["error"] = "the check %s" % reason
            continue
        results = {result["name"].lower(): result for result in outcome["results"]}
        for endpoint, host in members:
            result = results.get(host.lower())
            if result is None:
                endpoint["error"] = "the check returned no result for %s" % host
                continue
            endpoint["resolvable"] = bool(result["resolvable"])
            endpoint["addresses"] = list(result["addresses"])
            endpoint["connectable"] = bool(result["connectable"])
            endpoint["error"] = result["error"]
    return endpoints


def unreachable_endpoints(endpoints):
    """The endpoints a client on this host cannot use (not resolvable, not connectable, or invalid)."""
    return [endpoint for endpoint in endpoints if not (endpoint["resolvable"] and endpoint["connectable"])]


# what a client elsewhere meets at an advertised host of each special_address class
_SPECIAL_CONSEQUENCES = {
    "unspecified": "a client connects to its own machine (or nowhere), not to the broker",
    "link-local": "only machines on the broker's own network link reach it, and the address may be another "
                  "machine's there",
    "multicast": "no client can open a TCP connection to it",
    "broadcast": "no client can open a TCP connection to it",
}


def endpoint_warnings(brokers, bootstrap_used):
    """Advertised endpoints that work from here but mislead other clients: loopback, unspecified, link-local,
    multicast and broadcast hosts (in any spelling, see ``special_address``), duplicates."""
    warnings = []
    bootstrap_host = parse_hostport(bootstrap_used, "bootstrap_used")[0]
    bootstrap_class = (special_address(bootstrap_host) or (None,))[0]
    for broker in brokers:
        special = special_address(broker["host"]) if isinstance(broker["host"], str) else None
        if special is None or special[0] == bootstrap_class:
            continue
        shown = show_hostport(broker["host"], broker["port"])
        if special[0] == "loopback":
            warnings.append(
                "broker %d advertises %s, a loopback host, on a listener reached at %s: a client on another "
                "machine connects to itself, not to the broker" % (broker["node_id"], shown, bootstrap_used))
        else:
            warnings.append("broker %d advertises %s, %s %s host (%s), on a listener reached at %s: %s" % (
                broker["node_id"], shown, "an" if special[0][0] in "aeiou" else "a", special[0], special[1],
                bootstrap_used, _SPECIAL_CONSEQUENCES[special[0]]))
    owners = {}
    for broker in brokers:
        key = (str(broker["host"]).lower(), broker["port"])
        owners.setdefault(key, []).append(broker["node_id"])
    for (host, port), nodes in sorted(owners.items(), key=lambda item: item[1]):
        if len(nodes) > 1:
            warnings.append(
                "brokers %s all advertise %s: clients cannot tell them apart"
                % (", ".join(str(node) for node in nodes), show_hostport(host, port))
            )
    return warnings


def listener_not_found(topics):
    """``topic/partition`` of partitions whose leader has no endpoint on the listener the request used."""
    return [
        "%s/%d" % (topic["name"], part["partition"])
        for topic in topics
        for part in topic["partitions"]
        if part["error"] == ERROR_NAMES[ERROR_LISTENER_NOT_FOUND]
    ]


def valid_endpoint(endpoint):
    """True when the advertised host is a DNS name or IP literal and the port a TCP port (worth resolving)."""
    try:
        validate_host(endpoint["host"], "the Metadata answer")
    except HostError:
        return False
    return isinstance(endpoint["port"], int) and 1 <= endpoint["port"] <= 65535


def _names(values):
    return ", ".join(values)


def summary_line(bootstrap_used, brokers, endpoints=None):
    """One line in plain words: what a client on this host experiences after bootstrapping."""
    head = "bootstrap %s reachable" % bootstrap_used
    if not brokers:
        return head + ", but the Metadata answer lists no broker on this listener: clients have nowhere to connect"
    if endpoints is None:
        return "%s: %d broker(s) advertised on this listener (%s); endpoints not checked" % (
            head, len(brokers), _names(show_hostport(str(b["host"]), b["port"]) for b in brokers))
    failing = unreachable_endpoints(endpoints)
    if not failing:
        return "%s and all %d advertised endpoint(s) resolve and accept connections from this host" % (
            head, len(endpoints))
    unusable = [e for e in failing if not valid_endpoint(e)]
    unresolved = [e for e in failing if not e["resolvable"] and valid_endpoint(e)]
    refused = [e for e in failing if e["resolvable"] and not e["connectable"]]
    problems = []
    if unresolved:
        hosts = sorted({str(e["host"]) for e in unresolved})
        if len(hosts) == 1:
            problems.append("advertised host %s does not resolve from this host" % hosts[0])
        else:
            problems.append("advertised hosts %s do not resolve from this host" % _names(hosts))
    if refused:
        names = sorted({show_hostport(str(e["host"]), e["port"]) for e in refused})
        if len(names) == 1:
            problems.append("advertised endpoint %s resolves but does not accept connections from this host" % names[0])
        else:
            problems.append("advertised endpoints %s resolve but do not accept connections from this host"
                            % _names(names))
    for endpoint in unusable:
        problems.append("broker %d advertises an unusable endpoint (%s)" % (endpoint["node_id"], endpoint["error"]))
    failing_nodes = sorted({e["node_id"] for e in failing})
    if len(failing_nodes) == len(endpoints):
        consequence = "clients fail after the first connection"
    else:
        consequence = "clients fail on every partition led by broker%s %s" % (
            "" if len(failing_nodes) == 1 else "s", _names(str(node) for node in failing_nodes))
    return "%s, but %s: %s" % (head, "; ".join(problems), consequence)
