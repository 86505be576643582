"""`kafka-listeners doctor` on the laptop of an aws-private-dns-only lab (the stand-in brokers), before and after
the site playbook: before, it names every private name the brokers advertise, says it does not resolve there and
exits 1; after, every endpoint passes and it exits 0. It runs inside the laptop's namespaces (`lab exec`), as kcat
does in the other suites.
"""

from __future__ import annotations

import json

import pytest

from kafkaops_lab.paths import VENV_BIN
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, run_playbook
from kafkaops_lab.pytest_plugin import scenario_lab

pytestmark = pytest.mark.lab

BROKERS = ("b1", "b2", "b3")


@pytest.fixture(scope="module")
def lab():
    with scenario_lab("aws-private-dns-only", kafka="standin") as lab:
        yield lab


def doctor(lab, *args: str):
    return lab.exec("laptop", str(VENV_BIN / "kafka-listeners"), "doctor", *args, timeout=120)


def test_before_the_fix_it_names_the_private_names_and_exits_1(lab):
    bootstrap = "%s:9092" % lab.node("b1")["public_dns"]
    result = doctor(lab, bootstrap)
    assert result.returncode == 1, f"{result.stdout}\n{result.stderr}"
    for number, node in enumerate(BROKERS, start=1):
        private = lab.node(node)["private_dns"]
        assert f"  broker {number}  {private}:9092  FAIL  does not resolve here" in result.stdout
        assert (f"  - advertised.listeners of broker {number} names {private}:9092 on the PLAINTEXT listener reached "
                f"at {bootstrap}, which does not resolve here") in result.stdout
    assert result.stdout.count("a name under .internal is a cloud's private name") == len(BROKERS)
    assert result.stdout.count("advertise a name this network resolves, or add a listener for this network") == 3


def test_after_the_site_playbook_every_endpoint_passes_and_it_exits_0(lab, tmp_path):
    run = run_playbook(lab, SITE_PLAYBOOK, tmp_path)
    assert run.returncode == 0, run.explain()
    bootstrap = "%s:9092" % lab.node("b1")["public_dns"]
    result = doctor(lab, bootstrap, "--json")
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    report = json.loads(result.stdout)
    assert (report["outcome"], report["diagnosis"]) == ("usable", [])
    assert {(e["node_id"], e["host"], e["resolvable"], e["connectable"]) for e in report["endpoints"]} == {
        (number, lab.node(node)["public_dns"], True, True) for number, node in enumerate(BROKERS, start=1)}
    text = doctor(lab, bootstrap)
    assert text.returncode == 0 and text.stdout.count("  ok    resolves to 198.19.0.") == 3, text.stdout
