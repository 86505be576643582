# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Azure Instance Metadata Service (IMDS) client.

Private to kafkaops.listeners: no compatibility promise outside the collection.

One request (``/metadata/instance`` with ``Metadata: true`` and an ``api-version``) returns the whole document.
Azure IMDS exposes no DNS name, private or public, and no virtual network id: those fields are null.
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import checks

# A version every Azure region serves and that has compute.zone and the network section.
API_VERSION = "2021-02-01"
PATH = "/metadata/instance?api-version=%s" % API_VERSION
ADDRESS = ("network", "interface", 0, "ipv4", "ipAddress", 0)


def fetch(client, allow_imdsv1: bool = False) -> tuple[dict, list[str]]:
    """Read this instance's metadata from Azure IMDS; return (result record, warnings)."""
    answer = client.request("GET", PATH, {"Metadata": "true"})
    checks.require_status(answer)
    doc = checks.json_document(answer)

    def value(path, required=True):
        return checks.scalar(checks.dig(doc, path, answer, required), answer, checks.key_path(path))

    public_ip = checks.optional(value(ADDRESS + ("publicIpAddress",), required=False))
    zone = checks.optional(value(("compute", "zone"), required=False))  # "" for a VM outside availability zones
    return checks.result(
        "azure",
        instance_id=checks.token(value(("compute", "vmId")), "instance id", answer, "compute.vmId"),
        region=checks.token(value(("compute", "location")), "region", answer, "compute.location"),
        zone=checks.token(zone, "zone", answer, "compute.zone") if zone else None,
        private_ip=checks.ip_address(value(ADDRESS + ("privateIpAddress",)), answer,
                                     checks.key_path(ADDRESS + ("privateIpAddress",))),
        public_ip=checks.ip_address(public_ip, answer, checks.key_path(ADDRESS + ("publicIpAddress",)))
        if public_ip else None,
    ), []
