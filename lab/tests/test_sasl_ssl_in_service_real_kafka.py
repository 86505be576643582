"""A SASL_SSL cluster in service, on real Apache Kafka, rolled by the site playbook with its clients logging in
throughout.

Scenario aws-sasl-ssl-inter-broker: INTERNAL (:19092) and EXTERNAL (:9092) on SASL_SSL with SCRAM-SHA-512, the
inter-broker listener INTERNAL, CONTROLLER on SSL, nothing advertised (the brokers' own names, the private ones); the
VPC's resolver does not answer the public names. Before the run the in-VPC client, which bootstraps on the private
names at :9092 (EXTERNAL) and logs in with the lab's CA and SCRAM user, writes a topic of replication factor 3 and
min.insync.replicas 2: the cluster is in service. The documented dual layout would give :9092 to the public names,
which the VPC does not resolve; the plan keeps EXTERNAL on the private names and adds PUBLIC (:9094, SASL_SSL) for
the internet, whose SASL settings the operator copied from EXTERNAL's first (the collection writes listener keys
only). Through the rollout the in-VPC client produces (the client_config role's settings) and consumes on its old
bootstrap: nothing failed, lost or duplicated; afterwards every partition is in sync, the in-VPC client reads
every message with new connections on :9092 and the laptop, which could not use the cluster before, works on :9094.
A re-run that changes nothing then logs in on INTERNAL in each broker's first call and makes no self check after it.
"""

from __future__ import annotations

import json
import uuid

import pytest
import scenario_matrix as sm

from kafkaops_lab import load, security
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, copy_sasl_settings, run_playbook
from kafkaops_lab.pytest_plugin import REAL_KAFKA_UP_TIMEOUT, scenario_lab

pytestmark = pytest.mark.lab

BROKERS = ("b1", "b2", "b3")
TOPIC = "orders"
FACTS_TASK = "Read the broker's configuration and ask the instance metadata service for its names"
SELF_CHECK_TASK = ("Ask this broker for metadata on its inter-broker listener and check every advertised endpoint "
                   "from here")


def test_a_sasl_ssl_cluster_in_service_rolls_under_load_and_keeps_the_vpc_on_its_port(lab_kcat_required, tmp_path):
    with scenario_lab("aws-sasl-ssl-inter-broker", timeout=REAL_KAFKA_UP_TIMEOUT) as lab:
        client, variables = security.in_service_settings(lab.status, added="PUBLIC")
        extra = tmp_path / "secured.json"
        extra.write_text(json.dumps(variables), encoding="utf-8")
        vpc = lab.node("client")["bootstrap_servers"]
        assert vpc.endswith(".compute.internal:9092"), vpc
        before = load.seed(lab, "client", vpc, TOPIC, 300, security=client)
        copy_sasl_settings(lab, BROKERS, like="EXTERNAL", new="PUBLIC")

        with load.LiveLoad(lab, "client", vpc, TOPIC, security=client) as live:
            run = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "run", "-e", f"@{extra}", env=sm.ansible_env())
        assert run.returncode == 0 and not run.failed(), run.explain()
        layout = [r["msg"] for r in run.results if r["task"].startswith("Show the chosen layout")]
        kept = ("in service: kept INTERNAL :19092 for the VPC (private names); EXTERNAL :9092 for the VPC (private "
                "names); added PUBLIC :9094 for the internet (public names)")
        assert any(kept in msg for msg in layout), layout
        live.unnoticed()

        # every partition back in sync, as a client on the old bootstrap lists them
        state = load.replicas(lab, "client", vpc, TOPIC, security=client)
        assert len(state) == 6 and all(pair == [3, 3] for pair in state.values()), state
        # new connections on the old bootstrap read every message; the laptop works on the listener added for it
        mine = load.seed(lab, "client", vpc, TOPIC, 1, prefix="after-" + uuid.uuid4().hex[:8], security=client)[0]
        read = load.read_back(lab, "client", vpc, TOPIC, security=client)
        missing = (set(before) | set(live.produced["acked"]) | {mine}) - set(read["seen"])
        assert read["complete"] and not read["errors"] and not missing, (read["errors"], sorted(missing)[:5])
        laptop = lab.node("laptop")["bootstrap_servers"].replace(":9092", ":9094")
        from_laptop = load.read_back(lab, "laptop", laptop, TOPIC, security=client)
        assert from_laptop["complete"] and mine in from_laptop["seen"], from_laptop["errors"]

        # a re-run that changes nothing, with the run's records: each broker logs in on INTERNAL (SASL_SSL, SCRAM)
        # in its first call and checks every advertised endpoint from there; no self check after the plan, and the
        # password is in no output
        again = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "again", "-e", f"@{extra}",
                             "-e", f"verify_records_dir={tmp_path / 'run' / 'records'}", env=sm.ansible_env())
        assert again.returncode == 0 and not again.failed(), again.explain()
        ahead = {r["host"]: r["self_check"] for r in again.results if r["task"] == FACTS_TASK}
        assert {host: (check["listener"], check["security_protocol"], check["passed"])
                for host, check in ahead.items()} == {name: ("INTERNAL", "SASL_SSL", True) for name in BROKERS}, ahead
        assert [r for r in again.results if r["task"] == SELF_CHECK_TASK] == [], again.explain()
        password = variables["broker_client_security"]["default"]["sasl_password"]
        assert password not in again.stdout + again.stderr + json.dumps(again.results)
