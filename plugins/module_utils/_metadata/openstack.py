# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""OpenStack (Nova) metadata service client.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Names and ids come from the OpenStack documents (``meta_data.json``, ``network_data.json``), addresses from the
EC2-compatible tree. Nova's EC2 ``public-hostname`` is the instance's *internal* name, so it is never reported
as a public DNS name; Nova publishes no public DNS name and no region.
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import checks
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.http_client import Call


def fetch(client, allow_imdsv1: bool = False) -> tuple[dict, list[str]]:
    """Read this instance's metadata from the Nova metadata service; return (result record, warnings)."""
    answers = client.parallel({
        "meta": Call("GET", "/openstack/latest/meta_data.json"),
        "network": Call("GET", "/openstack/latest/network_data.json"),
        "local_ipv4": Call("GET", "/latest/meta-data/local-ipv4"),
        "public_ipv4": Call("GET", "/latest/meta-data/public-ipv4"),
    })
    meta_answer = answers["meta"]
    checks.require_status(meta_answer)
    meta = checks.json_document(meta_answer)

    def meta_value(key, required=True):
        return checks.scalar(checks.dig(meta, (key,), meta_answer, required), meta_answer, key)

    zone = checks.optional(meta_value("availability_zone", required=False))

    network_id = None
    network_answer = answers["network"]
    if checks.require_status(network_answer, optional=True):  # older Nova releases lack network_data.json
        networks = checks.json_document(network_answer)
        raw = checks.dig(networks, ("networks", 0, "network_id"), network_answer, required=False)
        network_id = checks.optional(checks.scalar(raw, network_answer, "networks[0].network_id"))
        if network_id is not None:
            network_id = checks.token(network_id, "network id", network_answer, "networks[0].network_id")

    local = answers["local_ipv4"]
    checks.require_status(local)
    public = answers["public_ipv4"]
    public_ip = checks.optional(checks.text(public)) if checks.require_status(public, optional=True) else None
    return checks.result(
        "openstack",
        instance_id=checks.token(meta_value("uuid"), "instance id", meta_answer, "uuid"),
        zone=checks.token(zone, "zone", meta_answer, "availability_zone") if zone else None,
        private_ip=checks.ip_address(checks.text(local), local),
        private_dns=checks.host(meta_value("hostname"), meta_answer, "hostname"),
        public_ip=checks.ip_address(public_ip, public) if public_ip else None,
        network_id=network_id,
    ), []
