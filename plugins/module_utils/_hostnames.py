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
# An IPv6 zone id ("fe80::1%eth0", "%2"): an interface name or index. Python's ipaddress takes anything after the
# "%", a line break, "=" or "#" included; these are what interface names are made of and Kafka's endpoint syntax
# and a properties file take as they are.
_ZONE = re.compile(r"[A-Za-z0-9._-]{1,64}\Z")
_ZONE_RULE = "1 to 64 letters, digits, '.', '_' and '-'"
# the only characters of an IPv4 literal to ipaddress (an IPv6 one has a ':'): any other marks a name at once, where
# ipaddress's two failed parses would cost most of a plan's time
_IPV4_CHARS = re.compile(r"[0-9.]*\Z")


class HostError(ValueError):
    """A host value is neither a DNS name nor an IP literal."""


_INJECTION_CHARACTERS = (("\n", "a newline"), ("\r", "a carriage return"), ("=", "'='"), ("#", "'#'"),
                         ("!", "'!'"), ("\\", "a backslash"), (",", "','"), ("/", "'/'"))


def _describe(value: str) -> str:
    """Everything that keeps ``value`` from being a DNS name or IP literal, not only the first fault found."""
    problems = ["contains %s" % what for char, what in _INJECTION_CHARACTERS if char in value]
    other_space = sorted({c for c in value if c.isspace() and c not in "\n\r"})
    if other_space:
        problems.append("contains whitespace (%s)" % ", ".join("U+%04X" % ord(c) for c in other_space))
    unusual = sorted({c for c in value if (ord(c) > 126 or ord(c) < 32) and not c.isspace()})
    if unusual:
        codes = ", ".join("U+%04X" % ord(c) for c in unusual)
        problems.append("contains characters outside printable ASCII (%s)" % codes)
    if len(value) > _MAX_NAME:
        problems.append("is longer than %d characters" % _MAX_NAME)
    address, percent, zone = _unbracket(value).partition("%")
    if percent and ":" in address and ip_literal(address) is not None:
        problems.append("has the IPv6 zone id %r, which is not %s" % (zone, _ZONE_RULE))
    elif ":" in value:
        problems.append("contains ':' but is not an IPv6 address")
    labels = (value[:-1] if value.endswith(".") else value).split(".")
    if not problems and any(not _LABEL.match(label) for label in labels):
        problems.append("is not a DNS name (letters, digits, '-' and '.' only, labels of 1 to 63 characters)")
    elif any(label == "" for label in labels):
        problems.append("has an empty label")
    return "; ".join(problems) or "is not a DNS name (letters, digits, '-' and '.' only, labels of 1 to 63 characters)"


def _unbracket(value: str) -> str:
    return value[1:-1] if value.startswith("[") and value.endswith("]") else value


def ip_literal(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """Return the address if ``value`` (optionally bracketed) is an IP literal, else None. An IPv6 zone id must be
    1 to 64 letters, digits, ``.``, ``_`` and ``-``."""
    text = _unbracket(value)
    if ":" not in text and not _IPV4_CHARS.match(text):
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    zone = getattr(address, "scope_id", None)  # Python 3.9+; before, a zone is a ValueError above
    return None if zone is not None and not _ZONE.match(zone) else address


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
    special = special_address(host)
    return special is not None and special[0] == "loopback"


# Names the usual /etc/hosts files (Debian, Red Hat) and RFC 6761 map to loopback or multicast addresses
_SPECIAL_NAMES = {
    "localhost": "loopback", "localhost.localdomain": "loopback", "localhost4": "loopback",
    "localhost4.localdomain4": "loopback", "localhost6": "loopback", "localhost6.localdomain6": "loopback",
    "ip6-localhost": "loopback", "ip6-loopback": "loopback", "ip6-allnodes": "multicast",
    "ip6-allrouters": "multicast", "ip6-mcastprefix": "multicast", "ip6-localnet": "unspecified",
}
_INET_ATON_PART = re.compile(r"^(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)\Z")


def inet_aton_address(text: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address the C library's ``inet_aton`` (and so the system resolver) reads in ``text``, or None.

    That reader takes one to four dot-separated numbers, each decimal, octal (leading 0) or hexadecimal (0x), the
    last filling the remaining bytes: ``127.1``, ``0x7f.1``, ``017700000001``, ``2130706433`` and ``0`` are all
    addresses to it, though not to Python's ``ipaddress``.
    """
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or not all(_INET_ATON_PART.match(part) for part in parts):
        return None
    values = [int(part, 16) if part[:2] in ("0x", "0X") else int(part, 8) if part.startswith("0") else int(part)
              for part in parts]
    last_bits = 8 * (5 - len(parts))
    if any(value > 255 for value in values[:-1]) or values[-1] >= 1 << last_bits:
        return None
    number = 0
    for value in values[:-1]:
        number = number << 8 | value
    return ipaddress.IPv4Address(number << last_bits | values[-1])


def _address_class(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return _address_class(address.ipv4_mapped)
    if address.is_loopback:
        return "loopback"
    if address.is_unspecified or (address.version == 4 and address in _THIS_NETWORK):
        return "unspecified"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address.version == 4 and int(address) == 0xFFFFFFFF:
        return "broadcast"
    return None


_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")


def address_class(address: str) -> str | None:
    """``loopback``, ``unspecified``, ``link-local``, ``multicast`` or ``broadcast`` for such an IP address (a DNS
    answer, for example), else None. IPv4-mapped IPv6 addresses are judged by their IPv4 address."""
    literal = ip_literal(address)
    return None if literal is None else _address_class(literal)


def special_address(host: str) -> tuple[str, str] | None:
    """``(class, how)`` when ``host`` is or denotes an address no other machine can use to reach this one.

    The class is ``loopback``, ``unspecified`` (0.0.0.0/8, ::), ``link-local`` (169.254.0.0/16, fe80::/10, where the
    metadata service lives), ``multicast`` or ``broadcast``; ``how`` says which address the value stands for. Every
    spelling the system resolver accepts counts: brackets, IPv6 zones and IPv4-mapped forms, the short, octal,
    hexadecimal and single-number IPv4 forms, letter case, a trailing dot, and the names /etc/hosts and RFC 6761
    give such addresses (``localhost``, ``*.localhost``, ``ip6-localhost``, ...). Other names are not resolved here.
    """
    text = host.strip()
    bare = text[:-1] if text.endswith(".") else text
    literal, how = ip_literal(bare), "the address %s"
    if literal is None:
        literal, how = inet_aton_address(bare), "the address %s as the system resolver reads it"
    if literal is not None:
        klass = _address_class(literal)
        return None if klass is None else (klass, how % literal.compressed)
    lowered = bare.lower()
    if lowered in _SPECIAL_NAMES:
        return _SPECIAL_NAMES[lowered], "a name the hosts file maps to a %s address" % _SPECIAL_NAMES[lowered]
    if lowered.endswith(".localhost"):
        return "loopback", "a name under localhost, which resolvers answer with a loopback address (RFC 6761)"
    return None
