# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The pre-start program (start-time self-healing) against the metadata emulator on 127.0.0.1.

It plans a node alone as the whole cluster plans it; it rewrites the file for a new public name; and whatever goes
wrong (no metadata service, hostile answers, a missing or corrupt decision, the time bound) it keeps the file byte
for byte and exits 0. The last test runs the installed form: the self-contained script, with no collection on its
path.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time

import metadata_lab
import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils import _config_file, _prestart
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import plan_listeners, plan_options

AWS = metadata_lab.VALUES["aws"]
NEW_PUBLIC = {"public_ip": "198.19.0.42", "public_dns": "ec2-198-19-0-42.us-west-2.compute.amazonaws.com"}
# bytes the program must never touch: a comment, an ISO-8859-1 byte, a continuation line, a foreign key
OTHER_LINES = (b"# broker 1 \xe9\nlog.dirs=/var/lib/kafka,\\\n  /data/kafka\n"
               b"node.id=1\nprocess.roles=broker,controller\n")


def _node(number, roles=("broker", "controller")):
    return {"name": "b%d" % number, "node_id": number, "process_roles": list(roles),
            "private_host": "ip-198-18-0-%d.us-west-2.compute.internal" % (10 + number),
            "private_ip": "198.18.0.%d" % (10 + number),
            "public_dns": "ec2-198-19-0-%d.us-west-2.compute.amazonaws.com" % (10 + number),
            "public_ip": "198.19.0.%d" % (10 + number)}


def _decision(nodes, name, mode, endpoint="http://127.0.0.1:9", **options):
    """The decision the broker role stores for node ``name`` of ``nodes`` (roles/broker/vars/main.yml)."""
    options["mode"] = mode
    plan = plan_listeners(nodes, options)
    node = next(node for node in nodes if node["name"] == name)
    return json.loads(json.dumps({
        "version": 1, "cluster": "kafka", "options": dict(plan_options(options), mode=plan["mode"]),
        "node": {key: node[key] for key in ("name", "node_id", "process_roles")},
        "names": {key: node[key] for key in _prestart.NAME_KEYS},
        "controllers": [{key: other[key] for key in ("name", "node_id", "private_host", "private_ip")}
                        for other in nodes if "controller" in other["process_roles"]],
        "properties": next(entry for entry in plan["brokers"] if entry["name"] == name)["properties"],
        # per request: generous, as the emulator answers slowly on a loaded machine
        "metadata": {"provider": "aws", "endpoint": endpoint, "timeout": 5.0},
    }))


CLUSTERS = {
    "combined voters": [_node(1), _node(2), _node(3)],
    "separate controllers": [_node(1, ["broker"]), _node(2, ["broker"]), _node(101, ["controller"]),
                             _node(102, ["controller"]), _node(103, ["controller"])],
    "zookeeper": [_node(1, []), _node(2, []), _node(3, [])],
}


@pytest.mark.parametrize("mode", ["single", "dual"])
@pytest.mark.parametrize("cluster", sorted(CLUSTERS))
def test_a_node_planned_alone_gets_the_keys_of_the_whole_clusters_plan(cluster, mode):
    for node in CLUSTERS[cluster]:
        decision = _decision(CLUSTERS[cluster], node["name"], mode)
        assert _prestart.check_decision(decision) is None


def test_a_decision_that_does_not_reproduce_its_plan_is_refused_by_the_roles_check(tmp_path, capsys):
    decision = _decision(CLUSTERS["combined voters"], "b2", "dual")
    decision["controllers"].reverse()  # the quorum keys list the voters in the cluster's order
    path = tmp_path / "decision.json"
    path.write_text(json.dumps(decision), encoding="utf-8")
    assert _prestart.main(["--check-decision", str(path)]) == 1
    assert "this node re-planned alone gives" in capsys.readouterr().out
    path.write_text(json.dumps(_decision(CLUSTERS["combined voters"], "b2", "dual")), encoding="utf-8")
    assert _prestart.main(["--check-decision", str(path)]) == 0


@pytest.fixture()
def broker(tmp_path, imds, monkeypatch):
    """b1's server.properties as the role left it (dual layout), its decision, and the emulator serving b1's names.
    Name lookups are answered here: no test asks a real resolver."""
    nodes = list(CLUSTERS["combined voters"])
    nodes[0] = dict(nodes[0], private_host=AWS["private_dns"], public_dns=AWS["public_dns"], public_ip=AWS["public_ip"])
    decision = _decision(nodes, "b1", "dual", imds.endpoint)
    path = tmp_path / "server.properties"
    path.write_bytes(OTHER_LINES + "".join(
        "%s=%s\n" % item for item in sorted(decision["properties"].items()) if item[1] is not None).encode())
    path.chmod(0o640)
    (tmp_path / "server.properties.listeners.json").write_text(json.dumps(decision), encoding="utf-8")
    imds.serve(dict(AWS))
    answers = {}
    monkeypatch.setattr(_prestart, "probe_names", lambda names, timeout: {"results": [
        {"name": name, "resolvable": name in answers, "addresses": answers.get(name, [])} for name in names]})
    broker = type("Broker", (), {"path": path, "decision": tmp_path / "server.properties.listeners.json",
                                 "imds": imds, "answers": answers})
    broker.before = path.read_bytes()
    return broker


def prestart(broker, capsys, *args) -> str:
    assert _prestart.main(["--properties", str(broker.path), *args]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kafkaops.listeners prestart: ") and out.count("\n") == 1, out
    return out


def test_a_new_public_name_is_written_and_every_other_byte_kept(broker, capsys):
    broker.imds.serve(dict(AWS, **NEW_PUBLIC))
    assert "rewritten for this node's names" in prestart(broker, capsys)
    after = broker.path.read_bytes()
    assert after.startswith(OTHER_LINES)
    assert b"EXTERNAL://%s:9092" % NEW_PUBLIC["public_dns"].encode() in after
    assert AWS["public_dns"].encode() not in after
    assert stat.S_IMODE(broker.path.stat().st_mode) == 0o640
    assert sorted(os.listdir(broker.path.parent)) == ["server.properties", "server.properties.listeners.json"]
    decision = json.loads(broker.decision.read_text(encoding="utf-8"))
    assert decision["names"]["public_dns"] == NEW_PUBLIC["public_dns"] and _prestart.check_decision(decision) is None
    assert "already holds this node's names" in prestart(broker, capsys)


def kept(broker, capsys, why: str, *args) -> str:
    """The program ran, said why it kept the file, and the file is byte for byte what it was; returns its output."""
    out = prestart(broker, capsys, *args)
    assert "kept as it is: " in out and why in out.split("kept as it is: ", 1)[1], out
    assert broker.path.read_bytes() == broker.before
    return out


def test_a_new_name_that_the_tls_listeners_certificate_does_not_name_keeps_the_file(broker, capsys, pki):
    nodes = [dict(CLUSTERS["combined voters"][0], private_host=AWS["private_dns"], public_dns=AWS["public_dns"]),
             *CLUSTERS["combined voters"][1:]]
    decision = _decision(nodes, "b1", "dual", broker.imds.endpoint, security_protocols={"EXTERNAL": "SSL"})
    broker.decision.write_text(json.dumps(decision), encoding="utf-8")
    broker.path.write_bytes(b"ssl.keystore.type=PEM\nssl.keystore.location=%s\n" % pki["wrong_name"].encode()
                            + broker.before)
    broker.before = broker.path.read_bytes()
    broker.imds.serve(dict(AWS, **NEW_PUBLIC))
    out = kept(broker, capsys, "b1: clients that verify host names")
    assert "the certificate in %s does not name %s" % (pki["wrong_name"], NEW_PUBLIC["public_dns"]) in out


def test_an_unreachable_metadata_service_keeps_the_file(broker, capsys):
    decision = json.loads(broker.decision.read_text(encoding="utf-8"))
    decision["metadata"]["endpoint"] = metadata_lab.closed_port_endpoint()
    broker.decision.write_text(json.dumps(decision), encoding="utf-8")
    kept(broker, capsys, "the metadata service did not answer usably")


@pytest.mark.parametrize("fault", ["down", "token_refused", "garbage"])
def test_a_failing_or_garbage_answering_metadata_service_keeps_the_file(broker, capsys, fault):
    broker.imds.fault(fault)
    kept(broker, capsys, "the metadata service did not answer usably")


@pytest.mark.parametrize(("values", "why"), [
    ({"public_dns": "localhost"}, "the stored decision does not plan this node with these names: hosts no client"),
    ({"public_dns": "LOCALHOST."}, "the stored decision does not plan this node with these names: hosts no client"),
    ({"public_dns": "198.19.0.77"}, "the metadata service gave an IP address (198.19.0.77) as public_dns"),
    ({"private_dns": "198.18.0.11"}, "the metadata service gave an IP address (198.18.0.11) as private_dns"),
    ({"public_dns": "ec2.example.com\nadvertised.listeners=PLAINTEXT://evil:9092"},
     "the metadata service did not answer usably"),
    ({"public_dns": "a=b.example.com"}, "the metadata service did not answer usably"),
    ({"public_dns": "ec2 198 19 0 42"}, "the metadata service did not answer usably"),
    ({"private_dns": "ip-198-18-0-99.us-west-2.compute.internal", "private_ip": "198.18.0.99"},
     "the private name changed from ip-198-18-0-11.us-west-2.compute.internal to ip-198-18-0-99"),
], ids=["localhost", "LOCALHOST.", "ip-as-public-name", "ip-as-private-name", "newline-injection", "equals-sign",
        "spaces", "private-name-moved"])
def test_hostile_or_unusable_names_keep_the_file(broker, capsys, values, why):
    broker.imds.serve(dict(AWS, **values))
    kept(broker, capsys, why)


def test_a_new_name_that_resolves_to_loopback_here_keeps_the_file(broker, capsys):
    broker.imds.serve(dict(AWS, **NEW_PUBLIC))
    broker.answers[NEW_PUBLIC["public_dns"]] = ["127.0.0.1"]
    kept(broker, capsys, "the stored decision does not plan this node with these names: hosts no client")


@pytest.mark.parametrize(("content", "why"), [
    (None, "no stored decision at "),
    ("{not json", "cannot be read"),
    ('{"version": 1, "node": {"name": "b1"}}', "is corrupt (controllers, metadata, names, options, properties)"),
    ('{"version": 2}', "is not a version 1 decision"),
    ("[]", "is not a version 1 decision"),
], ids=["missing", "not-json", "incomplete", "other-version", "not-an-object"])
def test_a_missing_or_corrupt_decision_keeps_the_file(broker, capsys, content, why):
    broker.imds.serve(dict(AWS, **NEW_PUBLIC))
    if content is None:
        broker.decision.unlink()
    else:
        broker.decision.write_text(content, encoding="utf-8")
    kept(broker, capsys, why)


def test_a_decision_whose_options_the_planner_refuses_keeps_the_file(broker, capsys):
    broker.imds.serve(dict(AWS, **NEW_PUBLIC))
    decision = json.loads(broker.decision.read_text(encoding="utf-8"))
    decision["options"]["external_port"] = "ninety"
    broker.decision.write_text(json.dumps(decision), encoding="utf-8")
    kept(broker, capsys, "the stored decision does not plan this node with these names")


def test_a_slow_metadata_service_keeps_the_file_within_the_time_bound(broker, capsys):
    decision = json.loads(broker.decision.read_text(encoding="utf-8"))
    decision["metadata"]["timeout"] = 30  # the time bound, not the client's own timeout, has to end it
    broker.decision.write_text(json.dumps(decision), encoding="utf-8")
    broker.imds.fault("slow", slow_seconds=20)
    started = time.monotonic()
    kept(broker, capsys, "", "--time-bound", "2")
    assert time.monotonic() - started < 5


def test_the_time_bound_ends_a_step_that_hangs(broker, capsys, monkeypatch):
    broker.imds.serve(dict(AWS, **NEW_PUBLIC))
    monkeypatch.setattr(_prestart, "_external_checks", lambda names, timeout: time.sleep(30))
    started = time.monotonic()
    kept(broker, capsys, "the time bound ran out", "--time-bound", "1")
    assert time.monotonic() - started < 5


def test_an_unexpected_error_keeps_the_file_and_still_exits_0(broker, capsys, monkeypatch):
    def broken(*_args):
        raise RuntimeError("a bug")
    monkeypatch.setattr(_prestart, "render", broken)
    kept(broker, capsys, "unexpected RuntimeError: a bug")


def test_a_symlinked_file_is_rewritten_where_the_link_leads_and_the_link_kept(broker, capsys, tmp_path):
    # /etc/kafka/server.properties -> /opt/kafka/config/server.properties: Kafka reads the target
    target_dir = tmp_path / "opt"
    target_dir.mkdir()
    target = target_dir / "server.properties"
    broker.path.rename(target)
    broker.path.symlink_to(target)
    broker.imds.serve(dict(AWS, **NEW_PUBLIC))
    assert "rewritten for this node's names" in prestart(broker, capsys)
    assert broker.path.is_symlink() and os.readlink(broker.path) == str(target)
    assert b"EXTERNAL://%s:9092" % NEW_PUBLIC["public_dns"].encode() in target.read_bytes()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_fifo_at_the_path_keeps_it_and_does_not_hang(broker, capsys):
    broker.path.unlink()
    os.mkfifo(broker.path)
    out = prestart(broker, capsys)
    assert "kept as it is: cannot read it: " in out and "is a FIFO (named pipe), not a regular file" in out


def test_a_write_by_the_role_while_the_program_waits_is_kept(broker, capsys, monkeypatch):
    # the role's kafka_properties writes the same file while this program waits on the metadata service: the
    # program renders the file as it is when it holds the writers' lock, and neither change is lost
    broker.imds.serve(dict(AWS, **NEW_PUBLIC))
    discover = _prestart.discover_names

    def slow_discovery(*args):
        broker.path.write_bytes(broker.path.read_bytes() + b"num.io.threads=16\n")
        return discover(*args)

    monkeypatch.setattr(_prestart, "discover_names", slow_discovery)
    assert "rewritten for this node's names" in prestart(broker, capsys)
    after = broker.path.read_bytes()
    assert after.endswith(b"num.io.threads=16\n") and b"EXTERNAL://%s:9092" % NEW_PUBLIC["public_dns"].encode() in after


def test_the_program_waits_for_the_writers_lock_within_its_time_bound(broker, capsys):
    broker.imds.serve(dict(AWS, **NEW_PUBLIC))
    with _config_file.locked(str(broker.path)):
        started = time.monotonic()
        out = prestart(broker, capsys, "--time-bound", "2")
    assert "writing failed, the file is the old or the new one: another writer of" in out
    assert time.monotonic() - started < 5 and broker.path.read_bytes() == broker.before


def test_the_installed_script_runs_alone_and_rewrites_the_file(broker, tmp_path):
    """The role's form: one file from the prestart_program filter, run by an isolated interpreter (no collection
    on its path). A public IP without a DNS name: no name lookup at all."""
    prestart_program = pytest.importorskip(
        "ansible_collections.kafkaops.listeners.plugins.filter.prestart_program",
        reason="the filter plugin imports ansible.errors, which ansible-test's module_utils unit run does not provide "
               "(`pytest tests/unit` runs this test)").prestart_program
    script = tmp_path / "kafka-listeners-prestart"
    script.write_text(prestart_program(sys.executable), encoding="utf-8")
    assert prestart_program(sys.executable) == script.read_text(encoding="utf-8")  # installing again changes nothing
    broker.imds.serve(dict(AWS, public_dns=None, public_ip="198.19.0.42"))
    proc = subprocess.run([sys.executable, "-I", str(script), "--properties", str(broker.path)], cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=60, env={"PATH": os.environ.get("PATH", "")},
                          check=False)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "rewritten for this node's names" in proc.stdout, proc.stdout
    assert b"EXTERNAL://198.19.0.42:9092" in broker.path.read_bytes()
