# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""TLS listeners end to end on the lab: certificates that lack the public names are refused before any write,
certificates that have them converge, and clients verify every advertised host.

One aws-private-dns-only lab (Kafka stand-in, which serves SSL listeners from PEM key stores) shared by the module.
A CA and per-broker certificates are made with Debian's openssl: first with the private names only (what a
certificate made before the instance had a public name looks like), then with the private and public names. The
plan maps INTERNAL and EXTERNAL to SSL. Then, in file order:

1. the site playbook refuses the plan on the first set, naming each broker's key store, its public host and the
   certificate's names; no file under any broker's /etc/kafka changed and no broker restarted;
2. with the second set it converges: the health gate and self check ask INTERNAL over TLS, the verify role's
   probes verify every advertised endpoint's certificate from the VPC and from the laptop (it fails otherwise),
   and kcat produces and consumes from the laptop over TLS with host name verification (librdkafka's default);
3. nothing the runs leave (output, records) holds a private key;
4. the site playbook with the client_config role writes each client's TLS settings from client_config_client_security
   (the CA, a client certificate whose key has a password): kcat round-trips with the written librdkafka file from
   the laptop and from the in-VPC client, the Java file has the TLS keys, both files are 0600, and the key's
   password shows in no output, diff or record of the run.

SASL is not served by the stand-in: its exchange is held to the RFC vectors and a fake broker in the unit tests.
Run: ``cd /work/main && .venv/bin/pytest lab/tests/test_secured_listeners.py -q`` (root, kcat, openssl).
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
from pathlib import Path

import pytest
from test_site_playbook import CLIENT_JAVA_FILE, CLIENT_LIBRDKAFKA_FILE, CLIENTS, SITE_WITH_CLIENT_CONFIG

from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import parse_properties
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, file_checksums, kafka_pid, produce_and_consume, run_playbook

pytestmark = pytest.mark.lab

BROKERS = ("b1", "b2", "b3")
TLS_DIR = "/etc/kafka/tls"
CA_FILE = TLS_DIR + "/ca.pem"
KEYSTORE = TLS_DIR + "/broker.pem"
CLIENT_IDENTITY = TLS_DIR + "/client.pem"  # the clients' key (with a password) and certificate
SECURED_VARS = {
    "broker_security_protocols": {"INTERNAL": "SSL", "EXTERNAL": "SSL"},
    "broker_client_security": {"default": {"ssl_ca_file": CA_FILE}},
}
TLS_SETTINGS = (
    "\n# TLS for every SSL listener (kafkaops lab test)\n"
    "ssl.keystore.type=PEM\nssl.keystore.location=%s\nssl.truststore.type=PEM\nssl.truststore.location=%s\n"
    % (KEYSTORE, CA_FILE))


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=60)


def make_pki(folder: Path, lab, with_public: bool) -> dict[str, str]:
    """{"ca": CA PEM, "b1": key + certificate PEM, ...}; each broker's names: private DNS and IP, and, with
    ``with_public``, public DNS and IP."""
    folder.mkdir(parents=True, exist_ok=True)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-out", "ca.pem", "-days", "30", "-subj", "/CN=kafkaops lab CA", cwd=folder)
    stores = {"ca": (folder / "ca.pem").read_text()}
    for name in BROKERS:
        node = lab.node(name)
        names = ["DNS:" + node["private_dns"], "IP:" + node["private_ip"]]
        if with_public:
            names += ["DNS:" + node["public_dns"], "IP:" + node["public_ip"]]
        (folder / f"{name}.ext").write_text("subjectAltName=" + ",".join(names) + "\n")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{name}.key",
                "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=folder)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.crt", "-days", "30", "-extfile", f"{name}.ext", cwd=folder)
        stores[name] = (folder / f"{name}.key").read_text() + (folder / f"{name}.crt").read_text()
    return stores


def install(lab, stores: dict[str, str]) -> None:
    """Each broker's key store and the CA on every broker and client."""
    for node in (*BROKERS, "client", "laptop"):
        lab.exec(node, "mkdir", "-p", TLS_DIR, check=True)
        lab.exec(node, "sh", "-c", f"cat > {CA_FILE}", input_text=stores["ca"], check=True)
        if node in stores:
            lab.exec(node, "sh", "-c", f"umask 077; cat > {KEYSTORE}", input_text=stores[node], check=True)


@pytest.fixture(scope="module")
def secured(lab_aws_private, tmp_path_factory, lab_kcat_required):
    if shutil.which("openssl") is None:
        pytest.fail("openssl (Debian package openssl) is needed to make the lab's certificates")
    lab = lab_aws_private
    workdir = tmp_path_factory.mktemp("secured")
    for name in BROKERS:
        lab.exec(name, "sh", "-c", "cat >> /etc/kafka/server.properties", input_text=TLS_SETTINGS, check=True)
    extra = workdir / "secured-vars.json"
    extra.write_text(json.dumps(SECURED_VARS))
    return {"lab": lab, "workdir": workdir, "extra": "@%s" % extra,
            "private_only": make_pki(workdir / "private-only", lab, with_public=False),
            "with_public": make_pki(workdir / "with-public", lab, with_public=True)}


def test_certificates_without_the_public_names_are_refused_before_any_write(secured):
    lab = secured["lab"]
    install(lab, secured["private_only"])
    before = file_checksums(lab, BROKERS)
    pids = {name: kafka_pid(lab, name) for name in BROKERS}
    run = run_playbook(lab, SITE_PLAYBOOK, secured["workdir"] / "refused", "-e", secured["extra"])
    assert run.returncode != 0, run.explain()
    refusals = [r for r in run.failed() if "does not name" in r["msg"]]
    assert {r["host"] for r in refusals} == set(BROKERS), run.explain()
    text = " ".join(r["msg"] for r in refusals)
    for name in BROKERS:
        node = lab.node(name)
        assert (f"listener EXTERNAL (SSL): the certificate in {KEYSTORE} does not name {node['public_dns']}; the "
                f"certificate's names: {node['private_dns']}, {node['private_ip']}") in text, run.explain()
    assert "Nothing was written" in text
    assert file_checksums(lab, BROKERS) == before
    assert {name: kafka_pid(lab, name) for name in BROKERS} == pids


def test_certificates_with_every_advertised_name_converge_and_clients_verify_them(secured):
    lab = secured["lab"]
    install(lab, secured["with_public"])
    run = run_playbook(lab, SITE_PLAYBOOK, secured["workdir"] / "converged", "-e", secured["extra"])
    assert run.returncode == 0, run.explain()
    properties = lab.exec("b1", "cat", "/etc/kafka/server.properties", check=True).stdout
    assert "listener.security.protocol.map=INTERNAL:SSL,EXTERNAL:SSL,CONTROLLER:" in properties
    verified = [r for r in run.results if r["status"] == "ok" and "verify their TLS certificates" in r["msg"]]
    assert {r["host"] for r in verified} == {"client", "laptop"}, run.explain()
    assert all("all 3 advertised endpoints" in r["msg"] for r in verified), verified
    laptop = lab.node("laptop")["bootstrap"]
    tls = ["-X", "security.protocol=ssl", "-X", f"ssl.ca.location={CA_FILE}"]
    produced = lab.kcat("laptop", "-b", laptop, *tls, "-P", "-t", "secured", input_text="over-tls\n")
    assert produced.returncode == 0, produced.stderr
    consumed = lab.kcat("laptop", "-b", laptop, *tls, "-C", "-t", "secured", "-o", "beginning", "-c", "1", "-e")
    assert "over-tls" in consumed.stdout, consumed.stderr
    # the CA private key never left the test's folder, and no broker key shows in any output or record
    leaked = []
    for folder in ("refused", "converged"):
        for path in (secured["workdir"] / folder).rglob("*"):
            if path.is_file() and "PRIVATE KEY" in path.read_text(errors="replace"):
                leaked.append(str(path))
    assert not leaked and "PRIVATE KEY" not in run.stdout + run.stderr


def make_client_identity(folder: Path, key_password: str) -> str:
    """A client key encrypted with `key_password` and its certificate from the CA in `folder`, in one PEM."""
    (folder / "client-key-password").write_text(key_password)
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes256", "-pass",
            "file:client-key-password", "-out", "client.key", cwd=folder)
    openssl("req", "-new", "-key", "client.key", "-passin", "file:client-key-password", "-subj", "/CN=kafkaops-client",
            "-out", "client.csr", cwd=folder)
    openssl("x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
            "client.crt", "-days", "30", cwd=folder)
    return (folder / "client.key").read_text() + (folder / "client.crt").read_text()


def test_client_config_writes_tls_client_files_that_work_and_keep_the_key_password_out_of_every_output(secured):
    lab, workdir = secured["lab"], secured["workdir"]
    key_password = "kx-" + secrets.token_hex(12)
    identity = make_client_identity(workdir / "with-public", key_password)
    for node in CLIENTS:
        lab.exec(node, "sh", "-c", f"umask 077; cat > {CLIENT_IDENTITY}", input_text=identity, check=True)
    client_vars = workdir / "client-vars.json"  # outside every run folder: the leak check reads those
    client_vars.write_text(json.dumps({"client_config_client_security": {"default": {
        "ssl_ca_file": CA_FILE, "ssl_cert_file": CLIENT_IDENTITY, "ssl_key_password": key_password}}}))
    playbook = workdir / "site-with-client-config.yml"
    playbook.write_text(SITE_WITH_CLIENT_CONFIG, encoding="utf-8")
    rundir = workdir / "client-config"
    run = run_playbook(lab, playbook, rundir, "-e", secured["extra"], "-e", "@%s" % client_vars, "--diff", "-v")
    assert run.returncode == 0, run.explain()

    writes = [r for r in run.results if r["task"].startswith(("Write the Java client", "Write the librdkafka"))]
    assert len(writes) == 2 * len(CLIENTS) and all(r["changed"] and not r["diffs"] for r in writes), writes
    for node in CLIENTS:
        modes = lab.exec(node, "stat", "-c", "%a", CLIENT_JAVA_FILE, CLIENT_LIBRDKAFKA_FILE, check=True).stdout
        assert modes.split() == ["600", "600"], (node, modes)
        java = parse_properties(lab.exec(node, "cat", CLIENT_JAVA_FILE, check=True).stdout).to_dict()
        assert {key: java.get(key) for key in ("security.protocol", "ssl.endpoint.identification.algorithm",
                                               "ssl.truststore.type", "ssl.truststore.location", "ssl.keystore.type",
                                               "ssl.keystore.location", "ssl.key.password")} == {
            "security.protocol": "SSL", "ssl.endpoint.identification.algorithm": "https",
            "ssl.truststore.type": "PEM", "ssl.truststore.location": CA_FILE, "ssl.keystore.type": "PEM",
            "ssl.keystore.location": CLIENT_IDENTITY, "ssl.key.password": key_password}, (node, java)
        # every broker, on the listener meant for the client's network (EXTERNAL for the laptop, INTERNAL in the VPC)
        host, port = ("public_dns", 9092) if node == "laptop" else ("private_dns", 19092)
        assert java["bootstrap.servers"] == ",".join(f"{lab.node(b)[host]}:{port}" for b in BROKERS), (node, java)
        # the written file as it is: TLS with host name verification, the client key opened with its password
        produce_and_consume(lab, node, ["-F", CLIENT_LIBRDKAFKA_FILE], f"client-config-tls-{node}")
        wrong = lab.exec(node, "kcat", "-F", CLIENT_LIBRDKAFKA_FILE, "-X", "ssl.key.password=wrong", "-L")
        assert wrong.returncode != 0, wrong.stdout

    leaked = [str(path) for path in rundir.rglob("*")
              if path.is_file() and key_password in path.read_text(errors="replace")]
    assert not leaked and key_password not in run.stdout + run.stderr, leaked
