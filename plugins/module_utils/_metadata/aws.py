# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""AWS EC2 instance metadata (IMDSv2) client.

Private to kafkaops.listeners: no compatibility promise outside the collection.

IMDSv2: ``PUT /latest/api/token`` with ``X-aws-ec2-metadata-token-ttl-seconds`` returns a session token that every
GET carries in ``X-aws-ec2-metadata-token``. IMDSv1 (token-less GETs) is only used when the caller allows it and
the token request was refused; AWS recommends requiring IMDSv2 because v1 is open to SSRF.
"""

from __future__ import annotations

import re

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import checks
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import (
    AccessRefused,
    MalformedAnswer,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.http_client import Call

TOKEN_PATH = "/latest/api/token"
META = "/latest/meta-data/"
TTL_HEADER = "X-aws-ec2-metadata-token-ttl-seconds"
TOKEN_HEADER = "X-aws-ec2-metadata-token"
MAX_TTL = 21600  # AWS accepts 1 second to 6 hours
# Tokens are opaque base64-like text; anything else must not be echoed into a request header.
_TOKEN_RE = re.compile(r"^[A-Za-z0-9+/=_.-]{1,1024}$")
_MAC_RE = re.compile(r"^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$")

# result field -> (path below META, kind of check, optional: 404 means "none")
_ITEMS = {
    "instance_id": ("instance-id", "instance id", False),
    "region": ("placement/region", "region", False),
    "zone": ("placement/availability-zone", "zone", False),
    "private_ip": ("local-ipv4", "ip", False),
    "private_dns": ("local-hostname", "host", False),
    "public_ip": ("public-ipv4", "ip", True),
    "public_dns": ("public-hostname", "host", True),
    "mac": ("mac", "mac", False),
}


def _session_token(client, allow_imdsv1: bool, warnings: list) -> str | None:
    """The IMDSv2 token, or None when IMDSv1 is allowed and the token was refused; raise otherwise."""
    ttl = min(MAX_TTL, int(client.total_timeout) + 60)  # outlives this lookup, nothing more
    answer = client.request("PUT", TOKEN_PATH, {TTL_HEADER: str(ttl)})
    if answer.status == 200:
        value = checks.text(answer)
        if not _TOKEN_RE.match(value):
            raise MalformedAnswer("%s: the session token is not token text: %s"
                                  % (answer.source(), checks.excerpt(answer.body)))
        return value
    if answer.status in (403, 404, 405):
        # 403: IMDS turned off (HttpEndpoint=disabled) or the PUT blocked; 404/405: a service without IMDSv2
        why = ("HTTP %d on PUT %s at %s: the instance metadata service is turned off for this instance or the "
               "token request is blocked" if answer.status == 403 else
               "HTTP %d on PUT %s at %s: this metadata service does not offer IMDSv2 session tokens")
        why = why % (answer.status, TOKEN_PATH, client.endpoint)
        if not allow_imdsv1:
            raise AccessRefused("aws instance metadata refused an IMDSv2 session token (%s). IMDSv1 (requests "
                                "without a token) is not tried unless allow_imdsv1=true." % why)
        warnings.append("aws: no IMDSv2 session token (%s); read IMDSv1 without a token because "
                        "allow_imdsv1=true" % why)
        return None
    raise MalformedAnswer("%s at %s: unexpected HTTP %d to the token request %s"
                          % (answer.source(), client.endpoint, answer.status, checks.excerpt(answer.body)))


def _check_access(answer, token: str | None) -> None:
    """Turn a 401 into the IMDSv2-specific explanation (the generic checks handle the rest)."""
    if answer.status != 401:
        return
    if token is None:
        raise AccessRefused("%s at %s: HTTP 401 without a session token: this instance requires IMDSv2 "
                            "(HttpTokens=required), and the token request was refused"
                            % (answer.source(), answer.endpoint))
    raise AccessRefused("%s at %s: HTTP 401: the metadata service rejected the IMDSv2 session token it issued"
                        % (answer.source(), answer.endpoint))


def _check(kind: str, value: str, answer) -> str:
    if kind == "ip":
        return checks.ip_address(value, answer)
    if kind == "host":
        return checks.host(value, answer)
    if kind == "mac":
        if not _MAC_RE.match(value.lower()):
            raise MalformedAnswer("%s: expected a MAC address like 0a:1b:2c:3d:4e:5f, found %r"
                                  % (answer.source(), value))
        return value.lower()
    return checks.token(value, kind, answer)


def fetch(client, allow_imdsv1: bool = False) -> tuple[dict, list[str]]:
    """Read this instance's metadata from IMDSv2; return (result record, warnings). Raise MetadataError."""
    warnings: list[str] = []
    token = _session_token(client, allow_imdsv1, warnings)
    headers = {TOKEN_HEADER: token} if token is not None else {}
    answers = client.parallel({field: Call("GET", META + item[0], headers) for field, item in _ITEMS.items()})
    values: dict[str, str | None] = {}
    for field, item in _ITEMS.items():
        kind, is_optional = item[1], item[2]
        answer = answers[field]
        _check_access(answer, token)
        value = checks.text(answer) if checks.require_status(answer, optional=is_optional) else None
        values[field] = _check(kind, value, answer) if value else None
        if values[field] is None and not is_optional:
            raise MalformedAnswer("%s: the answer is empty" % answer.source())
    mac = values.pop("mac")
    vpc = client.request("GET", "%snetwork/interfaces/macs/%s/vpc-id" % (META, mac), headers)
    _check_access(vpc, token)
    network_id = checks.text(vpc) if checks.require_status(vpc, optional=True) else None
    values["network_id"] = checks.token(network_id, "network id", vpc) if network_id else None
    return checks.result("aws", **values), warnings
