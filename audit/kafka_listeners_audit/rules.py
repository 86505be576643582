# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The audit's rules (KL001-KL011) and severities: what each finding means, what to change and with which option.

Standard library only, so ``kafka-listeners-audit --help`` and its input errors work without pyspark. The docsite
page ``audit-findings`` is written from :data:`RULES` by ``tools/audit-findings-page``, and the report links each
rule to its section there (:func:`docs_link`).
"""

from __future__ import annotations

import re
from collections import namedtuple

SEVERITIES = ("info", "warning", "error", "critical")
"""Finding severities, least severe first (``--fail-on`` compares by this order)."""

Rule = namedtuple("Rule", "rule_id name severity summary change option")

RULES = {rule.rule_id: rule for rule in (
    Rule("KL001", "advertised-unresolvable-from-client", "critical",
         "Bootstrap and Metadata worked from the client network, but the advertised host does not resolve there.",
         "Advertise a name that resolves from that network: on a cloud VM the public DNS name (one listener, when "
         "it also resolves inside the network) or a listener of its own for outside clients (INTERNAL/EXTERNAL).",
         "broker role: broker_mode (auto picks single or dual from the resolvability checks), broker_networks for a "
         "network with names of its own"),
    Rule("KL002", "advertised-unconnectable", "error",
         "Bootstrap worked and the advertised host resolves from the client network, but a TCP connect fails.",
         "Open the port from that network (security group, firewall, load balancer listener) or advertise an "
         "address that network can route to.",
         "broker role: broker_listener_options (external_port), broker_networks (a route per client network)"),
    Rule("KL003", "loopback-or-wildcard-advertised", "error",
         "A loopback or wildcard host is advertised to a client on another machine (it reaches itself, not Kafka).",
         "Advertise the broker's own name or address: never localhost, 127.0.0.1, 0.0.0.0 or ::.",
         "broker role: broker_allow_loopback false (the default refuses such plans)"),
    Rule("KL004", "duplicate-endpoint", "error",
         "Two brokers of one cluster advertise the same host:port on one listener.",
         "Give every broker its own advertised host, or its own port behind a shared load balancer name.",
         "broker role: broker_static_facts per host, or broker_listener_options per host for a load balancer"),
    Rule("KL005", "inter-broker-listener-unreachable", "critical",
         "A broker cannot resolve or connect to a peer's endpoint on the inter-broker listener.",
         "Advertise a name the brokers resolve among themselves on the inter-broker listener (the private name).",
         "broker role: broker_mode dual (INTERNAL on the private name), broker_listener_options "
         "(internal_listener_name)"),
    Rule("KL006", "config-drift", "warning",
         "The broker's listener keys differ from the plan the collection computes from its current facts.",
         "Run the site playbook to write the plan, or find who edited the listener keys by hand.",
         "playbook kafkaops.listeners.site (broker role), in check mode first to see the change"),
    Rule("KL007", "plaintext-reachable-from-internet", "error",
         "A PLAINTEXT listener's advertised endpoint connects from an internet client network.",
         "Put TLS (and SASL) on the listener the internet reaches, or close it from the internet.",
         "broker role: broker_security_protocols, broker_forbid_plaintext_external true; the audit: "
         "--internet-network"),
    Rule("KL008", "flapping-endpoint", "warning",
         "An endpoint changed between reachable and unreachable at least N times within the flap window.",
         "Look at the incidents of that endpoint: a name that changes (stop/start), an overloaded broker, a "
         "load balancer health check.",
         "broker role: broker_start_rediscover (names re-read at each start); the audit: --flap-changes, "
         "--flap-window"),
    Rule("KL009", "kafka-startup-rule-violation", "critical",
         "The broker's current config breaks one of Kafka's startup rules (R1-R24, docs/docsite/rst/kafka-rules.rst).",
         "Fix the key the rule names before the broker restarts: Kafka refuses to start with it.",
         "playbook kafkaops.listeners.site (the broker role writes only plans that pass the rules)"),
    Rule("KL010", "plan-unavailable", "warning",
         "The planner refuses the cluster's current facts or options, so drift (KL006) cannot be checked.",
         "Read the planner's message in the finding and correct the facts or options it names.",
         "broker role: broker_listener_options, broker_static_facts, broker_networks"),
    Rule("KL011", "tls-or-sasl-refused", "error",
         "A client reached the endpoint, but its certificate did not verify or its SASL login was refused.",
         "Reissue the certificate with the advertised names (a stop/start may have given the broker a new public "
         "name), or fix the client's SASL credentials.",
         "broker role: broker_check_certificates, broker_client_security; verify role: verify_client_security"),
)}
"""The audit's rules by stable id. Ids and names never change meaning; retired ids are not reused."""

DOCS_PAGE = "docsite/audit-findings.html"
"""The rules' page in the collection's docsite, relative to its root (``make docs`` builds it)."""


def docs_anchor(rule_id: str) -> str:
    """The HTML id of ``rule_id``'s section on :data:`DOCS_PAGE`: its title (``KL001 advertised-...``) as Sphinx
    turns a title into an id."""
    return re.sub(r"[^a-z0-9]+", "-", ("%s %s" % (rule_id, RULES[rule_id].name)).lower()).strip("-")


def docs_link(rule_id: str, docs_url: str) -> str:
    """The address of ``rule_id``'s section in the docsite published at ``docs_url`` (its root)."""
    return "%s/%s#%s" % (docs_url.rstrip("/"), DOCS_PAGE, docs_anchor(rule_id))


def severity_rank(severity: str) -> int:
    """Position of ``severity`` in :data:`SEVERITIES` (0 = info); ValueError naming the valid ones otherwise."""
    try:
        return SEVERITIES.index(severity)
    except ValueError:
        raise ValueError("severity %r is not one of %s" % (severity, ", ".join(SEVERITIES))) from None
