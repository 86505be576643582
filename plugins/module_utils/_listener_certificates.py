# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Does each TLS listener's certificate name the hosts the plan advertises on it? Read on the broker itself.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Kafka picks a listener's key store from ``listener.name.<listener, lower case>.ssl.keystore.*``, else from the
global ``ssl.keystore.*`` keys (``ssl.keystore.type`` defaults to JKS). PEM key stores are read here (the file, or
the inline ``ssl.keystore.certificate.chain``); PKCS12 through ``openssl pkcs12`` and JKS through ``keytool -list
-rfc`` where the host has them, the store password handed over in the environment, never on a command line. The
first certificate of the store's chain is the broker's own: a client checks its names against the host it dialled
(``_tls_check.names_host``). Standard library only.
"""

from __future__ import annotations

import datetime

from ansible_collections.kafkaops.listeners.plugins.module_utils import _tls_check as tc
from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import uses_tls
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import EndpointError, parse_protocol_map

PASSWORD_ENV = "KAFKAOPS_KEYSTORE_PASSWORD"

FIXES = (
    "Fixes: put every name clients dial among the certificate's subject alternative names; give each broker a "
    "public name that survives a stop/start (broker_static_facts.public_dns per broker, for example a DNS record "
    "for an Elastic IP) and put that name in its certificate; or use a wildcard certificate (*.kafka.example.com) "
    "and per-broker names under it.")


def listener_setting(props, listener, key):
    """Kafka's value of ``key`` for ``listener``: the listener-prefixed key wins over the global one."""
    prefixed = "listener.name.%s.%s" % (listener.lower(), key)
    return props.get(prefixed, props.get(key))


def tls_endpoints(node_plan):
    """[(listener, protocol, host)] of a node plan that clients reach over TLS: its advertised client endpoints and,
    when its listener is mapped to SSL, the controller endpoint (voters dial its host)."""
    found = [(e["listener"], e["protocol"], e["host"]) for e in node_plan.get("endpoints") or []
             if uses_tls(e.get("protocol"))]
    controller = node_plan.get("controller_endpoint")
    protocol_map = (node_plan.get("properties") or {}).get("listener.security.protocol.map")
    if controller and protocol_map:
        try:
            protocol = parse_protocol_map(protocol_map).get(controller["listener"].upper())
        except EndpointError:
            protocol = None
        if uses_tls(protocol):
            found.append((controller["listener"], protocol, controller["host"]))
    return found


def read_keystore(props, listener, run_tool):
    """(where, keystore type, DER of the broker's certificate or None, why it could not be read or None).

    ``run_tool(argv, password)`` runs a command with the password in ``PASSWORD_ENV`` and returns (rc, stdout,
    stderr), or None when the command is not installed.
    """
    store_type = (listener_setting(props, listener, "ssl.keystore.type") or "JKS").strip().upper()
    location = listener_setting(props, listener, "ssl.keystore.location")
    inline = listener_setting(props, listener, "ssl.keystore.certificate.chain")
    password = listener_setting(props, listener, "ssl.keystore.password")
    if store_type == "PEM" and inline and not location:
        where = "ssl.keystore.certificate.chain (inline)"
        text = inline
    elif not location:
        return "(none)", store_type, None, "no ssl.keystore.location for listener %s" % listener
    else:
        where = location
        if store_type == "PEM":
            try:
                with open(location, "rb") as handle:
                    text = handle.read().decode("latin-1")
            except OSError as exc:
                return where, store_type, None, "cannot read %s: %s" % (location, exc.strerror or exc)
        elif store_type in ("PKCS12", "JKS"):
            text, why = _tool_pem(store_type, location, password, run_tool)
            if text is None:
                return where, store_type, None, why
        else:
            return where, store_type, None, "key store type %s is not read (PEM, PKCS12, JKS are)" % store_type
    certificates = tc.pem_certificates(text)
    if not certificates:
        return where, store_type, None, "no certificate found in %s" % where
    return where, store_type, certificates[0], None


def _tool_pem(store_type, location, password, run_tool):
    if store_type == "PKCS12":
        argv = ["openssl", "pkcs12", "-in", location, "-nokeys", "-clcerts", "-passin", "env:" + PASSWORD_ENV]
        result = run_tool(argv, password or "")
        if result is not None and result[0] != 0 and "unsupported" in result[2].lower():
            result = run_tool(argv + ["-legacy"], password or "")  # RC2-40 stores from older tools
        tool = "openssl"
    else:
        argv = ["keytool", "-list", "-rfc", "-keystore", location, "-storetype", "JKS"]
        if password:
            argv += ["-storepass:env", PASSWORD_ENV]
        result = run_tool(argv, password or "")
        tool = "keytool"
    if result is None:
        return None, "%s is not installed on this host, so the %s key store %s was not read" % (
            tool, store_type, location)
    rc, out, err = result
    if rc != 0:
        lines = [line for line in (err or out).splitlines() if line.strip()]
        return None, "%s could not read %s (exit %d): %s" % (tool, location, rc, lines[-1] if lines else "")
    return out, None


def check_certificates(props, node_plan, run_tool, now=None):
    """One result per TLS listener of ``node_plan``: {"listener", "protocol", "hosts", "keystore", "keystore_type",
    "names", "not_after", "missing", "error"}; ``missing`` lists the hosts the certificate does not name."""
    now = now or datetime.datetime.now(datetime.timezone.utc)  # noqa: UP017 - datetime.UTC is 3.11+
    by_listener = {}
    for listener, protocol, host in tls_endpoints(node_plan):
        entry = by_listener.setdefault(listener, {"listener": listener, "protocol": protocol, "hosts": []})
        if host not in entry["hosts"]:
            entry["hosts"].append(host)
    results = []
    for listener, entry in by_listener.items():
        where, store_type, der, why = read_keystore(props, listener, run_tool)
        entry.update(keystore=where, keystore_type=store_type, names=[], not_after=None, missing=[], error=why,
                     expired=False)
        if der is not None:
            try:
                info = tc.certificate_info(der)
            except tc.CertificateError as exc:
                entry["error"] = "the first certificate in %s cannot be read: %s" % (where, exc)
            else:
                entry["names"] = tc.certificate_names(info)
                entry["not_after"] = info["not_after"].strftime("%Y-%m-%dT%H:%M:%SZ")
                entry["expired"] = info["not_after"] < now
                entry["missing"] = [host for host in entry["hosts"] if not tc.names_host(info, host)]
        results.append(entry)
    return results


def refusal_message(broker, results):
    """The role's refusal when some certificate does not name a host it must (None when all do)."""
    lines = []
    for entry in results:
        if entry["missing"]:
            lines.append("listener %s (%s): the certificate in %s does not name %s; the certificate's names: %s"
                         % (entry["listener"], entry["protocol"], entry["keystore"], ", ".join(entry["missing"]),
                            ", ".join(entry["names"]) or "none"))
    if not lines:
        return None
    return ("%s: clients that verify host names (Kafka's default, ssl.endpoint.identification.algorithm=https) would "
            "fail on these advertised hosts ('No subject alternative DNS name matching ... found', 'certificate "
            "verify failed'): %s. Nothing was written. %s" % (broker, "; ".join(lines), FIXES))
