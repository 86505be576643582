"""broker_restart_method none on one aws-private-dns-only lab (Kafka stand-in), in file order:

1. the site run writes every broker's file, restarts none, reports each as "written; restart it yourself" with its
   restart command (with sudo, for the lab's login user admin), leaves the pending mark, and the verify play runs
   and names the brokers that wait;
2. a re-run before the operator restarted finds the brokers still waiting, and says why;
3. after the operator's restarts a re-run verifies each broker, clears its mark and nothing waits any more.
"""

from __future__ import annotations

import pytest

from kafkaops_lab.paths import KAFKA_SERVICE
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, kafka_pid, run_playbook
from kafkaops_lab.pytest_plugin import scenario_lab

pytestmark = pytest.mark.lab

BROKERS = ("b1", "b2", "b3")
CLIENTS = ("laptop", "client")
MARKER = "/etc/kafka/server.properties.restart-pending"
REPORT_TASK = "Report the brokers written but not restarted, and how to finish"
WAITING_TASK = "Name the brokers whose written configuration still waits for a restart, and report instead of failing"
CLEAR_TASK = "Clear the pending mark of a broker that runs the written configuration"
VERIFY_TASK = "Every advertised endpoint must resolve and connect from this network"
LEFT_TO_YOU = ("-e", "broker_restart_method=none")


@pytest.fixture(scope="module")
def lab(lab_session_cli, lab_kcat_required):
    with scenario_lab("aws-private-dns-only", kafka="standin") as running:
        yield running


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("restart-left")


@pytest.fixture(scope="module")
def pids_before(lab):
    return {node: kafka_pid(lab, node) for node in BROKERS}


def marked(lab) -> dict[str, bool]:
    return {node: lab.exec(node, "test", "-e", MARKER).returncode == 0 for node in BROKERS}


def messages(run, task: str) -> dict[str, str]:
    return {result["host"]: result["msg"] for result in run.results if result["task"] == task
            and result["status"] == "ok" and result["msg"]}


def test_written_not_restarted_and_reported(lab, workdir, pids_before):
    run = run_playbook(lab, SITE_PLAYBOOK, workdir / "written", *LEFT_TO_YOU)
    assert run.returncode == 0, run.explain()
    assert {node: kafka_pid(lab, node) for node in BROKERS} == pids_before  # nothing restarted
    for node in BROKERS:
        props = lab.exec(node, "cat", "/etc/kafka/server.properties", check=True).stdout
        assert f"EXTERNAL://{lab.node(node)['public_dns']}:9092" in props  # written
    assert marked(lab) == dict.fromkeys(BROKERS, True)

    reports = messages(run, REPORT_TASK)
    assert sorted(reports) == list(BROKERS), run.explain()
    for node, msg in reports.items():
        assert msg.startswith(f"{node}: written /etc/kafka/server.properties; restart it yourself"), msg
        # the lab logs in as admin, a user with sudo: the command to run there starts with sudo
        assert f"`sudo {KAFKA_SERVICE} restart`" in msg and "run this playbook again" in msg and MARKER in msg, msg
    # the verify play ran and named the brokers that wait, instead of failing on listeners not served yet
    waiting = messages(run, WAITING_TASK)
    assert sorted(waiting) == sorted(CLIENTS), run.explain()
    assert all("b1, b2, b3" in msg for msg in waiting.values()), waiting
    assert not [r for r in run.results if r["task"] == VERIFY_TASK and r["status"] == "ok"], run.explain()


def test_a_rerun_before_the_restart_still_waits(lab, workdir, pids_before):
    # a short timeout: each planned port that is not open yet costs it once
    run = run_playbook(lab, SITE_PLAYBOOK, workdir / "not-yet", *LEFT_TO_YOU, "-e", "broker_health_timeout=1")
    assert run.returncode == 0, run.explain()
    assert run.changed() == [], run.explain()
    assert marked(lab) == dict.fromkeys(BROKERS, True)
    reports = messages(run, REPORT_TASK)
    assert sorted(reports) == list(BROKERS), run.explain()
    # the planned INTERNAL listener (port 19092) does not exist before the restart
    assert all("Marked by an earlier run; not restarted yet: its health endpoint" in msg and ":19092 does not answer"
               in msg for msg in reports.values()), reports


def test_after_the_operators_restart_a_rerun_verifies_and_clears(lab, workdir, pids_before):
    for node in BROKERS:  # one at a time, as the report says
        lab.exec(node, str(KAFKA_SERVICE), "restart", check=True, timeout=120)
    run = run_playbook(lab, SITE_PLAYBOOK, workdir / "restarted", *LEFT_TO_YOU)
    assert run.returncode == 0, run.explain()
    assert marked(lab) == dict.fromkeys(BROKERS, False)
    assert sorted(r["host"] for r in run.changed()) == list(BROKERS), run.explain()
    assert {r["task"] for r in run.changed()} == {CLEAR_TASK}, run.explain()
    assert messages(run, REPORT_TASK) == {} and messages(run, WAITING_TASK) == {}, run.explain()
    assert sorted(r["host"] for r in run.results if r["task"] == VERIFY_TASK and r["status"] == "ok") == \
        sorted(CLIENTS), run.explain()
