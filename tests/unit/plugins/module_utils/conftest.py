# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Test certificates for the TLS tests of this folder: a CA, another CA, and broker certificates of several kinds.

Made with ``cryptography`` (installed with ansible-core), in a temporary folder, once per module.
"""

from __future__ import annotations

import datetime
import importlib.util
import ipaddress
import sys
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def _load_helper(path):
    """Import a helper file of these tests by path, under its own name (the test files import it by that name).

    pytest's default import mode puts a test's folder on sys.path, ansible-test's collection loader does not.
    """
    if path.stem not in sys.modules:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)


for _helper in ("broker_side.py", "hostile_broker.py", "metadata/metadata_lab.py"):
    _load_helper(Path(__file__).parent / _helper)

NOW = datetime.datetime.now(datetime.timezone.utc)  # noqa: UP017 - same code as the 3.8-compatible module_utils


def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _key():
    return ec.generate_private_key(ec.SECP256R1())


def make_ca(tmp_path, label):
    key = _key()
    cert = (x509.CertificateBuilder().subject_name(_name(label)).issuer_name(_name(label))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(NOW - datetime.timedelta(days=1)).not_valid_after(NOW + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    path = tmp_path / ("%s.pem" % label)
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return {"key": key, "cert": cert, "path": str(path)}


def make_leaf(tmp_path, ca, label, dns=(), ips=(), common_name="broker", days=(-1, 30)):
    """A certificate signed by ``ca``, valid from NOW+days[0] to NOW+days[1]; returns the path of a PEM file with
    key and certificate (Kafka's PEM keystore layout)."""
    key = _key()
    builder = (x509.CertificateBuilder().subject_name(_name(common_name)).issuer_name(ca["cert"].subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(NOW + datetime.timedelta(days=days[0]))
               .not_valid_after(NOW + datetime.timedelta(days=days[1])))
    names = [x509.DNSName(name) for name in dns] + [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    cert = builder.sign(ca["key"], hashes.SHA256())
    path = tmp_path / ("%s.pem" % label)
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()) + cert.public_bytes(serialization.Encoding.PEM))
    return str(path)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """Paths of PEM files: ``ca``, ``other_ca`` (CA certificates); ``good``, ``wrong_name``, ``expired``,
    ``client`` (key + certificate, Kafka's PEM key store layout)."""
    tmp = tmp_path_factory.mktemp("pki")
    ca = make_ca(tmp, "lab-ca")
    other_ca = make_ca(tmp, "other-ca")
    return {
        "ca": ca["path"],
        "other_ca": other_ca["path"],
        "good": make_leaf(tmp, ca, "good", dns=["broker.internal"], ips=["127.0.0.1"]),
        "wrong_name": make_leaf(tmp, ca, "wrong", dns=["ip-198-18-0-11.us-west-2.compute.internal"],
                                ips=["198.18.0.11"]),
        "expired": make_leaf(tmp, ca, "expired", ips=["127.0.0.1"], days=(-30, -1)),
        "client": make_leaf(tmp, ca, "client", common_name="client"),
    }
