# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The records a run leaves for the fleet audit: one ``brokers`` record per broker, one ``probes`` record per
advertised endpoint per client. ``docs/records.md`` documents every field; the audit reads them with the same names.
The verify role reads earlier ``probes`` records back (:func:`bootstrap_from_records`) for the bootstrap each client
network used before a run, checking every field it uses: records on disk are untrusted input.

Private to kafkaops.listeners: no compatibility promise outside the collection.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    SECURITY_KEYS,
    SECURITY_PROTOCOLS,
    protocol_of,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    EndpointError,
    advertised_broker_endpoints,
    effective_protocol_map,
    inter_broker_listener,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import (
    HostError,
    special_address,
    validate_host,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import format_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import listener_routes

SCHEMA_VERSION = 1

#: server.properties keys a ``brokers`` record carries, with the column that holds each (dots are awkward in Spark).
CONFIG_COLUMNS = {
    "listeners": "listeners",
    "advertised.listeners": "advertised_listeners",
    "listener.security.protocol.map": "listener_security_protocol_map",
    "inter.broker.listener.name": "inter_broker_listener_name",
    "security.inter.broker.protocol": "security_inter_broker_protocol",
    "controller.listener.names": "controller_listener_names",
    "controller.quorum.voters": "controller_quorum_voters",
    "controller.quorum.bootstrap.servers": "controller_quorum_bootstrap_servers",
}
# the other keys the planner and the rule checker need to judge a node
_IDENTITY_KEYS = ("process.roles", "node.id", "broker.id", "sasl.enabled.mechanisms",
                  "sasl.mechanism.inter.broker.protocol")


def _common(run_id: str, observed_at: str, cluster: str) -> dict:
    return {"schema_version": SCHEMA_VERSION, "run_id": str(run_id), "observed_at": str(observed_at),
            "cluster": str(cluster)}


def broker_record(node_facts: dict, config: dict, applied: dict | None, plan_options: dict | None, provider: str | None,
                  run_id: str, observed_at: str, cluster: str) -> dict:
    """The ``brokers`` record of one node.

    ``config`` is server.properties as read before the run; ``applied`` the managed keys written during it (None
    removes a key), so the record holds the configuration the broker has after the run.
    """
    current = dict(config)
    for key, value in (applied or {}).items():
        if value is None:
            current.pop(key, None)
        else:
            current[key] = str(value)
    record = _common(run_id, observed_at, cluster)
    record.update({
        "broker": str(node_facts["name"]),
        "node_id": int(node_facts["node_id"]),
        "provider": provider,
        "private_host": node_facts.get("private_host"),
        "public_dns": node_facts.get("public_dns"),
        "public_ip": node_facts.get("public_ip"),
        "container_name": node_facts.get("container_name"),
        "process_roles": list(node_facts.get("process_roles") or []),
    })
    for key, column in CONFIG_COLUMNS.items():
        record[column] = current.get(key)
    record["other_config"] = json.dumps({key: current[key] for key in _IDENTITY_KEYS if key in current},
                                        sort_keys=True)
    checks = node_facts.get("external_checks") or {}
    if isinstance(checks, list):
        checks = {item["name"]: item for item in checks if isinstance(item, dict) and "name" in item}
    record["external_checks"] = json.dumps(
        {name: {"resolvable": item.get("resolvable"), "connectable": item.get("connectable")}
         for name, item in checks.items()}, sort_keys=True)
    record["plan_options"] = json.dumps(plan_options or {}, sort_keys=True)
    return record


#: The fields of the broker role's public ``broker_record`` fact that a ``brokers`` record is made of.
_BROKER_RECORD_FIELDS = ("facts", "current", "applied", "plan_options", "provider")


def run_broker_records(records: list, run_id: str, observed_at: str, cluster: str) -> list:
    """The ``brokers`` records of a run, one per ``broker_record`` fact the broker role set (see
    :func:`broker_record`: ``applied`` is what the run wrote, null when it wrote nothing)."""
    result = []
    for record in records or []:
        missing = [field for field in _BROKER_RECORD_FIELDS if not isinstance(record, dict) or field not in record]
        if missing:
            name = record.get("name") if isinstance(record, dict) else record
            raise ValueError("the broker record of %r has no %s: give the broker role's broker_record fact of each "
                             "broker (run the broker role, or its plan entry point, first)"
                             % (name, ", ".join(missing)))
        result.append(broker_record(record["facts"], record["current"], record["applied"], record["plan_options"],
                                    record["provider"], run_id, observed_at, cluster))
    return result


def _configured_endpoints(brokers: list | None) -> dict:
    """{node_id: [Endpoint]} of ``brokers`` records: what each broker advertises after the run
    (:func:`advertised_broker_endpoints` of its configuration). A value Kafka could not parse gives no endpoints: the
    rule checker reports it, and the probe keeps the plan's listener name."""
    table = {}
    for record in brokers or []:
        props = {key: record[column] for key, column in CONFIG_COLUMNS.items() if record.get(column) is not None}
        try:
            table[record.get("node_id")] = advertised_broker_endpoints(props)
        except (EndpointError, TypeError):
            table[record.get("node_id")] = []
    return table


def _configured_listener(configured: dict, node_id, host, port) -> str | None:
    """The name of the listener on which broker ``node_id`` advertises ``host:port``: the entry with that host and
    port, else the only entry with that port (a listener advertising the default interface, i.e. the canonical
    host name); None when the configuration does not tell."""
    endpoints = configured.get(node_id) or []
    exact = [item.listener for item in endpoints
             if item.port == port and item.host.lower() == str(host or "").lower()]
    if exact:
        return exact[0]
    by_port = [item.listener for item in endpoints if item.port == port]
    return by_port[0] if len(by_port) == 1 else None


def _route_fields(routes: dict, listener: str) -> dict:
    route = routes.get(listener) or {}
    return {"endpoint_network": route.get("endpoint_network"), "route": route.get("route")}


def probe_records(metadata: dict, plan: dict | None, client: str, client_network: str, bootstrap: list,
                  run_id: str, observed_at: str, cluster: str, brokers: list | None = None) -> list:
    """The ``probes`` records of one client: one per advertised endpoint it was given (or, when bootstrap failed,
    one per planned endpoint it should have been given, with ``bootstrap_ok`` false).

    An endpoint's listener is the one its broker advertises it on in ``brokers`` (the run's ``brokers`` records,
    i.e. the configuration the client actually met, which before a fix is not the plan's); without them, or when
    they do not tell, the plan's listener of the bootstrap server. Each record also carries the endpoint's TLS and
    SASL outcome as kafka_metadata checked it (:data:`SECURITY_KEYS`; null where the listener has no TLS or SASL,
    or the endpoint was not reached), and the plan's endpoint network and route of its listener
    (:func:`listener_routes`; null for a listener the plan does not have, such as the one a broker advertised
    before a fix).
    """
    plan_endpoints = [dict(endpoint, broker=node["name"], node_id=node["node_id"])
                      for node in (plan or {}).get("brokers", []) for endpoint in node.get("endpoints", [])]
    by_hostport = {endpoint["hostport"]: endpoint for endpoint in plan_endpoints}
    # every endpoint of one metadata answer belongs to the listener the client bootstrapped on
    listener = next((by_hostport[server]["listener"] for server in bootstrap if server in by_hostport), None)
    names = {endpoint["node_id"]: endpoint["broker"] for endpoint in plan_endpoints}
    names.update({record.get("node_id"): record.get("broker") for record in brokers or [] if record.get("broker")})
    configured = _configured_endpoints(brokers)
    routes = listener_routes(plan or {})
    common = _common(run_id, observed_at, cluster)
    common.update({"client": str(client), "client_network": str(client_network)})
    records = []
    if metadata.get("failed") or "endpoints" not in metadata:
        error = str(metadata.get("msg") or "no metadata answer")
        for endpoint in plan_endpoints:
            if endpoint["hostport"] not in bootstrap and endpoint["listener"] != listener:
                continue
            records.append(dict(common, listener=endpoint["listener"], **_route_fields(routes, endpoint["listener"]),
                                broker=endpoint["broker"],
                                node_id=endpoint["node_id"], advertised_host=endpoint["host"],
                                advertised_port=endpoint["port"], bootstrap_ok=False, resolvable=None, addresses=None,
                                connectable=None, error=error, elapsed_ms=None,
                                **dict.fromkeys(SECURITY_KEYS)))
        return records
    for endpoint in metadata["endpoints"]:
        node_id, host, port = endpoint.get("node_id"), endpoint.get("host"), endpoint.get("port")
        name = _configured_listener(configured, node_id, host, port) or listener or "UNKNOWN"
        records.append(dict(common, listener=name, **_route_fields(routes, name),
                            broker=names.get(node_id, "node-%s" % node_id),
                            node_id=node_id, advertised_host=host, advertised_port=port,
                            bootstrap_ok=True, resolvable=endpoint.get("resolvable"),
                            addresses=list(endpoint.get("addresses") or []), connectable=endpoint.get("connectable"),
                            error=endpoint.get("error"), elapsed_ms=endpoint.get("elapsed_ms"),
                            **{key: endpoint.get(key) for key in SECURITY_KEYS}))
    return records


# ------------------------------------------------------------------------------------ reading earlier probe records

#: the probe files the verify role writes (probes-<run id>-<client>.jsonl); run ids start with the UTC time, so the
#: names sort by age
PROBE_FILES = "probes-*.jsonl"
#: a line longer than this is refused unread (a probe record is a few hundred bytes)
MAX_LINE = 64 * 1024


class RecordError(ValueError):
    """A probe record read from disk is not one the verify role writes; the message says which field and why."""


def _text(record: dict, key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RecordError("%s is %r, not a non-empty string" % (key, value))
    return value


def _flag(record: dict, key: str):
    value = record.get(key)
    if value is not None and not isinstance(value, bool):
        raise RecordError("%s is %r, not true, false or null" % (key, value))
    return value


def checked_probe_record(record: object) -> dict:
    """The fields of a ``probes`` record (docs/records.md) that tell which bootstrap a client network used and
    whether it worked, each checked; RecordError says which field is wrong. A host no client could use (link-local
    such as the metadata service, unspecified, multicast, broadcast) is refused, so a record cannot send a probe
    there; loopback is not (a Docker layout serves the Docker host's clients on ``localhost``)."""
    if not isinstance(record, dict):
        raise RecordError("not a JSON object")
    version = record.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
        raise RecordError("schema_version is %r; this collection reads 1 to %d" % (version, SCHEMA_VERSION))
    observed = _text(record, "observed_at")
    try:
        datetime.fromisoformat(observed.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise RecordError("observed_at %r is not an ISO 8601 time" % observed) from None
    port = record.get("advertised_port")
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise RecordError("advertised_port is %r, not a port (1-65535)" % (port,))
    try:
        host = validate_host(record.get("advertised_host"), "advertised_host")
    except HostError as exc:
        raise RecordError(str(exc)) from None
    special = special_address(host)
    if special is not None and special[0] != "loopback":  # loopback: a Docker layout's clients on the Docker host
        raise RecordError("advertised_host %r is %s, which no client could use" % (host, special[1]))
    checked = {key: _text(record, key) for key in ("run_id", "cluster", "client_network", "listener")}
    flags = ("bootstrap_ok", "resolvable", "connectable", "tls_verified", "authenticated")
    checked.update({key: _flag(record, key) for key in flags})
    node_id = record.get("node_id")
    if node_id is not None and (isinstance(node_id, bool) or not isinstance(node_id, int)):
        raise RecordError("node_id is %r, not an integer or null" % (node_id,))
    checked.update(observed_at=observed, advertised_host=host, advertised_port=port, node_id=node_id)
    return checked


def _reached(record: dict) -> bool:
    """The client bootstrapped, resolved and connected the endpoint, and its TLS and SASL (where tried) worked."""
    return bool(record["bootstrap_ok"] and record["resolvable"] and record["connectable"]) \
        and record["tls_verified"] is not False and record["authenticated"] is not False


def _records_of(path: Path, cluster: str, client_network: str | None, warnings: list) -> list:
    """The valid probe records of ``cluster`` and ``client_network`` (None: every network) in one file; each bad
    line adds a warning."""
    found = []
    try:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, 1):
                where = "%s line %d" % (path, number)
                if len(raw) > MAX_LINE:
                    warnings.append("%s: skipped, longer than %d bytes" % (where, MAX_LINE))
                    continue
                if not raw.strip():
                    continue
                try:
                    record = checked_probe_record(json.loads(raw.decode("utf-8")))
                except (UnicodeDecodeError, ValueError) as exc:  # RecordError and JSONDecodeError are ValueErrors
                    warnings.append("%s: skipped, not a probe record: %s" % (where, exc))
                    continue
                if record["cluster"] == cluster and client_network in (None, record["client_network"]):
                    found.append(record)
    except OSError as exc:
        warnings.append("%s: skipped, cannot be read: %s" % (path, exc.strerror or exc))
    return found


def bootstrap_from_records(directory: str, cluster: str, client_network: str, exclude_run: str = "") -> tuple:
    """``(used, warnings)``: the bootstrap ``client_network``'s clients of ``cluster`` used in the newest earlier
    verify run recorded in ``directory``, when that run reached every endpoint it probed from the network.

    ``used`` is ``{"bootstrap": ["host:port", ...], "listener", "protocol", "run_id", "observed_at"}`` or None (no
    such records, or the newest run failed somewhere: the network did not work before, so nothing to keep). The
    bootstrap is the endpoints that run was given (any of them bootstraps a client), in node id order; the protocol
    is read from the security outcomes the records carry (``tls_verified`` is set only for TLS listeners,
    ``authenticated`` only for SASL ones), PLAINTEXT when neither is. Files are read newest first (their names start
    with the run's UTC time) and reading stops after the newest run of the network; ``exclude_run`` (this run)
    is passed over. Every line that is not a probe record as docs/records.md describes it (not JSON, a field
    missing or of the wrong type, a host no client could use) is skipped with a warning naming the file and line.
    """
    warnings: list = []
    folder = Path(directory)
    if not directory or not folder.is_dir():
        return None, warnings
    run = None
    records: list = []
    for path in sorted(folder.glob(PROBE_FILES), reverse=True):
        if exclude_run and path.name.startswith("probes-%s-" % exclude_run):
            continue
        if run is not None and not path.name.startswith("probes-%s-" % run):
            break
        found = [record for record in _records_of(path, cluster, client_network, warnings)
                 if record["run_id"] != exclude_run]
        if run is None and found:
            run = max(found, key=lambda record: record["observed_at"])["run_id"]
        records.extend(record for record in found if record["run_id"] == run)
    if not records or not all(_reached(record) for record in records):
        return None, warnings
    records.sort(key=lambda record: (record["node_id"] is None, record["node_id"] or 0))
    bootstrap = []
    for record in records:
        hostport = format_hostport(record["advertised_host"], record["advertised_port"])
        if hostport not in bootstrap:
            bootstrap.append(hostport)
    tls = any(record["tls_verified"] is not None for record in records)
    sasl = any(record["authenticated"] is not None for record in records)
    return {"bootstrap": bootstrap, "listener": records[0]["listener"], "protocol": protocol_of(tls, sasl),
            "run_id": run, "observed_at": max(record["observed_at"] for record in records)}, warnings


# ---------------------------------------------------------------------------- reading earlier brokers records

#: the brokers files the verify role writes (brokers-<run id>.jsonl), sorting by age as the probe files do
BROKER_FILES = "brokers-*.jsonl"
#: more names than this in one record is not a record the verify role wrote (a cluster's brokers and routes)
MAX_CHECKED_NAMES = 256


def _newest_record_of(path: Path, cluster: str, broker: str) -> tuple | None:
    """``(record, checked names)`` of the last usable record of ``broker`` of ``cluster`` in one brokers file (None
    when the file has none: not there, or not a record the verify role writes)."""
    found = None
    try:
        with path.open("rb") as handle:
            for raw in handle:
                if len(raw) > MAX_LINE or not raw.strip():
                    continue
                try:
                    record = json.loads(raw.decode("utf-8"))
                    version = record.get("schema_version")
                    if record.get("cluster") != cluster or record.get("broker") != broker \
                            or isinstance(version, bool) or version not in range(1, SCHEMA_VERSION + 1):
                        continue
                    checks = json.loads(record.get("external_checks"))
                except (AttributeError, TypeError, UnicodeDecodeError, ValueError):
                    continue
                if isinstance(checks, dict) and len(checks) <= MAX_CHECKED_NAMES:
                    found = record, list(checks)
    except OSError:
        return None
    return found


def _usable_host(value, source: str) -> str | None:
    """``value`` as validate_host returns it, or None when it is not a host or is one no other machine could use."""
    try:
        host = validate_host(value, source)
    except HostError:
        return None
    return host if special_address(host) is None else None


def _recorded_self_check(record: dict) -> dict | None:
    """The inter-broker endpoint the record's configuration advertises, as a node plan's ``health_endpoint``
    ({"listener", "protocol", "host", "port", "hostport"}); None for a node that is not a broker, a configuration
    that does not parse, a listener without a protocol, or a host no other machine could use."""
    roles = record.get("process_roles")
    if isinstance(roles, list) and roles and "broker" not in roles:
        return None
    props = {key: record[column] for key, column in CONFIG_COLUMNS.items() if isinstance(record.get(column), str)}
    try:
        listener = inter_broker_listener(props)
        protocol = effective_protocol_map(props).get(listener)
        endpoints = [endpoint for endpoint in advertised_broker_endpoints(props) if endpoint.listener == listener]
    except EndpointError:
        return None
    if protocol not in SECURITY_PROTOCOLS or len(endpoints) != 1:
        return None
    host = _usable_host(endpoints[0].host, "a brokers record's advertised_listeners")
    if host is None or not 1 <= endpoints[0].port <= 65535:
        return None
    return {"listener": listener, "protocol": protocol, "host": host, "port": endpoints[0].port,
            "hostport": format_hostport(host, endpoints[0].port)}


def recorded_checks(directory: str, cluster: str, broker: str) -> dict:
    """What ``broker`` of ``cluster`` checked in the newest verify run recorded in ``directory`` (its newest usable
    ``brokers`` record, docs/records.md): ``{"names", "self_check"}``. ``names`` are the keys of its
    ``external_checks``, the names it resolved ([] without a record); ``self_check`` the inter-broker endpoint its
    configuration advertised, where the role's self check asked it (see :func:`_recorded_self_check`; None).

    The broker role's discovery checks both in its first call on the broker (kafka_broker_facts' ``resolve`` and
    ``self_check``), so that a run whose names and endpoints have not changed since makes no resolvability call
    and no self check of its own. Records on disk are untrusted input: a line that is not such a record is passed
    over, and so is every name that is not a DNS name or an IP literal, or that is one no other machine could use
    (loopback, link-local such as the metadata service, unspecified, multicast, broadcast), so no record sends a
    lookup or a connection there. Nothing depends on the answer: what it lacks the role checks after the plan.
    """
    folder = Path(directory) if isinstance(directory, str) and directory else None
    if folder is None or not folder.is_dir():
        return {"names": [], "self_check": None}
    for path in sorted(folder.glob(BROKER_FILES), reverse=True):
        found = _newest_record_of(path, cluster, broker)
        if found is None:
            continue
        names = []
        for value in found[1]:
            name = _usable_host(value, "a brokers record's external_checks")
            if name is not None and name not in names:
                names.append(name)
        return {"names": names, "self_check": _recorded_self_check(found[0])}
    return {"names": [], "self_check": None}


def bootstraps_by_network(directory: str, cluster: str) -> tuple:
    """``(used, warnings)``: for every client network of ``cluster`` with probe records in ``directory``, the answer
    of :func:`bootstrap_from_records` (None when that network's newest run failed somewhere); {} when there are none.
    Every line that is not a probe record is skipped with a warning naming the file and line, once."""
    warnings: list = []
    folder = Path(directory)
    if not directory or not folder.is_dir():
        return {}, warnings
    networks = set()
    for path in sorted(folder.glob(PROBE_FILES)):
        networks.update(record["client_network"] for record in _records_of(path, cluster, None, warnings))
    # the lines bootstrap_from_records skips were all named by the pass above
    return {network: bootstrap_from_records(directory, cluster, network)[0] for network in sorted(networks)}, warnings
