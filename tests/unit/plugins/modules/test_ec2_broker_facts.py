# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The ec2_broker_facts module run through main() with module args, against moto (in process, or its server on
127.0.0.1 for endpoint_url)."""

from __future__ import annotations

import ipaddress
import os
import socket

import boto3
import pytest
from ansible.module_utils.basic import missing_required_lib
from ansible.module_utils.testing import patch_module_args
from moto import mock_aws
from moto.server import ThreadedMotoServer

from ansible_collections.kafkaops.listeners.plugins.modules import ec2_broker_facts

REGION = "us-west-2"
IMAGE_ID = "ami-12c6146b"  # moto does not check it
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing-secret-key"}
BASE = dict(CREDENTIALS, region=REGION)


def _loopback_only(original):
    def connect(sock, address, *args):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not ipaddress.ip_address(address[0]).is_loopback:
            raise AssertionError("test tried to connect to %r: only loopback is allowed" % (address,))
        return original(sock, address, *args)

    return connect


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    """No AWS settings from the machine, no instance metadata lookups by botocore, no non-loopback connects."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setattr(socket.socket, "connect", _loopback_only(socket.socket.connect))
    monkeypatch.setattr(socket.socket, "connect_ex", _loopback_only(socket.socket.connect_ex))


@pytest.fixture
def ec2():
    """A moto-backed EC2 client of REGION, for setting instances up."""
    with mock_aws():
        yield boto3.client("ec2", region_name=REGION, **CREDENTIALS)


def launch(client, tags=None) -> str:
    arguments = {"ImageId": IMAGE_ID, "MinCount": 1, "MaxCount": 1}
    if tags:
        arguments["TagSpecifications"] = [{"ResourceType": "instance",
                                           "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}]
    return client.run_instances(**arguments)["Instances"][0]["InstanceId"]


def run(args: dict):
    """Run main() with ``args``; return ("exit", kwargs, module) or ("fail", kwargs, None)."""
    with patch_module_args(args), pytest.raises(SystemExit) as ended:  # see conftest.py
        ec2_broker_facts.main()
    kind, result, module = ended.value.code
    return kind, result, module if kind == "exit" else None


def test_returns_instances_and_by_instance_without_change(ec2):
    first = launch(ec2, {"Name": "kafka-1", "Cluster": "kafka-prod"})
    second = launch(ec2, {"Name": "kafka-2", "Cluster": "kafka-prod"})
    launch(ec2, {"Cluster": "kafka-test"})
    outcome, result, module = run(dict(BASE, filters={"tag:Cluster": "kafka-prod"}))
    assert outcome == "exit", result
    assert result["changed"] is False
    assert [entry["instance_id"] for entry in result["instances"]] == sorted([first, second])
    assert {entry["name"] for entry in result["instances"]} == {"kafka-1", "kafka-2"}
    assert set(result["by_instance"]) == {first, second}
    record = result["by_instance"][first]
    assert record["provider"] == "aws" and record["region"] == REGION and record["instance_id"] == first
    assert "testing-secret-key" in module.no_log_values  # the secret is masked in every output


def test_check_mode_returns_the_same(ec2):
    instance_id = launch(ec2)
    normal = run(dict(BASE, instance_ids=[instance_id]))[1]
    checked = run(dict(BASE, instance_ids=[instance_id], _ansible_check_mode=True))[1]
    assert checked == normal
    assert checked["changed"] is False


def test_unknown_instance_id_fails_naming_it(ec2):
    launch(ec2)
    outcome, result, _module = run(dict(BASE, instance_ids=["i-0123456789abcdef0"]))
    assert outcome == "fail"
    assert result["msg"].startswith("EC2 instance ids not found in region us-west-2: i-0123456789abcdef0 (")


def test_ids_or_filters_are_required():
    outcome, result, _module = run(dict(BASE))
    assert outcome == "fail"
    assert result["msg"] == "one of the following is required: instance_ids, filters"


def test_states_are_checked_against_the_choices():
    outcome, result, _module = run(dict(BASE, instance_ids=["i-0123456789abcdef0"], states=["up"]))
    assert outcome == "fail"
    assert "value of states must be one or more of" in result["msg"]


def test_session_token_requires_the_keys():
    outcome, result, _module = run({"region": REGION, "instance_ids": ["i-0123456789abcdef0"], "session_token": "t"})
    assert outcome == "fail"
    assert "session_token" in result["msg"] and "aws_access_key_id" in result["msg"]


def test_without_boto3_fails_with_missing_required_lib(monkeypatch):
    monkeypatch.setattr(ec2_broker_facts, "HAS_BOTO3", False)
    monkeypatch.setattr(ec2_broker_facts, "BOTO3_IMPORT_ERROR", "Traceback: ModuleNotFoundError: boto3")
    outcome, result, _module = run(dict(BASE, instance_ids=["i-0123456789abcdef0"]))
    assert outcome == "fail"
    assert result["msg"] == missing_required_lib("boto3")
    assert result["exception"] == "Traceback: ModuleNotFoundError: boto3"


@pytest.fixture
def moto_server():
    """moto's EC2 server in a thread on a free 127.0.0.1 port; yields its URL."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield "http://%s:%d" % (host, port)
    server.stop()


def test_endpoint_url_reaches_moto_server(moto_server):
    client = boto3.client("ec2", region_name=REGION, endpoint_url=moto_server, **CREDENTIALS)
    instance_id = client.run_instances(ImageId=IMAGE_ID, MinCount=1, MaxCount=1)["Instances"][0]["InstanceId"]
    raw = client.describe_instances(InstanceIds=[instance_id])["Reservations"][0]["Instances"][0]
    outcome, result, _module = run(dict(BASE, instance_ids=[instance_id], endpoint_url=moto_server))
    assert outcome == "exit", result
    assert result["instances"][0]["private_ip"] == raw["PrivateIpAddress"]
    assert result["by_instance"][instance_id]["network_id"] == raw["VpcId"]
