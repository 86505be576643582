"""Molecule scenarios on real Apache Kafka (the first release of lab/kafka-dist/versions).

`make molecule` runs every scenario on the stand-in (tests/lab/tests/test_molecule.py). Here the most telling ones
run again with KAFKAOPS_LAB_KAFKA=real, which the scenarios' create step (`lab up`) honours: the separate KRaft
controllers (the quorum's voters and controller listener rewritten and rolled on real controllers) and the Docker
host (the container's broker rewritten from its env file). The rest of the matrix stays on the stand-in to keep
`make test` within its time.
"""

from __future__ import annotations

import pytest
import test_molecule as molecule_suite

pytestmark = pytest.mark.lab

REAL_SCENARIOS = ("kraft-separate-controllers", "docker-host")


@pytest.mark.parametrize("name", REAL_SCENARIOS)
def test_molecule_scenario_on_real_kafka(name, tmp_path, lab_cli, monkeypatch):
    assert name in molecule_suite.SCENARIOS
    monkeypatch.setenv("KAFKAOPS_LAB_KAFKA", "real")
    molecule_suite.test_molecule_scenario(name, tmp_path, lab_cli)
