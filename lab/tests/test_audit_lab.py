"""The fleet audit run from Ansible (playbooks/audit.yml: the verify role gathers records, the audit role audits them).

On a fresh aws-private-dns-only lab the laptop bootstraps through a broker's public name and is then told the
brokers' private names, which it cannot resolve: the audit must report KL001 for every broker, from the laptop's
network, and fail the play at the default threshold. After site.yml fixes the brokers, the next gathered run is the
latest one, which is what the audit judges: KL001 is gone. The role's own refusals (no command, no records) need no
lab.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kafkaops_lab.paths import REPO_ROOT, VENV_BIN
from kafkaops_lab.playbook_runs import PlaybookRun, run_playbook

PLAYBOOKS = REPO_ROOT / "playbooks"
BROKERS = ("b1", "b2", "b3")
LAB_HOSTS = (*BROKERS, "laptop", "client")
# Spark stays on loopback (the machine's own address is not ours to use) and without its web UI
AUDIT_VARS = {"audit_environment": {"SPARK_LOCAL_IP": "127.0.0.1"},
              "audit_extra_args": ["--conf", "spark.ui.enabled=false"]}


def failure_message(run: PlaybookRun, host: str) -> str:
    """The msg of the one failed task of `host` (the run has no other failure)."""
    failed = run.failed()
    assert [result["host"] for result in failed] == [host], run.explain()
    return failed[0]["msg"]


def findings(out: Path) -> list[dict]:
    """The findings the job wrote as JSON lines (one file), checked against its Parquet twin."""
    rows = [json.loads(line) for line in (out / "findings.json").read_text(encoding="utf-8").splitlines()]
    parquet_keys = pq.read_table(out / "findings.parquet").column("finding_key").to_pylist()
    assert sorted(parquet_keys) == sorted(row["finding_key"] for row in rows), "findings.json and .parquet differ"
    return rows


def laptop_incidents(out: Path) -> list[tuple]:
    """(broker, advertised host, open, end_reason) of each incident the job wrote for the laptop."""
    rows = pq.read_table(out / "incidents.parquet").to_pylist()
    return sorted((row["broker"], row["advertised_host"], row["open"], row["end_reason"]) for row in rows
                  if row["client"] == "laptop")


def latest_run_id(records: Path) -> str:
    """The run id of the newest brokers records file the verify role wrote."""
    runs = [json.loads(path.read_text(encoding="utf-8").splitlines()[0])
            for path in records.glob("brokers-*.jsonl")]
    return max(runs, key=lambda record: record["observed_at"])["run_id"]


@pytest.mark.lab
def test_the_audit_reports_unresolvable_advertised_names_until_the_site_playbook_fixes_it(lab_factory, tmp_path):
    lab = lab_factory("aws-private-dns-only", prefix="au" + secrets.token_hex(3))
    records = tmp_path / "records"  # where run_playbook has the verify role write its records
    audit_vars = json.dumps(AUDIT_VARS)
    laptop_network = lab.node("laptop")["client_network"]  # "internet": the inventory's kafka_client_network

    # 1. gather on the fresh lab and audit: the verify plays record the failure without failing, the audit fails
    before = tmp_path / "before"
    report_before = tmp_path / "reports" / "before.html"
    run = run_playbook(lab, PLAYBOOKS / "audit.yml", tmp_path, "-e", audit_vars, "-e", f"audit_output_dir={before}",
                       "-e", f"audit_report_path={report_before}")
    assert run.returncode == 2, run.explain()
    # every lab host gathered without a failure; the one failure is the audit's, on the controller
    assert {result["host"] for result in run.results} >= set(LAB_HOSTS), run.explain()
    message = failure_message(run, "localhost")
    assert message.startswith(f"The fleet audit of {records} found 3 finding(s) at or above audit_fail_on=error"
                              f" (report: {report_before}): critical KL001 "), message
    assert [f"broker {node}," in message for node in BROKERS] == [True] * len(BROKERS), message
    assert sorted(path.name.split("-")[-1] for path in records.glob("probes-*.jsonl")) == [
        "client.jsonl", "laptop.jsonl"]

    found = findings(before)
    unresolvable = sorted((f["broker"], f["client_network"], f["endpoint"]) for f in found if f["rule_id"] == "KL001")
    assert unresolvable == [(node, laptop_network, f"{lab.node(node)['private_dns']}:9092") for node in BROKERS], found
    for finding in found:
        if finding["rule_id"] == "KL001":
            assert finding["severity"] == "critical"
            # the listener the brokers have now (a fresh install's one PLAINTEXT listener), not the plan's EXTERNAL
            assert finding["listener"] == "PLAINTEXT", finding
            assert json.loads(finding["details"])["clients"] == ["laptop"]
    # the brokers' configuration is not the plan yet (the drift site.yml removes)
    assert sorted(f["broker"] for f in found if f["rule_id"] == "KL006") == list(BROKERS), found
    assert report_before.is_file() and "KL001" in report_before.read_text(encoding="utf-8")
    summary = json.loads((report_before.parent / "summary.json").read_text(encoding="utf-8"))
    assert (summary["exit_status"], summary["fail_on"], summary["findings_by_rule"]["KL001"]) == (1, "error", 3)
    # the laptop probed the fresh install's PLAINTEXT listener, which the plan does not have: no endpoint network
    assert summary["client_networks"][laptop_network]["endpoint_networks"] == [], summary
    # and the laptop's incidents on the private names are open: its latest run still gets them
    assert laptop_incidents(before) == [(node, lab.node(node)["private_dns"], True, None) for node in BROKERS]

    # 2. the site playbook fixes the brokers (its verify play records that run too)
    site = run_playbook(lab, PLAYBOOKS / "site.yml", tmp_path, "-e", audit_vars)
    assert site.returncode == 0, site.explain()

    # 3. gather again and audit: the latest runs are judged, and in them every endpoint resolves from the laptop
    after = tmp_path / "after"
    run = run_playbook(lab, PLAYBOOKS / "audit.yml", tmp_path, "-e", audit_vars, "-e", f"audit_output_dir={after}",
                       "-e", "audit_fail_on=critical")
    assert run.returncode == 0 and not run.failed(), run.explain()
    assert len(list(records.glob("brokers-*.jsonl"))) == 3  # gathered, site, gathered again
    latest = latest_run_id(records)

    found = findings(after)
    assert [f for f in found if f["rule_id"] == "KL001"] == [], found
    assert {f["rule_id"] for f in found} == {"KL007"}, found  # no drift either: the brokers follow the plan
    assert {f["run_id"] for f in found if f["client_network"]} == {latest}, found
    # the laptop now connects to every broker's public name, over PLAINTEXT: exactly what KL007 (error) reports
    exposed = sorted((f["broker"], f["endpoint"]) for f in found if f["rule_id"] == "KL007")
    assert exposed == [(node, f"{lab.node(node)['public_dns']}:9092") for node in BROKERS], found
    assert max((f["severity"] for f in found), key=["info", "warning", "error", "critical"].index) == "error"
    assert (after / "report.html").is_file()
    # the incidents ended when the brokers stopped advertising the private names (the site run's verify play)
    assert laptop_incidents(after) == [(node, lab.node(node)["private_dns"], False, "no_longer_advertised")
                                       for node in BROKERS]
    summary = json.loads((after / "summary.json").read_text(encoding="utf-8"))
    assert (summary["exit_status"], summary["fail_on"], summary["findings_by_rule"].get("KL001")) == (0, "critical",
                                                                                                      None)
    # after the fix each client network probed the plan's listener for it: its endpoint network and route
    assert {name: net["endpoint_networks"] for name, net in summary["client_networks"].items()} == {
        laptop_network: ["external (public)"], lab.node("client")["client_network"]: ["internal (private)"]}, summary
    assert 'via external (public)' in (after / "report.html").read_text(encoding="utf-8")


def audit_without_a_fleet(tmp_path: Path, records: Path, *args: str) -> PlaybookRun:
    """audit.yml without gathering, on an inventory with no hosts: only the audit play runs (implicit localhost)."""
    inventory = tmp_path / "no-hosts.ini"
    inventory.write_text("", encoding="utf-8")
    return run_playbook(None, PLAYBOOKS / "audit.yml", tmp_path / "run", "-e", "audit_gather_records=false",
                        "-e", f"audit_records_dir={records}", "-e", f"audit_output_dir={tmp_path / 'out'}", *args,
                        inventories=(inventory,))


def test_the_audit_role_names_a_missing_command_and_how_to_install_it(tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    (records / "brokers-run-1.jsonl").write_text("{}\n", encoding="utf-8")
    (records / "probes-run-1-laptop.jsonl").write_text("{}\n", encoding="utf-8")
    run = audit_without_a_fleet(tmp_path, records, "-e", "audit_executable=no-such-audit-command")
    output = run.stdout + run.stderr
    assert run.returncode == 2, run.explain()
    message = failure_message(run, "localhost")
    assert message.startswith('The fleet audit command "no-such-audit-command" was not found on the controller '
                              f"(looked on PATH and in {VENV_BIN})"), message
    assert f"pip install '{REPO_ROOT}[audit]'" in message
    assert "Run the fleet audit on Spark" not in output
    assert not (tmp_path / "out").exists()


def test_the_audit_role_refuses_a_folder_without_records_of_both_kinds(tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    (records / "brokers-run-1.jsonl").write_text("{}\n", encoding="utf-8")
    run = audit_without_a_fleet(tmp_path, records)
    output = run.stdout + run.stderr
    assert run.returncode == 2, run.explain()
    assert failure_message(run, "localhost").startswith(
        f"No probes-*.jsonl records in {records}: run the verify role first"), run.explain()
    assert "Run the fleet audit on Spark" not in output


def test_the_audit_role_fails_with_the_jobs_own_message_on_unusable_records(tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    (records / "brokers-run-1.jsonl").write_text('{"schema_version": 1}\n', encoding="utf-8")
    (records / "probes-run-1-laptop.jsonl").write_text('{"schema_version": 1}\n', encoding="utf-8")
    run = audit_without_a_fleet(tmp_path, records, "-e", json.dumps(AUDIT_VARS))
    assert run.returncode == 2, run.explain()
    # the job's message, naming the input and the first bad record, and nothing of Spark's log around it
    message = failure_message(run, "localhost")
    assert message.startswith(f"kafka-listeners-audit exited 2 on the records in {records}: kafka-listeners-audit: "
                              f"bad input: brokers input {records}/brokers-*.jsonl: 1 of 1 records are unusable; "
                              f"first at {records}/brokers-run-1.jsonl:1: required field run_id is missing"), message
