#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: instance_metadata
short_description: Read a cloud VM's addresses and DNS names from the cloud's instance metadata service
version_added: 0.1.0
description:
  - Asks the instance metadata service of the cloud the managed node runs on for the node's instance id, region,
    zone, private and public IP address, private and public DNS name and network id, the values a Kafka broker
    needs to advertise listeners its clients can reach.
  - Supports AWS EC2 (IMDSv2), Google Compute Engine, Azure, OpenStack, DigitalOcean, Oracle Cloud Infrastructure
    (IMDS v2) and Hetzner Cloud.
  - With O(provider=auto) the cloud is recognised from the node's DMI (SMBIOS) strings with the rules of
    cloud-init's C(ds-identify). When no cloud signature is found the result is O(provider=none) with every value
    V(null), and no network connection at all is made.
  - Metadata is untrusted input. Every returned host name or address is checked to be a DNS name or an IP literal,
    and every id, region and zone to be made of letters, digits, dots, underscores, colons, slashes and hyphens.
    An answer that fails a check makes
    the module fail, naming the provider, the request and the value. It never returns such a value.
  - Independent requests are made in parallel. O(timeout) bounds each request and O(total_timeout) the whole lookup.
author:
  - kafkaops.listeners maintainers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.listeners.attributes
  - kafkaops.listeners.attributes.READ_ONLY
  - kafkaops.listeners.instance_metadata
attributes:
  platform:
    details:
      - DMI detection reads Linux sysfs (O(dmi_path)). On other systems use an explicit O(provider).
notes:
  - "Where a value comes from. AWS: C(meta-data/) items C(instance-id), C(placement/region),
    C(placement/availability-zone), C(local-ipv4), C(local-hostname), C(public-ipv4), C(public-hostname) and the
    primary interface's C(vpc-id)."
  - "GCP: C(instance/id), C(instance/zone), C(instance/hostname) and the first network interface. The region is the
    zone without its last part. The network id is the full C(projects/NUMBER/networks/NAME) path."
  - "Azure: C(compute.vmId), C(compute.location), C(compute.zone) and the first interface's first IPv4 address."
  - "OpenStack: C(meta_data.json) (C(uuid), C(hostname), C(availability_zone)), C(network_data.json) (network id)
    and the EC2 items C(local-ipv4) and C(public-ipv4)."
  - "DigitalOcean: C(/metadata/v1.json) (C(droplet_id), C(region), the first private and public interface).
    OCI: C(/opc/v2/instance/) (C(id), C(canonicalRegionName), C(availabilityDomain)) and C(/opc/v2/vnics/).
    Hetzner: the C(/hetzner/v1/metadata/) items and C(private-networks)."
  - Only AWS metadata holds a public DNS name. RV(instance_metadata.public_dns) is V(null) on every other cloud.
    On AWS it is also V(null) when the VPC gives no public DNS names (C(public-hostname) answers 404).
  - OpenStack's EC2-compatible C(public-hostname) is the instance's internal name, so it is not reported as a public
    DNS name.
  - Azure, DigitalOcean, Hetzner and OCI metadata hold no DNS name at all, so RV(instance_metadata.private_dns) is
    V(null) there. Azure, DigitalOcean and OCI metadata hold no network id, and OpenStack's none a region.
  - OCI metadata (IMDS v2 C(vnics)) has no public IP address. It lives on the VNIC's public IP object, which only
    the OCI API shows. RV(instance_metadata.public_ip) is V(null) on OCI.
  - On AWS Nitro instances C(product_uuid) is usually readable by root only. Without root access O(provider=auto)
    recognises AWS by the system vendor C(Amazon EC2) instead; where that is not set either, it cannot recognise
    AWS and warns. Use privilege escalation or set O(provider=aws) there.
seealso:
  - module: kafkaops.listeners.kafka_properties
    description: Writes the advertised listeners built from these values into server.properties.
  - name: AWS instance metadata service (IMDSv2)
    description: How IMDSv2 session tokens work.
    link: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-instance-metadata-service.html
  - name: GCP VM metadata
    description: The metadata server and its Metadata-Flavor header.
    link: https://cloud.google.com/compute/docs/metadata/querying-metadata
  - name: Azure Instance Metadata Service
    description: The Azure IMDS document.
    link: https://learn.microsoft.com/en-us/azure/virtual-machines/instance-metadata-service
"""

EXAMPLES = r"""
- name: Learn this broker's names and addresses from its cloud (sets the fact kafka_instance)
  kafkaops.listeners.instance_metadata:

- name: Advertise the public DNS name where the cloud has one, else the public IP
  ansible.builtin.debug:
    msg: "EXTERNAL://{{ kafka_instance.public_dns or kafka_instance.public_ip }}:9092"
  when: kafka_instance.provider != 'none'

- name: Ask AWS explicitly over the IPv6 endpoint with a tighter overall bound
  kafkaops.listeners.instance_metadata:
    provider: aws
    endpoint: http://[fd00:ec2::254]
    total_timeout: 3

- name: Detect the cloud of a lab node from its own DMI directory
  kafkaops.listeners.instance_metadata:
    dmi_path: /etc/kafka-lab/dmi
"""

RETURN = r"""
instance_metadata:
  description:
    - The instance as its cloud's metadata describes it. Every key is present. A key is V(null) where the cloud's
      metadata has no such value.
  returned: always
  type: dict
  contains:
    provider:
      description: The cloud the values come from, or V(none) when the node is not on a recognised cloud.
      type: str
      sample: aws
    instance_id:
      description: The cloud's id of the instance (AWS C(i-...), GCP number, Azure vmId, OpenStack uuid, OCI OCID, ...).
      type: str
      sample: i-0a1b2c3d4e5f60718
    region:
      description: The region. V(null) on OpenStack.
      type: str
      sample: us-west-2
    zone:
      description: The availability zone (OCI availability domain). V(null) on DigitalOcean and on non-zonal Azure VMs.
      type: str
      sample: us-west-2a
    private_ip:
      description: The primary private IP address.
      type: str
      sample: 198.18.0.11
    private_dns:
      description: The internal DNS name (AWS, GCP and OpenStack), else V(null).
      type: str
      sample: ip-198-18-0-11.us-west-2.compute.internal
    public_ip:
      description: The public IP address, V(null) when none is attached (always V(null) on OCI).
      type: str
      sample: 198.19.0.11
    public_dns:
      description: The public DNS name (AWS only), V(null) when there is none.
      type: str
      sample: ec2-198-19-0-11.us-west-2.compute.amazonaws.com
    network_id:
      description: The VPC / network id (AWS, GCP, OpenStack, Hetzner), else V(null).
      type: str
      sample: vpc-0f1e2d3c4b5a69788
ansible_facts:
  description: The same values as a fact.
  returned: always
  type: dict
  contains:
    kafka_instance:
      description: The same dictionary as RV(instance_metadata).
      type: dict
      sample:
        provider: gcp
        instance_id: "4520946021744386049"
        region: us-central1
        zone: us-central1-a
        private_ip: 198.18.0.12
        private_dns: broker-2.c.kafkaops-lab.internal
        public_ip: 198.19.0.12
        public_dns: null
        network_id: projects/123456789012/networks/default
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import (
    METADATA_ARGUMENT_SPEC,
    MetadataError,
    lookup_instance_metadata,
)


def main():
    module = AnsibleModule(
        argument_spec=METADATA_ARGUMENT_SPEC,
        supports_check_mode=True,
    )
    try:
        metadata, warnings = lookup_instance_metadata(module.params)
    except MetadataError as exc:
        module.fail_json(msg=str(exc))
    for warning in warnings:
        module.warn(warning)
    module.exit_json(changed=False, instance_metadata=metadata, ansible_facts={"kafka_instance": metadata})


if __name__ == "__main__":
    main()
