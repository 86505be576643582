"""OCI's (Oracle Cloud Infrastructure) IMDS v2 as the lab's metadata emulator serves it.

Docs: https://docs.oracle.com/en-us/iaas/Content/Compute/Tasks/gettingmetadata.htm
  IMDS v2 lives under /opc/v2/ and every request must carry "Authorization: Bearer Oracle" (rejected with
  401 otherwise). /opc/v2/instance/ is JSON (id, displayName, hostname, region = short code,
  canonicalRegionName, availabilityDomain, ociAdName, faultDomain, shape, ...), a field's sub-path serves
  it alone; /opc/v2/vnics/ is a JSON list with vnicId, privateIp, vlanTag, macAddr, virtualRouterIp,
  subnetCidrBlock, nicIndex. Neither holds a public IP or any DNS name (the public IP lives on the VNIC's
  public-IP object, reachable through the OCI API only).
"""

from __future__ import annotations

from typing import Any

from .answers import Request, Response, Served, as_json, text
from .documents import key_kind, leaf_text, split_path, stable_hex, subnet_of, walk_json
from .inputs import Values


def oci_docs(v: Values) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(instance document, vnics list) for these values."""
    subnet = subnet_of(v.private_ip)
    ad_name = v.zone.split(":")[-1]
    instance = {
        "agentConfig": {"allPluginsDisabled": False, "managementDisabled": False, "monitoringDisabled": False},
        "availabilityDomain": v.zone,
        "canonicalRegionName": v.region,
        "compartmentId": "ocid1.compartment.oc1..lab",
        "displayName": v.hostname,
        "faultDomain": "FAULT-DOMAIN-1",
        "hostname": v.hostname,
        "id": v.instance_id,
        "image": "ocid1.image.oc1..lab",
        "metadata": {},
        "ociAdName": ad_name.lower(),
        "region": (v.region_code or v.region).lower(),
        "regionInfo": {
            "realmDomainComponent": "oraclecloud.com",
            "realmKey": "oc1",
            "regionIdentifier": v.region,
            "regionKey": (v.region_code or v.region).upper(),
        },
        "shape": "VM.Standard.E4.Flex",
        "state": "Running",
        "timeCreated": 1704067200000,
    }
    vnics = [
        {
            "macAddr": v.mac.upper(),
            "nicIndex": 0,
            "privateIp": v.private_ip,
            "subnetCidrBlock": str(subnet),
            "virtualRouterIp": str(next(subnet.hosts())),
            "vlanTag": 0,
            "vnicId": v.vnic_id or f"ocid1.vnic.oc1..lab{stable_hex(v.instance_id, 8)}",
        }
    ]
    return instance, vnics


def handle_oci(req: Request, v: Values, served: Served) -> Response:
    """OCI IMDS v2: bearer header, instance JSON (and its fields), vnics JSON."""
    segments = split_path(req.path)
    if segments[:2] != ["opc", "v2"]:
        return text(404, "Not Found")
    if req.header("Authorization") != "Bearer Oracle":
        return text(401, "Unauthorized")
    if req.method not in ("GET", "HEAD"):
        return Response(405, b"Method Not Allowed", headers=[("Allow", "GET")])
    instance, vnics = oci_docs(v)
    if segments[2:] == ["vnics"]:
        return as_json(200, vnics)
    if segments[2:3] != ["instance"]:
        return text(404, "Not Found")
    found, node, last_key = walk_json(instance, segments[3:])
    if not found:
        return text(404, "Not Found")
    if isinstance(node, dict | list):
        return as_json(200, node)
    return text(200, leaf_text(node), kind=key_kind(last_key))
