# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Start-time self-healing: before Kafka starts, a broker asks the metadata service for its names again and
re-renders its managed keys from the cluster's stored decision.

Private to kafkaops.listeners: no compatibility promise outside the collection.

The broker role stores the decision beside server.properties (``<path>.listeners.json``, :func:`decision_path`):
the planning options with the layout the cluster chose, this node's identity and names, the controllers' node ids
and private hosts (for the quorum), this node's planned keys and how to reach the metadata service. A systemd drop-in
runs :func:`main` as ``ExecStartPre``: it plans this node again with :func:`plan_listeners` (the role's planner),
checks the file's result with Kafka's startup rules (the checker the role uses) and, like the role, that each TLS
listener's certificate names the hosts advertised on it, and replaces the file atomically.

Whatever goes wrong - no answer from the metadata service, an answer that is not a usable name, a decision file
missing or corrupt, a private name that changed (the other nodes know this one by it), a certificate that does not
name the new host, the time bound - the file
stays byte for byte and Kafka starts: this step never blocks a start. It always exits 0 and says what it did in one
line on standard output (the journal).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from ansible_collections.kafkaops.listeners.plugins.module_utils import _config_file
from ansible_collections.kafkaops.listeners.plugins.module_utils._broker_files import DECISION_SUFFIX, decision_path
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import HostError, ip_literal
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_certificates import (
    PASSWORD_ENV,
    check_certificates,
    refusal_message,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import PlanError, plan_listeners
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import (
    MetadataError,
    lookup_instance_metadata,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import (
    PropertiesError,
    edit_properties,
    parse_properties,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import ResolverError, probe_names

DECISION_VERSION = 1
DEFAULT_TIME_BOUND = 20.0
# the names a node plan is made of, as the role's discovery gives them
NAME_KEYS = ("private_host", "private_ip", "public_dns", "public_ip")
# server.properties is ISO-8859-1, as Kafka's Properties.load(InputStream) reads it: every byte round-trips
ENCODING = "latin-1"
# the longest this program waits for its own name lookups
RESOLVE_TIMEOUT = 2.0


class KeepFile(Exception):
    """The file stays as it is; the message says why."""


def load_decision(path: str) -> dict:
    """The decision stored at ``path``, its shape checked; :class:`KeepFile` when it is missing or corrupt."""
    try:
        with open(path, encoding="utf-8") as handle:
            decision = json.load(handle)
    except FileNotFoundError:
        raise KeepFile("no stored decision at %s (the broker role writes it)" % path) from None
    except (OSError, ValueError) as exc:
        raise KeepFile("the stored decision %s cannot be read: %s" % (path, exc)) from None
    if not isinstance(decision, dict) or decision.get("version") != DECISION_VERSION:
        raise KeepFile("the stored decision %s is not a version %d decision" % (path, DECISION_VERSION))
    shapes = {"options": dict, "node": dict, "names": dict, "controllers": list, "properties": dict, "metadata": dict}
    wrong = sorted(key for key, kind in shapes.items() if not isinstance(decision.get(key), kind))
    if wrong or not isinstance(decision["node"].get("name"), str):
        raise KeepFile("the stored decision %s is corrupt (%s)" % (path, ", ".join(wrong) or "node.name"))
    return decision


def _checked_names(record: dict) -> dict:
    """This node's names from a metadata record, by the role's precedence (private DNS name, else private IP).
    A name field holding an IP literal, or an address field holding a name, is not taken."""
    for key in ("private_dns", "public_dns"):
        if record.get(key) and ip_literal(record[key]) is not None:
            raise KeepFile("the metadata service gave an IP address (%s) as %s" % (record[key], key))
    for key in ("private_ip", "public_ip"):
        if record.get(key) and ip_literal(record[key]) is None:
            raise KeepFile("the metadata service gave %r as %s, which is not an IP address" % (record[key], key))
    names = {"private_host": record.get("private_dns") or record.get("private_ip"),
             "private_ip": record.get("private_ip") or None, "public_dns": record.get("public_dns") or None,
             "public_ip": record.get("public_ip") or None}
    if not names["private_host"]:
        raise KeepFile("the metadata service gave no private DNS name or IP")
    return names


def discover_names(metadata: dict, total_timeout: float) -> dict:
    """This node's names from its metadata service, asked within ``total_timeout`` seconds."""
    params = dict(metadata, total_timeout=max(0.1, total_timeout))
    params["timeout"] = min(float(params.get("timeout") or 1.0), params["total_timeout"])
    try:
        record, _warnings = lookup_instance_metadata(params)
    except MetadataError as exc:
        raise KeepFile("the metadata service did not answer usably: %s" % exc) from None
    if record.get("provider") in (None, "none"):
        raise KeepFile("no cloud was recognised on this machine")
    return _checked_names(record)


def _external_checks(names: dict, timeout: float) -> list:
    """How this node resolves its new public name: the planner refuses a name that resolves to a loopback,
    link-local or other address no client can use. (The private name is the one the role checked: it may not
    change here.)"""
    hosts = [names["public_dns"]] if names.get("public_dns") else []
    if not hosts or timeout <= 0:
        return []
    try:
        return probe_names(hosts, timeout=min(RESOLVE_TIMEOUT, timeout))["results"]
    except (HostError, ResolverError) as exc:
        raise KeepFile("the names from the metadata service are not host names: %s" % exc) from None


def plan_this_node(decision: dict, names: dict, current: dict | None = None, checks: list | None = None) -> dict:
    """This node's plan (its managed keys under ``properties``) from the stored ``decision`` and its ``names``.

    The node is planned with the controllers only, in the cluster's order (the quorum keys list them in it): no other
    broker's names enter this node's keys. ``current`` (the file's keys) lets the planner refuse what it refuses in a
    rollout (a renamed ZooKeeper inter-broker listener, a moved dynamic-quorum endpoint). Raises :class:`KeepFile`.
    """
    node = dict(decision["node"], **{key: names.get(key) for key in NAME_KEYS},
                current_properties=current, external_checks=checks or [])
    nodes = [node if entry.get("name") == node["name"] else dict(entry, process_roles=["controller"])
             for entry in decision["controllers"]]
    if node["name"] not in [entry.get("name") for entry in decision["controllers"]]:
        nodes.append(node)
    try:
        plan = plan_listeners(nodes, decision["options"])
    except (PlanError, TypeError, ValueError, KeyError) as exc:
        raise KeepFile("the stored decision does not plan this node with these names: %s" % exc) from None
    return next(entry for entry in plan["brokers"] if entry["name"] == node["name"])


def check_decision(decision: dict) -> str | None:
    """None when the decision plans its node, with the names it stores, to the keys it stores; else why not.
    The role runs this (``--check-decision``) before it stores a decision."""
    try:
        planned = plan_this_node(decision, decision["names"])["properties"]
    except KeepFile as exc:
        return str(exc)
    if planned != decision["properties"]:
        return "this node re-planned alone gives %s, the cluster's plan %s" % (
            json.dumps(planned, sort_keys=True), json.dumps(decision["properties"], sort_keys=True))
    return None


def render(text: str, decision: dict, names: dict, checks: list) -> str:
    """``text`` (the properties file) with this node's keys for ``names``, checked with Kafka's startup rules."""
    try:
        document = parse_properties(text)
    except PropertiesError as exc:
        raise KeepFile("the properties file does not parse: %s" % exc) from None
    node_plan = plan_this_node(decision, names, document.to_dict(), checks)
    new_text = edit_properties(text, node_plan["properties"])
    new_properties = parse_properties(new_text).to_dict()
    findings = check_kafka_config(new_properties, kafka_version=decision["options"].get("kafka_version"))
    if findings:
        raise KeepFile("Kafka would refuse the result: %s" % "; ".join(
            "%s: %s" % (finding["rule"], finding["message"]) for finding in findings))
    if decision.get("check_certificates", True) and node_plan["tls_listeners"]:
        refusal = refusal_message(node_plan["name"], check_certificates(new_properties, node_plan, _run_tool))
        if refusal:
            raise KeepFile(refusal)
    return new_text


def _run_tool(argv: list, password: str):
    """check_certificates' way to run openssl or keytool: None when not installed; the password only in the
    environment."""
    path = shutil.which(argv[0])
    if path is None:
        return None
    proc = subprocess.run([path] + argv[1:], env=dict(os.environ, **{PASSWORD_ENV: password}), check=False,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace")
    return proc.returncode, proc.stdout, proc.stderr


def _time_is_up(_signum, _frame):
    raise KeepFile("the time bound ran out")


def run(properties_path: str, decision_file: str, time_bound: float) -> str:
    """Re-render ``properties_path`` from ``decision_file`` within ``time_bound`` seconds; return what was done.

    The bound covers everything that waits on something else (the metadata service, name lookups); the writes, two
    local renames, happen after it is disarmed, so an alarm never falls between them."""
    deadline = time.monotonic() + time_bound
    signal.signal(signal.SIGALRM, _time_is_up)
    signal.setitimer(signal.ITIMER_REAL, time_bound)
    try:
        try:
            decision = load_decision(decision_file)
            raw = _read(properties_path)
            names = discover_names(decision["metadata"], deadline - time.monotonic() - 0.5)
            if names["private_host"] != decision["names"].get("private_host"):
                raise KeepFile("the private name changed from %s to %s: the other nodes know this one by it, run the "
                               "site playbook" % (decision["names"].get("private_host"), names["private_host"]))
            checks = _external_checks(names, deadline - time.monotonic() - 0.5)
            new_raw = render(raw.decode(ENCODING), decision, names, checks).encode(ENCODING)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except KeepFile as exc:
        return "%s kept as it is: %s" % (properties_path, exc)
    if new_raw == raw:
        return "%s already holds this node's names (%s)" % (properties_path, _shown(names))
    try:
        # the kafka_properties module takes the same lock: a file it changed since the read above is rendered again
        with _config_file.locked(properties_path, wait=max(1.0, deadline - time.monotonic())):
            current = _read(properties_path)
            if current != raw:
                new_raw = render(current.decode(ENCODING), decision, names, checks).encode(ENCODING)
                if new_raw == current:
                    return "%s already holds this node's names (%s)" % (properties_path, _shown(names))
            _config_file.replace_atomically(properties_path, new_raw)
            decision.update(names=names, properties=plan_this_node(decision, names)["properties"])
            # as the role writes it (to_nice_json), so the next playbook run finds it unchanged
            text = json.dumps(decision, indent=4, sort_keys=True, ensure_ascii=False) + "\n"
            _config_file.replace_atomically(decision_file, text.encode("utf-8"))
    except (OSError, KeepFile) as exc:
        return "%s: writing failed, the file is the old or the new one: %s" % (properties_path, exc)
    return "%s rewritten for this node's names (%s)" % (properties_path, _shown(names))


def _read(properties_path: str) -> bytes:
    """The properties file's bytes; :class:`KeepFile` when it is missing, not a regular file or unreadable."""
    try:
        raw = _config_file.read_regular(properties_path)
    except OSError as exc:
        raise KeepFile("cannot read it: %s" % exc) from None
    if raw is None:
        raise KeepFile("cannot read it: it does not exist")
    return raw


def _shown(names: dict) -> str:
    return ", ".join("%s=%s" % (key, names[key]) for key in NAME_KEYS if names.get(key))


def _say(message: str) -> None:
    """One line on standard output: the journal's record of what this start did."""
    sys.stdout.write("kafkaops.listeners prestart: %s\n" % message)
    sys.stdout.flush()


def main(argv: list | None = None) -> int:
    """The pre-start program: always 0, so Kafka starts; ``--check-decision`` exits 1 for a decision that does not
    reproduce its own plan."""
    parser = argparse.ArgumentParser(
        prog="kafka-listeners-prestart",
        description="Before Kafka starts: ask the metadata service for this node's names again and re-render the "
                    "listener keys from the stored decision; on any problem keep the file as it is.")
    parser.add_argument("--properties", help="the broker's server.properties")
    parser.add_argument("--decision", help="the stored decision (default: beside the properties, %s)"
                        % DECISION_SUFFIX)
    parser.add_argument("--time-bound", type=float, default=DEFAULT_TIME_BOUND,
                        help="seconds after which the file is kept as it is (default %(default)s)")
    parser.add_argument("--check-decision", metavar="FILE",
                        help="only check that FILE plans its node to the keys it stores (exit 1 when not)")
    args = parser.parse_args(argv)
    if args.check_decision:
        try:
            problem = check_decision(load_decision(args.check_decision))
        except KeepFile as exc:
            problem = str(exc)
        _say(problem or "the decision reproduces its plan")
        return 1 if problem else 0
    if not args.properties:
        parser.error("--properties is required")
    try:
        message = run(args.properties, args.decision or decision_path(args.properties), max(args.time_bound, 1.0))
    except Exception as exc:  # noqa: BLE001 - whatever it is, Kafka must start
        message = "%s kept as it is: unexpected %s: %s" % (args.properties, type(exc).__name__, exc)
    _say(message)
    return 0
