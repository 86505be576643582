# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Oracle Cloud Infrastructure instance metadata (IMDS v2) client.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Every request carries ``Authorization: Bearer Oracle``. ``/opc/v2/instance/`` gives the id, region and
availability domain, ``/opc/v2/vnics/`` the private address. Neither holds a public IP (it lives on the VNIC's
public-IP object, reachable only through the OCI API), any DNS name, or the VCN id: those fields are null.
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import checks
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import AccessRefused
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.http_client import Call

HEADERS = {"Authorization": "Bearer Oracle"}


def fetch(client, allow_imdsv1: bool = False) -> tuple[dict, list[str]]:
    """Read this instance's metadata from OCI IMDS v2; return (result record, warnings)."""
    answers = client.parallel({
        "instance": Call("GET", "/opc/v2/instance/", HEADERS),
        "vnics": Call("GET", "/opc/v2/vnics/", HEADERS),
    })
    for answer in answers.values():
        if answer.status == 401:
            raise AccessRefused("%s at %s: HTTP 401 although the request carried 'Authorization: Bearer Oracle': "
                                "IMDS v2 is not served here" % (answer.source(), answer.endpoint))
        checks.require_status(answer)
    inst_answer, vnic_answer = answers["instance"], answers["vnics"]
    instance = checks.json_document(inst_answer)
    vnics = checks.json_document(vnic_answer)

    def inst_value(key):
        return checks.scalar(checks.dig(instance, (key,), inst_answer), inst_answer, key)

    private_ip = checks.scalar(checks.dig(vnics, (0, "privateIp"), vnic_answer), vnic_answer, "[0].privateIp")
    return checks.result(
        "oci",
        instance_id=checks.token(inst_value("id"), "instance id", inst_answer, "id"),
        region=checks.token(inst_value("canonicalRegionName"), "region", inst_answer, "canonicalRegionName"),
        zone=checks.token(inst_value("availabilityDomain"), "zone", inst_answer, "availabilityDomain"),
        private_ip=checks.ip_address(private_ip, vnic_answer, "[0].privateIp"),
    ), []
