"""Molecule scenario aws-sasl-ssl-inter-broker on real Apache Kafka, and no secret in anything its run leaves.

INTERNAL and EXTERNAL on SASL_SSL (SCRAM-SHA-512), CONTROLLER on SSL, so every restart's health gate logs in over
TLS. `check_secured_scenario` runs `molecule test` (create = `lab up`, converge = the site playbook, idempotence,
verify = shared/verify_secured.yml: the collection's own client and confluent-kafka from every client network, with
the right password and a wrong one), with the lab kept until its secrets are read; then molecule's output and every
file of its ephemeral folder (the probe records among them) are searched for the SCRAM password, the key password
and a private key. test_molecule_sasl_plaintext_real_kafka.py runs it for aws-sasl-plaintext.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_molecule as molecule_suite

pytestmark = pytest.mark.lab


def test_aws_sasl_ssl_inter_broker_converges_verifies_and_leaks_no_secret(tmp_path, lab_cli):
    check_secured_scenario("aws-sasl-ssl-inter-broker", tmp_path, lab_cli)


def check_secured_scenario(name: str, tmp_path: Path, lab_cli) -> None:
    """`molecule test` of one secured scenario, then no secret in its output or in any file it left.

    One scenario per suite file: `make lab-tests` schedules files, so the two scenarios (about 6 minutes each) run
    side by side; test_molecule_sasl_plaintext_real_kafka.py runs the other one with this check.
    """
    ephemeral = tmp_path / "molecule"
    secrets: dict = {}

    def read_secrets(prefix: str) -> None:
        found = json.loads(Path(lab_cli.attach(prefix).status["security"]["secrets_file"]).read_text())
        secrets.update({"key password": found["key_password"], **{
            f"SCRAM password of {user}": password for user, password in found["scram_users"].items()}})

    proc = molecule_suite.run_molecule(name, ephemeral, lab_cli, "--destroy", "never", before_down=read_secrets)
    assert proc.returncode == 0, molecule_suite.explain(name, proc)
    assert "Log in and round-trip from every client network" in proc.stdout + proc.stderr, "verify ran"
    assert len(secrets) == 2, secrets
    secrets["private key"] = "PRIVATE KEY"
    records = list((ephemeral / "records").glob("probes-*.jsonl"))
    assert records, "the verify role wrote its probe records"
    texts = {"molecule's output": proc.stdout + proc.stderr}
    texts.update((str(path), path.read_text(errors="replace")) for path in ephemeral.rglob("*") if path.is_file())
    leaked = [f"{what} in {where}" for where, text in texts.items() for what, secret in secrets.items()
              if secret in text]
    assert not leaked, leaked
