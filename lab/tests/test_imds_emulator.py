"""Tests of the lab's instance-metadata emulator (lab/kafkaops_lab/imds_emulator.py).

Each test starts the emulator as a real subprocess on 127.0.0.1 with a free port (--port 0; the emulator prints
the port it bound) and talks HTTP to it with http.client. Nothing here touches 169.254.169.254: these run on any
machine, no lab or root needed. Timeouts are hang guards only; no assertion depends on how fast the machine is.
"""

from __future__ import annotations

import http.client
import importlib.util
import ipaddress
import json
import os
import re
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from kafkaops_lab.paths import IMDS_EMULATOR, PACKAGE_DIR

EMULATOR = IMDS_EMULATOR
LAB_CLOUD = PACKAGE_DIR / "cloud.py"  # the lab helper that writes values files
LOOPBACK = "127.0.0.1"
HANG_GUARD = 20.0  # seconds; only there so a broken emulator fails the test instead of hanging it

HOSTNAME_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$")

VALUES: dict[str, dict[str, Any]] = {
    "aws": {
        "provider": "aws",
        "instance_id": "i-0123456789abcdef0",
        "region": "us-east-1",
        "zone": "us-east-1a",
        "private_ip": "198.18.0.11",
        "private_dns": "ip-198-18-0-11.ec2.internal",
        "public_ip": "198.19.0.11",
        "public_dns": "ec2-198-19-0-11.compute-1.amazonaws.com",
        "network_id": "vpc-0abc1234",
        "hostname": "broker-1",
        "mac": "0A:1B:2C:3D:4E:5F",
        "imdsv1": False,
    },
    "gcp": {
        "provider": "gcp",
        "instance_id": "4520946021744386049",
        "region": "us-central1",
        "zone": "us-central1-a",
        "private_ip": "198.18.0.12",
        "private_dns": "broker-2.us-central1-a.c.kafka-lab.internal",
        "public_ip": "198.19.0.12",
        "public_dns": None,
        "network_id": "lab-vpc",
        "hostname": "broker-2",
        "mac": "42:01:0a:80:00:0c",
        "project_id": "kafka-lab",
        "project_number": "123456789012",
    },
    "azure": {
        "provider": "azure",
        "instance_id": "5c08b38e-4d57-4c23-ac45-aca61037f084",
        "region": "westeurope",
        "zone": "1",
        "private_ip": "198.18.0.13",
        "private_dns": "broker-3.internal.cloudapp.net",
        "public_ip": "198.19.0.13",
        "public_dns": None,
        "network_id": "lab-vnet",
        "hostname": "broker-3",
        "mac": "00:0d:3a:f8:06:ec",
    },
    "openstack": {
        "provider": "openstack",
        "instance_id": "d8e02d56-2648-49a3-bf97-6be8f1204f38",
        "region": "RegionOne",
        "zone": "nova",
        "private_ip": "198.18.0.14",
        "private_dns": "broker-4.novalocal",
        "public_ip": "198.19.0.14",
        "public_dns": "broker-4.example.org",
        "network_id": "net-4ab3",
        "hostname": "broker-4",
        "mac": "fa:16:3e:00:00:04",
        "project_id": "f7ac731cc11f40efbc03a9f9e1d1d21f",
    },
    "digitalocean": {
        "provider": "digitalocean",
        "instance_id": "3164494",
        "region": "nyc3",
        "zone": "nyc3",
        "private_ip": "198.18.0.15",
        "private_dns": "broker-5",
        "public_ip": "198.19.0.15",
        "public_dns": None,
        "network_id": "vpc-nyc3",
        "hostname": "broker-5",
        "mac": "ba:be:00:00:00:05",
    },
    "oci": {
        "provider": "oci",
        "instance_id": "ocid1.instance.oc1.eu-frankfurt-1.lab6",
        "region": "eu-frankfurt-1",
        "zone": "Uocm:EU-FRANKFURT-1-AD-1",
        "private_ip": "198.18.0.16",
        "private_dns": "broker-6.sub.vcn.oraclevcn.com",
        "public_ip": "198.19.0.16",
        "public_dns": None,
        "network_id": "ocid1.vcn.oc1..lab",
        "hostname": "broker-6",
        "mac": "00:00:17:b6:4d:06",
        "region_code": "fra",
    },
    "hetzner": {
        "provider": "hetzner",
        "instance_id": "42",
        "region": "eu-central",
        "zone": "fsn1-dc14",
        "private_ip": "198.18.0.17",
        "private_dns": "broker-7",
        "public_ip": "198.19.0.17",
        "public_dns": None,
        "network_id": "1234",
        "hostname": "broker-7",
        "mac": "86:00:00:2a:7d:e0",
    },
}

GCP = {"Metadata-Flavor": "Google"}
AZURE = {"Metadata": "true"}
OCI = {"Authorization": "Bearer Oracle"}
AZ_VERSION = "api-version=2021-02-01"


@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def json(self) -> Any:
        return json.loads(self.body)


def write_json(path: Path, data: Any) -> None:
    """Replace `path` atomically, as the lab must, so the emulator never reads a half-written file."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


class Emulator:
    """One emulator subprocess on 127.0.0.1 and its two input files."""

    def __init__(self, tmp_path: Path, values: dict[str, Any], control: dict[str, Any] | None) -> None:
        self.values_path = tmp_path / "values.json"
        self.control_path = tmp_path / "control.json"
        self.stderr_path = tmp_path / "emulator.stderr"
        self.values = dict(values)
        write_json(self.values_path, self.values)
        if control is not None:
            write_json(self.control_path, control)
        with open(self.stderr_path, "wb") as stderr:  # a file, not a pipe: a full pipe would block the emulator
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    str(EMULATOR),
                    "--values",
                    str(self.values_path),
                    "--bind",
                    LOOPBACK,
                    "--port",
                    "0",
                    "--control",
                    str(self.control_path),
                ],
                stdout=subprocess.PIPE,
                stderr=stderr,
            )
        self.port = self._read_port()

    def _read_port(self) -> int:
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if not sel.select(HANG_GUARD):
                self.stop()
                pytest.fail(f"emulator printed nothing within {HANG_GUARD}s; stderr: {self.stderr_text()}")
        line = self.proc.stdout.readline().decode()
        match = re.search(rf"on {re.escape(LOOPBACK)}:(\d+)$", line.strip())
        if not match:
            self.stop()
            pytest.fail(f"unexpected first line {line!r}; stderr: {self.stderr_text()}")
        return int(match.group(1))

    def stderr_text(self) -> str:
        """What the emulator wrote to stderr so far (readable after stop() too)."""
        return self.stderr_path.read_text(errors="replace")

    def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, timeout: float = HANG_GUARD
    ) -> Reply:
        conn = http.client.HTTPConnection(LOOPBACK, self.port, timeout=timeout)
        try:
            conn.request(method, path, headers=headers or {})
            resp = conn.getresponse()
            return Reply(resp.status, resp.headers, resp.read())
        finally:
            conn.close()

    def get(self, path: str, headers: dict[str, str] | None = None, **kwargs: Any) -> Reply:
        return self.request("GET", path, headers, **kwargs)

    def aws_token(self, ttl: int = 21600) -> str:
        reply = self.request("PUT", "/latest/api/token", {"X-aws-ec2-metadata-token-ttl-seconds": str(ttl)})
        assert reply.status == 200, reply
        return reply.text

    def aws_get(self, path: str) -> Reply:
        return self.get(path, {"X-aws-ec2-metadata-token": self.aws_token()})

    def set_values(self, **changes: Any) -> None:
        self.values.update(changes)
        write_json(self.values_path, self.values)

    def set_control(self, control: dict[str, Any]) -> None:
        write_json(self.control_path, control)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=HANG_GUARD)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=HANG_GUARD)
        self.proc.stdout.close()


@pytest.fixture
def start(tmp_path: Path):
    """Factory: start(provider_or_values, control=None, **value_overrides) -> a running Emulator."""
    started: list[Emulator] = []

    def _start(provider: str | dict[str, Any], control: dict[str, Any] | None = None, **overrides: Any) -> Emulator:
        values = dict(VALUES[provider]) if isinstance(provider, str) else dict(provider)
        values.update(overrides)
        workdir = tmp_path / f"emu{len(started)}"
        workdir.mkdir()
        emulator = Emulator(workdir, values, control)
        started.append(emulator)
        return emulator

    yield _start
    for emulator in started:
        emulator.stop()


def assert_serves(emu: Emulator, prefix: str, expected: dict[str, str],
                  headers: dict[str, str] | None = None) -> list[Reply]:
    """Each ``prefix`` + path of ``expected`` answers 200 with its value as the body; returns the replies in order."""
    replies = []
    for path, value in expected.items():
        reply = emu.get(prefix + path, headers)
        assert (reply.status, reply.text) == (200, value), path
        replies.append(reply)
    return replies


def run_cli(tmp_path: Path, values: Any) -> subprocess.CompletedProcess:
    """Run the emulator with a values file that should make it refuse to start."""
    path = tmp_path / "bad-values.json"
    path.write_text(values if isinstance(values, str) else json.dumps(values))
    return subprocess.run(
        [sys.executable, str(EMULATOR), "--values", str(path), "--bind", LOOPBACK, "--port", "0"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )


def is_hostname(value: bytes) -> bool:
    try:
        return bool(HOSTNAME_RE.match(value.decode("ascii")))
    except UnicodeDecodeError:
        return False


def is_ipv4(value: bytes) -> bool:
    try:
        ipaddress.IPv4Address(value.decode("ascii"))
        return True
    except (UnicodeDecodeError, ValueError):
        return False


def is_json(value: bytes) -> bool:
    try:
        json.loads(value)
        return True
    except ValueError:
        return False


def is_yaml_document(value: bytes) -> bool:
    try:
        return isinstance(yaml.safe_load(value), dict | list)
    except yaml.YAMLError:
        return False


VALIDATORS = {"hostname": is_hostname, "ip": is_ipv4, "json": is_json, "yaml": is_yaml_document}


# ---------------------------------------------------------------------------------------------------------------
# AWS IMDSv2
# ---------------------------------------------------------------------------------------------------------------


def test_aws_serves_values_with_a_token(start):
    emu = start("aws")
    put = emu.request("PUT", "/latest/api/token", {"X-aws-ec2-metadata-token-ttl-seconds": "21600"})
    assert put.status == 200
    assert put.headers["X-aws-ec2-metadata-token-ttl-seconds"] == "21600"
    token = {"X-aws-ec2-metadata-token": put.text}
    expected = {
        "instance-id": "i-0123456789abcdef0",
        "local-ipv4": "198.18.0.11",
        "local-hostname": "ip-198-18-0-11.ec2.internal",
        "hostname": "ip-198-18-0-11.ec2.internal",
        "public-ipv4": "198.19.0.11",
        "public-hostname": "ec2-198-19-0-11.compute-1.amazonaws.com",
        "placement/availability-zone": "us-east-1a",
        "placement/region": "us-east-1",
        "mac": "0a:1b:2c:3d:4e:5f",
        "network/interfaces/macs/0a:1b:2c:3d:4e:5f/vpc-id": "vpc-0abc1234",
    }
    for reply in assert_serves(emu, "/latest/meta-data/", expected, token):
        assert reply.headers["Content-Type"].startswith("text/plain")
    listing = emu.get("/latest/meta-data/", token).text.split("\n")
    assert {"instance-id", "local-ipv4", "public-hostname", "placement/", "network/"} <= set(listing)
    document = emu.get("/latest/dynamic/instance-identity/document", token).json()
    assert document["instanceId"] == "i-0123456789abcdef0"
    assert document["privateIp"] == "198.18.0.11"
    assert (document["region"], document["availabilityZone"]) == ("us-east-1", "us-east-1a")


@pytest.mark.parametrize("ttl", [None, "0", "21601", "-1", "abc", ""])
def test_aws_token_ttl_out_of_bounds_is_400(start, ttl):
    emu = start("aws")
    headers = {} if ttl is None else {"X-aws-ec2-metadata-token-ttl-seconds": ttl}
    assert emu.request("PUT", "/latest/api/token", headers).status == 400


@pytest.mark.parametrize("ttl", ["1", "21600"])
def test_aws_token_ttl_bounds_are_inclusive(start, ttl):
    emu = start("aws")
    reply = emu.request("PUT", "/latest/api/token", {"X-aws-ec2-metadata-token-ttl-seconds": ttl})
    assert reply.status == 200 and len(reply.text) >= 32


def test_aws_without_token_is_401_when_imdsv1_is_off(start):
    emu = start("aws", imdsv1=False)
    assert emu.get("/latest/meta-data/local-ipv4").status == 401
    assert emu.get("/latest/meta-data/local-ipv4", {"X-aws-ec2-metadata-token": "forged"}).status == 401


def test_aws_without_token_is_served_when_imdsv1_is_on(start):
    emu = start("aws", imdsv1=True)
    reply = emu.get("/latest/meta-data/local-ipv4")
    assert (reply.status, reply.text) == (200, "198.18.0.11")
    # a token that is sent must still be valid, even where token-less requests are allowed
    assert emu.get("/latest/meta-data/local-ipv4", {"X-aws-ec2-metadata-token": "forged"}).status == 401


def test_aws_expired_token_is_401(start):
    emu = start("aws")
    token = {"X-aws-ec2-metadata-token": emu.aws_token(ttl=1)}
    assert emu.get("/latest/meta-data/instance-id", token).status == 200
    time.sleep(1.5)  # past the 1-second TTL
    assert emu.get("/latest/meta-data/instance-id", token).status == 401


def test_aws_public_items_are_404_and_unlisted_without_public_address(start):
    emu = start("aws", public_ip=None, public_dns=None)
    assert emu.aws_get("/latest/meta-data/public-hostname").status == 404
    assert emu.aws_get("/latest/meta-data/public-ipv4").status == 404
    listing = emu.aws_get("/latest/meta-data/").text.split("\n")
    assert "public-hostname" not in listing and "public-ipv4" not in listing
    assert "local-hostname" in listing


def test_aws_public_hostname_404_while_public_ip_exists(start):
    # a VPC without DNS hostnames: public IPv4 but no public DNS name
    emu = start("aws", public_dns=None)
    assert emu.aws_get("/latest/meta-data/public-hostname").status == 404
    assert emu.aws_get("/latest/meta-data/public-ipv4").text == "198.19.0.11"


def test_aws_token_put_with_x_forwarded_for_is_refused(start):
    emu = start("aws")
    headers = {"X-aws-ec2-metadata-token-ttl-seconds": "60", "X-Forwarded-For": "198.19.0.200"}
    assert emu.request("PUT", "/latest/api/token", headers).status == 403


def test_aws_token_path_only_accepts_put_and_unknown_paths_are_404(start):
    emu = start("aws")
    assert emu.get("/latest/api/token").status == 405
    assert emu.aws_get("/latest/meta-data/no-such-item").status == 404
    assert emu.aws_get("/2099-01-01/meta-data/").status == 404


# ---------------------------------------------------------------------------------------------------------------
# GCP
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Metadata-Flavor": "google"},
        {"Metadata-Flavor": "Googl"},
        {"Metadata-Flavor": "Google", "X-Forwarded-For": "198.19.0.200"},
    ],
)
def test_gcp_requires_the_flavor_header_and_echoes_it(start, headers):
    emu = start("gcp")
    reply = emu.get("/computeMetadata/v1/instance/hostname", headers)
    assert reply.status == 403
    assert reply.headers["Metadata-Flavor"] == "Google"


def test_gcp_serves_values_as_text_with_flavor_header(start):
    emu = start("gcp")
    base = "/computeMetadata/v1/"
    expected = {
        "instance/id": "4520946021744386049",
        "instance/name": "broker-2",
        "instance/hostname": "broker-2.us-central1-a.c.kafka-lab.internal",
        "instance/zone": "projects/123456789012/zones/us-central1-a",
        "instance/network-interfaces/0/ip": "198.18.0.12",
        "instance/network-interfaces/0/network": "projects/123456789012/networks/lab-vpc",
        "instance/network-interfaces/0/access-configs/0/external-ip": "198.19.0.12",
        "project/project-id": "kafka-lab",
        "project/numeric-project-id": "123456789012",
    }
    for reply in assert_serves(emu, base, expected, GCP):
        assert reply.headers["Metadata-Flavor"] == "Google"
        assert reply.headers["Content-Type"] == "application/text"
    assert "network-interfaces/" in emu.get(base + "instance/", GCP).text.split("\n")
    assert emu.get(base + "instance/network-interfaces/", GCP).text == "0/"
    assert emu.get(base + "instance/hostname?alt=json", GCP).json() == expected["instance/hostname"]


def test_gcp_external_ip_is_404_without_public_address(start):
    emu = start("gcp", public_ip=None)
    reply = emu.get("/computeMetadata/v1/instance/network-interfaces/0/access-configs/0/external-ip", GCP)
    assert reply.status == 404
    assert reply.headers["Metadata-Flavor"] == "Google"
    assert emu.get("/computeMetadata/v1/instance/network-interfaces/0/ip", GCP).text == "198.18.0.12"


def test_gcp_recursive_instance_is_json(start):
    emu = start("gcp")
    reply = emu.get("/computeMetadata/v1/instance/?recursive=true", GCP)
    assert reply.status == 200 and reply.headers["Content-Type"] == "application/json"
    doc = reply.json()
    assert doc["id"] == 4520946021744386049
    assert doc["hostname"] == "broker-2.us-central1-a.c.kafka-lab.internal"
    nic = doc["networkInterfaces"][0]
    assert nic["ip"] == "198.18.0.12"
    assert nic["accessConfigs"][0]["externalIp"] == "198.19.0.12"


def test_gcp_accepts_a_full_network_path_and_takes_the_project_number_from_it(start):
    # the lab helper (lab/kafkaops_lab/cloud.py) writes network_id as the full path GCP shows
    values = {k: v for k, v in VALUES["gcp"].items() if k != "project_number"}
    emu = start(values, network_id="projects/555000111222/networks/default")
    base = "/computeMetadata/v1/"
    assert emu.get(base + "instance/network-interfaces/0/network", GCP).text == "projects/555000111222/networks/default"
    assert emu.get(base + "instance/zone", GCP).text == "projects/555000111222/zones/us-central1-a"
    assert emu.get(base + "project/numeric-project-id", GCP).text == "555000111222"


def test_gcp_unknown_path_is_404_with_flavor_header(start):
    emu = start("gcp")
    reply = emu.get("/computeMetadata/v1/instance/no-such-key", GCP)
    assert reply.status == 404 and reply.headers["Metadata-Flavor"] == "Google"


# ---------------------------------------------------------------------------------------------------------------
# Azure
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, {"Metadata": "false"}])
def test_azure_requires_metadata_header(start, headers):
    emu = start("azure")
    reply = emu.get(f"/metadata/instance?{AZ_VERSION}", headers)
    assert reply.status == 400
    assert "metadata header" in reply.json()["error"].lower()


def test_azure_requires_a_known_api_version(start):
    emu = start("azure")
    missing = emu.get("/metadata/instance", AZURE)
    assert missing.status == 400
    assert "api-version" in missing.json()["error"] and missing.json()["newest-versions"]
    assert emu.get("/metadata/instance?api-version=1999-01-01", AZURE).status == 400


def test_azure_instance_document(start):
    emu = start("azure")
    reply = emu.get(f"/metadata/instance?{AZ_VERSION}", AZURE)
    assert reply.status == 200 and reply.headers["Content-Type"].startswith("application/json")
    doc = reply.json()
    compute = doc["compute"]
    assert (compute["name"], compute["vmId"]) == ("broker-3", "5c08b38e-4d57-4c23-ac45-aca61037f084")
    assert (compute["location"], compute["zone"]) == ("westeurope", "1")
    address = doc["network"]["interface"][0]["ipv4"]["ipAddress"][0]
    assert address == {"privateIpAddress": "198.18.0.13", "publicIpAddress": "198.19.0.13"}
    assert doc["network"]["interface"][0]["macAddress"] == "000D3AF806EC"
    assert emu.get(f"/metadata/instance/network?{AZ_VERSION}", AZURE).json() == doc["network"]
    assert emu.get(f"/metadata/instance/compute?{AZ_VERSION}", AZURE).json() == compute


def test_azure_leaves_need_format_text(start):
    emu = start("azure", public_ip=None)
    leaf = "/metadata/instance/network/interface/0/ipv4/ipAddress/0/privateIpAddress"
    reply = emu.get(f"{leaf}?{AZ_VERSION}&format=text", AZURE)
    assert (reply.status, reply.text) == (200, "198.18.0.13")
    assert emu.get(f"{leaf}?{AZ_VERSION}", AZURE).status == 400
    assert emu.get(f"/metadata/instance?{AZ_VERSION}&format=text", AZURE).status == 400
    public = emu.get(f"{leaf.replace('private', 'public')}?{AZ_VERSION}&format=text", AZURE)
    assert (public.status, public.text) == (200, "")
    assert emu.get(f"/metadata/instance/compute/name?{AZ_VERSION}&format=text", AZURE).text == "broker-3"
    assert emu.get(f"/metadata/instance/nothing?{AZ_VERSION}", AZURE).status == 404


# ---------------------------------------------------------------------------------------------------------------
# OpenStack, DigitalOcean, OCI, Hetzner
# ---------------------------------------------------------------------------------------------------------------


def test_openstack_meta_data_json_and_ec2_tree(start):
    emu = start("openstack")
    meta = emu.get("/openstack/latest/meta_data.json")
    assert meta.status == 200 and meta.headers["Content-Type"] == "application/json"
    doc = meta.json()
    assert doc["uuid"] == "d8e02d56-2648-49a3-bf97-6be8f1204f38"
    assert (doc["hostname"], doc["name"], doc["availability_zone"]) == ("broker-4.novalocal", "broker-4", "nova")
    network = emu.get("/openstack/latest/network_data.json").json()
    assert network["networks"][0]["ip_address"] == "198.18.0.14"
    assert_serves(emu, "/latest/meta-data/", {
        "local-ipv4": "198.18.0.14",
        "public-ipv4": "198.19.0.14",
        "local-hostname": "broker-4.novalocal",
        # Nova answers the internal name here too, never a public DNS name
        "public-hostname": "broker-4.novalocal",
    })
    assert re.fullmatch(r"i-[0-9a-f]{8}", emu.get("/latest/meta-data/instance-id").text)


def test_openstack_public_ipv4_is_empty_without_floating_ip(start):
    emu = start("openstack", public_ip=None)
    reply = emu.get("/latest/meta-data/public-ipv4")
    assert (reply.status, reply.text) == (200, "")
    assert emu.get("/openstack/latest/nothing.json").status == 404


def test_digitalocean_json_and_text_paths(start):
    emu = start("digitalocean")
    doc = emu.get("/metadata/v1.json").json()
    assert (doc["droplet_id"], doc["hostname"], doc["region"]) == (3164494, "broker-5", "nyc3")
    assert doc["interfaces"]["public"][0]["ipv4"]["ip_address"] == "198.19.0.15"
    assert doc["interfaces"]["private"][0]["ipv4"]["ip_address"] == "198.18.0.15"
    assert_serves(emu, "/metadata/v1/", {
        "id": "3164494",
        "hostname": "broker-5",
        "region": "nyc3",
        "interfaces/public/0/ipv4/address": "198.19.0.15",
        "interfaces/private/0/ipv4/address": "198.18.0.15",
    })
    redirect = emu.get("/metadata/v1/interfaces")
    assert redirect.status == 301 and redirect.headers["Location"] == "/metadata/v1/interfaces/"
    assert emu.get("/metadata/v1/interfaces/").text.split("\n") == ["public/", "private/"]


def test_digitalocean_without_public_address(start):
    emu = start("digitalocean", public_ip=None)
    assert emu.get("/metadata/v1.json").json()["interfaces"]["public"] == []
    assert emu.get("/metadata/v1/interfaces/public/0/ipv4/address").status == 404


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer oracle"}, {"Authorization": "Basic Oracle"}])
def test_oci_requires_bearer_oracle(start, headers):
    emu = start("oci")
    assert emu.get("/opc/v2/instance/", headers).status == 401
    assert emu.get("/opc/v2/vnics/", headers).status == 401


def test_oci_instance_and_vnics(start):
    emu = start("oci")
    instance = emu.get("/opc/v2/instance/", OCI).json()
    assert (instance["id"], instance["hostname"]) == ("ocid1.instance.oc1.eu-frankfurt-1.lab6", "broker-6")
    assert (instance["canonicalRegionName"], instance["region"]) == ("eu-frankfurt-1", "fra")
    assert instance["availabilityDomain"] == "Uocm:EU-FRANKFURT-1-AD-1"
    vnics = emu.get("/opc/v2/vnics/", OCI).json()
    assert vnics[0]["privateIp"] == "198.18.0.16"
    # OCI's metadata has no public address anywhere
    assert "198.19.0.16" not in json.dumps(instance) + json.dumps(vnics)
    assert emu.get("/opc/v2/instance/hostname", OCI).text == "broker-6"
    assert emu.get("/opc/v2/instance/regionInfo/regionKey", OCI).text == "FRA"
    assert emu.get("/opc/v2/nothing/", OCI).status == 404


def test_oci_region_code_is_lower_case_and_region_key_upper_case(start):
    emu = start("oci", region_code="IAD", region="us-ashburn-1", zone="AD-1")  # as the lab helper writes them
    instance = emu.get("/opc/v2/instance/", OCI).json()
    assert (instance["region"], instance["regionInfo"]["regionKey"]) == ("iad", "IAD")
    assert (instance["availabilityDomain"], instance["ociAdName"]) == ("AD-1", "ad-1")


def test_hetzner_yaml_and_text_paths(start):
    emu = start("hetzner")
    doc = yaml.safe_load(emu.get("/hetzner/v1/metadata").body)
    assert doc == {
        "availability-zone": "fsn1-dc14",
        "hostname": "broker-7",
        "instance-id": 42,
        "public-ipv4": "198.19.0.17",
        "region": "eu-central",
    }
    networks = yaml.safe_load(emu.get("/hetzner/v1/metadata/private-networks").body)
    assert networks[0]["ip"] == "198.18.0.17"
    assert networks[0]["mac_address"] == "86:00:00:2a:7d:e0"
    assert_serves(emu, "/hetzner/v1/metadata/", {
        "hostname": "broker-7",
        "instance-id": "42",
        "public-ipv4": "198.19.0.17",
        "region": "eu-central",
        "availability-zone": "fsn1-dc14",
    })
    assert emu.get("/hetzner/v1/metadata/nothing").status == 404


def test_hetzner_without_public_address(start):
    emu = start("hetzner", public_ip=None)
    assert "public-ipv4" not in yaml.safe_load(emu.get("/hetzner/v1/metadata").body)
    assert emu.get("/hetzner/v1/metadata/public-ipv4").status == 404


# ---------------------------------------------------------------------------------------------------------------
# Faults (flipped at runtime through the control file) and live values
# ---------------------------------------------------------------------------------------------------------------


def test_fault_down_drops_connections_until_cleared(start):
    emu = start("hetzner")
    assert emu.get("/hetzner/v1/metadata/hostname").status == 200
    emu.set_control({"fault": "down"})
    with pytest.raises(ConnectionError):  # reset or closed before any status line
        emu.get("/hetzner/v1/metadata/hostname")
    emu.set_control({"fault": None})
    assert emu.get("/hetzner/v1/metadata/hostname").text == "broker-7"


def test_fault_slow_delays_the_answer(start):
    emu = start("aws", imdsv1=True)
    emu.set_control({"fault": "slow", "slow_seconds": 60})
    with pytest.raises(TimeoutError):  # far longer than the client waits
        emu.get("/latest/meta-data/local-ipv4", timeout=1)
    emu.set_control({"fault": "slow", "slow_seconds": 0.5})
    began = time.monotonic()
    reply = emu.get("/latest/meta-data/local-ipv4")
    # a lower bound only: the emulator sleeps at least this long whatever the machine's load
    assert time.monotonic() - began >= 0.5
    assert (reply.status, reply.text) == (200, "198.18.0.11")


def test_serves_requests_concurrently(start):
    emu = start("aws", imdsv1=True)
    emu.set_control({"fault": "slow", "slow_seconds": 120})
    stuck = http.client.HTTPConnection(LOOPBACK, emu.port, timeout=HANG_GUARD)
    try:
        stuck.request("GET", "/latest/meta-data/instance-id")  # its handler now sleeps for 120 s
        emu.set_control({"fault": None})
        # a server handling one request at a time could not answer this within the hang guard
        reply = emu.get("/latest/meta-data/local-ipv4")
        assert (reply.status, reply.text) == (200, "198.18.0.11")
    finally:
        stuck.close()


def test_fault_token_refused(start):
    emu = start("aws")
    emu.set_control({"fault": "token_refused"})
    assert emu.request("PUT", "/latest/api/token", {"X-aws-ec2-metadata-token-ttl-seconds": "60"}).status == 403
    emu.set_control({"fault": None})
    assert emu.aws_get("/latest/meta-data/local-ipv4").text == "198.18.0.11"


GARBAGE_CASES = [
    ("aws", "/latest/meta-data/local-hostname", "hostname"),
    ("aws", "/latest/meta-data/public-hostname", "hostname"),
    ("aws", "/latest/meta-data/local-ipv4", "ip"),
    ("aws", "/latest/dynamic/instance-identity/document", "json"),
    ("gcp", "/computeMetadata/v1/instance/hostname", "hostname"),
    ("gcp", "/computeMetadata/v1/instance/network-interfaces/0/access-configs/0/external-ip", "ip"),
    ("gcp", "/computeMetadata/v1/instance/?recursive=true", "json"),
    ("azure", f"/metadata/instance?{AZ_VERSION}", "json"),
    ("azure", f"/metadata/instance/compute/name?{AZ_VERSION}&format=text", "hostname"),
    (
        "azure",
        f"/metadata/instance/network/interface/0/ipv4/ipAddress/0/publicIpAddress?{AZ_VERSION}&format=text",
        "ip",
    ),
    ("openstack", "/openstack/latest/meta_data.json", "json"),
    ("openstack", "/latest/meta-data/local-hostname", "hostname"),
    ("digitalocean", "/metadata/v1.json", "json"),
    ("digitalocean", "/metadata/v1/interfaces/private/0/ipv4/address", "ip"),
    ("oci", "/opc/v2/instance/", "json"),
    ("oci", "/opc/v2/vnics/", "json"),
    ("oci", "/opc/v2/instance/hostname", "hostname"),
    ("hetzner", "/hetzner/v1/metadata", "yaml"),
    ("hetzner", "/hetzner/v1/metadata/private-networks", "yaml"),
    ("hetzner", "/hetzner/v1/metadata/hostname", "hostname"),
    ("hetzner", "/hetzner/v1/metadata/public-ipv4", "ip"),
]
PROVIDER_HEADERS = {"gcp": GCP, "azure": AZURE, "oci": OCI}


@pytest.mark.parametrize(("provider", "path", "kind"), GARBAGE_CASES)
def test_fault_garbage_serves_invalid_bodies_with_200(start, provider, path, kind):
    emu = start(provider)
    fetch = emu.aws_get if provider == "aws" else (lambda p: emu.get(p, PROVIDER_HEADERS.get(provider)))
    valid = VALIDATORS[kind]
    before = fetch(path)
    assert before.status == 200 and valid(before.body), before  # the validator accepts the real answer
    emu.set_control({"fault": "garbage"})
    during = fetch(path)
    assert during.status == 200
    assert not valid(during.body), during.body
    if kind == "hostname":  # what a client must refuse to write into server.properties
        assert any(ch in during.body for ch in (b" ", b"\n", b"="))
    emu.set_control({"fault": None})
    assert fetch(path).body == before.body


def test_fault_garbage_answers_even_where_the_item_is_absent(start):
    emu = start("aws", public_dns=None)
    assert emu.aws_get("/latest/meta-data/public-hostname").status == 404
    emu.set_control({"fault": "garbage"})
    reply = emu.aws_get("/latest/meta-data/public-hostname")
    assert reply.status == 200 and not is_hostname(reply.body)


def test_values_change_is_visible_on_next_request(start):
    emu = start("aws")
    assert emu.aws_get("/latest/meta-data/public-ipv4").text == "198.19.0.11"
    emu.set_values(public_ip="198.19.0.99", public_dns="ec2-198-19-0-99.compute-1.amazonaws.com")
    assert emu.aws_get("/latest/meta-data/public-ipv4").text == "198.19.0.99"
    assert emu.aws_get("/latest/meta-data/public-hostname").text == "ec2-198-19-0-99.compute-1.amazonaws.com"
    emu.set_values(public_ip=None, public_dns=None)  # a stop/start without an Elastic IP, then detached
    assert emu.aws_get("/latest/meta-data/public-ipv4").status == 404


def test_provider_switch_is_visible_on_next_request(start):
    emu = start("aws", imdsv1=True)
    assert emu.get("/latest/meta-data/local-ipv4").status == 200
    emu.set_values(**VALUES["gcp"])
    assert emu.get("/latest/meta-data/local-ipv4").status == 404
    assert emu.get("/computeMetadata/v1/instance/name", GCP).text == "broker-2"


# ---------------------------------------------------------------------------------------------------------------
# The values files the lab helper writes
# ---------------------------------------------------------------------------------------------------------------

PRIVATE_IP_ROUTES = {
    "aws": ("/latest/meta-data/local-ipv4", None),
    "gcp": ("/computeMetadata/v1/instance/network-interfaces/0/ip", GCP),
    "azure": (
        f"/metadata/instance/network/interface/0/ipv4/ipAddress/0/privateIpAddress?{AZ_VERSION}&format=text",
        AZURE,
    ),
    "openstack": ("/latest/meta-data/local-ipv4", None),
    "digitalocean": ("/metadata/v1/interfaces/private/0/ipv4/address", None),
    "oci": ("/opc/v2/vnics/", OCI),
    "hetzner": ("/hetzner/v1/metadata/private-networks", None),
}


@pytest.mark.parametrize("provider", sorted(PRIVATE_IP_ROUTES))
def test_serves_the_values_the_lab_helper_writes(start, provider):
    if not LAB_CLOUD.exists():
        pytest.skip(f"{LAB_CLOUD} (the lab helper, another engineer's file) does not exist yet")
    spec = importlib.util.spec_from_file_location("lab_cloud_for_imds_test", LAB_CLOUD)
    cloud = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = cloud  # dataclasses look their module up while the class is built
    spec.loader.exec_module(cloud)
    default = cloud.DEFAULT_PLACEMENT[provider]
    placement = cloud.Placement(provider, default["region"], default["zone"], default["project"], "imds-test")
    values = cloud.identity(placement, "broker-1", "198.18.0.21", "198.19.0.21", "0a:1b:2c:3d:4e:21").metadata
    emu = start({**values, "imdsv1": True} if provider == "aws" else values)
    path, headers = PRIVATE_IP_ROUTES[provider]
    reply = emu.get(path, headers)
    assert reply.status == 200, emu.stderr_text()
    assert "198.18.0.21" in reply.text


# ---------------------------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ("{not json", "not valid JSON"),
        ([1, 2], "JSON object"),
        ({**VALUES["aws"], "provider": "ibm"}, "'provider'"),
        ({**VALUES["aws"], "private_ip": "198.18.0.300"}, "'private_ip'"),
        ({**VALUES["aws"], "mac": "0a1b2c3d4e5f"}, "'mac'"),
        ({**VALUES["aws"], "imdsv1": "no"}, "'imdsv1'"),
        ({**VALUES["aws"], "hostname": ""}, "'hostname'"),
        ({**VALUES["aws"], "publicip": "198.19.0.1"}, "unknown keys ['publicip']"),
        ({k: v for k, v in VALUES["aws"].items() if k != "zone"}, "missing required keys ['zone']"),
        ({**VALUES["gcp"], "project_id": None}, "'project_id'"),
        ({**VALUES["gcp"], "network_id": "projects/9/networks/default"}, "names project '9'"),
    ],
)
def test_bad_values_file_stops_startup_with_a_clear_error(tmp_path, values, named):
    result = run_cli(tmp_path, values)
    assert result.returncode == 2
    assert "bad-values.json" in result.stderr and named in result.stderr, result.stderr


def test_bad_values_at_runtime_answer_500_naming_the_problem(start):
    emu = start("aws", imdsv1=True)
    emu.set_values(public_ip="not-an-ip")
    reply = emu.get("/latest/meta-data/local-ipv4")
    assert reply.status == 500
    assert "values.json" in reply.text and "'public_ip'" in reply.text
    emu.set_values(public_ip="198.19.0.11")
    assert emu.get("/latest/meta-data/local-ipv4").status == 200


@pytest.mark.parametrize("control", [{"fault": "melt"}, {"fault": "slow", "slow_seconds": -1}, {"faults": None}])
def test_bad_control_at_runtime_answers_500(start, control):
    emu = start("aws", imdsv1=True)
    emu.set_control(control)
    reply = emu.get("/latest/meta-data/local-ipv4")
    assert reply.status == 500 and "control.json" in reply.text
