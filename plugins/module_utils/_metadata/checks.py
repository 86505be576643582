# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Turning untrusted metadata answers into checked values, and the shape of the result.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Metadata answers are untrusted input: a host name with a newline or ``=`` would inject a key into
server.properties. Every value a provider returns passes one of the checks here first; every failure names the
provider, the request (and JSON key) and the value.
"""

from __future__ import annotations

import json
import re

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import (
    HostError,
    ip_literal,
    validate_host,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import (
    AccessRefused,
    InvalidValue,
    MalformedAnswer,
)

# The keys of the result, in the order the documentation lists them.
FIELDS = ("provider", "instance_id", "region", "zone", "private_ip", "private_dns", "public_ip", "public_dns",
          "network_id")

# Ids, regions and zones: letters, digits and the separators real providers use (OCIDs '.', OCI availability
# domains ':', GCP network paths '/'); nothing that could end a value or start a new key in a config file.
_SAFE_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,254}$")


def result(provider: str, **values: str | None) -> dict[str, str | None]:
    """The result record: every field of FIELDS present, None where the provider gave no value."""
    unknown = set(values) - set(FIELDS)
    if unknown:
        raise ValueError("unknown result fields %s" % sorted(unknown))  # a programming error, not bad metadata
    record: dict[str, str | None] = {field: None for field in FIELDS}
    record.update(values)
    record["provider"] = provider
    return record


def excerpt(body: bytes, limit: int = 120) -> str:
    """A short, printable rendering of an answer body for error messages (bytes notation when not UTF-8)."""
    try:
        shown = body.decode("utf-8")
    except UnicodeDecodeError:
        shown = body
    return repr(shown[:limit]) + ("..." if len(shown) > limit else "")


def require_status(answer, optional: bool = False) -> bool:
    """True when the answer is a 200; False for a 404 when the item is ``optional``; otherwise raise.

    401/403 raise AccessRefused, anything else MalformedAnswer; both name the request and show the body.
    """
    if answer.status == 200:
        return True
    if answer.status == 404 and optional:
        return False
    if answer.status in (401, 403):
        raise AccessRefused("%s at %s refused access: HTTP %d %s"
                            % (answer.source(), answer.endpoint, answer.status, excerpt(answer.body)))
    if answer.status == 404:
        raise MalformedAnswer("%s at %s: not found (HTTP 404): the endpoint is not a %s metadata service, or this "
                              "instance lacks the item" % (answer.source(), answer.endpoint, answer.provider))
    raise MalformedAnswer("%s at %s: unexpected HTTP %d %s"
                          % (answer.source(), answer.endpoint, answer.status, excerpt(answer.body)))


def text(answer) -> str:
    """The body as UTF-8 text without surrounding whitespace; MalformedAnswer when it is not UTF-8."""
    try:
        return answer.body.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise MalformedAnswer("%s: the answer is not UTF-8 text: %s" % (answer.source(), excerpt(answer.body))) \
            from None


def json_document(answer):
    """The body parsed as JSON; MalformedAnswer naming the request and the parse error otherwise."""
    try:
        return json.loads(text(answer))
    except ValueError as exc:
        raise MalformedAnswer("%s: the answer is not JSON (%s): %s" % (answer.source(), exc, excerpt(answer.body))) \
            from None


def key_path(path) -> str:
    """``("network", "interface", 0, "ipv4")`` -> ``network.interface[0].ipv4``."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += "[%d]" % step
        else:
            out += ("." if out else "") + step
    return out


def _kind(node) -> str:
    if isinstance(node, dict):
        return "an object without that key"
    if isinstance(node, list):
        return "a list of %d items" % len(node)
    return "a %s" % type(node).__name__


def dig(doc, path, answer, required: bool = True):
    """Follow ``path`` (dict keys and list indexes) through ``doc``; None when absent and not ``required``."""
    node = doc
    for depth, step in enumerate(path):
        if isinstance(step, int):
            found = isinstance(node, list) and len(node) > step
        else:
            found = isinstance(node, dict) and step in node
        if not found:
            if not required:
                return None
            raise MalformedAnswer("%s: the document has no %s (%s is %s)"
                                  % (answer.source(), key_path(path), key_path(path[:depth]) or "the document",
                                     _kind(node)))
        node = node[step]
    return node


def scalar(value, answer, key: str | None = None) -> str | None:
    """A JSON/YAML scalar as text (numbers as decimal); None for null; MalformedAnswer for lists and objects."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise MalformedAnswer("%s: expected a string or number, found %s %s"
                          % (answer.source(key), type(value).__name__, excerpt(repr(value).encode())))


def host(value, answer, key: str | None = None) -> str:
    """``value`` as a DNS name or IP literal; InvalidValue naming provider, request and value otherwise."""
    try:
        return validate_host(value, answer.source(key))
    except HostError as exc:
        raise InvalidValue(str(exc)) from None


def ip_address(value, answer, key: str | None = None) -> str:
    """``value`` as an IP literal; InvalidValue when it is a name or not a host at all."""
    checked = host(value, answer, key)
    if ip_literal(checked) is None:
        raise InvalidValue("invalid IP address %r from %s: it is not an IPv4 or IPv6 address"
                           % (value, answer.source(key)))
    return checked


def token(value, what: str, answer, key: str | None = None) -> str:
    """An id, region or zone: 1-255 letters, digits and ``. _ : / -``; InvalidValue otherwise."""
    if not isinstance(value, str) or not _SAFE_TOKEN.match(value):
        raise InvalidValue("invalid %s %r from %s: expected 1 to 255 letters, digits and '. _ : / -', starting "
                           "with a letter or digit" % (what, value, answer.source(key)))
    return value


def optional(value: str | None) -> str | None:
    """None for absent or empty values (providers print "" for an address that is not attached)."""
    return value if value else None
