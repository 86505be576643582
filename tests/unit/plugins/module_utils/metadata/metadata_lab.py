# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Test helpers for the instance metadata clients: the emulator process, a link-local guard, per-provider values.

The emulator (the lab's kafkaops_lab/imds_emulator.py) runs as a real subprocess on 127.0.0.1 with a free port. Its
values and control files are re-read on every request, so one process serves every provider and fault in turn.
Also loaded by tests/unit/plugins/modules/test_instance_metadata.py (by file path).

Why the emulator is found through the lab package and not by a path: tests/unit ships in the collection's tarball and
is copied into ansible-test's build tree, neither of which holds lab/, so a path from this file into lab/ names a file
that is only there in the source checkout. The lab is a package of its own (lab/pyproject.toml, installed by `make
venv`): where it is importable, its `paths.IMDS_EMULATOR` is the emulator. KAFKAOPS_IMDS_EMULATOR, when set, names
another copy of the script (in a copy of lab/kafkaops_lab: it imports its imds/ package). `make units` runs these tests
twice: with pytest in the repository's venv, where the lab is installed, so they always run (and a missing emulator
fails them when CI is set); then under ansible-test, whose own venv has no lab package and passes no CI variable, so
there the tests that need the emulator skip, saying why.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest


def _emulator() -> Path | None:
    """The emulator script: KAFKAOPS_IMDS_EMULATOR when set, else the lab package's, else None (no lab here)."""
    if os.environ.get("KAFKAOPS_IMDS_EMULATOR"):
        return Path(os.environ["KAFKAOPS_IMDS_EMULATOR"])
    try:
        from kafkaops_lab.paths import IMDS_EMULATOR
    except ImportError:
        return None
    return IMDS_EMULATOR


EMULATOR = _emulator()
HANG_GUARD = 30.0  # seconds; only there so a hanging client fails the test instead of blocking the run

# Real instance metadata services: 169.254.169.254 and the rest of IPv4 link-local, AWS's IPv6 IMDS address.
FORBIDDEN_NETWORKS = (ipaddress.ip_network("169.254.0.0/16"), ipaddress.ip_network("fd00:ec2::254/128"))


class LinkLocalConnect(AssertionError):
    """A test tried to connect to a link-local (real metadata service) address."""


def is_forbidden(address) -> bool:
    """True when a socket address tuple points into FORBIDDEN_NETWORKS."""
    if not isinstance(address, tuple) or not address:
        return False
    try:
        ip = ipaddress.ip_address(str(address[0]).split("%", 1)[0])
    except ValueError:
        return False  # a name: connect() on a name resolves it first, which create_connection never does
    return any(ip in network for network in FORBIDDEN_NETWORKS)


def guarded(original):
    """Wrap socket.connect/connect_ex so a forbidden address raises before any packet is sent."""

    def connect(sock, address, *args):
        if is_forbidden(address):
            raise LinkLocalConnect("test tried to connect to %r: a real metadata service address" % (address,))
        return original(sock, address, *args)

    return connect


# -- values the emulator serves, in the forms the lab uses (lab/kafkaops_lab/cloud.py) ----------------------------

VALUES = {
    "aws": {
        "provider": "aws",
        "instance_id": "i-0a1b2c3d4e5f60718",
        "region": "us-west-2",
        "zone": "us-west-2a",
        "private_ip": "198.18.0.11",
        "private_dns": "ip-198-18-0-11.us-west-2.compute.internal",
        "public_ip": "198.19.0.11",
        "public_dns": "ec2-198-19-0-11.us-west-2.compute.amazonaws.com",
        "network_id": "vpc-0f1e2d3c4b5a69788",
        "hostname": "ip-198-18-0-11.us-west-2.compute.internal",
        "mac": "0a:1b:2c:3d:4e:5f",
    },
    "gcp": {
        "provider": "gcp",
        "instance_id": "4520946021744386049",
        "region": "us-central1",
        "zone": "us-central1-a",
        "private_ip": "198.18.0.12",
        "private_dns": "broker-2.c.kafkaops-lab.internal",
        "public_ip": "198.19.0.12",
        "public_dns": None,
        "network_id": "projects/123456789012/networks/default",
        "hostname": "broker-2",
        "mac": "42:01:c6:12:00:0c",
        "project_id": "kafkaops-lab",
    },
    "azure": {
        "provider": "azure",
        "instance_id": "5c08b38e-4d57-4c23-ac45-aca61037f084",
        "region": "westeurope",
        "zone": "1",
        "private_ip": "198.18.0.13",
        "private_dns": "broker-3.q1w2e3r4t5y6u7i8o9p0a1s2d3.ax.internal.cloudapp.net",
        "public_ip": "198.19.0.13",
        "public_dns": None,
        "network_id": "kafkaops-lab-vnet",
        "hostname": "broker-3",
        "mac": "00:0d:3a:f8:06:ec",
    },
    "openstack": {
        "provider": "openstack",
        "instance_id": "d8e02d56-2648-49a3-bf97-6be8f1204f38",
        "region": "RegionOne",
        "zone": "nova",
        "private_ip": "198.18.0.14",
        "private_dns": "host-198-18-0-14.openstacklocal",
        "public_ip": "198.19.0.14",
        "public_dns": None,
        "network_id": "8a6e2b1c-3f4d-4e5a-9b7c-0d1e2f3a4b5c",
        "hostname": "broker-4",
        "mac": "fa:16:3e:00:00:04",
        "project_id": "kafkaops-lab",
    },
    "digitalocean": {
        "provider": "digitalocean",
        "instance_id": "316449412",
        "region": "nyc3",
        "zone": "nyc3",
        "private_ip": "198.18.0.15",
        "private_dns": "broker-5",
        "public_ip": "198.19.0.15",
        "public_dns": None,
        "network_id": "5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716",
        "hostname": "broker-5",
        "mac": "ba:be:00:00:00:05",
    },
    "oci": {
        "provider": "oci",
        "instance_id": "ocid1.instance.oc1.iad.anuwcljt5xv3fzqc7nm2yq4k6rjd",
        "region": "us-ashburn-1",
        "zone": "Uocm:US-ASHBURN-AD-1",
        "private_ip": "198.18.0.16",
        "private_dns": "broker-6.sub1.vcn1.oraclevcn.com",
        "public_ip": "198.19.0.16",
        "public_dns": None,
        "network_id": "ocid1.vcn.oc1.iad.amaaaaaa3b4c5d6e",
        "hostname": "broker-6",
        "mac": "00:00:17:b6:4d:06",
        "region_code": "IAD",
    },
    "hetzner": {
        "provider": "hetzner",
        "instance_id": "4711",
        "region": "fsn1",
        "zone": "fsn1-dc14",
        "private_ip": "198.18.0.17",
        "private_dns": "broker-7",
        "public_ip": "198.19.0.17",
        "public_dns": None,
        "network_id": "1234567",
        "hostname": "broker-7",
        "mac": "86:00:00:2a:7d:e0",
    },
}

# What each provider's metadata really contains (lab/README.md, "where each value shows up"); every other
# field of the result must be null.
SERVED = {
    "aws": ("instance_id", "region", "zone", "private_ip", "private_dns", "public_ip", "public_dns", "network_id"),
    "gcp": ("instance_id", "region", "zone", "private_ip", "private_dns", "public_ip", "network_id"),
    "azure": ("instance_id", "region", "zone", "private_ip", "public_ip"),
    "openstack": ("instance_id", "zone", "private_ip", "private_dns", "public_ip", "network_id"),
    "digitalocean": ("instance_id", "region", "private_ip", "public_ip"),
    "oci": ("instance_id", "region", "zone", "private_ip"),
    "hetzner": ("instance_id", "region", "zone", "private_ip", "public_ip", "network_id"),
}
RESULT_FIELDS = ("provider", "instance_id", "region", "zone", "private_ip", "private_dns", "public_ip", "public_dns",
                 "network_id")

# DMI strings as the lab (and the real clouds) present them; detection must find the provider from these.
DMI = {
    "aws": {"sys_vendor": "Amazon EC2", "product_name": "m5.large", "chassis_asset_tag": "Amazon EC2",
            "product_uuid": "ec2e1916-9099-7caf-fd21-012345abcdef"},
    "gcp": {"sys_vendor": "Google", "product_name": "Google Compute Engine", "chassis_asset_tag": "",
            "product_uuid": "c7d3f1a2-0b4e-4c8d-9e6f-1a2b3c4d5e6f"},
    "azure": {"sys_vendor": "Microsoft Corporation", "product_name": "Virtual Machine",
              "chassis_asset_tag": "7783-7084-3265-9085-8269-3286-77",
              "product_uuid": "5c08b38e-4d57-4c23-ac45-aca61037f084"},
    "openstack": {"sys_vendor": "OpenStack Foundation", "product_name": "OpenStack Nova", "chassis_asset_tag": "",
                  "product_uuid": "d8e02d56-2648-49a3-bf97-6be8f1204f38"},
    "oci": {"sys_vendor": "QEMU", "product_name": "Standard PC (i440FX + PIIX, 1996)",
            "chassis_asset_tag": "OracleCloud.com", "product_uuid": "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"},
    "digitalocean": {"sys_vendor": "DigitalOcean", "product_name": "Droplet", "chassis_asset_tag": "",
                     "product_uuid": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"},
    "hetzner": {"sys_vendor": "Hetzner", "product_name": "vServer", "chassis_asset_tag": "",
                "product_uuid": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"},
}


def expected(provider: str, values: dict) -> dict:
    """The result the client must return for these emulator values: served fields verbatim, the rest null."""
    record = {field: (values[field] if field in SERVED[provider] else None) for field in RESULT_FIELDS}
    record["provider"] = provider
    return record


def write_dmi(directory: Path, strings: dict) -> Path:
    """Create a DMI directory holding ``strings`` as files (one value and a newline each, as sysfs shows them)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, value in strings.items():
        (directory / name).write_text(value + "\n", encoding="utf-8")
    return directory


def within_hang_guard(function, *args, **kwargs):
    """Run ``function`` in a thread; return its result or re-raise its exception. Fails the test on a hang."""
    outcome = {}

    def target():
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as exc:  # re-raised in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    if thread.is_alive():
        raise AssertionError("%s did not return within the %g s hang guard" % (function.__name__, HANG_GUARD))
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _write_atomically(path: Path, data: dict) -> None:
    """Write JSON the way the emulator README asks: temp file in the same directory, then rename."""
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(tmp, path)


class Emulator:
    """One emulator subprocess on 127.0.0.1; ``serve()`` switches provider/values, ``fault()`` injects a fault."""

    def __init__(self, workdir: Path) -> None:
        self.values_path = workdir / "values.json"
        self.control_path = workdir / "control.json"
        self.log_path = workdir / "emulator.log"
        _write_atomically(self.values_path, VALUES["aws"])
        _write_atomically(self.control_path, {"fault": None})
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - stays open for the process's lifetime
        self.process = subprocess.Popen(
            [sys.executable, str(EMULATOR), "--values", str(self.values_path), "--bind", "127.0.0.1",
             "--port", "0", "--control", str(self.control_path)],
            stdout=subprocess.PIPE, stderr=self._log,
        )
        line = self._first_line()
        match = re.match(r"^imds-emulator: serving \S+ metadata on (127\.0\.0\.1):(\d+)$", line)
        if not match:
            self.stop()
            raise RuntimeError("unexpected first line from the emulator: %r (log: %s)" % (line, self.log_path))
        self.endpoint = "http://%s:%s" % match.groups()

    def _first_line(self) -> str:
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(HANG_GUARD):
                self.stop()
                raise RuntimeError("the emulator printed nothing within %g s" % HANG_GUARD)
        return self.process.stdout.readline().decode("utf-8", "replace").strip()

    def serve(self, values: dict) -> None:
        """Serve these values (validated by the emulator on the next request) and clear any fault."""
        _write_atomically(self.values_path, values)
        self.fault(None)

    def fault(self, name: str | None, slow_seconds: float | None = None) -> None:
        """Inject fault ``name`` (None clears it) from the next request on."""
        control: dict = {"fault": name}
        if slow_seconds is not None:
            control["slow_seconds"] = slow_seconds
        _write_atomically(self.control_path, control)

    def stop(self) -> None:
        """Terminate the process (kill it if it does not stop) and close its pipes."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process.stdout.close()
        self._log.close()


def emulator_missing() -> str | None:
    """Why the emulator cannot run here, or None when it can."""
    if EMULATOR is None:
        return ("the lab package kafkaops_lab (the metadata emulator's home) is not importable: ansible-test runs "
                "these tests in a venv of its own without it, after `make units` has run them with pytest in the "
                "repository's venv; set KAFKAOPS_IMDS_EMULATOR to an emulator script to run them here")
    if not EMULATOR.is_file():
        return "the metadata emulator %s is not a file (KAFKAOPS_IMDS_EMULATOR or the lab package)" % EMULATOR
    return None


def start_emulator(workdir: Path) -> Emulator:
    """An emulator serving from ``workdir``; where none can run the test skips with the reason, or fails when CI is
    set (the pytest run CI makes has the lab installed, so there these tests must run)."""
    reason = emulator_missing()
    if reason and os.environ.get("CI"):
        pytest.fail(reason + "; CI is set, so these tests must run")
    if reason:
        pytest.skip(reason)
    return Emulator(workdir)


# -- fixtures: imported by ./conftest.py and by tests/unit/plugins/modules/test_instance_metadata.py -------------------


@pytest.fixture(autouse=True)
def no_link_local(monkeypatch):
    """Make every connect to 169.254.0.0/16 (and AWS's IPv6 IMDS) raise: no test can reach a real metadata service."""
    monkeypatch.setattr(socket.socket, "connect", guarded(socket.socket.connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guarded(socket.socket.connect_ex))


@pytest.fixture(scope="session")
def emulator_process(tmp_path_factory):
    """The emulator subprocess, shared by the session (it re-reads its files on every request)."""
    emulator = start_emulator(tmp_path_factory.mktemp("imds"))
    yield emulator
    emulator.stop()


@pytest.fixture()
def imds(emulator_process):
    """The emulator, reset to no fault; call ``imds.serve(values)`` to pick what it serves."""
    emulator_process.fault(None)
    yield emulator_process
    emulator_process.fault(None)


def closed_port_endpoint() -> str:
    """An http://127.0.0.1:PORT endpoint where nothing listens (the port was bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return "http://127.0.0.1:%d" % port


class HostileServer:
    """A TCP server on 127.0.0.1 (never another address) that answers every connection with ``reply(sock)``: raw
    bytes, cut short, slow, whatever a hostile peer does. ``endpoint`` is its ``http://127.0.0.1:PORT``."""

    def __init__(self, reply) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.endpoint = "http://127.0.0.1:%d" % self.port
        self._reply = reply
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn = self._listener.accept()[0]
            except OSError:  # closed
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn) -> None:
        with conn:
            conn.settimeout(HANG_GUARD)
            try:
                conn.recv(65536)  # the request, whatever it is
                self._reply(conn)
            except OSError:
                pass

    def close(self) -> None:
        self._listener.close()


@pytest.fixture()
def hostile_server():
    """``hostile_server(reply)`` starts a :class:`HostileServer`; all are closed when the test ends."""
    servers = []

    def start(reply) -> HostileServer:
        servers.append(HostileServer(reply))
        return servers[-1]

    yield start
    for server in servers:
        server.close()
