"""Molecule scenario aws-four-networks on real Apache Kafka: the VPC, a peered VPC with its own resolver, the internet
through a network load balancer and the internet direct, one listener per route (broker_mode networks).

create (`lab up`), converge (the site playbook, whose verify play runs on a client of every network), idempotence,
verify (each broker advertises every network's listener; kcat produces and consumes from every network), destroy.
In a file of its own so that `make lab-tests` schedules it beside the other suites.
"""

from __future__ import annotations

import pytest
import test_molecule as molecule_suite

pytestmark = pytest.mark.lab


@pytest.mark.parametrize("name", molecule_suite.NETWORK_SCENARIOS)
def test_molecule_scenario_with_four_client_networks(name, tmp_path, lab_cli):
    molecule_suite.test_molecule_scenario(name, tmp_path, lab_cli)
