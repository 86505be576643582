# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""describe_brokers() against moto's in-process EC2 mock: no request leaves the process, except refused loopback
connects in the tests that need a failing endpoint."""

from __future__ import annotations

import importlib.util
import ipaddress
import socket
import sys
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from ansible_collections.kafkaops.listeners.plugins.module_utils import _aws_ec2
from ansible_collections.kafkaops.listeners.plugins.module_utils._aws_ec2 import (
    Ec2FactsError,
    build_filters,
    describe_brokers,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.checks import FIELDS

REGION = "us-west-2"
# moto does not check the image of run_instances; describe_images would cost seconds per test.
IMAGE_ID = "ami-12c6146b"
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
BASE = dict(CREDENTIALS, region=REGION)


# ------------------------------------------------------------------------------------------------------ fixtures


def _refuse_non_loopback(original):
    """Wrap socket.connect/connect_ex: anything but loopback or a Unix socket raises before a packet is sent."""

    def connect(sock, address, *args):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0]
            try:
                loopback = ipaddress.ip_address(host).is_loopback
            except ValueError:
                loopback = host == "localhost"
            if not loopback:
                raise AssertionError("test tried to connect to %r: only loopback is allowed" % (address,))
        return original(sock, address, *args)

    return connect


@pytest.fixture(autouse=True)
def isolated_aws(monkeypatch, tmp_path):
    """No AWS settings from the machine, no instance metadata lookups by botocore, no non-loopback connects."""
    for name in list(sys.modules["os"].environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")  # botocore would ask 169.254.169.254 for credentials
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")  # a refused endpoint fails at once instead of after retries
    monkeypatch.setattr(socket.socket, "connect", _refuse_non_loopback(socket.socket.connect))
    monkeypatch.setattr(socket.socket, "connect_ex", _refuse_non_loopback(socket.socket.connect_ex))


@pytest.fixture
def ec2():
    """A moto-backed EC2 client of REGION (for setting instances up)."""
    with mock_aws():
        yield boto3.client("ec2", region_name=REGION, **CREDENTIALS)


@pytest.fixture
def closed_port():
    """A loopback TCP port nothing listens on (bound without listen, so connects are refused)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    yield sock.getsockname()[1]
    sock.close()


def launch(client, count=1, tags=None, subnet_id=None) -> list:
    """Launch ``count`` instances (in the default VPC unless ``subnet_id``); return their ids."""
    arguments = {"ImageId": IMAGE_ID, "MinCount": count, "MaxCount": count}
    if tags:
        arguments["TagSpecifications"] = [{"ResourceType": "instance",
                                           "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}]
    if subnet_id:
        arguments["SubnetId"] = subnet_id
    return [instance["InstanceId"] for instance in client.run_instances(**arguments)["Instances"]]


def private_subnet(client) -> str:
    """A subnet of a new VPC without MapPublicIpOnLaunch: instances there get no public address."""
    vpc_id = client.create_vpc(CidrBlock="10.20.0.0/16")["Vpc"]["VpcId"]
    return client.create_subnet(VpcId=vpc_id, CidrBlock="10.20.1.0/24")["Subnet"]["SubnetId"]


def raw_instance(client, instance_id) -> dict:
    return client.describe_instances(InstanceIds=[instance_id])["Reservations"][0]["Instances"][0]


def patching_factory(change, counter=None):
    """A client factory whose DescribeInstances answers pass through ``change(instance_dict)`` before parsing ends.

    ``counter`` (a list) gets one entry per DescribeInstances call.
    """

    def factory(params):
        client = _aws_ec2.ec2_client(params)

        def after_call(parsed, **kwargs):
            for reservation in parsed.get("Reservations", []):
                for instance in reservation.get("Instances", []):
                    change(instance)

        client.meta.events.register("after-call.ec2.DescribeInstances", after_call)
        if counter is not None:
            client.meta.events.register("before-call.ec2.DescribeInstances", lambda **kwargs: counter.append(1))
        return client

    return factory


def error_of(params, **kwargs) -> str:
    with pytest.raises(Ec2FactsError) as caught:
        describe_brokers(params, **kwargs)
    return str(caught.value)


# ------------------------------------------------------------------------------------------- values and shape


def test_public_and_private_only_instances(ec2):
    public_id = launch(ec2, tags={"Name": "kafka-1", "Cluster": "kafka-prod"})[0]
    private_id = launch(ec2, tags={"Cluster": "kafka-prod"}, subnet_id=private_subnet(ec2))[0]
    public_raw, private_raw = raw_instance(ec2, public_id), raw_instance(ec2, private_id)
    assert public_raw["PublicIpAddress"], "moto should give the default subnet's instance a public address"

    described = describe_brokers(dict(BASE, filters={"tag:Cluster": "kafka-prod"}))

    by_id = {entry["instance_id"]: entry for entry in described["instances"]}
    assert by_id[public_id] == {
        "instance_id": public_id,
        "name": "kafka-1",
        "private_dns": public_raw["PrivateDnsName"],
        "private_ip": public_raw["PrivateIpAddress"],
        "public_dns": public_raw["PublicDnsName"],
        "public_ip": public_raw["PublicIpAddress"],
        "vpc_id": public_raw["VpcId"],
        "availability_zone": public_raw["Placement"]["AvailabilityZone"],
        "state": "running",
        "tags": {"Name": "kafka-1", "Cluster": "kafka-prod"},
    }
    private = by_id[private_id]
    assert private["public_dns"] is None and private["public_ip"] is None
    assert private["name"] is None
    assert private["private_ip"] == private_raw["PrivateIpAddress"]
    assert private["vpc_id"] == private_raw["VpcId"] != public_raw["VpcId"]


def test_by_instance_has_the_instance_metadata_shape(ec2):
    instance_id = launch(ec2)[0]
    raw = raw_instance(ec2, instance_id)
    described = describe_brokers(dict(BASE, instance_ids=[instance_id]))
    record = described["by_instance"][instance_id]
    assert tuple(record) == FIELDS
    assert record == {
        "provider": "aws",
        "instance_id": instance_id,
        "region": REGION,
        "zone": raw["Placement"]["AvailabilityZone"],
        "private_ip": raw["PrivateIpAddress"],
        "private_dns": raw["PrivateDnsName"],
        "public_ip": raw["PublicIpAddress"],
        "public_dns": raw["PublicDnsName"],
        "network_id": raw["VpcId"],
    }


def test_empty_public_dns_from_ec2_becomes_null(ec2):
    # Real EC2 answers "" (not an absent key) when an instance has no public DNS name.
    instance_id = launch(ec2)[0]
    factory = patching_factory(lambda instance: instance.update(PublicDnsName="", PublicIpAddress=""))
    described = describe_brokers(dict(BASE, instance_ids=[instance_id]), client_factory=factory)
    assert described["instances"][0]["public_dns"] is None
    assert described["instances"][0]["public_ip"] is None
    assert described["by_instance"][instance_id]["public_dns"] is None


def test_instances_are_sorted_by_id_and_requested_duplicates_collapse(ec2):
    ids = launch(ec2, count=4)
    requested = list(reversed(ids)) + [ids[0]]
    described = describe_brokers(dict(BASE, instance_ids=requested))
    assert [entry["instance_id"] for entry in described["instances"]] == sorted(ids)
    assert list(described["by_instance"]) == sorted(ids)


# --------------------------------------------------------------------------------------------- selection


def test_tag_filter_selects_one_cluster(ec2):
    prod = launch(ec2, count=2, tags={"Cluster": "kafka-prod"})
    launch(ec2, count=2, tags={"Cluster": "kafka-test"})
    described = describe_brokers(dict(BASE, filters={"tag:Cluster": "kafka-prod"}))
    assert [entry["instance_id"] for entry in described["instances"]] == sorted(prod)


def test_filter_values_are_alternatives(ec2):
    prod = launch(ec2, tags={"Cluster": "kafka-prod"})
    test = launch(ec2, tags={"Cluster": "kafka-test"})
    launch(ec2, tags={"Cluster": "other"})
    described = describe_brokers(dict(BASE, filters={"tag:Cluster": ["kafka-prod", "kafka-test"]}))
    assert [entry["instance_id"] for entry in described["instances"]] == sorted(prod + test)


def test_default_states_leave_out_stopped_instances_and_empty_states_keep_them(ec2):
    running = launch(ec2, tags={"Cluster": "c"})
    stopped = launch(ec2, tags={"Cluster": "c"})
    ec2.stop_instances(InstanceIds=stopped)
    default = describe_brokers(dict(BASE, filters={"tag:Cluster": "c"}))
    assert [entry["instance_id"] for entry in default["instances"]] == running
    every = describe_brokers(dict(BASE, filters={"tag:Cluster": "c"}, states=[]))
    assert {entry["instance_id"]: entry["state"] for entry in every["instances"]} == {
        running[0]: "running", stopped[0]: "stopped"}


def test_instance_ids_and_filters_combine(ec2):
    wanted = launch(ec2, count=2, tags={"Cluster": "c"})
    described = describe_brokers(dict(BASE, instance_ids=wanted[:1], filters={"tag:Cluster": "c"}))
    assert [entry["instance_id"] for entry in described["instances"]] == wanted[:1]


def test_build_filters_sorts_converts_and_adds_states():
    built = build_filters({"tag:Cluster": ["a", "b"], "ebs-optimized": False, "ami-launch-index": 0},
                          ["running"])
    assert built == [
        {"Name": "ami-launch-index", "Values": ["0"]},
        {"Name": "ebs-optimized", "Values": ["false"]},
        {"Name": "tag:Cluster", "Values": ["a", "b"]},
        {"Name": "instance-state-name", "Values": ["running"]},
    ]
    assert build_filters({"tag:Cluster": "a"}, []) == [{"Name": "tag:Cluster", "Values": ["a"]}]


@pytest.mark.parametrize(("filters", "states", "fragment"), [
    ({"instance-state-name": "running"}, ["running"], "filters['instance-state-name']: select instance states with"),
    ({"instance-state-code": 16}, [], "filters['instance-state-code']"),
    ({"tag:Cluster": []}, ["running"], "filters['tag:Cluster']: the list of values is empty"),
    ({"tag:Cluster": {"nested": 1}}, ["running"], "filters['tag:Cluster']: values must be strings"),
    ({"": "x"}, ["running"], "filters: '' is not an EC2 filter name"),
    ({"tag:Cluster": "c"}, ["runing"], "states: 'runing' is not an EC2 instance state"),
    (["tag:Cluster"], ["running"], "filters must be a dictionary"),
])
def test_build_filters_refuses_bad_input(filters, states, fragment):
    with pytest.raises(Ec2FactsError, match=None) as caught:
        build_filters(filters, states)
    assert fragment in str(caught.value)


# ---------------------------------------------------------------------------------------------- pagination


def test_every_page_is_read(ec2):
    # EC2 (and moto) page by reservation: launch one reservation per instance.
    ids = [launch(ec2, tags={"Cluster": "big"})[0] for _number in range(12)]
    calls = []
    described = describe_brokers(dict(BASE, filters={"tag:Cluster": "big"}), page_size=5,
                                 client_factory=patching_factory(lambda instance: None, calls))
    assert len(calls) == 3  # 5 + 5 + 2
    assert [entry["instance_id"] for entry in described["instances"]] == sorted(ids)


def test_one_page_without_a_page_size(ec2):
    launch(ec2, count=12, tags={"Cluster": "big"})
    calls = []
    described = describe_brokers(dict(BASE, filters={"tag:Cluster": "big"}),
                                 client_factory=patching_factory(lambda instance: None, calls))
    assert len(calls) == 1
    assert len(described["instances"]) == 12


# ---------------------------------------------------------------------------------------------- not found


def test_unknown_instance_ids_are_all_named(ec2):
    known = launch(ec2)[0]
    unknown = ["i-0123456789abcdef0", "i-0fedcba9876543210"]
    message = error_of(dict(BASE, instance_ids=[known] + unknown))
    assert "EC2 instance ids not found in region us-west-2: i-0123456789abcdef0, i-0fedcba9876543210" in message
    assert "InvalidInstanceID.NotFound" in message
    assert known not in message.partition("(")[0]


def test_requested_instance_in_another_state_is_named_with_its_state(ec2):
    running, stopped = launch(ec2, count=2)
    ec2.stop_instances(InstanceIds=[stopped])
    message = error_of(dict(BASE, instance_ids=[running, stopped]))
    assert "did not return these requested instances" in message
    assert "%s (its state is stopped; states allows pending, running)" % stopped in message
    assert running not in message


def test_requested_instance_outside_the_filters_is_named(ec2):
    instance_id = launch(ec2, tags={"Cluster": "a"})[0]
    message = error_of(dict(BASE, instance_ids=[instance_id], filters={"tag:Cluster": "b"}))
    assert "%s (does not match the filters tag:Cluster)" % instance_id in message


def test_malformed_instance_id_is_refused_before_any_call():
    def factory(params):
        raise AssertionError("no client may be created for a malformed id")

    message = error_of(dict(BASE, instance_ids=["i-0123456789abcdef0", "i-../../etc"]), client_factory=factory)
    assert message.startswith("instance_ids[1]: 'i-../../etc' is not an EC2 instance id")


# ------------------------------------------------------------------------------------- untrusted API answers


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("PublicDnsName", "evil\nlisteners=X", "from public_dns (PublicDnsName) of EC2 instance %s: it contains"),
    ("PublicDnsName", "ec2-198-19-0-1.compute.amazonaws.com\n",
     "from public_dns (PublicDnsName) of EC2 instance %s: it contains a newline"),
    ("PrivateDnsName", "ip-10-0-0-1 .internal", "from private_dns (PrivateDnsName) of EC2 instance %s"),
    ("PrivateIpAddress", "ip-10-0-0-1.internal",
     "invalid IP address 'ip-10-0-0-1.internal' from private_ip (PrivateIpAddress) of EC2 instance %s"),
    ("PublicIpAddress", "198.19.0.1,evil", "from public_ip (PublicIpAddress) of EC2 instance %s"),
    ("VpcId", "vpc-1\nx", "invalid vpc_id (VpcId) 'vpc-1\\nx' from EC2 for instance %s"),
])
def test_a_bad_value_names_the_instance_and_the_field(ec2, key, value, fragment):
    instance_id = launch(ec2)[0]
    factory = patching_factory(lambda instance: instance.update({key: value}))
    message = error_of(dict(BASE, instance_ids=[instance_id]), client_factory=factory)
    assert fragment % instance_id in message
    assert repr(value) in message


def test_a_bad_zone_or_state_is_refused(ec2):
    instance_id = launch(ec2)[0]
    zone = patching_factory(lambda instance: instance["Placement"].update(AvailabilityZone="us-west-2a\n"))
    assert "invalid availability_zone (Placement.AvailabilityZone) 'us-west-2a\\n' from EC2 for instance %s" \
        % instance_id in error_of(dict(BASE, instance_ids=[instance_id]), client_factory=zone)
    state = patching_factory(lambda instance: instance["State"].update(Name="exploded"))
    assert "invalid state 'exploded' from EC2 (State.Name) for instance %s" % instance_id \
        in error_of(dict(BASE, instance_ids=[instance_id]), client_factory=state)


def test_a_bad_instance_id_from_ec2_is_refused(ec2):
    launch(ec2, tags={"Cluster": "c"})
    factory = patching_factory(lambda instance: instance.update(InstanceId="i-1\nlisteners=X"))
    message = error_of(dict(BASE, filters={"tag:Cluster": "c"}), client_factory=factory)
    assert message == "invalid instance id 'i-1\\nlisteners=X' from EC2 (InstanceId)"


def test_a_name_tag_with_a_line_break_is_refused_and_spaces_are_kept(ec2):
    plain = launch(ec2, tags={"Name": "Kafka broker 1"})[0]
    assert describe_brokers(dict(BASE, instance_ids=[plain]))["instances"][0]["name"] == "Kafka broker 1"
    forged = launch(ec2, tags={"Name": "broker\nlisteners=X"})[0]
    message = error_of(dict(BASE, instance_ids=[forged]))
    assert message == ("invalid name 'broker\\nlisteners=X' (tag Name) of EC2 instance %s: it contains control "
                       "characters" % forged)


# --------------------------------------------------------------------------------------- options and errors


def test_neither_ids_nor_filters_is_refused():
    assert error_of(dict(BASE)).startswith("give instance_ids or filters")
    assert error_of(dict(BASE, instance_ids=[], filters={})).startswith("give instance_ids or filters")


@pytest.mark.parametrize(("extra", "fragment"), [
    ({"aws_access_key_id": "AKIA", "aws_secret_access_key": None}, "must be given together (only aws_access_key_id"),
    ({"aws_access_key_id": None, "aws_secret_access_key": "s", "session_token": "t"}, "must be given together"),
    ({"aws_access_key_id": None, "aws_secret_access_key": None, "session_token": "t"}, "session_token needs"),
    ({"region": "us west 2"}, "invalid region 'us west 2' from the region option"),
    ({"endpoint_url": "127.0.0.1:5000"}, "endpoint_url must be an http:// or https:// URL"),
])
def test_bad_options_are_refused(extra, fragment):
    assert fragment in error_of(dict(BASE, instance_ids=["i-0123456789abcdef0"], **extra))


def test_no_credentials(closed_port):
    # Outside moto (which sets fake credentials), with every source of the default chain empty.
    message = error_of({"instance_ids": ["i-0123456789abcdef0"], "region": REGION,
                        "endpoint_url": "http://127.0.0.1:%d" % closed_port})
    assert message.startswith("no usable AWS credentials (Unable to locate credentials)")


def test_no_region():
    message = error_of(dict(CREDENTIALS, instance_ids=["i-0123456789abcdef0"]))
    assert message.startswith("no AWS region: set the region option, AWS_REGION")


def test_unknown_profile():
    message = error_of({"instance_ids": ["i-0123456789abcdef0"], "profile": "nope"})
    assert message.startswith("profile 'nope': The config profile (nope) could not be found")


def test_profile_gives_credentials_and_region(tmp_path, monkeypatch):
    config, credentials = tmp_path / "config", tmp_path / "credentials"
    config.write_text("[profile kafka]\nregion = eu-central-1\n")
    credentials.write_text("[kafka]\naws_access_key_id = testing\naws_secret_access_key = testing\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    with mock_aws():
        client = boto3.client("ec2", region_name="eu-central-1", **CREDENTIALS)
        instance_id = launch(client)[0]
        described = describe_brokers({"instance_ids": [instance_id], "profile": "kafka"})
    assert described["by_instance"][instance_id]["region"] == "eu-central-1"


def test_api_error_reports_code_and_message():
    client = boto3.client("ec2", region_name=REGION, **CREDENTIALS)
    stubber = Stubber(client)
    stubber.add_client_error("describe_instances", service_error_code="UnauthorizedOperation",
                             service_message="You are not authorized to perform this operation.")
    with stubber:
        message = error_of(dict(BASE, filters={"tag:Cluster": "c"}), client_factory=lambda params: client)
    assert message == ("EC2 DescribeInstances failed in region us-west-2: UnauthorizedOperation: You are not "
                       "authorized to perform this operation.")


def test_unreachable_endpoint(closed_port):
    endpoint = "http://127.0.0.1:%d" % closed_port
    message = error_of(dict(BASE, instance_ids=["i-0123456789abcdef0"], endpoint_url=endpoint))
    assert message.startswith("EC2 DescribeInstances failed in region us-west-2: Could not connect to the endpoint")
    assert endpoint in message


# ------------------------------------------------------------------------------------------- boto3 missing


def test_without_boto3_the_import_is_caught_and_reported(monkeypatch):
    # A fresh copy of the module_utils file, imported while boto3 cannot be imported; the loaded one stays intact.
    monkeypatch.setitem(sys.modules, "boto3", None)
    path = Path(_aws_ec2.__file__)
    spec = importlib.util.spec_from_file_location("kafkaops_aws_ec2_without_boto3", path)
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    assert copy.HAS_BOTO3 is False
    assert copy.BOTO3_IMPORT_ERROR.startswith("Traceback") and "import boto3" in copy.BOTO3_IMPORT_ERROR
    with pytest.raises(copy.Ec2FactsError, match="boto3 is required"):
        copy.describe_brokers(dict(BASE, instance_ids=["i-0123456789abcdef0"]))
    assert _aws_ec2.HAS_BOTO3 is True
