# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""``host:port`` as Kafka and its clients write it: IPv6 literals in brackets, ports 0-65535.

Private to the kafkaops.listeners collection: no compatibility promise outside it. Runs on managed nodes, so it
uses the standard library only.

Three uses, three functions:

* :func:`format_hostport` writes a value the collection will put in a configuration file (checked: a host with
  characters Kafka's endpoint syntax does not allow, or a port outside 0-65535, raises :class:`HostPortError`);
* :func:`show_hostport` writes a value for a message, whatever a peer sent (never raises);
* :func:`parse_hostport` reads a ``host:port`` given by a user (a bootstrap server, a forward), naming the input
  in its error.

:data:`KAFKA_HOST` is the host part of Kafka's own endpoint pattern, which the listener and voter parsers build on.
"""

from __future__ import annotations

import re

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import HostError, validate_host

__all__ = ["KAFKA_HOST", "HostPortError", "format_hostport", "parse_hostport", "show_hostport"]

KAFKA_HOST = "[0-9a-zA-Z\\-%._:]*"
"""The characters Kafka's endpoint pattern allows in a host (brackets around IPv6 literals are outside it)."""

_KAFKA_HOST = re.compile(KAFKA_HOST)
# ports in ASCII digits only: int() and \d take any script's digits, Kafka does not
_BRACKETED = re.compile(r"\[([^\]]+)\]:([0-9]+)")
_PLAIN = re.compile(r"([^:]+):([0-9]+)")


class HostPortError(ValueError):
    """A ``host:port`` that cannot be read or written; the message names the input."""


def _unbracket(host: str) -> str:
    return host[1:-1] if len(host) >= 2 and host[0] == "[" and host[-1] == "]" else host


def show_hostport(host, port) -> str:
    """``host:port`` for a message, IPv6 literals (any host with ``:``) in brackets; any value is shown as is."""
    host = _unbracket(str(host))
    return "[%s]:%s" % (host, port) if ":" in host else "%s:%s" % (host, port)


def format_hostport(host: str, port: int, what: str = "") -> str:
    """``host:port`` for a configuration value, checked so that Kafka reads it back as ``(host, port)``.

    ``host`` may come bracketed. ``what`` (e.g. ``for listener INTERNAL``) is added to the port's error. A
    non-string host or a non-int port raises :class:`TypeError`; a host outside :data:`KAFKA_HOST` or a port
    outside 0-65535 raises :class:`HostPortError` naming it.
    """
    if not isinstance(host, str):
        raise TypeError("host must be a string, got %s: %r" % (type(host).__name__, host))
    if isinstance(port, bool) or not isinstance(port, int):
        raise TypeError("port must be an int, got %s: %r" % (type(port).__name__, port))
    host = _unbracket(host)
    if not _KAFKA_HOST.fullmatch(host):
        raise HostPortError(
            "host %r has characters Kafka's endpoint syntax does not allow (letters, digits, '-', '%%', '.', '_' "
            "and ':' only)" % host)
    if not 0 <= port <= 65535:
        raise HostPortError("port %d%s is outside 0-65535" % (port, " " + what if what else ""))
    return show_hostport(host, port)


def parse_hostport(value, what: str = "host:port") -> tuple[str, int]:
    """``(host, port)`` from ``host:port`` or ``[ipv6]:port`` (surrounding whitespace ignored), the host checked by
    :func:`validate_host` (and returned as it returns it).

    The port must be 1-65535 in ASCII digits. Errors are :class:`HostPortError` starting with ``what`` and the
    value, e.g. ``bootstrap server 'broker-1' is not of the form host:port ...``.
    """
    if not isinstance(value, str):
        raise HostPortError("%s %r is not a string of the form host:port" % (what, value))
    match = _BRACKETED.fullmatch(value.strip()) or _PLAIN.fullmatch(value.strip())
    if match is None:
        raise HostPortError(
            "%s %r is not of the form host:port (IPv6 addresses in brackets: [::1]:9092)" % (what, value))
    port = int(match.group(2))
    if not 1 <= port <= 65535:
        raise HostPortError("%s %r: port %d is not between 1 and 65535" % (what, value, port))
    try:
        return validate_host(match.group(1), "%s %r" % (what, value)), port
    except HostError as exc:
        raise HostPortError(str(exc)) from None
