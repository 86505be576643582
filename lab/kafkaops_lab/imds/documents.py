"""Helpers the metadata emulator's providers share to build and serve their documents: path trees, JSON walks."""

from __future__ import annotations

import ipaddress
import zlib
from dataclasses import dataclass
from typing import Any

from .answers import Response, text


@dataclass(frozen=True)
class Leaf:
    """A text value in a path tree. value None = the item does not exist on this instance (404, kept unlisted)."""

    value: str | None
    kind: str = "text"


def split_path(path: str) -> list[str]:
    """The non-empty segments of `path` ('/a//b/' -> ['a', 'b'])."""
    return [seg for seg in path.split("/") if seg]


def serve_tree(
    tree: dict[str, Any], segments: list[str], *, ctype: str = "text/plain", redirect_from: str | None = None
) -> Response:
    """Answer a path in an EC2-style tree: directories list their entries (sub-directories end in '/')."""
    node: Any = tree
    for seg in segments:
        if not isinstance(node, dict) or seg not in node:
            return text(404, "Not Found")
        node = node[seg]
    if isinstance(node, Leaf):
        if node.value is None:
            return text(404, "Not Found", kind=node.kind, content_type=ctype)
        return text(200, node.value, kind=node.kind, content_type=ctype)
    if redirect_from is not None and not redirect_from.endswith("/"):
        return Response(301, b"", ctype, headers=[("Location", redirect_from + "/")])
    entries = []
    for name, child in node.items():
        if isinstance(child, Leaf):
            if child.value is not None:
                entries.append(name)
        else:
            entries.append(name + "/")
    return text(200, "\n".join(entries), kind="text", content_type=ctype)


def walk_json(doc: Any, segments: list[str], match=lambda key, seg: key == seg) -> tuple[bool, Any, str | None]:
    """Follow `segments` through dicts (keys compared by `match`) and lists (decimal index).

    Returns (found, node, last_key); last_key is the dict key of the final step (None after a list index).
    """
    node, last_key = doc, None
    for seg in segments:
        if isinstance(node, dict):
            key = next((k for k in node if match(k, seg)), None)
            if key is None:
                return False, None, None
            node, last_key = node[key], key
        elif isinstance(node, list) and seg.isdigit() and int(seg) < len(node):
            node, last_key = node[int(seg)], None
        else:
            return False, None, None
    return True, node, last_key


def leaf_text(value: Any) -> str:
    """Text form of a JSON scalar, as metadata services print it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def key_kind(key: str | None) -> str:
    """Guess which kind of garbage fits a JSON leaf from its key (hostname/ip/id/text)."""
    lowered = (key or "").lower()
    if lowered in ("hostname", "name", "computername", "displayname"):
        return "hostname"
    if lowered.endswith("ip") or lowered.endswith("ipaddress") or lowered == "privateip":
        return "ip"
    if lowered in ("id", "vmid", "uuid", "instanceid", "droplet_id"):
        return "id"
    return "text"


def subnet_of(ip: str) -> ipaddress.IPv4Network:
    """The /24 the lab puts every private address in (the lab's private range is a /24)."""
    return ipaddress.IPv4Network(f"{ip}/24", strict=False)


def stable_hex(seed: str, digits: int) -> str:
    """A deterministic hex id derived from `seed` (so repeated requests agree)."""
    return f"{zlib.crc32(seed.encode()):08x}"[:digits].rjust(digits, "0")
