# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    """The options of the modules that ask the cloud's instance metadata service."""

    DOCUMENTATION = r"""
options:
  provider:
    description:
      - The cloud whose metadata service to ask.
      - V(auto) recognises the cloud from the DMI strings in O(dmi_path). AWS is recognised by a C(product_uuid)
        (or, for Xen instances, C(/sys/hypervisor/uuid)) starting with C(ec2), or where C(product_uuid) cannot be
        read (it is root-only on Nitro instances) by the system vendor C(Amazon EC2), GCE by the product name
        C(Google Compute Engine), Azure by its chassis asset tag, OpenStack by the product name C(OpenStack Nova)
        or C(OpenStack Compute), Oracle Cloud by the chassis asset tag C(OracleCloud.com), DigitalOcean and Hetzner
        by their system vendor.
      - V(none) returns V(null) for every value without any network access.
    type: str
    default: auto
    choices: [auto, aws, gcp, azure, openstack, digitalocean, oci, hetzner, none]
  endpoint:
    description:
      - Base URL of the metadata service, C(http://HOST[:PORT]) without a path. Each provider's paths are added to it.
      - Change it only to reach a metadata service on another address, such as the IPv6 AWS endpoint
        C(http://[fd00:ec2::254]) or a test emulator.
      - Give an IP address. A host name is resolved before the timeouts apply.
    type: str
    default: http://169.254.169.254
  timeout:
    description:
      - Seconds to wait for the connection, and for each read, of one request.
    type: float
    default: 1.0
  total_timeout:
    description:
      - Seconds the whole lookup may take. When they run out, all open connections are closed and the module fails.
    type: float
    default: 5.0
  allow_imdsv1:
    description:
      - AWS only. When the IMDSv2 session token request is refused, read the metadata without a token (IMDSv1).
      - By default the module fails instead. IMDSv1 is open to server-side request forgery and AWS recommends
        requiring IMDSv2.
    type: bool
    default: false
  dmi_path:
    description:
      - Directory holding the DMI strings (C(sys_vendor), C(product_name), C(product_uuid), C(chassis_asset_tag)) that
        O(provider=auto) uses.
      - C(/sys/hypervisor/uuid) (AWS Xen instances) is consulted only with the default path. A different directory
        describes another machine, for example a lab node.
    type: path
    default: /sys/class/dmi/id
"""
