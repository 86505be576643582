# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The broker-side certificate check: which key store Kafka uses per listener, and whether it names the plan's hosts.

PEM stores are read directly; PKCS12 and JKS through the real ``openssl`` and ``keytool`` (skipped, with the
reason, where the machine lacks them; this project's machines have both).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from ansible_collections.kafkaops.listeners.plugins.module_utils import _listener_certificates as lc

PUBLIC = "ec2-198-19-0-11.us-west-2.compute.amazonaws.com"
PRIVATE = "ip-198-18-0-11.us-west-2.compute.internal"
STORE_PASSWORD = "store-Secret-9"


def plan(external_host=PUBLIC, controller_ssl=True):
    protocol_map = "INTERNAL:SSL,EXTERNAL:SASL_SSL,CONTROLLER:%s" % ("SSL" if controller_ssl else "PLAINTEXT")
    return {
        "name": "b1",
        "endpoints": [
            {"listener": "INTERNAL", "host": PRIVATE, "port": 19092, "protocol": "SSL"},
            {"listener": "EXTERNAL", "host": external_host, "port": 9094, "protocol": "SASL_SSL"},
        ],
        "controller_endpoint": {"listener": "CONTROLLER", "host": "198.18.0.11", "port": 9093},
        "properties": {"listener.security.protocol.map": protocol_map},
    }


def run_tool(argv, password):
    """What the module does: the password only in the environment; None when the tool is missing."""
    if shutil.which(argv[0]) is None:
        return None
    done = subprocess.run(argv, env={"PATH": "/usr/bin:/bin", lc.PASSWORD_ENV: password}, input="",
                          capture_output=True, text=True, check=False, timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_tls_endpoints_include_the_controller_only_when_it_speaks_tls():
    assert lc.tls_endpoints(plan()) == [("INTERNAL", "SSL", PRIVATE), ("EXTERNAL", "SASL_SSL", PUBLIC),
                                        ("CONTROLLER", "SSL", "198.18.0.11")]
    assert ("CONTROLLER", "SSL", "198.18.0.11") not in lc.tls_endpoints(plan(controller_ssl=False))


def test_a_certificate_without_the_public_name_is_refused_naming_path_host_and_names(pki):
    props = {"ssl.keystore.type": "PEM", "ssl.keystore.location": pki["wrong_name"]}
    results = lc.check_certificates(props, plan(), run_tool)
    by_listener = {entry["listener"]: entry for entry in results}
    assert by_listener["INTERNAL"]["missing"] == []
    assert by_listener["CONTROLLER"]["missing"] == []
    assert by_listener["EXTERNAL"]["missing"] == [PUBLIC]
    assert by_listener["EXTERNAL"]["names"] == [PRIVATE, "198.18.0.11"]
    message = lc.refusal_message("b1", results)
    assert ("listener EXTERNAL (SASL_SSL): the certificate in %s does not name %s; the certificate's names: %s, "
            "198.18.0.11" % (pki["wrong_name"], PUBLIC, PRIVATE)) in message
    assert "Nothing was written" in message and "wildcard" in message


def test_listener_prefixed_keystores_win_and_a_wildcard_names_one_label(pki, tmp_path):
    props = {
        "ssl.keystore.type": "PEM", "ssl.keystore.location": pki["wrong_name"],
        "listener.name.external.ssl.keystore.location": pki["good"],  # names broker.internal and 127.0.0.1
    }
    results = lc.check_certificates(props, plan(external_host="broker.internal"), run_tool)
    assert lc.refusal_message("b1", results) is None
    assert {entry["listener"]: entry["keystore"] for entry in results}["EXTERNAL"] == pki["good"]


def test_an_expired_certificate_is_flagged(pki):
    props = {"ssl.keystore.type": "PEM", "ssl.keystore.location": pki["expired"]}
    (entry,) = lc.check_certificates(props, {"endpoints": [
        {"listener": "SSL", "host": "127.0.0.1", "port": 9093, "protocol": "SSL"}]}, run_tool)
    assert entry["expired"] and entry["missing"] == []


def test_an_unreadable_or_missing_keystore_is_reported_not_refused(tmp_path):
    results = lc.check_certificates({}, plan(), run_tool)
    assert {entry["error"] for entry in results} == {"no ssl.keystore.location for listener INTERNAL",
                                                     "no ssl.keystore.location for listener EXTERNAL",
                                                     "no ssl.keystore.location for listener CONTROLLER"}
    assert lc.refusal_message("b1", results) is None
    props = {"ssl.keystore.type": "PEM", "ssl.keystore.location": str(tmp_path / "missing.pem")}
    assert "cannot read" in lc.check_certificates(props, plan(), run_tool)[0]["error"]


def _pkcs12(path, tmp_path):
    with open(path, "rb") as handle:
        data = handle.read()
    key = serialization.load_pem_private_key(data, password=None)
    cert = x509.load_pem_x509_certificate(data[data.index(b"-----BEGIN CERTIFICATE"):])
    store = tmp_path / "broker.p12"
    store.write_bytes(pkcs12.serialize_key_and_certificates(
        b"broker", key, cert, None, serialization.BestAvailableEncryption(STORE_PASSWORD.encode())))
    return str(store)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed (apt-get install openssl)")
def test_pkcs12_keystores_are_read_with_openssl_and_the_password_stays_out_of_argv(pki, tmp_path):
    store = _pkcs12(pki["wrong_name"], tmp_path)
    seen = []

    def spy(argv, password):
        seen.append(argv)
        return run_tool(argv, password)

    props = {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": store, "ssl.keystore.password": STORE_PASSWORD}
    results = lc.check_certificates(props, plan(), spy)
    assert {entry["listener"]: entry["missing"] for entry in results}["EXTERNAL"] == [PUBLIC]
    assert all(STORE_PASSWORD not in " ".join(argv) for argv in seen)
    wrong = dict(props, **{"ssl.keystore.password": "not-it"})
    assert "openssl could not read" in lc.check_certificates(wrong, plan(), run_tool)[0]["error"]


@pytest.mark.skipif(shutil.which("keytool") is None or shutil.which("openssl") is None,
                    reason="keytool (a JDK) and openssl are needed to make and read a JKS store")
def test_jks_keystores_are_read_with_keytool(pki, tmp_path):
    source = _pkcs12(pki["good"], tmp_path)
    jks = str(tmp_path / "broker.jks")
    subprocess.run(["keytool", "-importkeystore", "-srckeystore", source, "-srcstoretype", "PKCS12",
                    "-srcstorepass", STORE_PASSWORD, "-destkeystore", jks, "-deststoretype", "JKS",
                    "-deststorepass", STORE_PASSWORD, "-noprompt"], check=True, capture_output=True, timeout=120)
    props = {"ssl.keystore.location": jks, "ssl.keystore.password": STORE_PASSWORD}  # JKS is Kafka's default type
    results = lc.check_certificates(props, plan(external_host="broker.internal"), run_tool)
    by_listener = {entry["listener"]: entry for entry in results}
    assert by_listener["EXTERNAL"]["keystore_type"] == "JKS"
    assert by_listener["EXTERNAL"]["names"] == ["broker.internal", "127.0.0.1"]
    assert by_listener["INTERNAL"]["missing"] == [PRIVATE]


def test_a_missing_tool_leaves_the_listener_unchecked_with_the_reason():
    props = {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/etc/kafka/broker.p12"}
    (entry, *_rest) = lc.check_certificates(props, plan(), lambda argv, password: None)
    assert entry["error"] == ("openssl is not installed on this host, so the PKCS12 key store /etc/kafka/broker.p12 "
                              "was not read")
