"""Molecule scenario aws-sasl-plaintext on real Apache Kafka, and no secret in anything its run leaves.

INTERNAL and EXTERNAL on SASL_PLAINTEXT (SCRAM-SHA-512), CONTROLLER on PLAINTEXT; the check is the one of
test_molecule_secured_real_kafka.py, in a file of its own so that `make lab-tests` runs both scenarios side by side.
"""

from __future__ import annotations

import pytest
from test_molecule_secured_real_kafka import check_secured_scenario

pytestmark = pytest.mark.lab


def test_aws_sasl_plaintext_converges_verifies_and_leaks_no_secret(tmp_path, lab_cli):
    check_secured_scenario("aws-sasl-plaintext", tmp_path, lab_cli)
