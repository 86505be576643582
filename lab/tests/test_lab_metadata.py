"""Instance metadata at 169.254.169.254 and DMI strings inside each cloud instance (never outside the lab)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.lab

# Runs inside a broker namespace: AWS IMDSv2 (token, then data), printed as JSON.
AWS_IMDS = """
import json, urllib.request as u
base = "http://169.254.169.254/latest/"
token = u.urlopen(u.Request(base + "api/token", method="PUT",
                            headers={"X-aws-ec2-metadata-token-ttl-seconds": "60"}), timeout=5).read().decode()
out = {}
for key in ("instance-id", "local-ipv4", "public-ipv4", "public-hostname", "local-hostname", "mac"):
    out[key] = u.urlopen(u.Request(base + "meta-data/" + key, headers={"X-aws-ec2-metadata-token": token}),
                         timeout=5).read().decode()
print(json.dumps(out))
"""

GCP_IMDS = """
import urllib.request as u
request = u.Request("http://169.254.169.254/computeMetadata/v1/instance/hostname",
                    headers={"Metadata-Flavor": "Google"})
print(u.urlopen(request, timeout=5).read().decode())
"""


def aws_metadata(lab, node: str) -> dict:
    proc = lab.python(node, AWS_IMDS)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_each_broker_serves_its_own_values(lab_aws_private):
    b1, b2 = aws_metadata(lab_aws_private, "b1"), aws_metadata(lab_aws_private, "b2")
    assert b1["local-ipv4"] == "198.18.0.11" and b2["local-ipv4"] == "198.18.0.12"
    assert b1["public-hostname"] == "ec2-198-19-0-11.us-west-2.compute.amazonaws.com"
    assert b2["local-hostname"] == "ip-198-18-0-12.us-west-2.compute.internal"
    assert b1["instance-id"] != b2["instance-id"] and b1["instance-id"].startswith("i-")
    link = lab_aws_private.exec("b1", "cat", "/sys/class/net/eth0/address", check=True).stdout.strip()
    assert b1["mac"] == link


def test_dmi_files_identify_the_cloud(lab_aws_private, lab_factory):
    dmi = lab_aws_private.exec("b1", "sh", "-c", "cd /sys/class/dmi/id && cat sys_vendor product_uuid board_vendor",
                               check=True).stdout.splitlines()
    assert dmi[0] == "Amazon EC2" and dmi[1].startswith("ec2") and dmi[2] == "Amazon EC2"
    # the real location, as Ansible's hardware facts read it
    assert lab_aws_private.exec("b1", "cat", "/sys/devices/virtual/dmi/id/sys_vendor", check=True).stdout.strip() \
        == "Amazon EC2"
    # only instances have DMI data and a metadata address; the laptop is not one
    assert lab_aws_private.exec("laptop", "test", "-e", "/sys/class/dmi/id").returncode == 1
    addresses = lab_aws_private.exec("laptop", "ip", "-o", "addr", check=True).stdout
    assert "198.19.0.3/24" in addresses and "169.254.169.254" not in addresses
    gcp = lab_factory("gcp", brokers=1)
    assert gcp.exec("b1", "cat", "/sys/class/dmi/id/product_name", check=True).stdout.strip() == \
        "Google Compute Engine"
    assert gcp.python("b1", GCP_IMDS).stdout.strip() == "b1.c.kafkaops-lab.internal"
    azure = lab_factory("azure", brokers=1)
    assert azure.exec("b1", "cat", "/sys/class/dmi/id/chassis_asset_tag", check=True).stdout.strip() == \
        "7783-7084-3265-9085-8269-3286-77"


def test_metadata_faults(lab_aws_private):
    lab_aws_private.run("fault", "b3", "imds=down")
    try:
        assert lab_aws_private.python("b3", AWS_IMDS).returncode != 0
    finally:
        lab_aws_private.run("fault", "b3", "imds=ok")
    assert aws_metadata(lab_aws_private, "b3")["local-ipv4"] == "198.18.0.13"
    bad = lab_aws_private.run("fault", "b3", "imds=broken", check=False)
    assert bad.returncode == 2 and "expected one of down, slow, token_refused, garbage, ok" in bad.stderr
    not_instance = lab_aws_private.run("fault", "laptop", "imds=down", check=False)
    assert not_instance.returncode == 2 and "has no metadata emulator" in not_instance.stderr
