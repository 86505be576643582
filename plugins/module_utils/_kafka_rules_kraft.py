# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Kafka's startup rules for a KRaft node (R16-R23 of docs/docsite/rst/kafka-rules.rst): the process roles and the
node identity (R23), the controller quorum (R22) and what a broker-only, a controller-only and a controller node
must set (R16-R21), as checks the rule checker of ``_kafka_rules`` inherits.

Private to the kafkaops.listeners collection: no compatibility promise outside it. Runs on managed nodes, so it
uses the standard library only and Python 3.8-compatible syntax.

Which rule a failure reports: R22 also covers an unparseable ``controller.quorum.voters``; R23 also a non-integer
``node.id``/``broker.id`` and KRaft without ``node.id``.

Messages by release (the rest of the list is in ``_kafka_rules``):

* all: an unknown process role (R23) fails ``ConfigDef`` validation (``Invalid value X for configuration
  process.roles: String must be one of: broker, controller``); an invalid ``node.id`` is reported for
  ``broker.id``;
* from 4.0: a KRaft node without ``node.id`` gets ``Missing required configuration "node.id" ...``;
* from 4.2: a missing ``controller.listener.names`` (R16, R21) and an empty process role (R23) fail ``ConfigDef``
  validation; repeated process roles are accepted (no R23);
* from 4.4: ``node.id`` differing from ``broker.id`` gets 4.4's own message.

Facts that cannot be established (the rest of the stopping policy is in ``_kafka_rules``):

* duplicate process roles (R23) are reported but the intended roles are used, since they are unambiguous;
* node ids that disagree or are missing (R23), or unparseable voters (R22): no voter checks (R19, R21);
* an empty ``controller.listener.names`` on a controller-only node: R21's "at least one value" only, not R20.
"""

from __future__ import annotations

import re

from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import NODE_ID_KEYS, Endpoint
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import KAFKA_HOST

# the prefix of Kafka's Scala ``require`` messages, for the rules of _kafka_rules too
_REQUIRE = "requirement failed: "
_JAVA_INT = re.compile("[+-]?[0-9]+")
# org.apache.kafka.common.utils.Utils' host:port pattern, as used for controller.quorum.voters
_VOTER_ADDRESS = re.compile("[^\n\r\u0085\u2028\u2029]*?\\[?(" + KAFKA_HOST + ")\\]?:([0-9]+)")
_VOTER_FORM = "Each entry should be in the form `{id}@{host}:{port}`."


class _KraftNodeChecks:
    """R16-R23, for ``_kafka_rules._Checker``: they read and set its facts (``props``, ``release``, ``kraft``,
    ``roles``, ``node_id``, ``voter_ids``, ``controller_names``, ``protocol_map``, ``listeners``, ``advertised``,
    ``advertised_set``, ``unmapped_reported``) and report through its ``add``."""

    def missing_controller_names(self) -> str | None:
        """Kafka 4.2 and later refuse a KRaft node without controller.listener.names while parsing its config."""
        if self.release >= (4, 2) and not self.props.has("controller.listener.names"):
            return 'Missing required configuration "controller.listener.names" which has no default value.'
        return None

    # -- R23: process roles and node identity ------------------------------------------------------------------

    def check_process_roles(self) -> None:
        """R23: every role is 'broker' or 'controller', each at most once; any value at all means KRaft."""
        raw = self.props.items("process.roles")
        self.kraft = bool(raw)
        for role in raw:
            if not role and self.release >= (4, 2):
                self.add("R23", "Configuration 'process.roles' values must not be empty.")
                return
            if role not in ("broker", "controller"):
                self.add("R23", "Invalid value %s for configuration process.roles: String must be one of: broker, "
                                "controller" % role)
                return
        if len(set(raw)) != len(raw) and self.release < (4, 2):  # Kafka 4.2 and later accept duplicates
            self.add("R23", "Duplicate role names found in `process.roles`: ArrayBuffer(%s)" % ", ".join(raw))
        self.roles = frozenset(raw)

    def check_node_identity(self) -> None:
        """R23: node.id and broker.id stand in for each other, must agree, and node.id is required in KRaft."""
        parsed = {}
        for key in NODE_ID_KEYS:
            text = self.props.string(key)
            if text is None:
                continue
            number = _java_int(text)
            if number is None:
                # Kafka parses node.id's value as broker.id's default first, so it names broker.id
                self.add("R23", "Invalid value %s for configuration broker.id: Not a number of type INT" % text)
                return
            parsed[key] = number
        node_id = parsed.get("node.id", parsed.get("broker.id", -1))
        broker_id = parsed.get("broker.id", node_id)
        if node_id != broker_id:
            self.add("R23", "`node.id` and `broker.id` must be set to the same value. `broker.id` is deprecated, "
                            "please use `node.id` instead." if self.release >= (4, 4)
                     else "You must set `node.id` to the same value as `broker.id`.")
            return
        if self.kraft and node_id < 0:
            self.add("R23", 'Missing required configuration "node.id" which has no default value.'
                     if self.release >= (4, 0) else
                     "Missing configuration `node.id` which is required when `process.roles` is defined "
                     "(i.e. when running in KRaft mode).")
            return
        self.node_id = node_id

    # -- R22: the controller quorum ------------------------------------------------------------------------------

    def parse_quorum_voters(self) -> None:
        """R22 (parse): each controller.quorum.voters entry is ``{id}@{host}:{port}``."""
        ids = set()
        for entry in self.props.items("controller.quorum.voters"):
            parts = entry.split("@")
            while parts and not parts[-1]:
                parts.pop()  # Java's String.split drops trailing empty strings
            if len(parts) != 2:
                self.add("R22", "Invalid configuration value for controller.quorum.voters. " + _VOTER_FORM)
                return
            voter_id = _java_int(parts[0])
            if voter_id is None:
                self.add("R22", "Failed to parse voter ID as an integer from %s" % parts[0])
                return
            address = _VOTER_ADDRESS.fullmatch(parts[1])
            if address is None:
                self.add("R22", "Failed to parse host name from entry %s for the configuration "
                                "controller.quorum.voters. %s" % (entry, _VOTER_FORM))
                return
            if _java_int(address.group(2)) is None:
                self.add("R22", 'For input string: "%s"' % address.group(2))
                return
            ids.add(voter_id)
        self.voter_ids = frozenset(ids)

    def check_quorum_bootstrap(self) -> None:
        """R22: a KRaft node knows its controllers, from bootstrap servers or from static voters."""
        if not self.kraft or self.voter_ids is None or self.voter_ids:
            return
        if not [server for server in self.props.items("controller.quorum.bootstrap.servers") if server]:
            self.add("R22", "If using process.roles, either controller.quorum.bootstrap.servers must contain the set "
                            "of bootstrap controllers or controller.quorum.voters must contain a parseable set of "
                            "controllers.")

    # -- R16-R21: KRaft roles ----------------------------------------------------------------------------------

    def check_broker_only_node(self) -> None:
        """R16-R19: a broker-only node names its controller listeners, does not bind them, maps them, isn't a voter."""
        if self.node_id is not None and self.voter_ids is not None and self.node_id in self.voter_ids:
            self.add("R19", _REQUIRE + "If process.roles contains just the 'broker' role, the node id %d must not be "
                                       "included in the set of voters controller.quorum.voters=%s"
                     % (self.node_id, _scala_set(self.voter_ids)))
        if not self.controller_names:
            self.add("R16", self.missing_controller_names() or
                     _REQUIRE + "controller.listener.names must contain at least one value when running KRaft "
                                "with just the broker role")
            return
        if self.listeners is not None and any(ep.listener in self.controller_names for ep in self.listeners):
            self.add("R17", _REQUIRE + "controller.listener.names must not contain a value appearing in the "
                                       "'listeners' configuration when running KRaft with just the broker role")
        if self.protocol_map is None:
            return
        for name in self.controller_names:
            name = name.upper()
            if name not in self.protocol_map and name not in self.unmapped_reported:
                self.unmapped_reported.add(name)
                self.add("R18", "Controller listener with name %s defined in controller.listener.names not found in "
                                "listener.security.protocol.map  (an explicit security mapping for each controller "
                                "listener is required if listener.security.protocol.map is non-empty, or if there "
                                "are security protocols other than PLAINTEXT in use)" % name)

    def check_controller_only_listeners(self) -> None:
        """R20: a controller-only node binds nothing but its controller listeners."""
        advertised = self.advertised_controller_endpoints()
        if advertised is None or not self.controller_names:
            return  # an empty controller.listener.names is R21's finding
        if len(advertised) != len(self.listeners):
            self.add("R20", _REQUIRE + "The listeners config must only contain KRaft controller listeners from "
                                       "controller.listener.names when process.roles=controller")

    def check_controller_role(self) -> None:
        """R21: a controller binds its controller listeners and, when voters are static, is one of them."""
        if self.node_id is not None and self.voter_ids and self.node_id not in self.voter_ids:
            self.add("R21", _REQUIRE + "If process.roles contains the 'controller' role, the node id %d must be "
                                       "included in the set of voters controller.quorum.voters=%s"
                     % (self.node_id, _scala_set(self.voter_ids)))
        advertised = self.advertised_controller_endpoints()
        if advertised is not None and not advertised:
            self.add("R21", self.missing_controller_names() or
                     _REQUIRE + "controller.listener.names must contain at least one value appearing in the "
                                "'listeners' configuration when running the KRaft controller role")
        elif self.listeners is not None:
            bound = {endpoint.listener for endpoint in self.listeners}
            if any(name not in bound for name in self.controller_names):
                self.add("R21", _REQUIRE + "controller.listener.names must only contain values appearing in the "
                                           "'listeners' configuration when running the KRaft controller role")

    def advertised_controller_endpoints(self) -> list[tuple[Endpoint, bool]] | None:
        """Kafka's advertised controller endpoints as ``(endpoint, derived_from_listeners)``; ``None``: unknown.

        Per controller name: the ``advertised.listeners`` entry of that name, else the ``listeners`` entry.
        """
        if self.listeners is None or (self.advertised_set and self.advertised is None):
            return None
        named = [ep for ep in (self.advertised or []) if ep.listener in self.controller_names]
        bound = [ep for ep in self.listeners if ep.listener in self.controller_names]
        result = []
        for name in self.controller_names:
            wanted = name.upper()
            found = next((ep for ep in named if ep.listener == wanted), None)
            if found is not None:
                result.append((found, False))
                continue
            found = next((ep for ep in bound if ep.listener == wanted), None)
            if found is not None:
                result.append((found, True))
        return result


def _java_int(text: str) -> int | None:
    """``text`` as Java's ``Integer.parseInt`` reads it, or ``None`` where Java would throw."""
    if not _JAVA_INT.fullmatch(text):
        return None
    number = int(text)
    return number if -(2**31) <= number < 2**31 else None


def _scala_set(numbers) -> str:
    """A set of ints as Scala prints it (ascending here; Kafka's order is not guaranteed)."""
    return "Set(%s)" % ", ".join(str(number) for number in sorted(numbers))
