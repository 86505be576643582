"""OpenStack's Nova metadata service as the lab's metadata emulator serves it.

Docs: https://docs.openstack.org/nova/latest/user/metadata.html
  /openstack/latest/meta_data.json holds uuid, hostname, name, availability_zone, launch_index, project_id,
  ...; network_data.json the links/networks; an EC2-compatible tree lives under /latest/meta-data/ (and
  dated versions such as /2009-04-04/).
Source of the EC2 semantics: nova/api/metadata/base.py (get_ec2_metadata): local-hostname and
  public-hostname are BOTH the instance's internal hostname (name + dhcp_domain), public-ipv4 is the first
  floating IP or the empty string, instance-id is the EC2-style id "i-%08x", not the uuid.
"""

from __future__ import annotations

import json
from typing import Any

from .answers import Request, Response, Served
from .documents import Leaf, serve_tree, split_path, stable_hex, subnet_of
from .inputs import Values


def openstack_ec2_id(v: Values) -> str:
    """Nova's EC2-style instance id ("i-" + 8 hex digits), derived stably from the uuid."""
    return "i-" + stable_hex(v.instance_id, 8)


def openstack_tree(v: Values) -> dict[str, Any]:
    """The OpenStack path tree from the root: EC2 tree under dated versions and /latest, plus /openstack/."""
    meta_data = {
        "availability_zone": v.zone,
        "devices": [],
        "hostname": v.private_dns,
        "launch_index": 0,
        "meta": {},
        "name": v.hostname,
        "project_id": v.project_id or "lab-project",
        "public_keys": {},
        "uuid": v.instance_id,
    }
    link = "tap" + stable_hex(v.instance_id + "link", 8)
    subnet = subnet_of(v.private_ip)
    network_data = {
        "links": [
            {"ethernet_mac_address": v.mac.lower(), "id": link, "mtu": 1450, "type": "ovs", "vif_id": v.instance_id}
        ],
        "networks": [
            {
                "id": "network0",
                "ip_address": v.private_ip,
                "link": link,
                "netmask": str(subnet.netmask),
                "network_id": v.network_id,
                "routes": [],
                "type": "ipv4",
            }
        ],
        "services": [],
    }
    ec2 = {
        "meta-data": {
            "hostname": Leaf(v.private_dns, "hostname"),
            "instance-id": Leaf(openstack_ec2_id(v), "id"),
            "local-hostname": Leaf(v.private_dns, "hostname"),
            "local-ipv4": Leaf(v.private_ip, "ip"),
            "placement": {"availability-zone": Leaf(v.zone)},
            "public-hostname": Leaf(v.private_dns, "hostname"),  # Nova: same internal name, not a public one
            "public-ipv4": Leaf(v.public_ip or "", "ip"),  # Nova: empty string without a floating IP
        }
    }
    version = {
        "meta_data.json": Leaf(json.dumps(meta_data, indent=2), "json"),
        "network_data.json": Leaf(json.dumps(network_data, indent=2), "json"),
    }
    return {
        "2009-04-04": ec2,
        "latest": ec2,
        "openstack": {"2018-08-27": version, "latest": version},
    }


def handle_openstack(req: Request, v: Values, served: Served) -> Response:
    """Nova metadata: JSON documents under /openstack, EC2-compatible text tree elsewhere."""
    if req.method not in ("GET", "HEAD"):
        return Response(405, b"Method Not Allowed", headers=[("Allow", "GET")])
    segments = split_path(req.path)
    response = serve_tree(openstack_tree(v), segments)
    if response.status == 200 and segments and segments[-1].endswith(".json"):
        response.content_type = "application/json"
    return response
