# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Secured listeners on real Apache Kafka: TLS that names the advertised hosts, and SASL/SCRAM, end to end.

One lab of scenario aws-sasl-ssl-private-names (real Kafka, started secured: INTERNAL and CONTROLLER on SSL,
EXTERNAL on SASL_SSL with SCRAM-SHA-512, the SCRAM user written at storage format time; kafkaops_lab/security.py),
whose broker certificates name only the private names. In file order:

1. the laptop's kcat fails the TLS handshake ("certificate verify failed": the certificate lacks the public name it
   dialled), and the site playbook refuses the plan before any write, naming each broker's key store, its public
   host and the certificate's names; no file under /etc/kafka changed and no broker restarted;
2. with the lab's other certificate set (private and public names) installed, the site playbook converges: the
   health gate asks INTERNAL over TLS, every broker is restarted (rolled), and the verify role verifies every
   advertised certificate from the VPC and authenticates with SCRAM from the laptop; the probe records carry
   each endpoint's TLS and SASL outcome;
3. confluent-kafka and kafka-python round-trip from the laptop on EXTERNAL (SASL_SSL) and from the in-VPC client on
   INTERNAL (SSL), kcat on INTERNAL; a wrong password is refused with Kafka's own "Authentication failed during
   authentication due to invalid credentials ...", a wrong CA with "certificate verify failed". Two client
   problems are asserted as they are (docs/docsite/rst/recipe-security.rst, "Client problems seen with SASL"):
   kafka-python 3.0.12 can drop Kafka's error response (it arrives with the connection's close) and report only
   "Unable to bootstrap", so Kafka's text is taken from its report or the bytes it read (kafka_metadata quotes it);
   kcat on
   EXTERNAL depends on Debian's librdkafka: before 2.6.1 it fails SCRAM against Kafka 4.x even with the right
   password;
4. a re-run that changes nothing checks each broker's INTERNAL (SSL) endpoint in its first call, with the lab's CA,
   and makes no self check after the plan;
5. no playbook output, task result, record or client report of those runs holds the lab's SCRAM password, its key
   password or a private key.

Run: ``cd /work/main && .venv/bin/pytest lab/tests/test_secured_real_kafka.py -q`` (root, kcat, openssl).
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import uuid
from pathlib import Path

import pytest
from scenario_matrix import kafka_metadata_module, on_node, python_client

from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, file_checksums, kafka_pid, run_playbook
from kafkaops_lab.pytest_plugin import REAL_KAFKA_UP_TIMEOUT, scenario_lab

pytestmark = pytest.mark.lab

BROKERS = ("b1", "b2", "b3")
CLIENT_TIMEOUT = 20.0
WRONG_CA = "/etc/ssl/certs/ca-certificates.crt"  # the machine's public CAs: none signed the lab's certificates
# the newest kafka-python, which drops the error response a broker sends just before it closes the connection
KAFKA_PYTHON_DROPS_CLOSING_RESPONSE = (3, 0, 12)
FACTS_TASK = "Read the broker's configuration and ask the instance metadata service for its names"
SELF_CHECK_TASK = ("Ask this broker for metadata on its inter-broker listener and check every advertised endpoint "
                   "from here")


@pytest.fixture(scope="module")
def secured(lab_kcat_required, tmp_path_factory):
    with scenario_lab("aws-sasl-ssl-private-names", timeout=REAL_KAFKA_UP_TIMEOUT) as lab:
        security = lab.status["security"]
        found = json.loads(Path(security["secrets_file"]).read_text(encoding="utf-8"))
        password = found["scram_users"][security["sasl_username"]]
        workdir = tmp_path_factory.mktemp("secured-real")
        tls = {"ssl_ca_file": security["ca_file"]}
        scram = {**tls, "sasl_mechanism": security["sasl_mechanism"], "sasl_username": security["sasl_username"],
                 "sasl_password": password}
        extra = tmp_path_factory.mktemp("secured-vars") / "vars.json"  # outside workdir: the leak check reads it
        extra.write_text(json.dumps({"broker_security_protocols": security["listener_protocols"],
                                     "broker_client_security": {"default": tls, "EXTERNAL": scram}}))
        yield {"lab": lab, "security": security, "password": password, "key_password": found["key_password"],
               "workdir": workdir, "extra": "@%s" % extra, "runs": [], "clients": []}


def laptop_scram(secured, password: str, ca: str | None = None) -> dict:
    security = secured["security"]
    return {"security.protocol": "SASL_SSL", "sasl.mechanism": security["sasl_mechanism"],
            "sasl.username": security["sasl_username"], "sasl.password": password,
            "ssl.ca.location": ca or security["ca_file"]}


def kafka_python_settings(librdkafka: dict) -> dict:
    settings = {"security_protocol": librdkafka["security.protocol"], "ssl_cafile": librdkafka["ssl.ca.location"]}
    if "sasl.mechanism" in librdkafka:
        settings.update(sasl_mechanism=librdkafka["sasl.mechanism"], sasl_plain_username=librdkafka["sasl.username"],
                        sasl_plain_password=librdkafka["sasl.password"])
    return settings


def round_trip(secured, node: str, library: str, bootstrap: str, librdkafka: dict) -> dict:
    value = f"{library}-{node}-{uuid.uuid4().hex[:8]}"
    report = python_client(secured["lab"], node, library, bootstrap, "secured", value, consume=True,
                           timeout=CLIENT_TIMEOUT, librdkafka=librdkafka,
                           kafka_python=kafka_python_settings(librdkafka), read_before_close=True)
    secured["clients"].append(json.dumps(report))
    report["value"] = value
    return report


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.match(r"[\d.]*\d", text).group(0).split("."))


def errors_of(report: dict) -> str:
    return json.dumps(report["errors"]) + json.dumps(report["exception"]) + report["log"] + report["stderr"]


def test_certificates_without_the_public_names_fail_the_handshake_and_are_refused_before_any_write(secured):
    lab = secured["lab"]
    laptop = lab.node("laptop")["bootstrap"]
    kcat = lab.kcat("laptop", "-L", "-m", "5", "-b", laptop, *librdkafka_args(laptop_scram(secured, "unused")))
    assert kcat.returncode != 0 and "certificate verify failed" in kcat.stderr, kcat.stderr
    before = file_checksums(lab, BROKERS)
    pids = {name: kafka_pid(lab, name) for name in BROKERS}
    run = run_playbook(lab, SITE_PLAYBOOK, secured["workdir"] / "refused", "-e", secured["extra"])
    secured["runs"].append(run)
    assert run.returncode != 0, run.explain()
    text = " ".join(r["msg"] for r in run.failed() if "does not name" in r["msg"])
    for name in BROKERS:
        node = lab.node(name)
        names = f"{node['private_dns']}, {node['private_ip']}"
        assert (f"listener EXTERNAL (SASL_SSL): the certificate in {secured['security']['keystore']} does not name "
                f"{node['public_dns']}; the certificate's names: {names}") in text, run.explain()
    assert "Nothing was written" in text
    assert file_checksums(lab, BROKERS) == before
    assert {name: kafka_pid(lab, name) for name in BROKERS} == pids


def librdkafka_args(settings: dict) -> list[str]:
    return [arg for key, value in settings.items() for arg in ("-X", f"{key.lower()}={value}")]


def test_with_every_advertised_name_the_site_playbook_converges_rolls_and_verifies(secured):
    lab, security = secured["lab"], secured["security"]
    for name in BROKERS:
        store = Path(security["pki_dir"], f"{name}.all-names.pem").read_text(encoding="utf-8")
        lab.exec(name, "sh", "-c", f"umask 077; cat > {security['keystore']}", input_text=store, check=True)
    pids = {name: kafka_pid(lab, name) for name in BROKERS}
    run = run_playbook(lab, SITE_PLAYBOOK, secured["workdir"] / "converged", "-e", secured["extra"])
    secured["runs"].append(run)
    assert run.returncode == 0, run.explain()
    assert all(kafka_pid(lab, name) != pids[name] for name in BROKERS), "every broker restarts with the new keys"
    properties = lab.exec("b1", "cat", "/etc/kafka/server.properties", check=True).stdout
    assert "listener.security.protocol.map=INTERNAL:SSL,EXTERNAL:SASL_SSL,CONTROLLER:SSL" in properties
    verified = {r["host"]: r["msg"] for r in run.results
                if r["status"] == "ok" and "verify their TLS certificates" in r["msg"]}
    assert set(verified) == {"client", "laptop"}, run.explain()
    assert "all 3 advertised endpoints" in verified["client"]
    assert "verify their TLS certificates and authenticate" in verified["laptop"], verified
    # the probe records carry each endpoint's outcome: TLS on both listeners, the SCRAM login on EXTERNAL only
    probes = [json.loads(line) for path in (secured["workdir"] / "converged" / "records").glob("probes-*.jsonl")
              for line in path.read_text(encoding="utf-8").splitlines()]
    outcomes = {(p["client"], p["listener"], p["broker"]): (p["tls_verified"], p["tls_outcome"], p["authenticated"],
                                                           p["security_error"]) for p in probes}
    assert outcomes == {**{("laptop", "EXTERNAL", name): (True, "verified", True, None) for name in BROKERS},
                        **{("client", "INTERNAL", name): (True, "verified", None, None) for name in BROKERS}}, probes


def test_a_re_run_that_changes_nothing_checks_the_tls_inter_broker_endpoint_in_the_discovery_call(secured):
    """With the converging run's records each broker checks INTERNAL (SSL) in its first call, with the lab's CA, and
    verifies every advertised certificate from there; nothing restarts, so no broker checks again after the plan."""
    lab = secured["lab"]
    pids = {name: kafka_pid(lab, name) for name in BROKERS}
    run = run_playbook(lab, SITE_PLAYBOOK, secured["workdir"] / "no-change", "-e", secured["extra"],
                       "-e", "verify_records_dir=%s" % (secured["workdir"] / "converged" / "records"))
    secured["runs"].append(run)
    assert run.returncode == 0, run.explain()
    ahead = {r["host"]: r["self_check"] for r in run.results if r["task"] == FACTS_TASK}
    assert {host: (check["bootstrap"], check["listener"], check["security_protocol"], check["passed"])
            for host, check in ahead.items()} == {
        name: (f"{lab.node(name)['private_dns']}:19092", "INTERNAL", "SSL", True) for name in BROKERS}, ahead
    assert [r for r in run.results if r["task"] == SELF_CHECK_TASK] == [], run.explain()
    assert {name: kafka_pid(lab, name) for name in BROKERS} == pids


def test_clients_round_trip_with_the_right_credentials_and_get_kafkas_errors_with_wrong_ones(secured):
    lab = secured["lab"]
    laptop = lab.node("laptop")["bootstrap"]
    client = ",".join(f"{lab.node(name)['private_dns']}:19092" for name in BROKERS)
    internal = {"security.protocol": "SSL", "ssl.ca.location": secured["security"]["ca_file"]}
    refused = ("Authentication failed during authentication due to invalid credentials with SASL mechanism "
               + secured["security"]["sasl_mechanism"])
    for library in ("confluent-kafka", "kafka-python"):
        for node, bootstrap, settings in (("laptop", laptop, laptop_scram(secured, secured["password"])),
                                          ("client", client, internal)):
            report = round_trip(secured, node, library, bootstrap, settings)
            assert report["delivered"] and report["value"] in report["consumed"], (library, node, report)
        wrong_password = round_trip(secured, "laptop", library, laptop, laptop_scram(secured, "not-the-password"))
        assert not wrong_password["delivered"], wrong_password
        if library == "kafka-python" and (
                version_tuple(importlib.metadata.version("kafka-python")) <= KAFKA_PYTHON_DROPS_CLOSING_RESPONSE):
            # Kafka answers the login with its error and closes; when kafka-python reads both at once it keeps only
            # the close and its report has no reason (whether it does depends on timing: on a quiet machine it often
            # reads the error first and reports it), so Kafka's text is in its report or in the bytes it read
            assert refused in errors_of(wrong_password) + "".join(wrong_password["read_before_close"]), wrong_password
            assert "Unable to bootstrap" in wrong_password["exception"]["str"], wrong_password
        else:
            assert refused in errors_of(wrong_password), (library, wrong_password)
        wrong_ca = round_trip(secured, "laptop", library, laptop,
                              laptop_scram(secured, secured["password"], WRONG_CA))
        assert not wrong_ca["delivered"], wrong_ca
        assert re.search("certificate verify failed", errors_of(wrong_ca), re.I), (library, wrong_ca)
    # where kafka-python says only "Unable to bootstrap", the collection's own client quotes Kafka
    security = secured["security"]
    status, result = kafka_metadata_module(lab, "laptop", {
        "bootstrap": laptop.split(",")[0], "security_protocol": "SASL_SSL", "ssl_ca_file": security["ca_file"],
        "sasl_mechanism": security["sasl_mechanism"], "sasl_username": security["sasl_username"],
        "sasl_password": "not-the-password"})
    assert status == "FAILED" and refused in result["msg"], result

    value = f"kcat-{uuid.uuid4().hex[:8]}"
    produced = on_node(lab, "client", "kcat", "-P", "-b", client, "-t", "secured", *librdkafka_args(internal),
                       input_text=value + "\n")
    assert produced.returncode == 0, produced.stderr
    consumed = on_node(lab, "client", "kcat", "-C", "-b", client, "-t", "secured", "-o", "beginning", "-e", "-q",
                       *librdkafka_args(internal))
    assert value in consumed.stdout.splitlines(), consumed.stderr
    wrong_ca = on_node(lab, "client", "kcat", "-L", "-m", "5", "-b", client,
                       *librdkafka_args({**internal, "ssl.ca.location": WRONG_CA}))
    assert wrong_ca.returncode != 0 and "certificate verify failed" in wrong_ca.stderr, wrong_ca.stderr

    version = subprocess.run(["kcat", "-V"], capture_output=True, text=True).stdout
    librdkafka = version_tuple(re.search(r"librdkafka ([\d.]+)", version).group(1))
    scram = lab.kcat("laptop", "-L", "-m", "5", "-b", laptop,
                     *librdkafka_args(laptop_scram(secured, secured["password"])))
    if librdkafka >= (2, 6, 1):
        assert scram.returncode == 0, scram.stderr
    else:  # librdkafka's SCRAM nonce bug, refused by Kafka 4.x (recipe-security.rst, "Client problems seen with SASL")
        assert scram.returncode != 0 and refused in scram.stderr, scram.stderr


def test_no_output_record_or_file_of_the_runs_holds_a_secret(secured):
    secrets = {"SCRAM password": secured["password"], "key password": secured["key_password"],
               "private key": "PRIVATE KEY"}
    assert len(secured["runs"]) == 3, "the refused, the converging and the no-change run are all checked"
    leaked = []
    assert len(secured["clients"]) == 8, "every client report of the round trips is checked"
    outputs = [("playbook output", run.stdout + run.stderr) for run in secured["runs"]]
    outputs += [("a client report", report) for report in secured["clients"]]
    for where, text in outputs:
        leaked += [f"{what} in {where}" for what, secret in secrets.items() if secret in text]
    for path in secured["workdir"].rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            leaked += [f"{what} in {path}" for what, secret in secrets.items() if secret in text]
    assert list((secured["workdir"] / "converged" / "records").glob("probes-*.jsonl")), "records were written"
    assert not leaked, leaked
