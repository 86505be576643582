# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Hetzner Cloud server metadata client.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Scalar items are read as text leaves below ``/hetzner/v1/metadata/``; the private networks only exist as a YAML
list. Managed nodes need not have PyYAML, so that list is read by a small strict parser for exactly its shape
(a block list of flat mappings with scalar or flow-list values); anything else is a malformed answer.
Hetzner metadata has no DNS names: those fields are null.
"""

from __future__ import annotations

import json
import re

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import checks
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import MalformedAnswer
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.http_client import Call

BASE = "/hetzner/v1/metadata"
_PAIR = re.compile(r"^([A-Za-z0-9_-]+):(?: +(.*))?$")
_INT = re.compile(r"^-?[0-9]+$")
# Characters that start YAML syntax this parser does not implement (or that signal garbage).
_PLAIN_FORBIDDEN_START = set("{}[]&*!|>%@`#,?:-\"'")


class _YamlError(ValueError):
    """Raised with a short reason; the caller adds the request and line to the message."""


def _scalar(raw: str):
    """One YAML scalar: double- or single-quoted string, null, boolean, integer or plain string."""
    raw = raw.strip()
    if raw.startswith('"'):
        try:
            value = json.loads(raw)  # YAML double-quoted strings with JSON escapes
        except ValueError:
            raise _YamlError("unterminated or invalid double-quoted string") from None
        if not isinstance(value, str):
            raise _YamlError("invalid double-quoted string")
        return value
    if raw.startswith("'"):
        inner = raw[1:-1] if len(raw) >= 2 and raw.endswith("'") else None
        if inner is None or "'" in inner.replace("''", ""):
            raise _YamlError("unterminated or invalid single-quoted string")
        return inner.replace("''", "'")
    if raw in ("", "~", "null", "Null", "NULL"):
        return None
    if raw[0] in _PLAIN_FORBIDDEN_START and not _INT.match(raw):
        raise _YamlError("unsupported YAML syntax %r" % raw[:40])
    if ": " in raw or " #" in raw or any(ord(c) < 32 for c in raw):
        raise _YamlError("unsupported plain scalar %r" % raw[:40])
    if raw in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return raw.lower() == "true"
    if _INT.match(raw):
        return int(raw)
    return raw


def _value(raw: str | None):
    """A mapping value: a flow list ``[a, b]`` of scalars, or one scalar."""
    if raw is None:
        return None
    raw = raw.strip()
    if raw.startswith("["):
        if not raw.endswith("]") or "[" in raw[1:-1] or "]" in raw[1:-1]:
            raise _YamlError("unterminated or nested flow list")
        inner = raw[1:-1].strip()
        return [_scalar(item) for item in inner.split(",")] if inner else []
    return _scalar(raw)


def parse_mapping_list(text: str) -> list[dict]:
    """Parse a YAML block list of flat mappings (Hetzner's private-networks); raise _YamlError with the line."""
    if text.strip() in ("", "[]"):
        return []
    items: list[dict] = []
    current: dict | None = None
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r ")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            if "\t" in line:
                raise _YamlError("tab character")
            if line.startswith("- "):
                current = {}
                items.append(current)
                pair = line[2:]
            elif line.startswith("  ") and not line.startswith("   ") and current is not None:
                pair = line[2:]
            else:
                raise _YamlError("expected '- key: value' or '  key: value'")
            match = _PAIR.match(pair)
            if not match:
                raise _YamlError("expected 'key: value'")
            key, raw = match.group(1), match.group(2)
            if key in current:
                raise _YamlError("duplicate key %r" % key)
            current[key] = _value(raw)
        except _YamlError as exc:
            raise _YamlError("line %d: %s" % (number, exc)) from None
    return items


def fetch(client, allow_imdsv1: bool = False) -> tuple[dict, list[str]]:
    """Read this server's metadata from the Hetzner metadata service; return (result record, warnings)."""
    answers = client.parallel({
        "instance_id": Call("GET", BASE + "/instance-id"),
        "region": Call("GET", BASE + "/region"),
        "zone": Call("GET", BASE + "/availability-zone"),
        "public_ip": Call("GET", BASE + "/public-ipv4"),
        "networks": Call("GET", BASE + "/private-networks"),
    })
    leaves = {}
    for field in ("instance_id", "region", "zone", "public_ip"):
        answer = answers[field]
        present = checks.require_status(answer, optional=field == "public_ip")  # absent without a public IPv4
        leaves[field] = checks.optional(checks.text(answer)) if present else None

    net_answer = answers["networks"]
    checks.require_status(net_answer)
    try:
        networks = parse_mapping_list(checks.text(net_answer))
    except _YamlError as exc:
        raise MalformedAnswer("%s: not the YAML list of private networks (%s): %s"
                              % (net_answer.source(), exc, checks.excerpt(net_answer.body))) from None
    private_ip = network_id = None
    if networks:  # a server without a private network has only its public address
        private_ip = checks.scalar(checks.dig(networks, (0, "ip"), net_answer), net_answer, "[0].ip")
        private_ip = checks.ip_address(private_ip, net_answer, "[0].ip")
        raw_network = checks.dig(networks, (0, "network_id"), net_answer, required=False)
        network_id = checks.optional(checks.scalar(raw_network, net_answer, "[0].network_id"))
        if network_id is not None:
            network_id = checks.token(network_id, "network id", net_answer, "[0].network_id")
    public_ip = leaves["public_ip"]
    return checks.result(
        "hetzner",
        instance_id=checks.token(leaves["instance_id"], "instance id", answers["instance_id"]),
        region=checks.token(leaves["region"], "region", answers["region"]),
        zone=checks.token(leaves["zone"], "zone", answers["zone"]) if leaves["zone"] else None,
        private_ip=private_ip,
        public_ip=checks.ip_address(public_ip, answers["public_ip"]) if public_ip else None,
        network_id=network_id,
    ), []
