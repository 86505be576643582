# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Google Compute Engine metadata server client.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Requests carry ``Metadata-Flavor: Google`` and every genuine answer carries it back; an answer without it comes
from something else (a proxy, a captive portal, another cloud) and is refused. GCP metadata has no public DNS
name, and no region: the region is the zone without its last ``-x`` part.
"""

from __future__ import annotations

import re

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import checks
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import (
    HeaderCheckFailed,
    MalformedAnswer,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.http_client import Call

BASE = "/computeMetadata/v1/instance/"
FLAVOR = ("Metadata-Flavor", "Google")
_ZONE_PATH = re.compile(r"^projects/[^/]+/zones/([^/]+)$")


def _check_flavor(answer) -> None:
    """Refuse any answer (whatever its status) that lacks ``Metadata-Flavor: Google``."""
    found = answer.header(FLAVOR[0])
    if found != FLAVOR[1]:
        raise HeaderCheckFailed("%s at %s: the answer lacks the header '%s: %s' (found %r): the endpoint is not a "
                                "Google metadata server" % (answer.source(), answer.endpoint, FLAVOR[0], FLAVOR[1],
                                                            found))


def fetch(client, allow_imdsv1: bool = False) -> tuple[dict, list[str]]:
    """Read this instance's metadata from the GCE metadata server; return (result record, warnings)."""
    headers = dict([FLAVOR])
    answers = client.parallel({
        "id": Call("GET", BASE + "id", headers),
        "zone": Call("GET", BASE + "zone", headers),
        "hostname": Call("GET", BASE + "hostname", headers),
        "nic": Call("GET", BASE + "network-interfaces/0/?recursive=true", headers),
    })
    for answer in answers.values():
        _check_flavor(answer)
        checks.require_status(answer)
    instance_id = checks.token(checks.text(answers["id"]), "instance id", answers["id"])
    zone_answer = answers["zone"]
    zone_path = checks.text(zone_answer)
    match = _ZONE_PATH.match(zone_path)
    if not match:
        raise MalformedAnswer("%s: expected projects/PROJECT/zones/ZONE, found %s"
                              % (zone_answer.source(), checks.excerpt(zone_answer.body)))
    zone = checks.token(match.group(1), "zone", zone_answer)
    if "-" not in zone:
        raise MalformedAnswer("%s: zone %r has no region part (REGION-x)" % (zone_answer.source(), zone))
    private_dns = checks.host(checks.text(answers["hostname"]), answers["hostname"])

    nic_answer = answers["nic"]
    nic = checks.json_document(nic_answer)
    private_ip = checks.ip_address(checks.dig(nic, ("ip",), nic_answer), nic_answer, "ip")
    network = checks.scalar(checks.dig(nic, ("network",), nic_answer), nic_answer, "network")
    public_ip = None
    access_configs = checks.dig(nic, ("accessConfigs",), nic_answer, required=False) or []
    if not isinstance(access_configs, list):
        raise MalformedAnswer("%s: accessConfigs is not a list" % nic_answer.source())
    for index, config in enumerate(access_configs):
        key = "accessConfigs[%d].externalIp" % index
        external = checks.optional(checks.scalar(checks.dig(config, ("externalIp",), nic_answer, False),
                                                 nic_answer, key))
        if external is not None:
            public_ip = checks.ip_address(external, nic_answer, key)
            break
    return checks.result(
        "gcp",
        instance_id=instance_id,
        region=zone.rsplit("-", 1)[0],
        zone=zone,
        private_ip=private_ip,
        private_dns=private_dns,
        public_ip=public_ip,
        network_id=checks.token(network, "network id", nic_answer, "network") if network else None,
    ), []
