"""GCP's metadata server as the lab's metadata emulator serves it.

Docs: https://cloud.google.com/compute/docs/metadata/querying-metadata
  Requests under /computeMetadata/v1/ must carry "Metadata-Flavor: Google" (otherwise 403); every answer
  carries the same header back; requests with X-Forwarded-For are rejected. ?recursive=true returns a
  directory as JSON (keys in camelCase); alt=json|text picks the format, leaves default to text; the text
  content type is application/text.
https://cloud.google.com/compute/docs/metadata/predefined-metadata-keys
  instance/id, instance/name, instance/hostname, instance/zone = projects/PROJECT_NUMBER/zones/ZONE,
  instance/network-interfaces/N/{ip,mac,network = projects/PROJECT_NUMBER/networks/NAME},
  .../access-configs/N/external-ip (absent when the VM has no external address), project/project-id,
  project/numeric-project-id. There is no public DNS name in GCP metadata.
https://cloud.google.com/compute/docs/internal-dns
  internal names are VM.ZONE.c.PROJECT.internal (zonal) or VM.c.PROJECT.internal (global): the lab puts
  the one it wants in private_dns.
"""

from __future__ import annotations

import re
from typing import Any

from .answers import Request, Response, Served, as_json, text
from .documents import key_kind, leaf_text, split_path, subnet_of, walk_json
from .inputs import GCP_NETWORK_RE, Values

DEFAULT_GCP_PROJECT_NUMBER = "100000000001"


def camel_to_kebab(key: str) -> str:
    """networkInterfaces -> network-interfaces (GCP's JSON keys vs its path segments)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", key).lower()


def gcp_project_number(v: Values) -> str:
    """project_number if given, else the number inside a full network path, else a fixed default."""
    if v.project_number is not None:
        return v.project_number
    match = GCP_NETWORK_RE.match(v.network_id)
    return match.group(1) if match else DEFAULT_GCP_PROJECT_NUMBER


def gcp_doc(v: Values) -> dict[str, Any]:
    """GCP metadata as the recursive JSON shows it."""
    number, network = gcp_project_number(v), v.network_id
    if not GCP_NETWORK_RE.match(network):
        network = f"projects/{number}/networks/{network}"
    access = [{"externalIp": v.public_ip, "type": "ONE_TO_ONE_NAT"}] if v.public_ip else []
    return {
        "instance": {
            "hostname": v.private_dns,
            "id": int(v.instance_id) if v.instance_id.isdigit() else v.instance_id,
            "machineType": f"projects/{number}/machineTypes/e2-standard-2",
            "name": v.hostname,
            "networkInterfaces": [
                {
                    "accessConfigs": access,
                    "gateway": str(next(subnet_of(v.private_ip).hosts())),
                    "ip": v.private_ip,
                    "mac": v.mac.lower(),
                    "network": network,
                    "subnetmask": str(subnet_of(v.private_ip).netmask),
                }
            ],
            "zone": f"projects/{number}/zones/{v.zone}",
        },
        "project": {"numericProjectId": int(number), "projectId": v.project_id},
    }


def handle_gcp(req: Request, v: Values, served: Served) -> Response:
    """GCP metadata server: header check, text leaves, directory listings, recursive JSON."""
    segments = split_path(req.path)
    if segments[:1] != ["computeMetadata"]:
        return text(404, "Not Found", content_type="text/html")
    if req.header("Metadata-Flavor") != "Google" or req.header("X-Forwarded-For") is not None:
        return text(403, "Missing or wrong Metadata-Flavor header (emulator)", content_type="text/html")
    if req.method not in ("GET", "HEAD"):
        return Response(405, b"Method Not Allowed", headers=[("Allow", "GET")])
    if len(segments) == 1:
        return text(200, "v1/", kind="text", content_type="application/text")
    if segments[1] != "v1":
        return text(404, "Not Found", content_type="text/html")
    found, node, last_key = walk_json(gcp_doc(v), segments[2:], lambda key, seg: camel_to_kebab(key) == seg)
    if not found:
        return text(404, "Not Found", content_type="text/html")
    alt = req.query.get("alt")
    if alt not in (None, "json", "text"):
        return text(400, f"alt={alt} is not json or text", content_type="text/html")
    recursive = req.query.get("recursive", "").lower() == "true"
    if isinstance(node, dict | list):
        if recursive:
            if alt == "text":  # GCP flattens a tree into path/value lines; the lab's clients never ask for it
                return text(400, "alt=text with recursive=true is not emulated", content_type="text/html")
            return as_json(200, node)
        names = (
            [camel_to_kebab(k) + ("/" if isinstance(c, dict | list) else "") for k, c in node.items()]
            if isinstance(node, dict)
            else [f"{i}/" for i in range(len(node))]
        )
        if alt == "json":
            return as_json(200, names)
        return text(200, "\n".join(names), kind="text", content_type="application/text")
    if alt == "json":
        return as_json(200, node, kind=key_kind(last_key))
    return text(200, leaf_text(node), kind=key_kind(last_key), content_type="application/text")
