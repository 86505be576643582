"""Azure IMDS as the lab's metadata emulator serves it.

Docs: https://learn.microsoft.com/en-us/azure/virtual-machines/instance-metadata-service
  GET /metadata/instance?api-version=... needs header "Metadata: true" (else 400, error JSON saying the
  metadata header was not specified) and an api-version (else 400, error JSON listing the newest
  versions); only GET is allowed (405); format=json is the default, format=text serves leaf nodes;
  compute has name, vmId, location, zone, osProfile.computerName, ...; network.interface[N].ipv4.
  ipAddress[M] has privateIpAddress and publicIpAddress (empty when none is attached / not basic SKU);
  macAddress is upper-case hex without separators. IMDS exposes no DNS name, neither private nor public.
"""

from __future__ import annotations

from typing import Any

from .answers import Request, Response, Served, as_json, text
from .documents import key_kind, leaf_text, split_path, subnet_of, walk_json
from .inputs import Values

AZURE_API_VERSIONS = (
    "2017-03-01",
    "2017-04-02",
    "2017-08-01",
    "2017-10-01",
    "2017-12-01",
    "2018-02-01",
    "2018-04-02",
    "2018-10-01",
    "2019-02-01",
    "2019-03-11",
    "2019-04-30",
    "2019-06-01",
    "2019-06-04",
    "2019-08-01",
    "2019-08-15",
    "2019-11-01",
    "2020-06-01",
    "2020-07-15",
    "2020-09-01",
    "2020-10-01",
    "2020-12-01",
    "2021-01-01",
    "2021-02-01",
    "2021-03-01",
    "2021-05-01",
    "2021-10-01",
    "2021-11-01",
    "2021-11-15",
    "2021-12-13",
)


def azure_doc(v: Values) -> dict[str, Any]:
    """The Azure /metadata/instance document for these values."""
    subnet = subnet_of(v.private_ip)
    subscription = "00000000-0000-4000-8000-000000000000"
    return {
        "compute": {
            "azEnvironment": "AzurePublicCloud",
            "location": v.region,
            "name": v.hostname,
            "osProfile": {
                "adminUsername": "azureuser",
                "computerName": v.hostname,
                "disablePasswordAuthentication": "true",
            },
            "osType": "Linux",
            "resourceGroupName": "kafka-lab",
            "resourceId": (
                f"/subscriptions/{subscription}/resourceGroups/kafka-lab/providers/"
                f"Microsoft.Compute/virtualMachines/{v.hostname}"
            ),
            "subscriptionId": subscription,
            "tags": "",
            "vmId": v.instance_id,
            "vmSize": "Standard_D2s_v3",
            "zone": v.zone,
        },
        "network": {
            "interface": [
                {
                    "ipv4": {
                        "ipAddress": [{"privateIpAddress": v.private_ip, "publicIpAddress": v.public_ip or ""}],
                        "subnet": [{"address": str(subnet.network_address), "prefix": str(subnet.prefixlen)}],
                    },
                    "ipv6": {"ipAddress": []},
                    "macAddress": v.mac.replace(":", "").upper(),
                }
            ]
        },
    }


def azure_error(status: int, message: str, **extra: Any) -> Response:
    """Azure's error shape: a JSON object with an "error" string (plus extra keys such as newest-versions)."""
    return as_json(status, {"error": message, **extra}, kind=None, content_type="application/json; charset=utf-8")


def handle_azure(req: Request, v: Values, served: Served) -> Response:
    """Azure IMDS: Metadata header, api-version, JSON documents, format=text leaves."""
    segments = split_path(req.path)
    if req.header("Metadata") != "true":
        # message as Azure documents it, so clients matching on it behave as in production
        return azure_error(400, "Bad request. Required metadata header not specified")
    if req.method != "GET":
        return azure_error(405, f"Method not allowed: {req.method}")
    if segments[:2] != ["metadata", "instance"]:
        return azure_error(404, "Not found")
    version = req.query.get("api-version")
    newest = list(reversed(AZURE_API_VERSIONS[-3:]))
    if version is None:
        return azure_error(
            400,
            "Bad request. api-version was not specified in the request. For more information refer to aka.ms/azureimds",
            **{"newest-versions": newest},
        )
    if version not in AZURE_API_VERSIONS:
        return azure_error(
            400, f"Bad request. api-version {version} is not supported (emulator)", **{"newest-versions": newest}
        )
    fmt = req.query.get("format", "json")
    found, node, last_key = walk_json(azure_doc(v), segments[2:])
    if not found:
        return azure_error(404, "Not found")
    if isinstance(node, dict | list):
        if fmt != "json":
            return azure_error(400, f"Bad request. format={fmt} is only served for leaf nodes (emulator)")
        return as_json(200, node, content_type="application/json; charset=utf-8")
    if fmt != "text":
        return azure_error(400, "Bad request. Leaf nodes are served with format=text (emulator)")
    return text(200, leaf_text(node), kind=key_kind(last_key), content_type="text/plain; charset=utf-8")
