"""DNS per network: what each node resolves, per scenario, as the node itself sees it (getaddrinfo inside it)."""

from __future__ import annotations

import json

import pytest

from kafkaops_lab.paths import VENV_BIN

pytestmark = pytest.mark.lab

# Resolves NAME on the node and prints JSON: the addresses, or the getaddrinfo error code (EAI_NONAME for a
# definite "no such name", EAI_AGAIN when the resolver did not answer).
RESOLVE = """
import json, socket, sys
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = sorted({info[4][0] for info in socket.getaddrinfo(name, None, socket.AF_INET)})
    except socket.gaierror as exc:
        out[name] = {socket.EAI_NONAME: "NXDOMAIN", socket.EAI_AGAIN: "NO_ANSWER"}.get(exc.errno, str(exc))
print(json.dumps(out))
"""


def resolve(lab, node: str, *names: str) -> dict:
    proc = lab.exec(node, str(VENV_BIN / "python"), "-c", RESOLVE, *names, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


PRIVATE_B1 = "ip-198-18-0-11.us-west-2.compute.internal"
PUBLIC_B1 = "ec2-198-19-0-11.us-west-2.compute.amazonaws.com"


def test_aws_private_dns_only(lab_aws_private):
    inside = resolve(lab_aws_private, "client", PRIVATE_B1, PUBLIC_B1, "ip-198-18-0-12")
    assert inside == {PRIVATE_B1: ["198.18.0.11"], PUBLIC_B1: "NXDOMAIN", "ip-198-18-0-12": ["198.18.0.12"]}
    outside = resolve(lab_aws_private, "laptop", PRIVATE_B1, PUBLIC_B1)
    assert outside == {PRIVATE_B1: "NXDOMAIN", PUBLIC_B1: ["198.19.0.11"]}
    # a broker's own name, as the broker's own resolver sees it
    assert resolve(lab_aws_private, "b3", PRIVATE_B1)[PRIVATE_B1] == ["198.18.0.11"]


def test_aws_split_horizon_public_names_resolve_to_private_ips_inside(lab_aws_split):
    assert resolve(lab_aws_split, "client", PUBLIC_B1, PRIVATE_B1) == {PUBLIC_B1: ["198.18.0.11"],
                                                                      PRIVATE_B1: ["198.18.0.11"]}
    assert resolve(lab_aws_split, "b2", PUBLIC_B1) == {PUBLIC_B1: ["198.18.0.11"]}
    assert resolve(lab_aws_split, "laptop", PUBLIC_B1, PRIVATE_B1) == {PUBLIC_B1: ["198.19.0.11"],
                                                                      PRIVATE_B1: "NXDOMAIN"}


def test_hostname_and_fqdn_as_the_cloud_sets_them(lab_aws_private, lab_factory):
    fqdn = "import socket; print(socket.gethostname(), socket.getfqdn())"
    assert lab_aws_private.python("b1", fqdn).stdout.split() == [PRIVATE_B1, PRIVATE_B1]
    gcp = lab_factory("gcp", brokers=2)
    assert gcp.python("b2", fqdn).stdout.split() == ["b2", "b2.c.kafkaops-lab.internal"]
    assert resolve(gcp, "client", "b1.c.kafkaops-lab.internal", "b1") == {
        "b1.c.kafkaops-lab.internal": ["198.18.0.11"], "b1": ["198.18.0.11"]}  # search c.PROJECT.internal
    assert resolve(gcp, "laptop", "b1.c.kafkaops-lab.internal") == {"b1.c.kafkaops-lab.internal": "NXDOMAIN"}


def test_azure_internal_names(lab_factory):
    azure = lab_factory("azure", brokers=1)
    name = azure.node("b1")["private_dns"]
    assert name.startswith("b1.") and name.endswith(".internal.cloudapp.net")
    assert azure.node("b1")["public_dns"] is None and azure.node("b1")["public_ip"] == "198.19.0.11"
    assert resolve(azure, "client", name, "b1") == {name: ["198.18.0.11"], "b1": ["198.18.0.11"]}
    assert resolve(azure, "laptop", name) == {name: "NXDOMAIN"}


def test_docker_host_networks(lab_factory):
    docker = lab_factory("docker-host")
    assert resolve(docker, "kcat0", "kafka0") == {"kafka0": ["198.18.1.2"]}
    assert resolve(docker, "laptop", "never-gonna-give-you-up", "kafka0") == {
        "never-gonna-give-you-up": ["198.19.0.11"], "kafka0": "NXDOMAIN"}
    assert resolve(docker, "dhost", "kafka0")["kafka0"] == "NXDOMAIN"  # the host is not on Docker's DNS


def test_dns_blackhole_times_out_and_recovers(lab_factory):
    lab = lab_factory("dns-blackhole", brokers=1)
    assert resolve(lab, "client", PRIVATE_B1) == {PRIVATE_B1: "NO_ANSWER"}
    assert resolve(lab, "laptop", PUBLIC_B1) == {PUBLIC_B1: ["198.19.0.11"]}  # only the VPC resolver is dark
    lab.run("fault", "vpc-dns", "dns=ok")
    assert resolve(lab, "client", PRIVATE_B1) == {PRIVATE_B1: ["198.18.0.11"]}
    lab.run("fault", "vpc-dns", "dns=blackhole")
    assert resolve(lab, "b1", PRIVATE_B1) == {PRIVATE_B1: "NO_ANSWER"}


def test_each_node_has_its_own_resolv_conf_and_hosts(lab_aws_private):
    b1 = lab_aws_private.exec("b1", "cat", "/etc/resolv.conf", "/etc/hostname", check=True).stdout
    laptop = lab_aws_private.exec("laptop", "cat", "/etc/resolv.conf", check=True).stdout
    assert "nameserver 198.18.0.2" in b1 and "search us-west-2.compute.internal" in b1 and PRIVATE_B1 in b1
    assert "nameserver 198.19.0.2" in laptop
    # /etc is the node's own: replacing a file by rename works there and nowhere else
    lab_aws_private.exec("b2", "sh", "-c", "cp /etc/hosts /etc/hosts.new && echo '198.18.0.99 extra' >> "
                         "/etc/hosts.new && mv /etc/hosts.new /etc/hosts", check=True)
    assert "extra" in lab_aws_private.exec("b2", "cat", "/etc/hosts", check=True).stdout
    assert "extra" not in lab_aws_private.exec("b3", "cat", "/etc/hosts", check=True).stdout
    with open("/etc/hosts") as handle:
        assert "extra" not in handle.read()
    lab_aws_private.exec("b2", "sh", "-c", "grep -v extra /etc/hosts > /etc/hosts.new; mv /etc/hosts.new /etc/hosts",
                         check=True)
