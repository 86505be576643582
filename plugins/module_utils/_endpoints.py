# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a Kafka broker serves, read the way Kafka reads server.properties: its listener endpoints (``listeners``,
``advertised.listeners`` and Kafka's defaults), the listener -> security protocol map, the inter-broker listener,
and the role and id keys (``process.roles``, ``node.id`` / ``broker.id``).

Private to the kafkaops.listeners collection: no compatibility promise outside it. Runs on managed nodes, so it
uses the standard library only and Python 3.8-compatible syntax.

Facts modelled (from Apache Kafka 4.0 ``SocketServerConfigs``, ``Csv`` and ``ConfigDef``):

* an endpoint is ``NAME://host:port`` and must *fully* match
  ``^(.*)://\\[?([0-9a-zA-Z\\-%._:]*)\\]?:(-?[0-9]+)``; the name is upper-cased, the host loses its brackets, an
  empty host means "the default interface", and a port outside Java's ``int`` range fails ``Integer.parseInt``;
* a listener list is trimmed, split at commas (with the whitespace around them) and empty items are dropped;
* ``listener.security.protocol.map`` entries are split at their *last* ``:`` (names may hold colons), names are
  upper-cased and protocols are matched case-insensitively against :data:`SECURITY_PROTOCOLS`.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import NamedTuple

# SECURITY_PROTOCOLS is defined in _client_security; it stays in __all__ here for the readers of a protocol map
from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    SECURITY_PROTOCOLS,
    uses_tls_or_sasl,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import (
    KAFKA_HOST,
    HostPortError,
    format_hostport,
)

__all__ = [
    "DEFAULT_PROTOCOL_MAP",
    "SECURITY_PROTOCOLS",
    "Endpoint",
    "EndpointError",
    "format_endpoint",
    "parse_endpoint",
    "parse_listener_list",
    "parse_protocol_map",
    "advertised_broker_endpoints",
    "effective_protocol_map",
    "identity_properties",
    "inter_broker_listener",
    "process_roles",
    "running_listener_properties",
]

DEFAULT_PROTOCOL_MAP = MappingProxyType({protocol: protocol for protocol in SECURITY_PROTOCOLS})
"""The map Kafka uses when ``listener.security.protocol.map`` is unset (read-only: copy it with ``dict()``)."""

PROTOCOL_MAP_KEY = "listener.security.protocol.map"

# Java's "." (without DOTALL) stops at every line terminator, Python's only at "\n".
_JAVA_ANY = "[^\n\r\u0085\u2028\u2029]"
_ENDPOINT_PATTERN = re.compile("(" + _JAVA_ANY + "*)://\\[?(" + KAFKA_HOST + ")\\]?:(-?[0-9]+)")
# Java's "\s" is ASCII whitespace only.
_CSV_SEPARATOR = re.compile("[ \t\n\x0b\f\r]*,[ \t\n\x0b\f\r]*")
# String.trim() removes every character up to U+0020.
_JAVA_TRIM_CHARS = "".join(chr(code) for code in range(0x21))
_JAVA_INT_MIN = -(2**31)
_JAVA_INT_MAX = 2**31 - 1


class EndpointError(ValueError):
    """A listener setting Kafka would refuse; ``str(error)`` is Kafka's own message.

    ``kind`` says what failed, so callers can tell the causes apart without parsing the message:
    ``"syntax"`` (an entry does not match Kafka's endpoint pattern), ``"port"`` (the port is outside Java's int
    range), ``"protocol"`` (a map value is not a security protocol), ``"map_entry"`` (a map entry has no ``:``)
    or ``"value"`` (bad input to :func:`format_endpoint`).
    """

    def __init__(self, message: str, kind: str = "syntax") -> None:
        super().__init__(message)
        self.kind = kind


class Endpoint(NamedTuple):
    """One parsed listener entry."""

    listener: str
    """Listener name, upper-cased as Kafka normalises it."""
    host: str
    """Host without IPv6 brackets; ``""`` means the default interface (advertised: the canonical host name)."""
    port: int


def _java_trim(text: str) -> str:
    """``text`` without the leading/trailing characters Java's ``String.trim()`` removes."""
    return text.strip(_JAVA_TRIM_CHARS)


def _split_csv(text: str, keep_empty: bool = False) -> list[str]:
    """Split ``text`` at commas and their surrounding ASCII whitespace, as Kafka does for lists.

    ``text`` should already be trimmed. An empty ``text`` gives ``[]``. Empty items are dropped unless
    ``keep_empty`` (``ConfigDef``'s LIST type keeps them; ``Csv.parseCsvList`` drops them).
    """
    if not text:
        return []
    items = _CSV_SEPARATOR.split(text)
    return items if keep_empty else [item for item in items if item]


def _require_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError("%s must be a string, got %s: %r" % (what, type(value).__name__, value))
    return value


def parse_endpoint(entry: str) -> Endpoint:
    """Parse one listener entry exactly as Kafka does (no trimming: Kafka's list split already trimmed it).

    Raises :class:`EndpointError` with Kafka's message when the entry does not fully match Kafka's pattern
    (``Unable to parse <entry> to a broker endpoint``) or the port overflows Java's int
    (``For input string: "<port>"``).
    """
    _require_str(entry, "listener entry")
    match = _ENDPOINT_PATTERN.fullmatch(entry)
    if match is None:
        raise EndpointError("Unable to parse %s to a broker endpoint" % entry, kind="syntax")
    name, host, port_text = match.groups()
    port = int(port_text)
    if not _JAVA_INT_MIN <= port <= _JAVA_INT_MAX:
        raise EndpointError('For input string: "%s"' % port_text, kind="port")
    return Endpoint(name.upper(), host, port)


def parse_listener_list(value: str) -> list[Endpoint]:
    """Parse a ``listeners``/``advertised.listeners`` value into its endpoints, in order.

    Only the syntax is checked here: protocol mapping and duplicate names/ports are rules of their own (see
    ``_kafka_rules``). On the first bad entry raises :class:`EndpointError` wrapped the way Kafka wraps it:
    ``Error creating broker listeners from '<trimmed value>': <inner message>`` (``kind`` kept from the entry).
    """
    text = _java_trim(_require_str(value, "listener list"))
    endpoints = []
    for entry in _split_csv(text):
        try:
            endpoints.append(parse_endpoint(entry))
        except EndpointError as exc:
            raise EndpointError("Error creating broker listeners from '%s': %s" % (text, exc), kind=exc.kind) from exc
    return endpoints


DEFAULT_LISTENERS = "PLAINTEXT://:9092"
"""Kafka's default ``listeners``."""


def advertised_broker_endpoints(props) -> list[Endpoint]:
    """What a broker advertises, as Kafka derives it from the server.properties mapping ``props``:
    ``advertised.listeners``, else ``listeners`` (default :data:`DEFAULT_LISTENERS`), minus the controller listeners
    (R13, R14 of docs/docsite/rst/kafka-rules.rst). Raises :class:`EndpointError` when the setting does not
    parse."""
    source = props.get("advertised.listeners", props.get("listeners", DEFAULT_LISTENERS))
    controllers = controller_listener_names(props)
    return [endpoint for endpoint in parse_listener_list(source) if endpoint.listener not in controllers]


def format_endpoint(listener: str, host: str, port: int) -> str:
    """Write one endpoint as ``NAME://host:port``, bracketing hosts that contain ``:`` (IPv6 literals).

    ``host`` may be ``""`` (default interface) and may come already bracketed. The result parses back
    (:func:`parse_endpoint`) to ``(listener.upper(), host, port)``: the host pattern has no ``/``, so Kafka's
    greedy name group can only end at the ``://`` written here. Input that could not be written that way - an
    empty name, a name with ``,``/``://``/whitespace, a host with characters Kafka's pattern rejects, a port
    outside 0-65535 - raises :class:`EndpointError` (``kind="value"``) naming the bad input; a non-string name or
    host, or a non-int port, raises :class:`TypeError`.
    """
    _require_str(listener, "listener name")
    if not listener or "://" in listener or "," in listener or any(char.isspace() for char in listener):
        raise EndpointError(
            "listener name %r is not usable in a listener list: it must be non-empty, without ',', '://' or "
            "whitespace" % listener, kind="value")
    try:
        return "%s://%s" % (listener, format_hostport(host, port, "for listener " + listener))
    except HostPortError as exc:
        raise EndpointError(str(exc), kind="value") from None


def parse_protocol_map(value: str) -> dict[str, str]:
    """Parse ``listener.security.protocol.map`` into ``{LISTENER_NAME: PROTOCOL}``, both upper-cased.

    Each entry is split at its last ``:``; a repeated name keeps its last value. Raises :class:`EndpointError`
    with Kafka's message for an entry without ``:`` (``kind="map_entry"``; Kafka reports Java's substring
    failure) and then for a value that is not in :data:`SECURITY_PROTOCOLS` (``kind="protocol"``).
    """
    text = _java_trim(_require_str(value, PROTOCOL_MAP_KEY))
    if not text:
        return {}
    items = _CSV_SEPARATOR.split(text)
    while items and not items[-1]:
        items.pop()  # Java's String.split drops trailing empty strings, but keeps leading ones
    pairs = []
    for item in items:
        colon = item.rfind(":")
        if colon < 0:
            raise EndpointError(
                "Error parsing configuration property '%s': begin 0, end -1, length %d" % (PROTOCOL_MAP_KEY, len(item)),
                kind="map_entry")
        pairs.append((_java_trim(item[:colon]), _java_trim(item[colon + 1:])))
    mapping = {}
    for name, protocol in pairs:
        if protocol.upper() not in SECURITY_PROTOCOLS:
            raise EndpointError(
                "Invalid security protocol `%s` defined in %s" % (protocol, PROTOCOL_MAP_KEY), kind="protocol")
        mapping[name.upper()] = protocol.upper()
    return mapping


# -- what a broker serves: protocol map, inter-broker listener, role and id keys --------------------------------

NODE_ID_KEYS = ("node.id", "broker.id")
"""The keys that name a node, in the order Kafka reads them (``node.id`` defaults to ``broker.id``)."""

RUNNING_LISTENER_KEYS = ("listeners", "advertised.listeners", PROTOCOL_MAP_KEY, "inter.broker.listener.name",
                         "security.inter.broker.protocol", "controller.listener.names", "controller.quorum.voters",
                         "controller.quorum.bootstrap.servers")
"""The keys that say which listeners a node runs now, on which protocols, and how its controllers are reached: what a
new plan starts from on a cluster in service and is compared with (a renamed inter-broker listener, a moved controller
endpoint). None of them holds a secret."""


def running_listener_properties(props) -> dict[str, str]:
    """The :data:`RUNNING_LISTENER_KEYS` that ``props`` (a node's configuration) sets, and nothing else."""
    return {key: props[key] for key in RUNNING_LISTENER_KEYS if props.get(key) is not None}


def process_roles(props) -> tuple:
    """``process.roles`` of the server.properties mapping ``props``; ``()`` means a ZooKeeper-mode broker."""
    return tuple(_split_csv(_java_trim(props.get("process.roles") or "")))


def controller_listener_names(props) -> list[str]:
    """``controller.listener.names``, upper-cased as Kafka compares listener names."""
    return [name.upper() for name in _split_csv(_java_trim(props.get("controller.listener.names") or ""))]


def effective_protocol_map(props) -> dict[str, str]:
    """Kafka's listener -> security protocol map for ``props``: the explicit ``listener.security.protocol.map``,
    else the default one, to which a KRaft node that uses no SSL/SASL listener name adds its controller listener
    names as PLAINTEXT (R2, R7 of docs/docsite/rst/kafka-rules.rst). Raises :class:`EndpointError` when a setting
    does not parse."""
    if PROTOCOL_MAP_KEY in props:
        return parse_protocol_map(props[PROTOCOL_MAP_KEY])
    mapping = dict(DEFAULT_PROTOCOL_MAP)
    controllers = controller_listener_names(props)
    if process_roles(props):
        bound = parse_listener_list(props.get("listeners", DEFAULT_LISTENERS))
        in_use = set(controllers) | {endpoint.listener for endpoint in bound}
        if not any(uses_tls_or_sasl(name) for name in in_use):
            for name in controllers:
                mapping.setdefault(name, "PLAINTEXT")
    return mapping


def inter_broker_listener(props) -> str:
    """The name of the listener brokers talk to each other on: ``inter.broker.listener.name``, else the listener
    named after ``security.inter.broker.protocol``, else PLAINTEXT (R9 of docs/docsite/rst/kafka-rules.rst),
    upper-cased."""
    for key in ("inter.broker.listener.name", "security.inter.broker.protocol"):
        value = _java_trim(props.get(key) or "")
        if value:
            return value.upper()
    return "PLAINTEXT"


def identity_properties(node_id, roles) -> dict[str, str]:
    """The role and id keys of a node: ``node.id`` and ``process.roles`` on a KRaft node (``roles`` not empty),
    ``broker.id`` on a ZooKeeper-mode broker."""
    if roles:
        return {NODE_ID_KEYS[0]: str(node_id), "process.roles": ",".join(roles)}
    return {NODE_ID_KEYS[1]: str(node_id)}
