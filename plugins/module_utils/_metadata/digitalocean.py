# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""DigitalOcean Droplet metadata client.

Private to kafkaops.listeners: no compatibility promise outside the collection.

One request (``/metadata/v1.json``) returns everything. Droplets have regions but no zones, and the metadata
holds no DNS name (``hostname`` is the Droplet's name) and no VPC id: those fields are null.
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import checks

PATH = "/metadata/v1.json"


def _interface_ip(doc, kind: str, answer) -> str | None:
    """The IPv4 address of the first ``kind`` (private/public) interface; None when there is none."""
    path = ("interfaces", kind, 0, "ipv4", "ip_address")
    key = checks.key_path(path)
    value = checks.optional(checks.scalar(checks.dig(doc, path, answer, required=False), answer, key))
    return checks.ip_address(value, answer, key) if value else None


def fetch(client, allow_imdsv1: bool = False) -> tuple[dict, list[str]]:
    """Read this Droplet's metadata; return (result record, warnings)."""
    answer = client.request("GET", PATH)
    checks.require_status(answer)
    doc = checks.json_document(answer)
    droplet_id = checks.scalar(checks.dig(doc, ("droplet_id",), answer), answer, "droplet_id")
    region = checks.scalar(checks.dig(doc, ("region",), answer), answer, "region")
    return checks.result(
        "digitalocean",
        instance_id=checks.token(droplet_id, "instance id", answer, "droplet_id"),
        region=checks.token(region, "region", answer, "region"),
        private_ip=_interface_ip(doc, "private", answer),
        public_ip=_interface_ip(doc, "public", answer),
    ), []
