"""Hetzner Cloud's server metadata as the lab's metadata emulator serves it.

Docs: https://docs.hetzner.cloud/#server-metadata
  GET /hetzner/v1/metadata answers YAML with hostname, instance-id, public-ipv4, region,
  availability-zone (and more); each key is also a text path below it; /hetzner/v1/metadata/
  private-networks is a YAML list of the server's private networks (ip, alias_ips, interface_num,
  mac_address, network_id, network_name, network, subnet, gateway). No DNS names.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .answers import Request, Response, Served, text
from .documents import split_path, subnet_of
from .inputs import Values

PLAIN_YAML_RE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9.-]*|\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?)$")
YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}


def yaml_scalar(value: Any) -> str:
    """One YAML scalar: ints plain, safe words plain, anything else double-quoted (JSON quoting is valid YAML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    value = str(value)
    if PLAIN_YAML_RE.match(value) and value.lower() not in YAML_WORDS:
        return value
    return json.dumps(value)


def yaml_mapping(mapping: dict[str, Any], indent: str = "") -> list[str]:
    """Block-style YAML lines for a flat mapping whose values are scalars or lists of scalars."""
    lines = []
    for key, value in mapping.items():
        if isinstance(value, list):
            items = ", ".join(yaml_scalar(item) for item in value)
            lines.append(f"{indent}{key}: [{items}]")
        else:
            lines.append(f"{indent}{key}: {yaml_scalar(value)}")
    return lines


def hetzner_docs(v: Values) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(metadata mapping, private-networks list) for these values."""
    instance_id: Any = int(v.instance_id) if v.instance_id.isdigit() else v.instance_id
    metadata = {"availability-zone": v.zone, "hostname": v.hostname, "instance-id": instance_id}
    if v.public_ip:
        metadata["public-ipv4"] = v.public_ip
    metadata["region"] = v.region
    subnet = subnet_of(v.private_ip)
    network_id: Any = int(v.network_id) if v.network_id.isdigit() else v.network_id
    networks = [
        {
            "ip": v.private_ip,
            "alias_ips": [],
            "interface_num": 1,
            "mac_address": v.mac.lower(),
            "network_id": network_id,
            "network_name": f"net-{v.network_id}",
            "network": str(subnet.supernet(8)),
            "subnet": str(subnet),
            "gateway": str(next(subnet.hosts())),
        }
    ]
    return metadata, networks


def handle_hetzner(req: Request, v: Values, served: Served) -> Response:
    """Hetzner metadata: YAML document, YAML private-networks list, text leaves."""
    if req.method not in ("GET", "HEAD"):
        return Response(405, b"Method Not Allowed", headers=[("Allow", "GET")])
    segments = split_path(req.path)
    if segments[:3] != ["hetzner", "v1", "metadata"]:
        return text(404, "Not Found")
    metadata, networks = hetzner_docs(v)
    rest = segments[3:]
    if not rest:
        return text(200, "\n".join(yaml_mapping(metadata)) + "\n", kind="yaml")
    if rest == ["private-networks"]:
        if not networks:
            return text(200, "[]\n", kind="yaml")
        lines = []
        for net in networks:
            body = yaml_mapping(net, indent="  ")
            lines.append("- " + body[0].lstrip())
            lines.extend(body[1:])
        return text(200, "\n".join(lines) + "\n", kind="yaml")
    kinds = {"hostname": "hostname", "instance-id": "id", "public-ipv4": "ip"}
    if len(rest) == 1 and rest[0] in ("availability-zone", "hostname", "instance-id", "public-ipv4", "region"):
        value = metadata.get(rest[0])
        if value is None:
            return text(404, "Not Found", kind=kinds.get(rest[0], "text"))
        return text(200, str(value), kind=kinds.get(rest[0], "text"))
    return text(404, "Not Found")
