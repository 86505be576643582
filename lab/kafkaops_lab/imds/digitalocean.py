"""DigitalOcean's Droplet metadata as the lab's metadata emulator serves it.

Docs: https://docs.digitalocean.com/reference/api/metadata/droplet-properties/
  /metadata/v1.json is the whole metadata as JSON (droplet_id, hostname, region, interfaces, dns, ...);
  /metadata/v1/ is a text index; an index path without its trailing slash answers 301; unknown paths 404.
https://docs.digitalocean.com/reference/api/metadata/network-interfaces/
  interfaces/{public,private}/N/{mac,type,ipv4/{address,netmask,gateway}} as text; in the JSON the IPv4
  address key is ip_address. No DNS names: hostname is the Droplet's name.
"""

from __future__ import annotations

from typing import Any

from .answers import Request, Response, Served, as_json, text
from .documents import Leaf, serve_tree, split_path, subnet_of
from .inputs import Values


def digitalocean_doc(v: Values) -> dict[str, Any]:
    """The /metadata/v1.json document."""
    private_net = subnet_of(v.private_ip)

    def iface(ip: str, kind: str) -> dict[str, Any]:
        net = subnet_of(ip)
        return {
            "ipv4": {"gateway": str(next(net.hosts())), "ip_address": ip, "netmask": str(net.netmask)},
            "mac": v.mac.lower(),
            "type": kind,
        }

    return {
        "auth_key": "",
        "dns": {"nameservers": [str(next(private_net.hosts()))]},
        "droplet_id": int(v.instance_id) if v.instance_id.isdigit() else v.instance_id,
        "features": {"dhcp_enabled": False},
        "floating_ip": {"ipv4": {"active": False}},
        "hostname": v.hostname,
        "interfaces": {
            "private": [iface(v.private_ip, "private")],
            "public": [iface(v.public_ip, "public")] if v.public_ip else [],
        },
        "public_keys": [],
        "region": v.region,
        "reserved_ip": {"ipv4": {"active": False}},
        "tags": [],
        "vendor_data": "",
    }


def digitalocean_tree(doc: dict[str, Any]) -> dict[str, Any]:
    """The /metadata/v1/ text tree derived from the JSON document."""

    def iface_tree(iface: dict[str, Any]) -> dict[str, Any]:
        ipv4 = iface["ipv4"]
        return {
            "ipv4": {
                "address": Leaf(ipv4["ip_address"], "ip"),
                "gateway": Leaf(ipv4["gateway"], "ip"),
                "netmask": Leaf(ipv4["netmask"], "ip"),
            },
            "mac": Leaf(iface["mac"]),
            "type": Leaf(iface["type"]),
        }

    return {
        "v1": {
            "dns": {"nameservers": Leaf("\n".join(doc["dns"]["nameservers"]), "ip")},
            "floating_ip": {"ipv4": {"active": Leaf("false")}},
            "hostname": Leaf(doc["hostname"], "hostname"),
            "id": Leaf(str(doc["droplet_id"]), "id"),
            "interfaces": {
                kind: {str(i): iface_tree(it) for i, it in enumerate(doc["interfaces"][kind])}
                for kind in ("public", "private")
            },
            "region": Leaf(doc["region"]),
            "tags": Leaf(""),
        }
    }


def handle_digitalocean(req: Request, v: Values, served: Served) -> Response:
    """DigitalOcean metadata: v1.json and the text tree."""
    if req.method not in ("GET", "HEAD"):
        return Response(405, b"Method Not Allowed", headers=[("Allow", "GET")])
    segments = split_path(req.path)
    doc = digitalocean_doc(v)
    if segments == ["metadata", "v1.json"]:
        return as_json(200, doc)
    if segments[:1] != ["metadata"] or len(segments) < 2:
        return text(404, "Not Found")
    return serve_tree(digitalocean_tree(doc), segments[1:], ctype="text/plain; charset=utf-8", redirect_from=req.path)
