"""Acceptance tests of the site playbook on one aws-private-dns-only lab, in file order.

1. check mode on the fresh lab diffs only the keys the broker role manages and writes nothing; without become the
   brokers' login user (`admin`, with sudo, as the lab logs in) is refused before anything is written;
2. the site run (site.yml plus the client_config role), escalating with sudo, fixes the laptop, with kcat using the
   written client files;
3. check mode on the configured cluster reports no change and writes nothing; a re-run makes each broker's self
   check in its first call and none after the plan;
4. after a cloud stop/start of b2 (new public IP and DNS name) a re-run touches only b2's advertised EXTERNAL
   endpoint, restarts only b2, and the laptop produces and consumes again;
5. the client_config role on a machine logged into as `admin` writes its files with sudo, and without become
   fails on the write, naming the folder;
6. with b3's Kafka stopped, a run that changes nothing still fails b3's self check, naming its endpoint.
Every playbook run records its task results with a small callback (playbook_runs.RECORDER) so that assertions read
structured results instead of screen output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import parse_properties
from kafkaops_lab.paths import KAFKA_SERVICE
from kafkaops_lab.playbook_runs import (
    SITE_PLAYBOOK,
    PlaybookRun,
    advertised_once_listed,
    advertised_to,
    changed_lines,
    file_checksums,
    kafka_pid,
    produce_and_consume,
    property_key,
    run_playbook,
)

pytestmark = pytest.mark.lab

BROKERS = ("b1", "b2", "b3")
CLIENTS = ("laptop", "client")
# The server.properties keys the broker role manages (the plan's `properties`); every other line must stay as it is.
MANAGED_KEYS = {
    "listeners", "advertised.listeners", "listener.security.protocol.map", "inter.broker.listener.name",
    "security.inter.broker.protocol", "controller.listener.names", "controller.quorum.voters",
    "controller.quorum.bootstrap.servers",
}
CLIENT_JAVA_FILE = "/etc/kafka/client.properties"
CLIENT_LIBRDKAFKA_FILE = "/etc/kafka/client-librdkafka.conf"
RESOLVE_TASK = "Resolve every broker's names from this broker"
FACTS_TASK = "Read the broker's configuration and ask the instance metadata service for its names"
SELF_CHECK_TASK = ("Ask this broker for metadata on its inter-broker listener and check every advertised endpoint "
                   "from here")
VERIFY_CHECK_MODE_TASK = "In check mode with brokers still to change, report what clients see now instead of failing"

# site.yml, then client configuration files from the plan the broker role made in the same run.
SITE_WITH_CLIENT_CONFIG = f"""---
- name: The collection's site playbook
  ansible.builtin.import_playbook: {SITE_PLAYBOOK}

- name: Write the client configuration files from the same plan
  hosts: kafka_clients
  gather_facts: false
  roles:
    - role: kafkaops.listeners.client_config
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("site-playbook")


_SITE_RUN: dict = {}  # the site run once made (the fresh-lab test refuses to run after it)


@pytest.fixture(scope="module")
def site_run(lab_aws_private, workdir, lab_kcat_required) -> PlaybookRun:
    """The site playbook (with the client_config role) run once on the module's lab; it must succeed."""
    playbook = workdir / "site-with-client-config.yml"
    playbook.write_text(SITE_WITH_CLIENT_CONFIG, encoding="utf-8")
    run = run_playbook(lab_aws_private, playbook, workdir / "converge", "--diff")
    _SITE_RUN["run"] = run
    assert run.returncode == 0, run.explain()
    return run


def test_check_mode_on_a_fresh_lab_diffs_only_managed_keys(lab_aws_private, workdir, lab_kcat_required):
    if _SITE_RUN:
        pytest.fail("this test needs the lab before the site run: run the module's tests in file order")
    lab = lab_aws_private
    before = file_checksums(lab, BROKERS + CLIENTS)
    run = run_playbook(lab, SITE_PLAYBOOK, workdir / "fresh-check", "--check", "--diff")

    # check mode changes nothing, so the verify play probes the unchanged brokers: both clients see failures (the
    # laptop unresolvable private names, the in-VPC client a planned INTERNAL port not listening yet), and report them
    # without failing the run, since the brokers that would change first were not changed
    assert run.returncode == 0, run.explain()
    assert not run.failed(), run.explain()
    reports = {r["host"]: r["msg"] for r in run.results if r["task"] == VERIFY_CHECK_MODE_TASK}
    assert sorted(reports) == sorted(CLIENTS), run.explain()
    assert "do not resolve from this host" in reports["laptop"]
    assert all(f"Check mode: {', '.join(BROKERS)} would change first" in msg for msg in reports.values()), reports

    writes = run.changed()
    assert sorted(r["host"] for r in writes) == list(BROKERS), run.explain()
    for result in writes:
        assert len(result["diffs"]) == 1, result
        removed, added = changed_lines(result["diffs"][0])
        touched = {property_key(line) for line in removed + added if line.strip()}
        assert touched <= MANAGED_KEYS, f"{result['host']}: unmanaged lines in the diff: {touched - MANAGED_KEYS}"
        # the fix is in it: each broker now advertises its public name on EXTERNAL
        public = lab.node(result["host"])["public_dns"]
        assert any(line.startswith("advertised.listeners=") and f"EXTERNAL://{public}:9092" in line for line in added)

    assert file_checksums(lab, BROKERS + CLIENTS) == before
    assert not (workdir / "fresh-check" / "records").exists(), "check mode wrote records on the controller"


def test_without_become_the_login_user_is_refused_before_anything_is_written(lab_aws_private, workdir):
    """The lab logs in to the brokers as `admin`, a user with sudo, as cloud images do; every other run of this
    module escalates with it (broker_become, the default). Without become that user may not write /etc/kafka: every
    broker is refused before anything is written, naming the broker, the files and the way out."""
    if _SITE_RUN:
        pytest.fail("this test needs the lab before the site run: run the module's tests in file order")
    lab = lab_aws_private
    before = file_checksums(lab, BROKERS + CLIENTS)
    pids = {node: kafka_pid(lab, node) for node in BROKERS}
    run = run_playbook(lab, SITE_PLAYBOOK, workdir / "no-become", "-e", json.dumps({"broker_become": False}))
    assert run.returncode == 2, run.explain()
    refusals = {result["host"]: result["msg"] for result in run.failed()}
    assert refusals == {host: (
        f"{host}: cannot write /etc/kafka/server.properties, /etc/kafka/server.properties.restart-pending as admin, "
        "the login user, without become (broker_become is false; not writable for admin: /etc/kafka). Set "
        "broker_become to true (the default: sudo to root for the writes and restarts only; broker_become_method "
        "and broker_become_user choose another way), or log in as a user that may write there and restart Kafka. "
        "Nothing was written.") for host in BROKERS}, run.explain()
    assert "Permission denied" not in run.stdout + run.stderr and "Errno 13" not in run.stdout + run.stderr
    assert file_checksums(lab, BROKERS + CLIENTS) == before
    assert {node: kafka_pid(lab, node) for node in BROKERS} == pids


def test_site_run_configures_brokers_and_client_files(lab_aws_private, site_run):
    lab = lab_aws_private
    for node in BROKERS:
        props = parse_properties(lab.exec(node, "cat", "/etc/kafka/server.properties", check=True).stdout).to_dict()
        info = lab.node(node)
        assert props["advertised.listeners"] == (f"INTERNAL://{info['private_dns']}:19092,"
                                                 f"EXTERNAL://{info['public_dns']}:9092")

    # every broker, on the listener meant for the client's network
    expected_bootstrap = {
        "laptop": ",".join(f"{lab.node(node)['public_dns']}:9092" for node in BROKERS),
        "client": ",".join(f"{lab.node(node)['private_dns']}:19092" for node in BROKERS),
    }
    # and the files name that listener and its endpoint network (dual layout: internal, external)
    expected_listener = {"laptop": "EXTERNAL, on the plan's endpoint network external.",
                         "client": "INTERNAL, on the plan's endpoint network internal."}
    for node in CLIENTS:
        for path in (CLIENT_JAVA_FILE, CLIENT_LIBRDKAFKA_FILE):
            text = lab.exec(node, "cat", path, check=True).stdout
            assert "\n# That listener: %s\n" % expected_listener[node] in text, text
        java = parse_properties(lab.exec(node, "cat", CLIENT_JAVA_FILE, check=True).stdout).to_dict()
        assert java["bootstrap.servers"] == expected_bootstrap[node]
        assert java["security.protocol"] == "PLAINTEXT"
        assert (java["acks"], java["enable.idempotence"], java["auto.offset.reset"]) == ("all", "true", "none")
        # the librdkafka variant drives real kcat: the client works from its own network with the written file
        produce_and_consume(lab, node, ["-F", CLIENT_LIBRDKAFKA_FILE], f"client-config-{node}")


def test_check_mode_on_the_configured_cluster_changes_nothing(lab_aws_private, site_run, workdir):
    lab = lab_aws_private
    before = file_checksums(lab, BROKERS + CLIENTS)
    records = sorted((workdir / "converge" / "records").iterdir())
    playbook = workdir / "site-with-client-config.yml"
    # with the site run's records: every name the plan needs was resolved there, so kafka_broker_facts resolves them
    # again in its call and no broker makes a resolvability call of its own
    run = run_playbook(lab, playbook, workdir / "configured-check", "--check", "--diff",
                       "-e", f"verify_records_dir={workdir / 'converge' / 'records'}")
    assert run.returncode == 0, run.explain()
    assert run.changed() == [], run.explain()
    assert file_checksums(lab, BROKERS + CLIENTS) == before
    assert sorted((workdir / "converge" / "records").iterdir()) == records, "check mode wrote records"
    assert [r for r in run.results if r["task"] == RESOLVE_TASK] == [], run.explain()


def test_a_re_run_that_changes_nothing_makes_the_self_check_in_the_discovery_call(lab_aws_private, site_run, workdir):
    """With the site run's records each broker checks, in its first call, the inter-broker endpoint it advertised
    then (metadata from it, every advertised endpoint resolved and connected from there); nothing restarts and the
    plan checks the same endpoint, so no broker makes a self check of its own after the plan."""
    lab = lab_aws_private
    pids = {node: kafka_pid(lab, node) for node in BROKERS}
    run = run_playbook(lab, SITE_PLAYBOOK, workdir / "no-change", "--diff",
                       "-e", f"verify_records_dir={workdir / 'converge' / 'records'}")
    assert run.returncode == 0, run.explain()
    assert [r for r in run.changed() if r["host"] in BROKERS] == [], run.explain()
    ahead = {r["host"]: r["self_check"] for r in run.results if r["task"] == FACTS_TASK}
    assert {host: (check["bootstrap"], check["listener"], check["security_protocol"], check["passed"])
            for host, check in ahead.items()} == {
        node: (f"{lab.node(node)['private_dns']}:19092", "INTERNAL", "PLAINTEXT", True) for node in BROKERS}, ahead
    assert all("all 3 advertised endpoint(s) resolve and accept connections" in check["summary"]
               for check in ahead.values()), ahead
    assert [r for r in run.results if r["task"] == SELF_CHECK_TASK] == [], run.explain()
    assert {node: kafka_pid(lab, node) for node in BROKERS} == pids


def test_a_new_public_address_changes_only_that_broker(lab_aws_private, site_run, workdir):
    lab = lab_aws_private
    moved = json.loads(lab.run("restart-instance", "b2").stdout)
    lab.refresh()
    old_endpoint = f"{moved['old_public_dns']}:9092"
    new_endpoint = f"{moved['public_dns']}:9092"
    laptop_bootstrap = lab.node("laptop")["bootstrap"]
    # the instance restart restarted b2's broker too; once it is back, it still advertises its old address's name
    assert advertised_once_listed(lab, "laptop", laptop_bootstrap, 2).get(2) == old_endpoint
    pids = {node: kafka_pid(lab, node) for node in BROKERS}

    # with the site run's records: each broker resolves there the names the site run resolved, and itself only b2's
    # new name
    run = run_playbook(lab, SITE_PLAYBOOK, workdir / "rerun", "--diff",
                       "-e", f"verify_records_dir={workdir / 'converge' / 'records'}")
    assert run.returncode == 0, run.explain()
    resolved = {r["host"]: r["names"] for r in run.results if r["task"] == RESOLVE_TASK}
    assert resolved == {broker: [moved["public_dns"]] for broker in BROKERS}, run.explain()
    changed = run.changed()
    assert {PlaybookRun.target(r) for r in changed} == {"b2"}, run.explain()
    diffs = [diff for result in changed for diff in result["diffs"]]
    assert len(diffs) == 1, run.explain()
    removed, added = changed_lines(diffs[0])
    assert [property_key(line) for line in removed + added] == ["advertised.listeners", "advertised.listeners"]
    # only the EXTERNAL endpoint moved: the INTERNAL one (private name) is the same
    assert old_endpoint in removed[0]
    assert removed[0].replace(old_endpoint, new_endpoint) == added[0]
    # restarted: b2 only; so every broker checks again after the rollout, whatever its first call found
    assert {node: kafka_pid(lab, node) != pids[node] for node in BROKERS} == {"b1": False, "b2": True, "b3": False}
    assert sorted(r["host"] for r in run.results if r["task"] == SELF_CHECK_TASK and r["status"] == "ok") == list(
        BROKERS), run.explain()

    assert advertised_to(lab, "laptop", laptop_bootstrap)[2] == new_endpoint
    produce_and_consume(lab, "laptop", ["-b", laptop_bootstrap], "after-new-public-ip")


# The client_config role on a machine whose login user may not write /etc/kafka (b1, logged into as admin)
CLIENT_CONFIG_AS_ADMIN = """---
- name: Client configuration files written by a login user that needs sudo for them
  hosts: b1
  gather_facts: false
  vars:
    client_config_path: /etc/kafka/client-of-admin.properties
    client_config_librdkafka_path: ""
    client_config_bootstrap: ["{{ lab_private_dns }}:19092"]
    client_config_security_protocol: PLAINTEXT
  roles:
    - role: kafkaops.listeners.client_config
"""
CLIENT_WRITE_TASK = "Write the Java client properties (no diff when they hold a secret)"


def test_the_client_files_are_written_with_sudo_and_refused_without_become(lab_aws_private, site_run, workdir):
    lab = lab_aws_private
    playbook = workdir / "client-config-as-admin.yml"
    playbook.write_text(CLIENT_CONFIG_AS_ADMIN, encoding="utf-8")
    path = "/etc/kafka/client-of-admin.properties"
    try:
        refused = run_playbook(lab, playbook, workdir / "client-no-become", "-e",
                               json.dumps({"client_config_become": False}))
        assert refused.returncode == 2, refused.explain()
        failed = [(r["host"], r["task"]) for r in refused.failed()]
        assert failed == [("b1", CLIENT_WRITE_TASK)], refused.explain()
        assert "/etc/kafka" in refused.failed()[0]["msg"], refused.failed()[0]["msg"]
        assert lab.exec("b1", "test", "-e", path).returncode == 1

        written = run_playbook(lab, playbook, workdir / "client-become")
        assert written.returncode == 0, written.explain()
        owner = lab.exec("b1", "stat", "-c", "%U:%G %a", path, check=True).stdout.split()
        assert owner == ["root:root", "644"], owner
        java = parse_properties(lab.exec("b1", "cat", path, check=True).stdout).to_dict()
        assert java["bootstrap.servers"] == f"{lab.node('b1')['private_dns']}:19092"
    finally:
        lab.exec("b1", "rm", "-f", path)


def test_a_broker_down_on_a_run_that_changes_nothing_still_fails_its_self_check(lab_aws_private, site_run, workdir):
    """The records cannot make a run skip the self check of a broker that does not answer: the check in its first
    call does not pass, so the check after the plan runs and fails as it always did, naming the endpoint."""
    lab = lab_aws_private
    lab.exec("b3", str(KAFKA_SERVICE), "stop", check=True, timeout=150)
    try:
        run = run_playbook(lab, SITE_PLAYBOOK, workdir / "b3-down",
                           "-e", f"verify_records_dir={workdir / 'converge' / 'records'}")
    finally:
        lab.exec("b3", str(KAFKA_SERVICE), "start", check=True, timeout=150)
    assert run.returncode == 2, run.explain()
    ahead = {r["host"]: r["self_check"] for r in run.results if r["task"] == FACTS_TASK}
    endpoint = f"{lab.node('b3')['private_dns']}:19092"
    assert (ahead["b3"]["bootstrap"], ahead["b3"]["passed"]) == (endpoint, False), ahead
    failed = {r["host"]: r for r in run.failed()}
    assert failed["b3"]["task"] == SELF_CHECK_TASK and endpoint in failed["b3"]["msg"], run.explain()
    assert not [r for r in run.changed() if r["host"] in BROKERS], run.explain()
