# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Kafka's own startup rules for listener settings (R1-R24 of docs/docsite/rst/kafka-rules.rst), as one checker.

The checks of a KRaft node (R16-R23: process roles, node identity, the controller quorum, broker-only,
controller-only and controller nodes) are in ``_kafka_rules_kraft``, whose docstring says which failures, message
differences and skipped checks are theirs; the checker here inherits them and runs every rule.

Private to the kafkaops.listeners collection: no compatibility promise outside it. Runs on managed nodes, so it
uses the standard library only and Python 3.8-compatible syntax.

:func:`check_kafka_config` reads a ``server.properties`` mapping the way Kafka's ``ConfigDef`` does (values
trimmed, defaults applied: ``listeners=PLAINTEXT://:9092``, ``advertised.listeners`` falling back to
``listeners``, the default protocol map, ``security.inter.broker.protocol=PLAINTEXT``, ``sasl.*=GSSAPI``) and
returns ``[{"rule": "R<n>", "message": <Kafka's message>}]``; an empty list means Kafka would start. Messages
of Kafka's Scala ``require`` checks carry its ``requirement failed: `` prefix. Where Kafka prints a set (voter
ids, listener names) its order is not deterministic: compare those messages by prefix.

What is modelled: Kafka 4.0's ``KafkaConfig.validateValues`` and listener parsing for KRaft nodes
(``process.roles`` set), and a ZooKeeper-mode broker (no ``process.roles``) as Kafka 3.9 validates its
listeners. Not modelled (outside R1-R24): ``zookeeper.connect`` being required, ZooKeeper mode refusing
``controller.listener.names``, ``control.plane.listener.name``, ``early.start.listeners`` and every
non-listener setting.

Which rule a failure reports (Kafka raises the same exception types for several causes):

* R1: a listener entry that does not match Kafka's endpoint pattern (message wrapped as R3 says). In KRaft with
  no explicit protocol map Kafka first scans ``listeners`` for SSL/SASL names (R7) and an entry without ``:``
  fails there, unwrapped: ``Unable to parse a listener name from <entry>``; that is R1 too.
* R3: an entry that matches but whose port Java cannot parse as an ``int`` (wrapped).
* R2: a listener name with no security protocol (wrapped); it is R7 instead when the name is a controller
  listener that KRaft's implicit PLAINTEXT mapping did not cover (no explicit map, and SSL/SASL in use or the
  name spelled in another case), and R14 when it is a controller listener named in ``advertised.listeners``.
* R9 also covers an invalid ``security.inter.broker.protocol`` (for R22 and R23 see ``_kafka_rules_kraft``).

Messages by release. ``kafka_version`` selects the wording; each difference below was seen on Apache Kafka 3.9.2,
4.0.1, 4.1.2, 4.2.2, 4.3.1 and 4.4.0 themselves (lab/tests/test_rules_real_kafka.py runs 3.9.2 and 4.4.0);
those of R16, R21 and R23 (from 4.0, 4.2 and 4.4) are listed in ``_kafka_rules_kraft``:

* all: an invalid ``security.inter.broker.protocol`` (R9) fails ``ConfigDef`` validation (``Invalid value X for
  configuration ...: String must be one of: ...``);
* from 4.2: listener lists are shown as Java lists (``'[A://:1, B://:2]'``) in R1-R5, R7 and R14 messages; an empty
  ``advertised.listeners`` (R10) fails ``ConfigDef`` validation;
* from 4.3: R4 and R5 are wrapped like R1-R3 (``Error creating broker listeners from ...``), without
  ``requirement failed: ``.

Stopping policy. Kafka stops at its first failure. This checker reports every *independent* failure in one
pass, but never a finding that is a mere consequence of an earlier one. Every check runs on facts established
before it: the process roles, the node id, the voter ids, the effective protocol map, the parsed ``listeners``
and ``advertised.listeners``, and the inter-broker listener. A fact that cannot be established is reported
once, by the rule that owns it, and the checks that need it are skipped (the KRaft node's own facts, the node
ids and voters, are in ``_kafka_rules_kraft``):

* unparseable ``listeners`` (R1/R3): no R4/R5 for it, no advertised fallback, no check that reads listeners;
* unparseable ``advertised.listeners``: no R4 for it and no check of what is advertised (R10-R13, R15, R20 and
  R21's listener checks);
* unknown process role (R23): no role checks (R10-R21; R13 and R15 still run);
* a bad ``listener.security.protocol.map`` (R6): no mapping checks (R2, R7, R9, R14, R18, R24);
* both inter-broker keys set (R8), or an unmapped/invalid inter-broker listener (R9): no R11/R24;
* nothing advertised for brokers (R10): no R11 (which could only repeat it);
* a listener name without a protocol is reported once, by the first key that uses it (``listeners`` before
  ``advertised.listeners``); R9 and R18 do not repeat it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    SECURITY_PROTOCOLS,
    uses_sasl,
    uses_tls_or_sasl,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import (
    DEFAULT_LISTENERS,
    DEFAULT_PROTOCOL_MAP,
    PROTOCOL_MAP_KEY,
    Endpoint,
    EndpointError,
    _java_trim,
    _split_csv,
    parse_listener_list,
    parse_protocol_map,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules_kraft import _REQUIRE, _KraftNodeChecks

__all__ = ["RULES", "check_kafka_config", "kafka_release"]

RULES = {
    "R1": "Every listener entry matches Kafka's endpoint syntax NAME://host:port.",
    "R2": "Every listener and advertised listener name has a security protocol; an explicit map replaces the default.",
    "R3": "Listener list errors are wrapped 'Error creating broker listeners from ...'; a port beyond Java int fails.",
    "R4": "Listener names are unique within listeners and within advertised.listeners.",
    "R5": "Ports are unique within listeners (0 ignored; one IPv4 and one IPv6 literal may share a port).",
    "R6": "listener.security.protocol.map entries are NAME:PROTOCOL with a real security protocol.",
    "R7": "KRaft maps controller listener names to PLAINTEXT implicitly only without a map and without SSL/SASL.",
    "R8": "Only one of inter.broker.listener.name and security.inter.broker.protocol is set.",
    "R9": "The inter-broker listener name is in the protocol map (PLAINTEXT when neither key is set).",
    "R10": "A broker advertises at least one listener that is not a controller listener.",
    "R11": "A broker's inter-broker listener is one of its advertised listeners.",
    "R12": "A broker's advertised listener names are a subset of its listener names.",
    "R13": "A broker does not advertise 0.0.0.0, including by falling back to listeners.",
    "R14": "Controller listeners in advertised.listeners are dropped for brokers but must parse and be mapped.",
    "R15": "Advertised controller listeners do not use 0.0.0.0 (Kafka 3.9.0 also refused one derived from listeners).",
    "R16": "A broker-only KRaft node sets controller.listener.names.",
    "R17": "A broker-only KRaft node does not listen on a controller listener.",
    "R18": "A broker-only KRaft node has a security protocol for every controller listener name.",
    "R19": "A broker-only KRaft node's id is not one of controller.quorum.voters.",
    "R20": "A controller-only KRaft node listens only on its controller listeners.",
    "R21": "A controller KRaft node listens on its controller listeners and, with static voters, is a voter.",
    "R22": "A KRaft node sets controller.quorum.bootstrap.servers or a parseable controller.quorum.voters.",
    "R23": "process.roles holds 'broker'/'controller' (distinct before 4.2); node.id = broker.id, required in KRaft.",
    "R24": "SASL inter-broker traffic uses a mechanism listed in sasl.enabled.mechanisms.",
}

_LISTENERS = "listeners"
_ADVERTISED = "advertised.listeners"
_DEFAULT_LISTENERS = DEFAULT_LISTENERS
_WILDCARD = "0.0.0.0"
_WILDCARD_MESSAGE = (_REQUIRE + "advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. "
                     "Use a routable IP address.")


def check_kafka_config(props: Mapping[str, str], *, derived_controller_wildcard_fails: bool = False,
                       kafka_version: str | None = None) -> list[dict]:
    """Apply Kafka's listener startup rules R1-R24 to ``props`` and return the findings (``[]``: Kafka starts).

    ``props`` maps ``server.properties`` keys to their string values. Set ``derived_controller_wildcard_fails``
    to model Kafka 3.9.0, which also refused a controller listener bound to 0.0.0.0 when ``advertised.listeners``
    does not name it (R15); later releases advertise the host name instead. ``kafka_version`` (``"4.4.0"``,
    ``"3.9"``; default 3.9) picks the release whose messages the findings quote, where releases word them
    differently (see "Messages by release" in this module's docstring and ``_kafka_rules_kraft``'s). See both
    for which rule reports what and when later checks are skipped.
    """
    checker = _Checker(_Props(props), derived_controller_wildcard_fails, kafka_release(kafka_version))
    checker.run()
    return checker.findings


class _Props:
    """``server.properties`` values read with Kafka ``ConfigDef`` semantics."""

    def __init__(self, props: Mapping[str, str]) -> None:
        if not isinstance(props, Mapping):
            raise TypeError("Kafka properties must be a mapping of strings, got %s" % type(props).__name__)
        for key, value in props.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError("Kafka property %r must map a string to a string, got %s = %r"
                                % (key, type(value).__name__, value))
        self._raw = dict(props)

    def has(self, key: str) -> bool:
        """Whether ``key`` was set at all (Kafka's ``originals.containsKey``)."""
        return key in self._raw

    def string(self, key: str, default: str | None = None) -> str | None:
        """A STRING setting: trimmed, or ``default`` when unset."""
        value = self._raw.get(key)
        return default if value is None else _java_trim(value)

    def items(self, key: str, default: str = "") -> list[str]:
        """A LIST setting: trimmed, split at commas; empty items kept, as ``ConfigDef`` keeps them."""
        return _split_csv(self.string(key, default), keep_empty=True)


class _Checker(_KraftNodeChecks):
    """One pass over one node's properties; attributes hold the facts established so far (``None``: unknown)."""

    def __init__(self, props: _Props, derived_controller_wildcard_fails: bool, release: tuple = (3, 9)) -> None:
        self.props = props
        self.derived_controller_wildcard_fails = derived_controller_wildcard_fails
        self.release = release
        self.findings: list[dict] = []
        self.kraft = False
        self.roles: frozenset | None = None
        self.node_id: int | None = None
        self.voter_ids: frozenset | None = None
        self.controller_names: list[str] = []
        self.protocol_map: dict | None = None
        self.implicit_controller_mapping = False
        self.listener_name_scan_error: str | None = None
        self.listeners: list[Endpoint] | None = None
        self.advertised_set = False
        self.advertised: list[Endpoint] | None = None
        self.inter_broker_name: str | None = None
        self.inter_broker_protocol: str | None = None
        self.unmapped_reported: set = set()

    def add(self, rule: str, message: str) -> None:
        self.findings.append({"rule": rule, "message": message})

    def rewrap(self, text: str, message: str) -> str:
        """An R1/R3 message of ``_endpoints`` with the listener list shown as this release shows it."""
        wrapped = "Error creating broker listeners from '%s': " % text
        if message.startswith(wrapped):
            return "Error creating broker listeners from '%s': " % self.listed(text) + message[len(wrapped):]
        return message

    def listed(self, text: str) -> str:
        """A listener list as a message shows it: the value, or from Kafka 4.2 a Java list ``[a, b]``."""
        return "[%s]" % ", ".join(_split_csv(text, keep_empty=True)) if self.release >= (4, 2) else text

    def listener_list_error(self, text: str, message: str) -> str:
        """An R4/R5 message: from Kafka 4.3 wrapped like R1-R3 (and no ``requirement failed: `` prefix)."""
        if self.release < (4, 3):
            return message
        inner = message[len(_REQUIRE):] if message.startswith(_REQUIRE) else message
        return "Error creating broker listeners from '%s': %s" % (self.listed(text), inner)

    def run(self) -> None:
        self.check_process_roles()
        self.check_node_identity()
        self.parse_quorum_voters()
        # lenient on spacing and empty items, as Kafka 4.x parses this setting as a list
        self.controller_names = _split_csv(self.props.string("controller.listener.names", ""))
        listeners_text = self.props.string(_LISTENERS, _DEFAULT_LISTENERS)
        self.resolve_protocol_map(_split_csv(listeners_text))
        self.listeners = self.parse_listener_setting(_LISTENERS, listeners_text)
        self.advertised_set = self.props.has(_ADVERTISED)
        if self.advertised_set:
            self.advertised = self.parse_listener_setting(_ADVERTISED, self.props.string(_ADVERTISED))
        self.check_inter_broker_listener()
        self.check_sasl_inter_broker()
        self.check_quorum_bootstrap()
        if self.roles is not None:
            if self.roles == {"broker"}:
                self.check_broker_only_node()
            if self.roles == {"controller"}:
                self.check_controller_only_listeners()
            if "controller" in self.roles:
                self.check_controller_role()
            if not self.kraft or "broker" in self.roles:
                self.check_broker_advertised_listeners()
        self.check_wildcard_advertised()

    # -- R6, R7: the effective listener -> protocol map ----------------------------------------------------------

    def resolve_protocol_map(self, listener_entries: list[str]) -> None:
        """R6: an explicit map parses; R7: KRaft's implicit PLAINTEXT mapping of controller listener names."""
        explicit = self.props.has(PROTOCOL_MAP_KEY)
        if explicit:
            try:
                self.protocol_map = parse_protocol_map(self.props.string(PROTOCOL_MAP_KEY))
            except EndpointError as exc:
                self.add("R6", str(exc))
                return
        else:
            self.protocol_map = dict(DEFAULT_PROTOCOL_MAP)
        if explicit or not self.kraft:
            return
        self.implicit_controller_mapping = True
        if any(uses_tls_or_sasl(name) for name in self.controller_names):
            return
        tls_or_sasl = False
        for entry in listener_entries:
            colon = entry.find(":")
            if colon < 0:
                # Kafka fails right here; keep scanning only to guess the mapping for the other checks
                if self.listener_name_scan_error is None and not tls_or_sasl:
                    self.listener_name_scan_error = "Unable to parse a listener name from %s" % entry
                continue
            tls_or_sasl = tls_or_sasl or uses_tls_or_sasl(entry[:colon].upper())
        if tls_or_sasl:
            return
        for name in self.controller_names:
            if name != "PLAINTEXT":
                self.protocol_map[name] = "PLAINTEXT"  # Kafka adds these names as written, not upper-cased

    # -- R1-R5, R7, R14: one listener setting ---------------------------------------------------------------------

    def parse_listener_setting(self, key: str, text: str) -> list[Endpoint] | None:
        """R1/R3 syntax, R2/R7/R14 protocols, R4 unique names and (``listeners`` only) R5 unique ports."""
        try:
            endpoints = parse_listener_list(text)
        except EndpointError as exc:
            if key == _LISTENERS and self.listener_name_scan_error is not None:
                self.add("R1", self.listener_name_scan_error)
            else:
                self.add("R3" if exc.kind == "port" else "R1", self.rewrap(text, str(exc)))
            return None
        self.check_listener_protocols(key, text, endpoints)
        if len({endpoint.listener for endpoint in endpoints}) != len(endpoints):
            self.add("R4", self.listener_list_error(text, _REQUIRE + "Each listener must have a different name, "
                                                                     "listeners: %s" % self.listed(text)))
        if key == _LISTENERS:
            self.check_listener_ports(text, endpoints)
        return endpoints

    def check_listener_protocols(self, key: str, text: str, endpoints: list[Endpoint]) -> None:
        """R2: each listener name has a protocol (R7/R14 when it is a controller listener, see module doc)."""
        if self.protocol_map is None:
            return
        controller_names = {name.upper() for name in self.controller_names}
        for endpoint in endpoints:
            name = endpoint.listener
            if name in self.protocol_map or name in self.unmapped_reported:
                continue
            self.unmapped_reported.add(name)
            if self.implicit_controller_mapping and name in controller_names:
                rule = "R7"
            elif key == _ADVERTISED and name in controller_names:
                rule = "R14"
            else:
                rule = "R2"
            self.add(rule, "Error creating broker listeners from '%s': No security protocol defined for listener %s"
                     % (self.listed(text), name))

    def check_listener_ports(self, text: str, endpoints: list[Endpoint]) -> None:
        """R5: listeners sharing a non-zero port must be exactly one IPv4 and one IPv6 literal."""
        by_port: dict = {}
        for endpoint in endpoints:
            if endpoint.port != 0:
                by_port.setdefault(endpoint.port, []).append(endpoint)
        for port, group in by_port.items():
            if len(group) < 2:
                continue
            with_ip = [endpoint for endpoint in group if _is_ip(endpoint.host)]
            without_ip = len(group) - len(with_ip)
            shown = self.listed(text)
            pair_message = ("If you have two listeners on the same port then one needs to be IPv4 and the other "
                            "IPv6, listeners: %s, port: %d" % (shown, port))
            message = None
            if without_ip > 1:
                message = _REQUIRE + "Each listener must have a different port, listeners: %s" % shown
            elif len(with_ip) == 2:
                first, second = (endpoint.host for endpoint in with_ip)
                if {_is_ipv4(first), _is_ipv4(second)} != {True, False}:
                    message = _REQUIRE + pair_message
                elif without_ip:
                    message = pair_message
            elif with_ip:
                message = ("Each listener must have a different port unless exactly one listener has an IPv4 "
                           "address and the other IPv6 address, listeners: %s, port: %d" % (shown, port))
            if message is not None:
                self.add("R5", self.listener_list_error(text, message))

    # -- R8, R9, R24: inter-broker communication ------------------------------------------------------------------

    def check_inter_broker_listener(self) -> None:
        """R8: only one way to name the inter-broker listener; R9: that listener has a protocol."""
        name = self.props.string("inter.broker.listener.name")
        if name is not None:
            if self.props.has("security.inter.broker.protocol"):
                self.add("R8", "Only one of inter.broker.listener.name and security.inter.broker.protocol "
                               "should be set.")
                return
            name = name.upper()
            if self.protocol_map is None:
                self.inter_broker_name = name  # protocol unknown: R11 can still run, R24 cannot
                return
            protocol = self.protocol_map.get(name)
            if protocol is None:
                if name not in self.unmapped_reported:
                    self.add("R9", "Listener with name %s defined in inter.broker.listener.name not found in "
                                   "listener.security.protocol.map." % name)
                return
            self.inter_broker_name, self.inter_broker_protocol = name, protocol
            return
        protocol = self.props.string("security.inter.broker.protocol", "PLAINTEXT")
        if protocol.upper() not in SECURITY_PROTOCOLS:
            self.add("R9", "Invalid value %s for configuration security.inter.broker.protocol: String must be one "
                           "of: %s" % (protocol, ", ".join(SECURITY_PROTOCOLS)))
            return
        self.inter_broker_name = self.inter_broker_protocol = protocol.upper()

    def check_sasl_inter_broker(self) -> None:
        """R24: with SASL between brokers, the inter-broker mechanism is enabled on the inter-broker listener."""
        if not uses_sasl(self.inter_broker_protocol):
            return
        override = "listener.name.%s.sasl.enabled.mechanisms" % self.inter_broker_name.lower()
        enabled_key = override if self.props.has(override) else "sasl.enabled.mechanisms"
        enabled = self.props.items(enabled_key, "GSSAPI")
        if self.props.string("sasl.mechanism.inter.broker.protocol", "GSSAPI") not in enabled:
            self.add("R24", _REQUIRE + "sasl.mechanism.inter.broker.protocol must be included in "
                                       "sasl.enabled.mechanisms when SASL is used for inter-broker communication")

    # -- R10-R15: what a node advertises ------------------------------------------------------------------------

    def advertised_broker_endpoints(self) -> list[Endpoint] | None:
        """R14: the advertised endpoints (or the listeners fallback) minus controller listeners; ``None``: unknown."""
        source = self.advertised if self.advertised_set else self.listeners
        if source is None:
            return None
        return [ep for ep in source if ep.listener not in self.controller_names]

    def check_broker_advertised_listeners(self) -> None:
        """R10-R12: a broker advertises something, including its inter-broker listener, and only what it binds."""
        advertised = self.advertised_broker_endpoints()
        if advertised is None:
            return
        names = _unique(ep.listener for ep in advertised)
        if not names:
            hint = " Perhaps all listeners appear in controller.listener.names?" if self.kraft else ""
            empty = self.advertised_set and not self.props.string(_ADVERTISED) and self.release >= (4, 2)
            self.add("R10", "Configuration 'advertised.listeners' must not be empty. Valid values include: any "
                            "non-empty value" if empty else
                     _REQUIRE + "There must be at least one broker advertised listener." + hint)
            return
        if self.inter_broker_name is not None and self.inter_broker_name not in names:
            self.add("R11", _REQUIRE + "inter.broker.listener.name must be a listener name defined in "
                                       "advertised.listeners. The valid options based on currently configured "
                                       "listeners are %s" % ",".join(names))
        if self.listeners is not None:
            bound = _unique(ep.listener for ep in self.listeners)
            if not set(names) <= set(bound):
                self.add("R12", _REQUIRE + "advertised.listeners listener names must be equal to or a subset of the "
                                           "ones defined in listeners. Found %s. The valid options based on the "
                                           "current configuration are %s" % (",".join(names), ",".join(bound)))

    def check_wildcard_advertised(self) -> None:
        """R13: no advertised broker endpoint is 0.0.0.0; R15: nor is an advertised controller endpoint."""
        advertised = self.advertised_broker_endpoints()
        if advertised is not None and any(ep.host == _WILDCARD for ep in advertised):
            self.add("R13", _WILDCARD_MESSAGE)
        controllers = self.advertised_controller_endpoints()
        if controllers is not None and any(
                ep.host == _WILDCARD and (self.derived_controller_wildcard_fails or not derived)
                for ep, derived in controllers):
            self.add("R15", _WILDCARD_MESSAGE)


def kafka_release(version: str | None) -> tuple:
    """``"4.4.0"`` -> ``(4, 4)``; ``None`` -> ``(3, 9)``, the release these messages were first written for.

    Raises ValueError (naming ``kafka_version``) for a value that does not start with a release number."""
    if version is None:
        return (3, 9)
    match = re.match(r"\s*(\d+)(?:\.(\d+))?", str(version))
    if match is None:
        raise ValueError("kafka_version must look like 4.4 or 3.9.2, got %r" % (version,))
    return (int(match.group(1)), int(match.group(2) or 0))


def _unique(names) -> list[str]:
    """``names`` without repeats, first occurrence first (Kafka prints a Set; its order is arbitrary anyway)."""
    return list(dict.fromkeys(names))


def _is_ipv4(host: str) -> bool:
    """Commons Validator's IPv4 test: four dotted decimals 0-255, no leading zeros."""
    parts = host.split(".")
    return len(parts) == 4 and all(
        part.isascii() and part.isdigit() and len(part) <= 3 and int(part) <= 255 and (part == "0" or part[0] != "0")
        for part in parts)


def _is_ipv6(host: str) -> bool:
    """Commons Validator's IPv6 test, zone id (``%eth0``) allowed."""
    address, percent, zone = host.partition("%")
    if percent and (not zone or "%" in zone):
        return False
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        return False
    return True


def _is_ip(host: str) -> bool:
    """Whether Kafka treats ``host`` as an IP literal when it checks shared ports (R5)."""
    return bool(host) and (_is_ipv4(host) or _is_ipv6(host))
