"""Secured labs: a CA, per-broker certificates, SCRAM users, and the settings a broker starts secured with.

A scenario with `"security": LAYOUT` brings its cluster up secured, because moving the inter-broker and controller
listeners from PLAINTEXT to TLS or SASL cannot be rolled one broker at a time. LAYOUTS gives each layout's protocol
per listener (`sasl-ssl`: INTERNAL and CONTROLLER on SSL, EXTERNAL on SASL_SSL). SASL is SCRAM-SHA-512 everywhere;
the SCRAM users are written at storage format time (`kafka-storage format --add-scram`), so no admin step is
needed, and a SASL inter-broker listener logs in as the lab's user too. Every node that runs Kafka advertises
nothing yet (the host name, as a fresh install does); the site playbook plans the rest.

Two certificate sets are made per lab in `<state>/pki/`: `all-names` (each broker's private and public DNS names
and IPs) and `private-names` (only the private ones: a certificate made before the instance had a public name).
The scenario's `certificate_names` picks the set installed at start; tests install the other one themselves.
Broker keys are PKCS#8 encrypted with PBE-SHA1-3DES: Kafka's PEM key store needs an encrypted key, and Java 17
cannot read OpenSSL 3's default (PBES2: "PBES2 SecretKeyFactory not available").

Secrets (the SCRAM password, the key password) live in `<state>/pki/secrets.json` (0600) and on the nodes only.
Standard library plus Debian's openssl.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from pathlib import Path

TLS_DIR = "/etc/kafka/tls"
CA_FILE = f"{TLS_DIR}/ca.pem"
KEYSTORE = f"{TLS_DIR}/broker.pem"
SCRAM_FILE = f"{TLS_DIR}/scram-users"  # one `--add-scram` argument a line, read by kafka-service at format time
SCRAM_MECHANISM = "SCRAM-SHA-512"
SCRAM_USER = "kafkaops"
CERTIFICATE_SETS = ("all-names", "private-names")
# layout -> protocol per listener; CONTROLLER never on SASL (KRaft's controllers cannot read SCRAM users)
LAYOUTS = {
    "sasl-ssl": {"INTERNAL": "SSL", "EXTERNAL": "SASL_SSL", "CONTROLLER": "SSL"},
    # the inter-broker listener (and so the broker role's restart health gate) on SASL_SSL as well
    "sasl-ssl-inter-broker": {"INTERNAL": "SASL_SSL", "EXTERNAL": "SASL_SSL", "CONTROLLER": "SSL"},
    # SASL without TLS: every client and broker logs in, nothing is encrypted
    "sasl-plaintext": {"INTERNAL": "SASL_PLAINTEXT", "EXTERNAL": "SASL_PLAINTEXT", "CONTROLLER": "PLAINTEXT"},
}
INTERNAL_PORT = 19092
EXTERNAL_PORT = 9092


def _openssl(*args: str, cwd: Path) -> None:
    proc = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"openssl {args[0]} failed in {cwd}: {proc.stderr.strip()}")


def make_pki(folder: Path, brokers: dict[str, dict[str, list[str]]]) -> dict:
    """CA and both certificate sets under `folder`; `brokers` maps a node name to {"private": [...], "public": [...]}
    (DNS names and IPs). Returns the secrets (key password, SCRAM password)."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    found = {"key_password": "kp-" + secrets.token_hex(12),
             "scram_users": {SCRAM_USER: "sp-" + secrets.token_hex(12)}}
    secrets_file = folder / "secrets.json"
    secrets_file.write_text(json.dumps(found) + "\n", encoding="utf-8")
    os.chmod(secrets_file, 0o600)
    (folder / "key-password").write_text(found["key_password"], encoding="utf-8")
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
             "-out", "ca.pem", "-days", "30", "-subj", "/CN=kafkaops lab CA", cwd=folder)
    for name, names in brokers.items():
        _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{name}.key",
                 "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=folder)
        _openssl("pkcs8", "-topk8", "-v1", "PBE-SHA1-3DES", "-in", f"{name}.key", "-passout", "file:key-password",
                 "-out", f"{name}.enc.key", cwd=folder)
        for kind in CERTIFICATE_SETS:
            chosen = names["private"] + (names["public"] if kind == "all-names" else [])
            sans = ",".join(("IP:" if value.replace(".", "").isdigit() else "DNS:") + value for value in chosen)
            (folder / f"{name}.{kind}.ext").write_text(f"subjectAltName={sans}\n", encoding="utf-8")
            _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                     "-out", f"{name}.{kind}.crt", "-days", "30", "-extfile", f"{name}.{kind}.ext", cwd=folder)
            keystore = (folder / f"{name}.enc.key").read_text() + (folder / f"{name}.{kind}.crt").read_text()
            (folder / f"{name}.{kind}.pem").write_text(keystore, encoding="utf-8")
    return found


def load_secrets(folder: Path) -> dict:
    return json.loads((folder / "secrets.json").read_text(encoding="utf-8"))


def keystore(folder: Path, node: str, kind: str) -> str:
    """A broker's key store (encrypted key + certificate) of certificate set `kind`."""
    return (folder / f"{node}.{kind}.pem").read_text(encoding="utf-8")


def scram_arguments(found: dict) -> str:
    """The `--add-scram` arguments of kafka-storage format, one a line."""
    return "".join(f"{SCRAM_MECHANISM}=[name={user},password={password}]\n"
                   for user, password in sorted(found["scram_users"].items()))


def in_service_settings(status: dict, added: str = "PUBLIC") -> tuple[dict, dict]:
    """For a secured lab (``status``: `lab status`'s), (the librdkafka settings of a client on the INTERNAL listener,
    with the lab's CA and SCRAM user; the site playbook's variables for the cluster in service that it becomes once
    it holds replicated data): the protocols the brokers started with, ``added`` for the listener the plan adds for
    the internet (EXTERNAL serves the VPC's clients on the private names), on INTERNAL's protocol, and the same login
    for the broker role's gates. The password is read from the lab's state."""
    security = status["security"]
    password = load_secrets(Path(security["secrets_file"]).parent)["scram_users"][security["sasl_username"]]
    protocol = security["listener_protocols"]["INTERNAL"]
    client = {"security.protocol": protocol, "ssl.ca.location": security["ca_file"]}
    role = {"ssl_ca_file": security["ca_file"]}
    if protocol.startswith("SASL_"):
        client.update({"sasl.mechanism": security["sasl_mechanism"], "sasl.username": security["sasl_username"],
                       "sasl.password": password})
        role.update(sasl_mechanism=security["sasl_mechanism"], sasl_username=security["sasl_username"],
                    sasl_password=password)
    return client, {"broker_security_protocols": dict(security["listener_protocols"], **{added: protocol}),
                    "broker_listener_options": {"external_listener_name": added},
                    "broker_client_security": {"default": role}}


def uses_tls(layout: str) -> bool:
    return any(protocol in ("SSL", "SASL_SSL") for protocol in LAYOUTS[layout].values())


def server_properties(fresh: str, roles: list[str], layout: str, found: dict) -> str:
    """A fresh install's server.properties turned secured as `layout` says: listeners, protocol map, TLS stores,
    SCRAM on the SASL listeners (`found`: the lab's secrets)."""
    protocols = LAYOUTS[layout]
    is_broker = "broker" in roles
    listeners = []
    if is_broker:
        listeners += [f"INTERNAL://:{INTERNAL_PORT}", f"EXTERNAL://:{EXTERNAL_PORT}"]
    if "controller" in roles:
        listeners.append("CONTROLLER://:9093")
    protocol_map = ",".join(f"{name}:{protocol}" for name, protocol in protocols.items())
    out = []
    for line in fresh.splitlines():
        if line.startswith("listeners="):
            line = "listeners=" + ",".join(listeners)
        elif line.startswith("#advertised.listeners="):
            line = f"#advertised.listeners=INTERNAL://your.host.name:{INTERNAL_PORT}"
        elif line.startswith("inter.broker.listener.name="):
            line = "inter.broker.listener.name=INTERNAL"
        elif line.startswith("listener.security.protocol.map="):
            line = "listener.security.protocol.map=" + protocol_map
        out.append(line)
    if not is_broker:  # a controller-only node still needs the map for its controller listener
        out.append("listener.security.protocol.map=" + protocol_map)
    out.append(f"############################# Security (kafkaops lab: started secured, {layout}) "
               "#############################")
    if uses_tls(layout):
        out += ["ssl.keystore.type=PEM", f"ssl.keystore.location={KEYSTORE}",
                f"ssl.key.password={found['key_password']}", "ssl.truststore.type=PEM",
                f"ssl.truststore.location={CA_FILE}"]
    sasl = [name for name, protocol in protocols.items() if protocol.startswith("SASL_")]
    if is_broker and sasl:
        out.append(f"sasl.enabled.mechanisms={SCRAM_MECHANISM}")
        login = "org.apache.kafka.common.security.scram.ScramLoginModule required"
        for name in sasl:
            jaas = login
            if name == "INTERNAL":  # the broker's own login on the inter-broker listener
                jaas += f' username="{SCRAM_USER}" password="{found["scram_users"][SCRAM_USER]}"'
            out.append(f"listener.name.{name.lower()}.{SCRAM_MECHANISM.lower()}.sasl.jaas.config={jaas};")
        if "INTERNAL" in sasl:
            out.append(f"sasl.mechanism.inter.broker.protocol={SCRAM_MECHANISM}")
    return "\n".join(out) + "\n"
