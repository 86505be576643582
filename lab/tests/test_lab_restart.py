"""`lab restart-instance`: a cloud stop/start gives the instance a new public IP and DNS name everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafkaops_lab.paths import KAFKA_SERVICE, VENV_BIN

pytestmark = pytest.mark.lab

RESOLVE = """
import json, socket, sys
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = socket.gethostbyname(name)
    except socket.gaierror:
        out[name] = None
print(json.dumps(out))
"""

IMDS = """
import json, urllib.request as u
base = "http://169.254.169.254/latest/"
token = u.urlopen(u.Request(base + "api/token", method="PUT",
                            headers={"X-aws-ec2-metadata-token-ttl-seconds": "60"}), timeout=5).read().decode()
get = lambda key: u.urlopen(u.Request(base + "meta-data/" + key, headers={"X-aws-ec2-metadata-token": token}),
                            timeout=5).read().decode()
print(json.dumps({key: get(key) for key in ("public-ipv4", "public-hostname", "local-ipv4")}))
"""


def resolve(lab, node: str, *names: str) -> dict:
    proc = lab.exec(node, str(VENV_BIN / "python"), "-c", RESOLVE, *names)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_restart_instance_moves_the_public_address_everywhere(lab_aws_split):
    lab = lab_aws_split
    before = lab.node("b2")
    result = json.loads(lab.run("restart-instance", "b2").stdout)
    lab.refresh()
    after = lab.node("b2")
    old_ip, old_dns = before["public_ip"], before["public_dns"]
    new_ip, new_dns = result["public_ip"], result["public_dns"]
    assert (result["old_public_ip"], result["old_public_dns"]) == (old_ip, old_dns)
    assert new_ip != old_ip and new_dns == f"ec2-{new_ip.replace('.', '-')}.us-west-2.compute.amazonaws.com"
    assert (after["public_ip"], after["public_dns"], after["private_ip"]) == (new_ip, new_dns, before["private_ip"])
    assert lab.node("b1")["public_ip"] == "198.19.0.11"  # other instances keep theirs

    # internet resolver: the new name to the new IP, the old name gone; VPC (split horizon): new name, private IP
    assert resolve(lab, "laptop", new_dns, old_dns) == {new_dns: new_ip, old_dns: None}
    assert resolve(lab, "client", new_dns, old_dns) == {new_dns: before["private_ip"], old_dns: None}

    # metadata service of the instance
    assert json.loads(lab.python("b2", IMDS).stdout) == {"public-ipv4": new_ip, "public-hostname": new_dns,
                                                          "local-ipv4": before["private_ip"]}

    # NAT: the new address reaches the broker (which came back after the "stop/start"); the old one is gone
    assert lab.exec("b2", str(KAFKA_SERVICE), "status").returncode == 0
    assert lab.exec("laptop", "nc", "-z", "-w", "5", new_ip, "9092").returncode == 0
    assert lab.exec("laptop", "nc", "-z", "-w", "2", old_ip, "9092").returncode != 0
    listing = lab.kcat("laptop", "-L", "-b", f"{new_dns}:9092")
    assert listing.returncode == 0 and "broker 2 at" in listing.stdout

    # the inventory follows
    inventory = Path(lab.status["inventory"]).read_text()
    assert f'lab_public_ip: "{new_ip}"' in inventory and old_ip not in inventory


def test_restart_instance_refuses_nodes_that_are_not_instances(lab_aws_split):
    proc = lab_aws_split.run("restart-instance", "laptop", check=False)
    assert proc.returncode == 2
    assert f"lab {lab_aws_split.prefix}: node laptop is not a cloud instance with a public IP" in proc.stderr
