# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Validation of host values that end up in advertised listeners.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Host names and addresses come from instance metadata services and DNS answers, which are untrusted input: a
value holding a newline, ``=``, ``#`` or a backslash would inject a property into server.properties, and one with
``:`` or ``,`` would split a listener entry. Every host is therefore accepted only as a DNS name or an IP literal.
"""

from __future__ import annotations

import ipaddress
import re

# RFC 1123 labels; underscores are tolerated because Kafka's endpoint syntax accepts them and some private zones use
# them, but nothing else outside [A-Za-z0-9-] is.
_LABEL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\Z")
_MAX_NAME = 253


class HostError(ValueError):
    """A host value is neither a DNS name nor an IP literal."""


def _describe(value: str) -> str:
    for char, what in (("\n", "a newline"), ("\r", "a carriage return"), ("=", "'='"), ("#", "'#'"),
                       ("\\", "a backslash"), (",", "','"), ("/", "'/'")):
        if char in value:
            return "contains %s" % what
    if any(c.isspace() for c in value):
        return "contains whitespace"
    if len(value) > _MAX_NAME:
        return "is longer than %d characters" % _MAX_NAME
    if ":" in value:
        return "contains ':' but is not an IPv6 address"
    return "is not a DNS name (letters, digits, '-' and '.' only, labels of 1 to 63 characters)"


def ip_literal(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """Return the address if ``value`` (optionally bracketed) is an IP literal, else None."""
    text = value[1:-1] if value.startswith("[") and value.endswith("]") else value
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def validate_host(value: object, source: str) -> str:
    """Return ``value`` as a host safe to place in a listener, or raise HostError naming it and ``source``.

    Accepts DNS names (a trailing root dot is dropped) and IPv4/IPv6 literals (brackets are dropped; IPv6 is
    returned bare, compressed). ``source`` says where the value came from, e.g. ``"public_dns of broker b1"``.
    """
    if not isinstance(value, str):
        raise HostError("invalid host %r from %s: expected a string, got %s" % (value, source, type(value).__name__))
    if value == "":
        raise HostError("invalid host '' from %s: it is empty" % source)
    address = ip_literal(value)
    if address is not None:
        return address.compressed
    name = value[:-1] if value.endswith(".") else value
    if len(name) <= _MAX_NAME and name and all(_LABEL.match(label) for label in name.split(".")):
        return name
    raise HostError("invalid host %r from %s: it %s" % (value, source, _describe(value)))


def is_loopback(host: str) -> bool:
    """True for ``localhost`` names and loopback addresses: endpoints only the same machine can reach."""
    address = ip_literal(host)
    if address is not None:
        return address.is_loopback
    lowered = host.lower().rstrip(".")
    return lowered == "localhost" or lowered.endswith(".localhost")
