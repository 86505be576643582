"""The broker role on an inventory of another shape than the lab's own, in file order on one aws-private-dns-only lab.

The lab gives every node the same service script, paths and names, which hides values read from the wrong host.
Here each broker gets a shape of its own (its own restart script, b2 its own properties path), as an AWS VPC built
by somebody else would have, and the rollout is broken in the middle:

1. metadata that names the machine itself (or the metadata service) is refused before anything is written;
2. a public name that resolves to a loopback address from one broker is refused before anything is written, and
   a broker whose metadata service is down is named by the others (nothing written either);
3. a rollout whose b2 restart fails: b1 restarted once with b1's own script, b2 with b2's, b3 left alone, every
   change booked on its own host, b2 left marked pending;
4. the next run, with the fault gone by itself, restarts exactly b2 (pending) and b3 (changed) and nothing else;
   a third run changes nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import parse_properties
from kafkaops_lab.paths import KAFKA_SERVICE
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, file_checksums, kafka_pid, produce_and_consume, run_playbook

pytestmark = pytest.mark.lab

BROKERS = ("b1", "b2", "b3")
# Each broker's own restart script (named after its service) and properties file
SHAPES = {
    "b1": {"broker_service_name": "kafka", "broker_properties_path": "/etc/kafka/server.properties"},
    "b2": {"broker_service_name": "confluent-server", "broker_properties_path": "/etc/kafka/conf-b2/server.properties"},
    "b3": {"broker_service_name": "kafka-broker-3", "broker_properties_path": "/etc/kafka/server.properties"},
}
RESTART_LOG = "/etc/kafka/restarts.log"
FAULT_FILE = "/etc/kafka/fail-next-start"
# as in the report that found the bug: a host variable inside the (extra-vars) restart command
RESTART_COMMAND = json.dumps({"broker_restart_command": "{{ kafka_svc }} restart"})
RESTART_TASK = "Restart Kafka with the configured command on {}"


def script_path(node: str) -> str:
    return f"/etc/kafka/bin/{SHAPES[node]['broker_service_name']}-ctl"


def restart_script(node: str) -> str:
    """`node`'s own service script: logs each call, runs the lab's service on this node's properties file, and fails
    one start when the fault file is there (the broker stopped and did not come back)."""
    config = SHAPES[node]["broker_properties_path"]
    return f"""#!/bin/sh
echo "{node} $0 $*" >> {RESTART_LOG}
export KAFKA_SERVICE_CONFIG={config}
if [ "$1" = restart ] && [ -e {FAULT_FILE} ]; then
  rm -f {FAULT_FILE}
  {KAFKA_SERVICE} stop > /dev/null
  echo "{SHAPES[node]['broker_service_name']}: broker exited during startup (lab fault)" >&2
  exit 1
fi
exec {KAFKA_SERVICE} "$@"
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("rollout-shapes")


@pytest.fixture(scope="module")
def shaped_lab(lab_aws_private, workdir, lab_kcat_required):
    """The module's lab with a shape per broker, and the inventory that describes it (lab inventory + host vars)."""
    lab = lab_aws_private
    for node in BROKERS:
        script = script_path(node)
        config = SHAPES[node]["broker_properties_path"]
        lab.exec(node, "sh", "-c", f"mkdir -p {os.path.dirname(script)} {os.path.dirname(config)} && "
                                   f"cat > {script} && chmod 0755 {script} && : > {RESTART_LOG}",
                 input_text=restart_script(node), check=True)
        if config != "/etc/kafka/server.properties":
            lab.exec(node, "cp", "-p", "/etc/kafka/server.properties", config, check=True)
    shapes = workdir / "shapes.yml"
    hosts = {node: {**SHAPES[node], "kafka_svc": script_path(node)} for node in BROKERS}
    shapes.write_text(json.dumps({"kafka_brokers": {"hosts": hosts}}), encoding="utf-8")
    return lab, (Path(lab.run("inventory").stdout.strip()), shapes)


def run_site(shaped, workdir: Path, name: str, *args: str):
    lab, inventories = shaped
    return run_playbook(lab, SITE_PLAYBOOK, workdir / name, "-e", RESTART_COMMAND, *args, inventories=inventories)


def restarts(lab, node: str) -> list[str]:
    return lab.exec(node, "cat", RESTART_LOG, check=True).stdout.splitlines()


def pids(lab) -> dict[str, str]:
    return {node: kafka_pid(lab, node, (f"KAFKA_SERVICE_CONFIG={SHAPES[node]['broker_properties_path']}",))
            for node in BROKERS}


def set_metadata(lab, node: str, **values) -> dict:
    """Rewrite `node`'s metadata values (the emulator reads them on every request); returns the previous ones."""
    path = Path(lab.status["state_dir"]) / "nodes" / node / "imds.json"
    before = json.loads(path.read_text(encoding="utf-8"))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({**before, **values}), encoding="utf-8")
    tmp.replace(path)
    return before


def test_metadata_naming_the_machine_itself_is_refused_before_any_write(shaped_lab, workdir):
    lab = shaped_lab[0]
    before_files, before_pids = file_checksums(lab, BROKERS), pids(lab)
    # every refused class, public (public-hostname) and private (local-hostname) names alike
    hostile = {"b1": ("LocalHost.", "0"), "b2": ("0x7f.1", "ip6-allnodes"), "b3": ("169.254.169.254", "4294967295")}
    saved = {node: set_metadata(lab, node, public_dns=public, private_dns=private)
             for node, (public, private) in hostile.items()}
    try:
        run = run_site(shaped_lab, workdir, "hostile-metadata")
    finally:
        for node, values in saved.items():
            set_metadata(lab, node, **values)
    assert run.returncode != 0, run.explain()
    messages = " ".join(r["msg"] for r in run.failed())
    for node, (public, private) in hostile.items():
        # the metadata module drops a trailing root dot (and checks the rest is a host) before the plan sees it
        for key, value in (("public_dns", public.rstrip(".")), ("private_host", private)):
            assert f"{key} of broker {node} (from instance metadata (aws)) {value!r} is " in messages, run.explain()
    for klass in ("Loopback", "Unspecified", "Link-local", "Multicast", "Broadcast"):
        assert f"{klass} addresses: " in messages, run.explain()
    assert file_checksums(lab, BROKERS) == before_files
    assert pids(lab) == before_pids
    assert all(restarts(lab, node) == [] for node in BROKERS)


def test_a_name_that_resolves_to_loopback_from_a_broker_is_refused(shaped_lab, workdir):
    lab = shaped_lab[0]
    before_files, before_pids = file_checksums(lab, BROKERS), pids(lab)
    b2_public = lab.node("b2")["public_dns"]
    hosts = lab.exec("b1", "cat", "/etc/hosts", check=True).stdout
    # /etc/hosts in a lab node is a bind mount: rewrite it in place
    lab.exec("b1", "sh", "-c", f"echo '127.0.0.1 {b2_public}' >> /etc/hosts", check=True)
    try:
        run = run_site(shaped_lab, workdir, "loopback-dns")
    finally:
        lab.exec("b1", "sh", "-c", "cat > /etc/hosts", input_text=hosts, check=True)
    assert run.returncode != 0, run.explain()
    messages = " ".join(r["msg"] for r in run.failed())
    assert f"public_dns {b2_public!r} of broker b2 resolves to 127.0.0.1, a loopback address, from broker b1" in (
        messages), run.explain()
    assert file_checksums(lab, BROKERS) == before_files
    assert pids(lab) == before_pids


def test_a_broker_whose_discovery_failed_is_named_by_the_others(shaped_lab, workdir):
    lab = shaped_lab[0]
    before_files = file_checksums(lab, BROKERS)
    lab.run("fault", "b3", "imds=down")
    try:
        run = run_site(shaped_lab, workdir, "discovery-failed")
    finally:
        lab.run("fault", "b3", "imds=ok")
    assert run.returncode != 0, run.explain()
    failed = {r["host"]: r["msg"] for r in run.failed()}
    assert "b3" in failed and "metadata" in failed["b3"].lower(), run.explain()
    for node in ("b1", "b2"):
        assert "cannot plan cluster kafka without b3: discovery failed there" in failed[node], run.explain()
        assert "HostVarsVars" not in failed[node]
    assert file_checksums(lab, BROKERS) == before_files


def test_a_missing_properties_file_is_named(shaped_lab, workdir):
    lab = shaped_lab[0]
    before_files = file_checksums(lab, BROKERS)
    run = run_site(shaped_lab, workdir, "missing-file", "-e", "broker_properties_path=/etc/kafka/nope.properties")
    assert run.returncode != 0, run.explain()
    failed = {r["host"]: r["msg"] for r in run.failed()}
    assert sorted(failed) == list(BROKERS), run.explain()
    assert all("/etc/kafka/nope.properties does not exist. Set broker_properties_path" in msg
               for msg in failed.values()), failed
    assert file_checksums(lab, BROKERS) == before_files


def test_each_broker_restarts_with_its_own_command_and_a_failed_restart_stops_the_rollout(shaped_lab, workdir):
    lab = shaped_lab[0]
    before_files, before_pids = file_checksums(lab, BROKERS), pids(lab)
    lab.exec("b2", "touch", FAULT_FILE, check=True)
    run = run_site(shaped_lab, workdir, "fault")
    assert run.returncode != 0, run.explain()

    # each restart ran on its own host (no delegation), with that host's own script, once
    commands = {r["host"]: r for r in run.results if r["task"] in {RESTART_TASK.format(n) for n in BROKERS}}
    assert sorted(commands) == ["b1", "b2"], [(r["task"], r["host"], r["status"]) for r in run.results
                                              if "command" in r["task"]]
    assert all(r["delegate_to"] is None for r in commands.values())
    assert (commands["b1"]["status"], commands["b2"]["status"]) == ("ok", "failed")
    assert restarts(lab, "b1") == [f"b1 {script_path('b1')} restart"]
    assert restarts(lab, "b2") == [f"b2 {script_path('b2')} restart"]
    assert restarts(lab, "b3") == []
    # the writes count on the host written, b3 was neither written nor restarted
    changed_hosts = {r["host"] for r in run.changed()}
    assert changed_hosts == {"b1", "b2"}, run.explain()
    stop = next(r for r in run.failed() if r["task"] == "Stop the rollout")
    assert stop["host"] == "b2"
    assert "confluent-server: broker exited during startup (lab fault)" in stop["msg"]
    assert "b3" in stop["msg"] and ".restart-pending" in stop["msg"]
    after = file_checksums(lab, BROKERS)
    assert {k: v for k, v in after.items() if k.startswith("b3:")} == {
        k: v for k, v in before_files.items() if k.startswith("b3:")}
    assert pids_or_none(lab)["b3"] == before_pids["b3"]
    # b2's own file was written (not the default path, which it does not use), and it is marked pending
    assert after["b2:/etc/kafka/conf-b2/server.properties"] != before_files["b2:/etc/kafka/conf-b2/server.properties"]
    assert after["b2:/etc/kafka/server.properties"] == before_files["b2:/etc/kafka/server.properties"]
    assert "b2:/etc/kafka/conf-b2/server.properties.restart-pending" in after
    assert lab.exec("b2", "env", f"KAFKA_SERVICE_CONFIG={SHAPES['b2']['broker_properties_path']}",
                    str(KAFKA_SERVICE), "status").returncode == 3


def test_the_next_run_restarts_exactly_the_unfinished_and_the_unchanged_brokers(shaped_lab, workdir):
    lab = shaped_lab[0]
    before_pids = {node: pid for node, pid in pids_or_none(lab).items()}
    run = run_site(shaped_lab, workdir, "rerun", "--diff")
    assert run.returncode == 0, run.explain()
    commands = sorted(r["host"] for r in run.results if r["task"] in {RESTART_TASK.format(n) for n in BROKERS})
    assert commands == ["b2", "b3"], run.explain()
    assert len(restarts(lab, "b1")) == 1 and len(restarts(lab, "b2")) == 2 and len(restarts(lab, "b3")) == 1
    now = pids(lab)
    assert now["b1"] == before_pids["b1"] and now["b3"] != before_pids["b3"]
    assert not any(path.endswith(".restart-pending") for path in file_checksums(lab, BROKERS))
    for node in BROKERS:
        text = lab.exec(node, "cat", SHAPES[node]["broker_properties_path"], check=True).stdout
        advertised = parse_properties(text).to_dict()["advertised.listeners"]
        info = lab.node(node)
        assert advertised == f"INTERNAL://{info['private_dns']}:19092,EXTERNAL://{info['public_dns']}:9092"
    laptop_bootstrap = lab.node("laptop")["bootstrap"]
    produce_and_consume(lab, "laptop", ["-b", laptop_bootstrap], "after-an-unfinished-rollout")

    again = run_site(shaped_lab, workdir, "idempotent")
    assert again.returncode == 0, again.explain()
    assert again.changed() == [], again.explain()


def pids_or_none(lab) -> dict[str, str | None]:
    """Like pids(), with None for a broker that is not running (b2 after its failed restart)."""
    found = {}
    for node in BROKERS:
        proc = lab.exec(node, "env", f"KAFKA_SERVICE_CONFIG={SHAPES[node]['broker_properties_path']}",
                        str(KAFKA_SERVICE), "status")
        found[node] = proc.stdout.split("(pid", 1)[1].split(")", 1)[0].strip() if proc.returncode == 0 else None
    return found
