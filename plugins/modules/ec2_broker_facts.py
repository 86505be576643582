#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: ec2_broker_facts
short_description: Read Kafka brokers' addresses and DNS names from the EC2 API
version_added: 0.1.0
description:
  - Asks the EC2 API (C(DescribeInstances)) for the instances given by id or selected by filters, and returns each
    one's private and public DNS name and IP address, VPC, availability zone, state and tags.
  - It is the control-node counterpart of M(kafkaops.listeners.instance_metadata). Use it where a broker's own
    metadata service cannot be asked, for example when the instance metadata service is turned off, or in a
    provisioning hook that runs before SSH works. Run it where the AWS credentials are, usually with
    the task keyword C(delegate_to) set to C(localhost), or C(connection) set to C(local).
  - Besides its own list, it returns each instance in the exact shape of
    RV(kafkaops.listeners.instance_metadata#module:instance_metadata), so the broker role can take its values from
    either module.
  - API answers are untrusted input. Every host name and IP address is checked to be a DNS name or an IP literal,
    and every id, zone and state to have EC2's form. An answer that fails a check makes the module fail, naming the
    instance, the field and the value.
  - All pages of the answer are read.
author:
  - kafkaops.listeners maintainers (@kafkaops)
deprecated:
  removed_in: 1.0.0
  why: >-
    It keeps AWS credentials, region and retries of its own, which users of amazon.aws already configure once for
    that collection's modules (profiles, environment, assumed roles, module_defaults group/aws).
  alternative: >-
    amazon.aws.ec2_instance_info, its names given to the broker role as broker_static_facts (the AWS recipe shows how).
requirements:
  - boto3
extends_documentation_fragment:
  - kafkaops.listeners.attributes
  - kafkaops.listeners.attributes.READ_ONLY
options:
  instance_ids:
    description:
      - The EC2 instance ids to describe.
      - Each one must be found in one of the O(states) (and match O(filters) when both are given), or the module fails
        naming the missing ids and, where EC2 shows them, their states.
      - At least one of O(instance_ids) and O(filters) is required.
    type: list
    elements: str
  filters:
    description:
      - "EC2 C(DescribeInstances) filters, as a dictionary of filter names to a value or a list of values, for example
        C({\"tag:Cluster\": \"kafka-prod\"}). Values of one filter are alternatives; all filters must match."
      - Boolean values are sent as V(true) and V(false).
      - Select instance states with O(states), not with the C(instance-state-name) or C(instance-state-code) filters.
      - At least one of O(instance_ids) and O(filters) is required.
    type: dict
  states:
    description:
      - The instance states to return.
      - The default keeps instances that have, or are about to have, the addresses they will serve with. A stopped
        instance has no public IP address (unless an Elastic IP is attached) and gets a new one when it starts.
      - An empty list returns instances in any state.
    type: list
    elements: str
    choices: [pending, running, shutting-down, terminated, stopping, stopped]
    default: [pending, running]
  region:
    description:
      - The AWS region, for example V(us-west-2).
      - When not given, the SDK's default chain decides (C(AWS_REGION), C(AWS_DEFAULT_REGION), the profile's
        C(region)). Without any region the module fails.
    type: str
  profile:
    description:
      - A named profile of the AWS config and credentials files.
      - When not given, the SDK's default chain decides (C(AWS_PROFILE), else the default profile).
    type: str
  endpoint_url:
    description:
      - The URL of the EC2 API, C(http://) or C(https://). Only needed for a VPC endpoint or an EC2 emulator.
    type: str
  aws_access_key_id:
    description:
      - The access key id. Give it together with O(aws_secret_access_key).
      - When neither is given, the SDK's default chain finds credentials (environment, shared credentials file,
        O(profile), container or instance role). Explicit keys take precedence over O(profile).
    type: str
  aws_secret_access_key:
    description:
      - The secret access key belonging to O(aws_access_key_id).
    type: str
  session_token:
    description:
      - The session token of temporary credentials. Requires O(aws_access_key_id) and O(aws_secret_access_key).
    type: str
notes:
  - The credentials need the IAM permission C(ec2:DescribeInstances).
  - EC2 gives C(PublicDnsName) as an empty string when an instance has no public DNS name. The module returns V(null)
    then, as it does for every absent address.
  - The tag C(Name) (RV(instances[].name)) is a free-form label and is not checked as a host name; it is only
    refused when it contains control characters such as line breaks. Other tags are returned as EC2 gives them.
    Use neither as a listener host.
  - The EC2 API is eventually consistent. Right after an instance is launched it may not be described yet; retry the
    task (C(until)/C(retries)) in a provisioning hook.
seealso:
  - module: kafkaops.listeners.instance_metadata
    description: Reads the same values from the broker's own instance metadata service.
  - name: EC2 DescribeInstances
    description: The API call, and the filters it accepts.
    link: https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstances.html
"""

EXAMPLES = r"""
- name: Describe the brokers of a cluster by tag, from the control node
  kafkaops.listeners.ec2_broker_facts:
    region: us-west-2
    filters:
      "tag:Cluster": kafka-prod
  delegate_to: localhost
  run_once: true
  register: __ec2_brokers

- name: Advertise the public DNS name EC2 gives each broker, else its public IP
  ansible.builtin.debug:
    msg: >-
      {{ item.instance_id }}: EXTERNAL://{{ item.public_dns or item.public_ip }}:9092,
      INTERNAL://{{ item.private_dns }}:19092
  loop: "{{ __ec2_brokers.instances }}"

- name: Use the instance_metadata shape for the broker whose instance id is in the inventory
  ansible.builtin.set_fact:
    kafka_instance: "{{ __ec2_brokers.by_instance[ec2_instance_id] }}"

- name: Describe instances a Terraform provisioner just created, retrying while EC2 catches up
  kafkaops.listeners.ec2_broker_facts:
    instance_ids: "{{ broker_instance_ids }}"
    profile: kafka-admin
  delegate_to: localhost
  register: __ec2_new
  until: __ec2_new is succeeded
  retries: 5
  delay: 3
"""

RETURN = r"""
instances:
  description:
    - The instances, sorted by instance id. Every key is present; addresses and names EC2 does not give are V(null).
  returned: success
  type: list
  elements: dict
  contains:
    instance_id:
      description: The instance id.
      type: str
      sample: i-0a1b2c3d4e5f60718
    name:
      description: The value of the tag C(Name), V(null) without one. A free-form label, not a host name.
      type: str
      sample: kafka-prod-broker-1
    private_dns:
      description: The private DNS name (C(PrivateDnsName)).
      type: str
      sample: ip-198-18-0-11.us-west-2.compute.internal
    private_ip:
      description: The primary private IP address (C(PrivateIpAddress)).
      type: str
      sample: 198.18.0.11
    public_dns:
      description: The public DNS name (C(PublicDnsName)), V(null) when there is none.
      type: str
      sample: ec2-198-19-0-11.us-west-2.compute.amazonaws.com
    public_ip:
      description: The public IP address (C(PublicIpAddress)), V(null) when none is attached.
      type: str
      sample: 198.19.0.11
    vpc_id:
      description: The VPC id.
      type: str
      sample: vpc-0f1e2d3c4b5a69788
    availability_zone:
      description: The availability zone.
      type: str
      sample: us-west-2a
    state:
      description: The instance state.
      type: str
      sample: running
    tags:
      description: All tags of the instance, as EC2 returns them.
      type: dict
      sample:
        Name: kafka-prod-broker-1
        Cluster: kafka-prod
by_instance:
  description:
    - Each instance id mapped to the instance in the shape of the C(instance_metadata) return value of
      M(kafkaops.listeners.instance_metadata). Keys are C(provider) (always V(aws)), C(instance_id), C(region),
      C(zone), C(private_ip), C(private_dns), C(public_ip), C(public_dns) and C(network_id) (the VPC id).
  returned: success
  type: dict
  sample:
    i-0a1b2c3d4e5f60718:
      provider: aws
      instance_id: i-0a1b2c3d4e5f60718
      region: us-west-2
      zone: us-west-2a
      private_ip: 198.18.0.11
      private_dns: ip-198-18-0-11.us-west-2.compute.internal
      public_ip: 198.19.0.11
      public_dns: ec2-198-19-0-11.us-west-2.compute.amazonaws.com
      network_id: vpc-0f1e2d3c4b5a69788
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kafkaops.listeners.plugins.module_utils._aws_ec2 import (
    BOTO3_IMPORT_ERROR,
    DEFAULT_STATES,
    HAS_BOTO3,
    STATE_CHOICES,
    Ec2FactsError,
    describe_brokers,
)


def main():
    module = AnsibleModule(
        argument_spec={
            "instance_ids": {"type": "list", "elements": "str"},
            "filters": {"type": "dict"},
            "states": {"type": "list", "elements": "str", "choices": list(STATE_CHOICES),
                       "default": list(DEFAULT_STATES)},
            "region": {"type": "str"},
            "profile": {"type": "str"},
            "endpoint_url": {"type": "str"},
            "aws_access_key_id": {"type": "str", "no_log": True},
            "aws_secret_access_key": {"type": "str", "no_log": True},
            "session_token": {"type": "str", "no_log": True},
        },
        required_one_of=[("instance_ids", "filters")],
        required_together=[("aws_access_key_id", "aws_secret_access_key")],
        required_by={"session_token": ("aws_access_key_id", "aws_secret_access_key")},
        supports_check_mode=True,
    )
    if not HAS_BOTO3:
        module.fail_json(msg=missing_required_lib("boto3"), exception=BOTO3_IMPORT_ERROR)
    try:
        described = describe_brokers(module.params)
    except Ec2FactsError as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(changed=False, **described)


if __name__ == "__main__":
    main()
