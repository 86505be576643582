#!/usr/bin/env python3
"""Instance-metadata emulator for the kafkaops.listeners test lab (a test double, never shipped).

The lab starts one emulator per broker network namespace on 169.254.169.254:80. It serves that broker's own
values in the wire format and with the access rules of one of seven clouds (AWS IMDSv2, GCP, Azure, OpenStack,
DigitalOcean, OCI, Hetzner), so the collection's metadata clients meet the real protocols without a cloud.

    python lab/kafkaops_lab/imds_emulator.py --values FILE.json --bind ADDR --port N [--control FILE.json]

Both JSON files are read again on every request: the lab changes a node's public IP (simulated stop/start)
or injects a fault (down, slow, token_refused, garbage) by rewriting a file, without restarting anything.
Port 0 binds a free port; the first line on stdout always names the address actually bound.
The values/control schemas are documented in lab/README.md ("Instance metadata emulator").

Only the Python standard library is used: the lab runs it inside namespaces with whatever python3 is there.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import secrets
import socket
import struct
import sys
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PROVIDERS = ("aws", "gcp", "azure", "openstack", "digitalocean", "oci", "hetzner")
FAULTS = (None, "down", "slow", "token_refused", "garbage")
DEFAULT_SLOW_SECONDS = 5.0
DEFAULT_GCP_PROJECT_NUMBER = "100000000001"

REQUIRED_VALUE_KEYS = (
    "provider",
    "instance_id",
    "region",
    "zone",
    "private_ip",
    "private_dns",
    "public_ip",
    "public_dns",
    "network_id",
    "hostname",
    "mac",
)
# Optional keys; anything else is rejected so a typo in the lab's values file fails loudly.
OPTIONAL_VALUE_KEYS = ("project_id", "project_number", "imdsv1", "region_code", "vnic_id")
NULLABLE_VALUE_KEYS = ("public_ip", "public_dns")
GCP_NETWORK_RE = re.compile(r"^projects/(\d+)/networks/[^/]+$")  # a full network path
MAC_RE = re.compile(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$")


class ConfigError(ValueError):
    """A values or control file is unreadable or breaks its schema; the message names the file and the key."""


# --------------------------------------------------------------------------------------------------------------
# Input files
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Values:
    """One instance's metadata, validated. See README for what each provider serves from which key."""

    provider: str
    instance_id: str
    region: str
    zone: str
    private_ip: str
    private_dns: str
    public_ip: str | None
    public_dns: str | None
    network_id: str
    hostname: str
    mac: str
    project_id: str | None = None
    project_number: str | None = None
    imdsv1: bool = False
    region_code: str | None = None
    vnic_id: str | None = None


@dataclass(frozen=True)
class Control:
    """The fault to inject on the next request (None = behave like the real service)."""

    fault: str | None = None
    slow_seconds: float = DEFAULT_SLOW_SECONDS


def _read_json_object(path: str, what: str) -> dict[str, Any]:
    """Return the JSON object stored in `path`; raise ConfigError naming the file if it is not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise ConfigError(f"{what} file {path}: cannot read it: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{what} file {path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{what} file {path}: must hold a JSON object, found {type(data).__name__}")
    return data


def load_values(path: str) -> Values:
    """Read and validate the values file; raise ConfigError naming the file and the offending key."""
    data = _read_json_object(path, "values")

    def fail(key: str, problem: str) -> ConfigError:
        return ConfigError(f"values file {path}: key {key!r} {problem}")

    unknown = sorted(set(data) - set(REQUIRED_VALUE_KEYS) - set(OPTIONAL_VALUE_KEYS))
    if unknown:
        raise ConfigError(
            f"values file {path}: unknown keys {unknown}; allowed: {sorted(REQUIRED_VALUE_KEYS + OPTIONAL_VALUE_KEYS)}"
        )
    missing = [key for key in REQUIRED_VALUE_KEYS if key not in data]
    if missing:
        raise ConfigError(f"values file {path}: missing required keys {missing}")
    for key in REQUIRED_VALUE_KEYS + ("project_id", "project_number", "region_code", "vnic_id"):
        value = data.get(key)
        if value is None and (key in NULLABLE_VALUE_KEYS or key not in REQUIRED_VALUE_KEYS):
            continue  # nullable or optional and absent
        if not isinstance(value, str) or not value:
            nullable = " or null" if key in NULLABLE_VALUE_KEYS else ""
            raise fail(key, f"must be a non-empty string{nullable}, found {value!r}")
    if data["provider"] not in PROVIDERS:
        raise fail("provider", f"must be one of {list(PROVIDERS)}, found {data['provider']!r}")
    for key in ("private_ip", "public_ip"):
        if data[key] is None:
            continue
        try:
            ipaddress.IPv4Address(data[key])
        except ValueError:
            raise fail(key, f"must be an IPv4 address, found {data[key]!r}") from None
    if not MAC_RE.match(data["mac"]):
        raise fail("mac", f"must look like 0a:1b:2c:3d:4e:5f, found {data['mac']!r}")
    if "imdsv1" in data and not isinstance(data["imdsv1"], bool):
        raise fail("imdsv1", f"must be true or false, found {data['imdsv1']!r}")
    if data["provider"] == "gcp" and not data.get("project_id"):
        raise fail("project_id", "is required when provider is 'gcp'")
    number = data.get("project_number")
    if number is not None and not number.isdigit():
        raise fail("project_number", f"must be a string of digits, found {number!r}")
    in_network = GCP_NETWORK_RE.match(data["network_id"])
    if number is not None and in_network and in_network.group(1) != number:
        raise fail("project_number", f"is {number!r} but network_id names project {in_network.group(1)!r}")
    kwargs = {key: data[key] for key in REQUIRED_VALUE_KEYS}  # public_ip/public_dns may be None
    kwargs.update({key: data[key] for key in OPTIONAL_VALUE_KEYS if data.get(key) is not None})
    return Values(**kwargs)


def load_control(path: str | None) -> Control:
    """Read the control file; no --control or a file that does not exist (yet) means no fault."""
    if path is None or not os.path.exists(path):
        return Control()
    data = _read_json_object(path, "control")
    unknown = sorted(set(data) - {"fault", "slow_seconds"})
    if unknown:
        raise ConfigError(f"control file {path}: unknown keys {unknown}; allowed: ['fault', 'slow_seconds']")
    fault = data.get("fault")
    if fault not in FAULTS:
        raise ConfigError(f"control file {path}: key 'fault' must be one of {list(FAULTS)}, found {fault!r}")
    slow = data.get("slow_seconds", DEFAULT_SLOW_SECONDS)
    if isinstance(slow, bool) or not isinstance(slow, int | float) or slow < 0:
        raise ConfigError(f"control file {path}: key 'slow_seconds' must be a number >= 0, found {slow!r}")
    return Control(fault=fault, slow_seconds=float(slow))


# --------------------------------------------------------------------------------------------------------------
# Requests, responses, garbage
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Request:
    """The parts of an HTTP request the providers look at."""

    method: str
    path: str
    query: dict[str, str]
    headers: Any  # http.client.HTTPMessage: case-insensitive .get()

    def header(self, name: str) -> str | None:
        """The header's value (name compared case-insensitively), None when absent."""
        return self.headers.get(name)


@dataclass
class Response:
    """What to answer. `kind` marks a data route (hostname, ip, id, text, json, yaml): faults replace its body."""

    status: int
    body: bytes = b""
    content_type: str = "text/plain"
    headers: list[tuple[str, str]] = field(default_factory=list)
    kind: str | None = None


def text(status: int, body: str, kind: str | None = None, content_type: str = "text/plain") -> Response:
    """A UTF-8 text answer."""
    return Response(status, body.encode("utf-8"), content_type, kind=kind)


def as_json(status: int, obj: Any, kind: str | None = "json", content_type: str = "application/json") -> Response:
    """A JSON answer (a data route of kind "json" unless told otherwise)."""
    return Response(status, json.dumps(obj, indent=2).encode("utf-8"), content_type, kind=kind)


# Bodies served under fault "garbage": each breaks what a careful client must check for that kind of value.
GARBAGE = {
    "json": b'<!doctype html><title>maintenance</title>{"truncated": ',
    "yaml": b"hostname: [never closed\n\tinstance-id: : :\n",
    # spaces, a newline and '=': written unchecked into server.properties it would inject a second key
    "hostname": b"broker 1.internal\nadvertised.listeners=PLAINTEXT://evil.example:9092",
    "ip": b"\x00\xff\xfe198.18.0.\x1b[31m999\r\n=",
    "id": b"\x00\xff\xfe\xfd i-\x07\n=",
    "text": b"\x00\xff\xfe\xfd garbage \n=\x1b[0m",
}


# --------------------------------------------------------------------------------------------------------------
# Helpers shared by the providers
# --------------------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------------------
# AWS — IMDSv2
# Docs: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instance-metadata-v2-how-it-works.html
#   A session token comes from PUT /latest/api/token with header X-aws-ec2-metadata-token-ttl-seconds
#   (1 second .. 6 hours = 21600); GETs carry it in X-aws-ec2-metadata-token; a token is only good until its
#   TTL ends. PUT requests carrying X-Forwarded-For are not accepted.
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html (error codes)
#   400 = PUT missing/invalid parameters, 401 = GET with an invalid (or, when IMDSv2 is required, missing)
#   token, 403 = request not allowed / IMDS turned off, 404 = no such item on this instance.
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-IMDS-existing-instances.html
#   HttpTokens=required disables IMDSv1 (token-less GETs); "optional" still serves them.
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-categories.html
#   local-hostname/hostname = private IPv4 DNS name, local-ipv4, public-hostname (only returned when the
#   VPC has DNS hostnames enabled), public-ipv4 (only when a public address is associated), placement/
#   availability-zone, placement/region, mac, network/interfaces/macs/<mac>/vpc-id.
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instance-identity-documents.html
#   /latest/dynamic/instance-identity/document is JSON with accountId, availabilityZone, instanceId,
#   privateIp, region, imageId, instanceType, pendingTime, version, ... (no public address).
# --------------------------------------------------------------------------------------------------------------

AWS_TOKEN_MIN, AWS_TOKEN_MAX = 1, 21600


class TokenStore:
    """AWS session tokens issued by this process, each with its expiry on the monotonic clock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._expiry: dict[str, float] = {}

    def issue(self, ttl: int) -> str:
        """Create a token valid for `ttl` seconds from now."""
        token = secrets.token_urlsafe(42)
        now = time.monotonic()
        with self._lock:
            self._expiry = {tok: exp for tok, exp in self._expiry.items() if exp > now}  # drop expired ones
            self._expiry[token] = now + ttl
        return token

    def valid(self, token: str) -> bool:
        """True while `token` was issued here and its TTL has not run out."""
        with self._lock:
            expiry = self._expiry.get(token)
        return expiry is not None and time.monotonic() < expiry


def aws_tree(v: Values) -> dict[str, Any]:
    """The AWS path tree below /latest/ for these values."""
    mac = v.mac.lower()
    document = {
        "accountId": "123456789012",
        "architecture": "x86_64",
        "availabilityZone": v.zone,
        "billingProducts": None,
        "devpayProductCodes": None,
        "marketplaceProductCodes": None,
        "imageId": "ami-0abcdef1234567890",
        "instanceId": v.instance_id,
        "instanceType": "m5.large",
        "kernelId": None,
        "pendingTime": "2024-01-01T00:00:00Z",
        "privateIp": v.private_ip,
        "ramdiskId": None,
        "region": v.region,
        "version": "2017-09-30",
    }
    interface = {
        "device-number": Leaf("0"),
        "local-hostname": Leaf(v.private_dns, "hostname"),
        "local-ipv4s": Leaf(v.private_ip, "ip"),
        "mac": Leaf(mac),
        "public-hostname": Leaf(v.public_dns, "hostname"),
        "public-ipv4s": Leaf(v.public_ip, "ip"),
        "subnet-ipv4-cidr-block": Leaf(str(subnet_of(v.private_ip))),
        "vpc-id": Leaf(v.network_id, "id"),
    }
    return {
        "dynamic": {"instance-identity": {"document": Leaf(json.dumps(document, indent=2), "json")}},
        "meta-data": {
            "hostname": Leaf(v.private_dns, "hostname"),
            "instance-id": Leaf(v.instance_id, "id"),
            "local-hostname": Leaf(v.private_dns, "hostname"),
            "local-ipv4": Leaf(v.private_ip, "ip"),
            "mac": Leaf(mac),
            "network": {"interfaces": {"macs": {mac: interface}}},
            "placement": {"availability-zone": Leaf(v.zone), "region": Leaf(v.region)},
            "public-hostname": Leaf(v.public_dns, "hostname"),
            "public-ipv4": Leaf(v.public_ip, "ip"),
        },
    }


def handle_aws(req: Request, v: Values, control: Control, tokens: TokenStore) -> Response:
    """IMDSv2: token PUT with TTL bounds, token-checked GETs, 401/404 like the real service."""
    segments = split_path(req.path)
    if segments == ["latest", "api", "token"]:
        if req.method != "PUT":
            return Response(405, b"Method Not Allowed", headers=[("Allow", "PUT")])
        if req.header("X-Forwarded-For") is not None:
            return text(403, "Forbidden")
        if control.fault == "token_refused":
            return text(403, "Forbidden")
        raw_ttl = req.header("X-aws-ec2-metadata-token-ttl-seconds")
        if raw_ttl is None or not raw_ttl.strip().isdigit() or not (AWS_TOKEN_MIN <= int(raw_ttl) <= AWS_TOKEN_MAX):
            return text(400, "Bad Request")
        ttl = int(raw_ttl)
        response = text(200, tokens.issue(ttl))
        response.headers.append(("X-aws-ec2-metadata-token-ttl-seconds", str(ttl)))
        return response
    if req.method not in ("GET", "HEAD"):
        return Response(405, b"Method Not Allowed", headers=[("Allow", "GET")])
    token = req.header("X-aws-ec2-metadata-token")
    if token is not None:
        if not tokens.valid(token):  # a supplied token must be valid even where IMDSv1 is allowed
            return text(401, "Unauthorized")
    elif not v.imdsv1:
        return text(401, "Unauthorized")
    if not segments:
        return text(200, "latest", kind="text")
    if segments[0] != "latest":
        return text(404, "Not Found")
    return serve_tree(aws_tree(v), segments[1:])


# --------------------------------------------------------------------------------------------------------------
# GCP
# Docs: https://cloud.google.com/compute/docs/metadata/querying-metadata
#   Requests under /computeMetadata/v1/ must carry "Metadata-Flavor: Google" (otherwise 403); every answer
#   carries the same header back; requests with X-Forwarded-For are rejected. ?recursive=true returns a
#   directory as JSON (keys in camelCase); alt=json|text picks the format, leaves default to text; the text
#   content type is application/text.
# https://cloud.google.com/compute/docs/metadata/predefined-metadata-keys
#   instance/id, instance/name, instance/hostname, instance/zone = projects/PROJECT_NUMBER/zones/ZONE,
#   instance/network-interfaces/N/{ip,mac,network = projects/PROJECT_NUMBER/networks/NAME},
#   .../access-configs/N/external-ip (absent when the VM has no external address), project/project-id,
#   project/numeric-project-id. There is no public DNS name in GCP metadata.
# https://cloud.google.com/compute/docs/internal-dns
#   internal names are VM.ZONE.c.PROJECT.internal (zonal) or VM.c.PROJECT.internal (global): the lab puts
#   the one it wants in private_dns.
# --------------------------------------------------------------------------------------------------------------


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


def handle_gcp(req: Request, v: Values) -> Response:
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


# --------------------------------------------------------------------------------------------------------------
# Azure
# Docs: https://learn.microsoft.com/en-us/azure/virtual-machines/instance-metadata-service
#   GET /metadata/instance?api-version=... needs header "Metadata: true" (else 400, error JSON saying the
#   metadata header was not specified) and an api-version (else 400, error JSON listing the newest
#   versions); only GET is allowed (405); format=json is the default, format=text serves leaf nodes;
#   compute has name, vmId, location, zone, osProfile.computerName, ...; network.interface[N].ipv4.
#   ipAddress[M] has privateIpAddress and publicIpAddress (empty when none is attached / not basic SKU);
#   macAddress is upper-case hex without separators. IMDS exposes no DNS name, neither private nor public.
# --------------------------------------------------------------------------------------------------------------

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


def handle_azure(req: Request, v: Values) -> Response:
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


# --------------------------------------------------------------------------------------------------------------
# OpenStack (Nova metadata service)
# Docs: https://docs.openstack.org/nova/latest/user/metadata.html
#   /openstack/latest/meta_data.json holds uuid, hostname, name, availability_zone, launch_index, project_id,
#   ...; network_data.json the links/networks; an EC2-compatible tree lives under /latest/meta-data/ (and
#   dated versions such as /2009-04-04/).
# Source of the EC2 semantics: nova/api/metadata/base.py (get_ec2_metadata): local-hostname and
#   public-hostname are BOTH the instance's internal hostname (name + dhcp_domain), public-ipv4 is the first
#   floating IP or the empty string, instance-id is the EC2-style id "i-%08x", not the uuid.
# --------------------------------------------------------------------------------------------------------------


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


def handle_openstack(req: Request, v: Values) -> Response:
    """Nova metadata: JSON documents under /openstack, EC2-compatible text tree elsewhere."""
    if req.method not in ("GET", "HEAD"):
        return Response(405, b"Method Not Allowed", headers=[("Allow", "GET")])
    segments = split_path(req.path)
    response = serve_tree(openstack_tree(v), segments)
    if response.status == 200 and segments and segments[-1].endswith(".json"):
        response.content_type = "application/json"
    return response


# --------------------------------------------------------------------------------------------------------------
# DigitalOcean
# Docs: https://docs.digitalocean.com/reference/api/metadata/droplet-properties/
#   /metadata/v1.json is the whole metadata as JSON (droplet_id, hostname, region, interfaces, dns, ...);
#   /metadata/v1/ is a text index; an index path without its trailing slash answers 301; unknown paths 404.
# https://docs.digitalocean.com/reference/api/metadata/network-interfaces/
#   interfaces/{public,private}/N/{mac,type,ipv4/{address,netmask,gateway}} as text; in the JSON the IPv4
#   address key is ip_address. No DNS names: hostname is the Droplet's name.
# --------------------------------------------------------------------------------------------------------------


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


def handle_digitalocean(req: Request, v: Values) -> Response:
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


# --------------------------------------------------------------------------------------------------------------
# OCI (Oracle Cloud Infrastructure)
# Docs: https://docs.oracle.com/en-us/iaas/Content/Compute/Tasks/gettingmetadata.htm
#   IMDS v2 lives under /opc/v2/ and every request must carry "Authorization: Bearer Oracle" (rejected with
#   401 otherwise). /opc/v2/instance/ is JSON (id, displayName, hostname, region = short code,
#   canonicalRegionName, availabilityDomain, ociAdName, faultDomain, shape, ...), a field's sub-path serves
#   it alone; /opc/v2/vnics/ is a JSON list with vnicId, privateIp, vlanTag, macAddr, virtualRouterIp,
#   subnetCidrBlock, nicIndex. Neither holds a public IP or any DNS name (the public IP lives on the VNIC's
#   public-IP object, reachable through the OCI API only).
# --------------------------------------------------------------------------------------------------------------


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


def handle_oci(req: Request, v: Values) -> Response:
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


# --------------------------------------------------------------------------------------------------------------
# Hetzner Cloud
# Docs: https://docs.hetzner.cloud/#server-metadata
#   GET /hetzner/v1/metadata answers YAML with hostname, instance-id, public-ipv4, region,
#   availability-zone (and more); each key is also a text path below it; /hetzner/v1/metadata/
#   private-networks is a YAML list of the server's private networks (ip, alias_ips, interface_num,
#   mac_address, network_id, network_name, network, subnet, gateway). No DNS names.
# --------------------------------------------------------------------------------------------------------------

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


def handle_hetzner(req: Request, v: Values) -> Response:
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


# --------------------------------------------------------------------------------------------------------------
# HTTP server
# --------------------------------------------------------------------------------------------------------------

PROVIDER_EXTRA_HEADERS = {"gcp": [("Metadata-Flavor", "Google")]}  # GCP sends it on every answer, errors too


class EmulatorServer(ThreadingHTTPServer):
    """Threaded HTTP server holding the file paths and the AWS token store."""

    daemon_threads = True  # a request sleeping under fault "slow" must not keep the process alive

    def __init__(self, address: tuple[str, int], values_path: str, control_path: str | None) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.values_path = values_path
        self.control_path = control_path
        self.tokens = TokenStore()
        super().__init__(address, EmulatorHandler)


class EmulatorHandler(BaseHTTPRequestHandler):
    """Reads both files per request, applies the fault, and lets the provider answer."""

    protocol_version = "HTTP/1.1"  # keep-alive like the real services; every answer has Content-Length
    server: EmulatorServer

    def version_string(self) -> str:
        return "imds-emulator"

    def _read_control(self) -> Control | ConfigError:
        try:
            return load_control(self.server.control_path)
        except ConfigError as exc:
            return exc

    def _drop_connection(self) -> None:
        """Reset the connection without answering: what a dead metadata endpoint looks like to a client."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def handle_one_request(self) -> None:
        control = self._read_control()
        if isinstance(control, Control) and control.fault == "down":
            self._drop_connection()  # before even reading the request
            return
        super().handle_one_request()

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        self._dispatch()

    def do_HEAD(self) -> None:  # noqa: N802
        self._dispatch(send_body=False)

    def do_PUT(self) -> None:  # noqa: N802
        self._dispatch()

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch()

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch()

    def _dispatch(self, send_body: bool = True) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)  # drain the body so the connection stays usable
        control = self._read_control()  # again: a kept-alive connection may have idled since the last check
        if isinstance(control, Control) and control.fault == "down":
            self._drop_connection()
            return
        provider = None
        if isinstance(control, ConfigError):
            response = text(500, f"imds-emulator: {control}\n")
        else:
            if control.fault == "slow":
                time.sleep(control.slow_seconds)
            try:
                values = load_values(self.server.values_path)
            except ConfigError as exc:
                response = text(500, f"imds-emulator: {exc}\n")
            else:
                provider = values.provider
                response = self._answer(values, control)
        if isinstance(control, ConfigError) or response.status == 500:
            sys.stderr.write(response.body.decode("utf-8", "replace"))
        self._send(response, PROVIDER_EXTRA_HEADERS.get(provider or "", []), send_body)

    def _answer(self, values: Values, control: Control) -> Response:
        split = urlsplit(self.path)
        query = {key: vals[0] for key, vals in parse_qs(split.query, keep_blank_values=True).items()}
        req = Request(self.command, split.path, query, self.headers)
        if values.provider == "aws":
            response = handle_aws(req, values, control, self.server.tokens)
        else:
            handler = {
                "gcp": handle_gcp,
                "azure": handle_azure,
                "openstack": handle_openstack,
                "digitalocean": handle_digitalocean,
                "oci": handle_oci,
                "hetzner": handle_hetzner,
            }[values.provider]
            response = handler(req, values)
        if control.fault == "garbage" and response.kind is not None and response.status in (200, 404):
            response.status, response.body = 200, GARBAGE[response.kind]
        return response

    def _send(self, response: Response, extra_headers: list[tuple[str, str]], send_body: bool) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers + extra_headers:
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(response.body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature from http.server
        sys.stderr.write(f"imds-emulator {self.address_string()} {format % args}\n")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line the lab helper uses (see the module docstring)."""
    parser = argparse.ArgumentParser(description="Cloud instance-metadata emulator for the kafkaops lab.")
    parser.add_argument("--values", required=True, help="JSON file with the instance's values (re-read per request)")
    parser.add_argument("--bind", required=True, help="address to listen on (the lab: 169.254.169.254)")
    parser.add_argument("--port", required=True, type=int, help="TCP port (0 = any free port)")
    parser.add_argument("--control", help="JSON file with the fault to inject (re-read per request)")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0..65535, got {args.port}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Validate the files, bind, print the bound address, serve until killed."""
    args = parse_args(argv)
    try:
        values = load_values(args.values)
        load_control(args.control)
    except ConfigError as exc:
        print(f"imds-emulator: {exc}", file=sys.stderr)
        return 2
    try:
        server = EmulatorServer((args.bind, args.port), args.values, args.control)
    except OSError as exc:
        print(f"imds-emulator: cannot listen on {args.bind}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    host, port = server.server_address[:2]
    print(f"imds-emulator: serving {values.provider} metadata on {host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
