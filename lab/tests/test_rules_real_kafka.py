"""Kafka's startup rules (plugins/module_utils/_kafka_rules.py, R1-R24) held to real Apache Kafka.

Every failing example of the rule table's unit tests (FIRES in tests/unit/.../test_kafka_rules.py) is written
into a real broker's server.properties, for each release of lab/kafka-dist/versions. The broker must
refuse to start (exit before binding anything), and the lint's message for that file must be the text Kafka
itself prints. Kafka 4.x has no ZooKeeper mode, so an example without process.roles runs there as a broker-only
KRaft node (`kraft_broker`); on 3.9 it runs in ZooKeeper mode. Each JVM runs in a private network namespace of
its own (loopback only; it dies with the process), two at a time.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import (  # noqa: E402
    check_kafka_config,
)
from kafkaops_lab import kafka_real

pytestmark = pytest.mark.lab

REPO_ROOT = Path(__file__).resolve().parents[2]
RULE_TESTS = REPO_ROOT / "tests" / "unit" / "plugins" / "module_utils" / "test_kafka_rules.py"
ACCEPTED_CONFIG = "No readable meta.properties files found"  # a KRaft node past config validation, unformatted
JVM_TIMEOUT = 90  # a broker that passes validation waits for storage or ZooKeeper and is stopped here
PARALLEL = 2
# Kafka prints these sets/lists in no fixed order: compare the text before them.
UNORDERED = ("Set(", "Found ", "Duplicate role names found in `process.roles`: ",
             "The valid options based on currently configured listeners are ")


def _fires() -> list[tuple[str, dict, str, bool]]:
    spec = importlib.util.spec_from_file_location("kafka_rules_table", RULE_TESTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FIRES


FIRES = _fires()
VERSIONS = kafka_real.versions()


def kraft_broker(props: dict) -> dict:
    """A ZooKeeper-mode example as Kafka 4.x must run it: a broker-only KRaft node (voter 1 on loopback).

    The controller listener gets a PLAINTEXT mapping (added to an explicit map, or the default map made explicit
    plus it), so that the example's own rule fails rather than the broker-only node's controller mapping (R18).
    """
    node_id = props.get("node.id") or props.get("broker.id") or "4"
    protocol_map = props.get("listener.security.protocol.map")
    if protocol_map is None:
        protocol_map = "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
    protocol_map += ",CONTROLLER:PLAINTEXT"
    return {"process.roles": "broker", "node.id": node_id, "controller.quorum.voters": "1@127.0.0.1:19093",
            "controller.listener.names": "CONTROLLER", **props, "listener.security.protocol.map": protocol_map}


def as_run(version: str, props: dict) -> dict:
    """The server.properties keys of `props` as `version` runs them (see the module docstring)."""
    if "process.roles" in props:
        return dict(props)
    if version.startswith("3."):
        return {"zookeeper.connect": "127.0.0.1:2181", "zookeeper.connection.timeout.ms": "3000", **props}
    return kraft_broker(props)


def comparable(message: str) -> str:
    """The part of a message Kafka prints in a fixed order."""
    cut = min((message.index(marker) + len(marker) for marker in UNORDERED if marker in message), default=None)
    return message if cut is None else message[:cut]


def run_broker(version: str, props: dict) -> tuple[int | None, str]:
    """Start real Kafka `version` on `props` in a private network namespace; (exit status or None, output)."""
    home = kafka_real.ensure_release(version)
    with tempfile.TemporaryDirectory(prefix="kafka-rule-") as work:
        config = Path(work) / "server.properties"
        text = "".join(f"{key}={value}\n" for key, value in {**props, "log.dirs": f"{work}/data"}.items())
        config.write_text(text, encoding="utf-8")
        argv = ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                *kafka_real.broker_command(home, str(config))]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=JVM_TIMEOUT, cwd=work)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout or ""
            return None, out.decode(errors="replace") if isinstance(out, bytes) else out
        return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def broker_runs(lab_session_cli) -> dict:
    """Every (version, example) run once, PARALLEL JVMs at a time: {(version, index): (props, status, output)}."""
    if shutil.which("java") is None:
        pytest.fail("java is not installed (tools/install-system-deps installs it)")
    jobs = {(version, index): as_run(version, case[1]) for version in VERSIONS for index, case in enumerate(FIRES)}
    with ThreadPoolExecutor(PARALLEL) as pool:
        futures = {key: pool.submit(run_broker, key[0], props) for key, props in jobs.items()}
    return {key: (jobs[key], *future.result()) for key, future in futures.items()}


CASES = [pytest.param(version, index, id=f"{version}-{case[0]}-{index}")
         for version in VERSIONS for index, case in enumerate(FIRES)]


@pytest.mark.parametrize(("version", "index"), CASES)
def test_real_kafka_refuses_the_failing_example_with_the_lints_message(broker_runs, version, index):
    rule = FIRES[index][0]
    props, status, output = broker_runs[(version, index)]
    error = kafka_real.startup_error(output)
    assert status not in (None, 0), f"Kafka {version} started on {props} ({rule}):\n{error}"
    assert "Awaiting socket connections" not in output, f"Kafka {version} bound a listener before failing"
    findings = check_kafka_config(props, kafka_version=version)
    if not findings:
        # the lint says this release accepts the example: Kafka must get past its config to the (unformatted) storage
        assert ACCEPTED_CONFIG in error, f"the lint accepts {props} for Kafka {version}, which refused it:\n{error}"
        return
    assert rule in {finding["rule"] for finding in findings}, (props, findings)
    matching = [finding for finding in findings if comparable(finding["message"]) in error]
    assert matching, (f"Kafka {version} refused {props} with\n{error}\nbut the lint says "
                      f"{[finding['message'] for finding in findings]}")


def test_every_rule_was_driven_against_every_version():
    assert {case[0] for case in FIRES} == {f"R{number}" for number in range(1, 25)}
    assert len(VERSIONS) >= 2 and any(re.match(r"3\.9\.", version) for version in VERSIONS)


def test_runs_stay_off_the_hosts_network(lab_session_cli):
    """The JVMs never see the machine's interfaces: a private namespace has only loopback."""
    proc = subprocess.run(["unshare", "--net", "--", "sh", "-c", "ip -o link show | wc -l"], capture_output=True,
                          text=True, check=True, env={**os.environ, "LC_ALL": "C"})
    assert proc.stdout.strip() == "1"
