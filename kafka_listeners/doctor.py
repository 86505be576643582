# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kafka-listeners doctor: from this machine, what a Kafka client meets after the bootstrap server answers.

It asks the bootstrap server(s) for metadata, then resolves, connects to, TLS-verifies and authenticates every
endpoint the brokers advertise on that listener, as a client moving on to a partition leader does, and says in
plain words which broker advertises what, whether that works from here, and what to change. It runs the same check
as the collection's kafka_metadata module (the collection's module_utils).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import sys
import unicodedata

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_check import client_security, inspect_cluster
from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    ClientSecurityError,
    properties_to_options,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import show_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_connection import parse_bootstrap
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_diagnosis import valid_endpoint
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import KafkaClientError
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import PropertiesError, parse_properties

EXIT_USABLE, EXIT_UNUSABLE, EXIT_USAGE, EXIT_BOOTSTRAP_FAILED = 0, 1, 2, 3
# the longest --timeout: each step waits at most this long (sockets refuse far larger values)
MAX_TIMEOUT = 3600
# the --command-config values never printed, whatever a broker echoes
SECRET_OPTIONS = ("sasl_password", "ssl_key_password")
EXIT_CODES = """exit status:
  0  the bootstrap answered and every advertised endpoint is usable from here
  1  the bootstrap answered, but some advertised endpoint is not usable from here (or none is advertised)
  2  bad usage: wrong arguments, or a --command-config the doctor cannot read or honour
  3  no bootstrap server answered (nothing advertised could be checked)"""

# private names a cloud gives its instances, resolvable only inside the network that issued them
PRIVATE_NAME_SUFFIXES = (".internal", ".internal.")
PRIVATE_NETWORKS = tuple(ipaddress.ip_network(net) for net in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
                                                                 "100.64.0.0/10", "fc00::/7"))
TRUSTSTORE_FIX = "set ssl.truststore.location (ssl.truststore.type=PEM) to the CA that signed the broker certificates"


class CommandConfigError(ValueError):
    """A --command-config file the doctor cannot read; the message says why."""


# ---------------------------------------------------------------------------------------------- --command-config


def read_command_config(path: str) -> dict:
    """The properties of a Java client configuration file (read as ISO-8859-1, as Properties.load does)."""
    try:
        with open(path, "rb") as handle:
            return parse_properties(handle.read().decode("latin-1")).to_dict()
    except OSError as exc:
        raise CommandConfigError("cannot be read: %s" % (exc.strerror or exc)) from None
    except PropertiesError as exc:
        raise CommandConfigError("is not a properties file: %s" % exc) from None


# ---------------------------------------------------------------------------------------------------- diagnosis


def where_it_resolves(host: str) -> str:
    """Where a name that does not resolve here does resolve, when its form says so (else empty)."""
    if host.lower().endswith(PRIVATE_NAME_SUFFIXES):
        return "; a name under .internal is a cloud's private name, which resolves only inside the network that " \
               "issued it"
    return ""


def _private(addresses: list) -> list:
    return [a for a in addresses if any(ipaddress.ip_address(a) in net for net in PRIVATE_NETWORKS
                                        if ipaddress.ip_address(a).version == net.version)]


def endpoint_state(endpoint: dict) -> str:
    """One endpoint's outcome from here, in a few words."""
    if not valid_endpoint(endpoint):
        return "FAIL  %s" % endpoint["error"]
    if not endpoint["resolvable"]:
        return "FAIL  does not resolve here (%s)" % endpoint["error"]
    addresses = ", ".join(endpoint["addresses"])
    if not endpoint["connectable"]:
        return "FAIL  resolves to %s, but does not accept connections (%s)" % (addresses, endpoint["error"])
    if endpoint.get("tls_verified") is False or endpoint.get("authenticated") is False:
        return "FAIL  resolves to %s and connects, but %s" % (addresses, endpoint["security_error"])
    done = ["resolves to %s" % addresses, "connects"]
    if endpoint.get("tls_verified"):
        done.append("TLS verified")
    if endpoint.get("authenticated"):
        done.append("authenticated")
    return "ok    " + ", ".join(done)


def endpoint_diagnosis(endpoint: dict, bootstrap_used: str, protocol: str) -> str | None:
    """What is wrong with one endpoint and what to change, naming the broker, the listener and the host; None when
    it is usable."""
    node, host, port = endpoint["node_id"], str(endpoint["host"]), endpoint["port"]
    listener = "the %s listener reached at %s" % (protocol, bootstrap_used)
    names = "advertised.listeners of broker %d names %s on %s" % (node, show_hostport(host, port), listener)
    if endpoint["resolvable"] and endpoint["connectable"]:
        outcome = endpoint.get("tls_outcome")
        if outcome == "name_mismatch":
            return ("%s, and its certificate does not name that host (%s): add %s to the certificate's subject "
                    "alternative names, or advertise a name the certificate carries"
                    % (names, endpoint["security_error"], host))
        if outcome == "unknown_ca":
            return ("%s, and its certificate does not chain to a CA this client trusts (%s): %s"
                    % (names, endpoint["security_error"], TRUSTSTORE_FIX))
        if outcome in ("expired", "not_yet_valid"):
            return ("%s, and its certificate is not valid now (%s): renew the broker's certificate, or check this "
                    "machine's clock" % (names, endpoint["security_error"]))
        if endpoint.get("tls_verified") is False:
            return ("%s, and TLS fails there (%s): check that security.protocol matches the listener's protocol"
                    % (names, endpoint["security_error"]))
        if endpoint.get("authenticated") is False:
            return ("%s, and it refuses this client's SASL login (%s): check the user and password, and that the "
                    "listener enables sasl.mechanism" % (names, endpoint["security_error"]))
        if endpoint.get("security_error"):
            return "%s, and the TLS/SASL check there failed (%s)" % (names, endpoint["security_error"])
        return None
    if not valid_endpoint(endpoint):
        return "broker %d advertises an unusable endpoint on %s (%s): fix its advertised.listeners" % (
            node, listener, endpoint["error"])
    bootstrap_host = bootstrap_used.rsplit(":", 1)[0]
    if not endpoint["resolvable"]:
        return ("%s, which does not resolve here (%s), while the bootstrap name %s does%s: advertise a name this "
                "network resolves, or add a listener for this network"
                % (names, endpoint["error"], bootstrap_host, where_it_resolves(host)))
    private = _private(endpoint["addresses"])
    hint = (", a private address reachable only inside its network" if private else "")
    return ("%s, which resolves here to %s%s but does not accept connections (%s): open port %d to this network "
            "(security group, firewall), or add a listener for this network that advertises an address it reaches"
            % (names, ", ".join(endpoint["addresses"]), hint, endpoint["error"], port))


def bootstrap_diagnosis(failures: list, protocol: str) -> list[str]:
    """One sentence per bootstrap server that did not answer, with what to check."""
    sentences = []
    for server, reason in failures:
        if reason.startswith("SASL authentication failed"):
            fix = "check the user and password in sasl.jaas.config, and that the listener enables sasl.mechanism"
        elif reason.startswith("TLS certificate verification failed"):
            fix = TRUSTSTORE_FIX + ", and bootstrap on a name the certificate carries"
        else:
            fix = ("check the host and port, that this network reaches them, and that security.protocol (%s) matches "
                   "that listener" % protocol)
        sentences.append("bootstrap server %s did not answer Metadata (%s): %s" % (server, reason, fix))
    return sentences


# ---------------------------------------------------------------------------------------------------- command


def add_parser(commands) -> argparse.ArgumentParser:
    """Register ``doctor`` on the ``kafka-listeners`` command's subparsers."""
    parser = commands.add_parser(
        "doctor", help="check, from this machine, every endpoint a Kafka cluster advertises",
        description=__doc__.split("\n\n", 1)[1], epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bootstrap", metavar="BOOTSTRAP",
                        help="bootstrap servers as host:port, comma-separated, as in bootstrap.servers")
    parser.add_argument("--command-config", metavar="FILE",
                        help="a Java client properties file: security.protocol, ssl.truststore.location "
                             "(ssl.truststore.type=PEM) or ssl.ca.location, sasl.mechanism (PLAIN, SCRAM-SHA-256, "
                             "SCRAM-SHA-512) and sasl.jaas.config with username and password")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    parser.add_argument("--timeout", type=_seconds, default=5.0, metavar="SECONDS",
                        help="seconds each step may take (resolve, connect, TLS, answer), at most %d; default 5"
                             % MAX_TIMEOUT)
    parser.set_defaults(run=run, parser=parser)
    return parser


def _seconds(text: str) -> float:
    """--timeout's value: a number written in ASCII (float() would also read other scripts' digits)."""
    if not text.isascii():
        raise argparse.ArgumentTypeError("%s is not a number of seconds written in ASCII digits" % ascii(text))
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text) from None


# Characters a terminal acts on or that hide text (controls, escape sequences, line and paragraph separators,
# bidirectional overrides, unassigned code points): shown as escapes, never printed raw
_HIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
# the longest line printed for a person; a broker's text beyond it is cut, saying how much
MAX_LINE = 2000
REDACTED = "[redacted]"


def _escaped(char: str) -> str:
    if unicodedata.category(char) not in _HIDDEN_CATEGORIES:
        return char
    code = ord(char)
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code if code < 0x10000 else "\\U%08x" % code


def shown(line: str) -> str:
    """``line`` as it may go to a terminal: every character a terminal would act on or that hides text escaped
    (``\\x1b``, ``\\u2028``), and cut to MAX_LINE characters. Brokers choose much of what the doctor prints."""
    text = "".join(map(_escaped, line))
    if len(text) > MAX_LINE:
        text = "%s... (%d more characters)" % (text[:MAX_LINE], len(text) - MAX_LINE)
    return text


def redacted(value, secrets: list[str]):
    """``value`` (a report: strings, lists, dicts) with every secret the doctor knows replaced by REDACTED: a
    broker may echo a password in its error text."""
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, list):
        return [redacted(item, secrets) for item in value]
    if isinstance(value, dict):
        return {key: redacted(item, secrets) for key, item in value.items()}
    return value


def _print_text(report: dict) -> None:
    lines = []
    if report["outcome"] == "bootstrap_failed":
        lines.append("no bootstrap server answered (%s)" % report["security_protocol"])
    else:
        lines.append("bootstrap %s answered (%s): cluster %s, %d broker(s) advertised on this listener"
                     % (report["bootstrap_used"], report["security_protocol"], report["cluster_id"],
                        len(report["brokers"])))
        lines.extend("  broker %d  %s  %s" % (endpoint["node_id"], show_hostport(str(endpoint["host"]),
                                                                                 endpoint["port"]),
                                              endpoint_state(endpoint)) for endpoint in report["endpoints"])
    lines.extend("warning: %s" % warning for warning in report.get("warnings", []))
    if report["diagnosis"]:
        lines.append("what fails, and what to change:")
        lines.extend("  - %s" % sentence for sentence in report["diagnosis"])
    if report.get("summary"):
        lines.append(report["summary"])
    for line in lines:
        print(shown(line))


def run(args) -> int:
    parser = args.parser
    if not 0 < args.timeout <= MAX_TIMEOUT:  # also refuses nan and inf
        parser.error("--timeout must be a number of seconds greater than 0 and at most %d, not %s"
                     % (MAX_TIMEOUT, args.timeout))
    bootstrap = [server.strip() for server in args.bootstrap.split(",") if server.strip()]
    if not bootstrap:
        parser.error("BOOTSTRAP names no server")
    try:
        for server in bootstrap:
            parse_bootstrap(server)
    except KafkaClientError as exc:
        parser.error(str(exc))
    options = {"security_protocol": "PLAINTEXT"}
    if args.command_config:
        try:
            options = properties_to_options(read_command_config(args.command_config))
        except (CommandConfigError, ClientSecurityError) as exc:
            parser.error("--command-config %s: %s" % (args.command_config, exc))
    try:
        ssl_context, sasl = client_security(options)
    except KafkaClientError as exc:
        parser.error("--command-config %s: %s" % (args.command_config, exc))
    protocol = options["security_protocol"]
    report = {"bootstrap": bootstrap, "security_protocol": protocol, "sasl_mechanism": options.get("sasl_mechanism")}
    try:
        # no topics: the doctor asks for the brokers only, which also keeps the answer small on big clusters
        result = inspect_cluster(bootstrap, args.timeout, ssl_context, sasl, topics=[])
    except KafkaClientError as exc:
        failures = getattr(exc, "failures", None) or [(", ".join(bootstrap), str(exc))]
        report.update(outcome="bootstrap_failed", exit_code=EXIT_BOOTSTRAP_FAILED,
                      bootstrap_errors=[{"server": server, "error": reason} for server, reason in failures],
                      diagnosis=bootstrap_diagnosis(failures, protocol))
    else:
        for key in ("topics", "under_replicated"):
            result.pop(key)
        report.update(result)
        diagnosis = [d for d in (endpoint_diagnosis(e, result["bootstrap_used"], protocol)
                                 for e in result["endpoints"]) if d]
        if not result["brokers"]:
            diagnosis.append("the Metadata answer lists no broker on the listener reached at %s: clients have "
                             "nowhere to connect" % result["bootstrap_used"])
        usable = not diagnosis
        report.update(outcome="usable" if usable else "endpoints_unusable", diagnosis=diagnosis,
                      exit_code=EXIT_USABLE if usable else EXIT_UNUSABLE)
    report = redacted(report, [options[key] for key in SECRET_OPTIONS if options.get(key)])
    if args.json:
        json.dump(report, sys.stdout, indent=2)  # JSON escapes every control character itself
        print()
    else:
        _print_text(report)
    return report["exit_code"]
