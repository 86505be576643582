"""AWS IMDSv2 as the lab's metadata emulator serves it: session tokens, the meta-data tree, the identity document.

Docs: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instance-metadata-v2-how-it-works.html
  A session token comes from PUT /latest/api/token with header X-aws-ec2-metadata-token-ttl-seconds
  (1 second .. 6 hours = 21600); GETs carry it in X-aws-ec2-metadata-token; a token is only good until its
  TTL ends. PUT requests carrying X-Forwarded-For are not accepted.
https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html (error codes)
  400 = PUT missing/invalid parameters, 401 = GET with an invalid (or, when IMDSv2 is required, missing)
  token, 403 = request not allowed / IMDS turned off, 404 = no such item on this instance.
https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-IMDS-existing-instances.html
  HttpTokens=required disables IMDSv1 (token-less GETs); "optional" still serves them.
https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-categories.html
  local-hostname/hostname = private IPv4 DNS name, local-ipv4, public-hostname (only returned when the
  VPC has DNS hostnames enabled), public-ipv4 (only when a public address is associated), placement/
  availability-zone, placement/region, mac, network/interfaces/macs/<mac>/vpc-id.
https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instance-identity-documents.html
  /latest/dynamic/instance-identity/document is JSON with accountId, availabilityZone, instanceId,
  privateIp, region, imageId, instanceType, pendingTime, version, ... (no public address).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from typing import Any

from .answers import Request, Response, Served, text
from .documents import Leaf, serve_tree, split_path, subnet_of
from .inputs import Values

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


def handle_aws(req: Request, v: Values, served: Served) -> Response:
    """IMDSv2: token PUT with TTL bounds, token-checked GETs, 401/404 like the real service."""
    segments = split_path(req.path)
    if segments == ["latest", "api", "token"]:
        if req.method != "PUT":
            return Response(405, b"Method Not Allowed", headers=[("Allow", "PUT")])
        if req.header("X-Forwarded-For") is not None:
            return text(403, "Forbidden")
        if served.fault == "token_refused":
            return text(403, "Forbidden")
        raw_ttl = req.header("X-aws-ec2-metadata-token-ttl-seconds")
        if raw_ttl is None or not raw_ttl.strip().isdigit() or not (AWS_TOKEN_MIN <= int(raw_ttl) <= AWS_TOKEN_MAX):
            return text(400, "Bad Request")
        ttl = int(raw_ttl)
        response = text(200, served.tokens.issue(ttl))
        response.headers.append(("X-aws-ec2-metadata-token-ttl-seconds", str(ttl)))
        return response
    if req.method not in ("GET", "HEAD"):
        return Response(405, b"Method Not Allowed", headers=[("Allow", "GET")])
    token = req.header("X-aws-ec2-metadata-token")
    if token is not None:
        if not served.tokens.valid(token):  # a supplied token must be valid even where IMDSv1 is allowed
            return text(401, "Unauthorized")
    elif not v.imdsv1:
        return text(401, "Unauthorized")
    if not segments:
        return text(200, "latest", kind="text")
    if segments[0] != "latest":
        return text(404, "Not Found")
    return serve_tree(aws_tree(v), segments[1:])
