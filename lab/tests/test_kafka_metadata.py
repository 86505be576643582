# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The kafka_metadata module against the Kafka stand-in on loopback, checked against ``kcat -L``.

The module runs through the real ``ansible`` command (ad hoc, on localhost), inside the same resolver sandbox as
kcat and the stand-ins (a private mount namespace whose resolv.conf points at 127.0.0.1): a name missing from
/etc/hosts fails at once and no DNS query leaves the machine. Needs root, kcat and openssl.
Run: ``cd /work/main && .venv/bin/pytest lab/tests/test_kafka_metadata.py -q``
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import test_standin as standin  # the stand-in's own test helpers: sandbox, stand-in factory, kcat wrappers

REPO_ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
MODULE = "kafkaops.listeners.kafka_metadata"
UNRESOLVABLE_HOST = standin.UNRESOLVABLE_HOST
UNRESOLVABLE_CONSEQUENCE = "clients fail after the first connection"

# Fixtures shared with test_standin.py (pytest finds fixtures among a module's attributes).
resolver_sandbox = standin.resolver_sandbox
standin_env = standin.standin_env
standins = standin.standins
run_client = standin.run_client

pytestmark = [
    pytest.mark.lab,
    pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed (apt-get install kcat)"),
]


def kafka_metadata(run_client, **args) -> tuple[bool, dict, str]:
    """Run the module with ``args`` through ``ansible localhost -m``; returns (succeeded, result, stderr)."""
    env = [
        "env",
        f"ANSIBLE_CONFIG={REPO_ROOT / 'ansible.cfg'}",
        f"ANSIBLE_COLLECTIONS_PATH={REPO_ROOT / '.venv' / 'collections'}",
        "ANSIBLE_NOCOLOR=1",
        "ANSIBLE_LOCALHOST_WARNING=0",
        "ANSIBLE_INVENTORY_UNPARSED_WARNING=0",
    ]
    argv = [*env, str(VENV_BIN / "ansible"), "localhost", "-m", MODULE, "-a", json.dumps(args)]
    run = run_client(argv, timeout=120)
    head, marker, body = run.stdout.partition(" => ")
    assert marker, f"no module result in the ansible output\n{run}"
    return "SUCCESS" in head, json.loads(body), run.stderr


def listed(result: dict) -> dict[int, str]:
    """The module's brokers in kcat_metadata's form: {node id: "host:port"}."""
    return {broker["node_id"]: f"{broker['host']}:{broker['port']}" for broker in result["brokers"]}


def leaders(result: dict) -> dict[str, dict[int, int]]:
    """The module's partition leaders in kcat_metadata's form: {topic: {partition: leader}}."""
    return {t["name"]: {p["partition"]: p["leader"] for p in t["partitions"]} for t in result["topics"]}


def test_broker_lists_equal_kcat_on_each_listener(standins, run_client, tmp_path):
    layout, _started = standin.two_broker_cluster(standins, tmp_path / "cluster", num_partitions=3)
    topic = standin.unique_topic("metadata")
    for listener in ("INTERNAL", "EXTERNAL"):
        expected = {node: standin.advertised_of(layout, node, listener) for node in layout}
        standin.wait_until(
            lambda listener=listener, expected=expected: standin.kcat_metadata(
                run_client, standin.bootstrap_of(layout, 1, listener))["brokers"] == expected,
            f"both brokers listed on {listener}",
        )
    via_external = standin.bootstrap_of(layout, 1, "EXTERNAL")
    # kcat -L -t creates the topic (auto-creation); wait until every partition has a leader.
    standin.wait_until(
        lambda: len(standin.kcat_metadata(run_client, via_external, topic)["leaders"].get(topic, {})) == 3,
        f"topic {topic} being created",
    )

    for listener in ("INTERNAL", "EXTERNAL"):
        bootstrap = standin.bootstrap_of(layout, 2, listener)
        kcat = standin.kcat_metadata(run_client, bootstrap)
        ok, result, _stderr = kafka_metadata(run_client, bootstrap=[bootstrap], check_endpoints=True)
        assert ok, result
        assert listed(result) == kcat["brokers"], listener
        assert result["controller_id"] == kcat["controller"]
        assert leaders(result) == kcat["leaders"]
        assert result["bootstrap_used"] == bootstrap
        assert result["metadata_version"] == 8  # the stand-in speaks Metadata v1-v8
        assert result["unreachable_endpoints"] == []
        assert [(e["node_id"], e["resolvable"], e["connectable"]) for e in result["endpoints"]] == [
            (1, True, True),
            (2, True, True),
        ]
        assert result["summary"] == (
            f"bootstrap {bootstrap} reachable and all 2 advertised endpoint(s) resolve and accept connections "
            "from this host"
        )
        assert result["changed"] is False


def test_requested_topics_are_described_and_never_created(standins, run_client, tmp_path):
    port = standin.free_port("127.0.0.1")
    props = standin.plaintext_broker(1, {"PLAINTEXT": ("127.0.0.1", port, "127.0.0.1")}, "PLAINTEXT")
    standins.start("b1", props, tmp_path)
    bootstrap = f"127.0.0.1:{port}"
    existing, absent = standin.unique_topic("present"), standin.unique_topic("absent")
    standin.wait_until(
        lambda: standin.kcat_metadata(run_client, bootstrap, existing)["leaders"].get(existing),
        f"topic {existing} being created",
    )

    ok, result, _stderr = kafka_metadata(run_client, bootstrap=[bootstrap], topics=[existing, absent])
    assert ok, result
    by_name = {topic["name"]: topic for topic in result["topics"]}
    assert by_name[absent]["error"] == "UNKNOWN_TOPIC_OR_PARTITION"
    assert by_name[existing]["error"] is None
    assert [p["leader"] for p in by_name[existing]["partitions"]] == [1]
    assert result["under_replicated"] == []
    assert "endpoints" not in result
    assert absent not in standin.kcat_metadata(run_client, bootstrap)["leaders"], "the module created a topic"


def test_an_unresolvable_advertised_host_is_unreachable_with_a_resolution_error(standins, run_client, tmp_path):
    lookup = run_client(["getent", "hosts", UNRESOLVABLE_HOST], timeout=30)
    assert lookup.returncode != 0, f"{UNRESOLVABLE_HOST} resolves here\n{lookup}"
    port = standin.free_port("127.0.0.1")
    props = standin.plaintext_broker(1, {"PLAINTEXT": ("127.0.0.1", port, UNRESOLVABLE_HOST)}, "PLAINTEXT")
    standins.start("b1", props, tmp_path)
    bootstrap = f"127.0.0.1:{port}"

    ok, result, _stderr = kafka_metadata(run_client, bootstrap=[bootstrap], check_endpoints=True, timeout=5)

    # SUCCESS, not UNREACHABLE!: a truthy "unreachable" key would make Ansible drop the managed node
    assert ok, result
    assert "unreachable" not in result
    kcat = standin.kcat_metadata(run_client, bootstrap)
    assert listed(result) == kcat["brokers"] == {1: f"{UNRESOLVABLE_HOST}:{port}"}
    (unreachable,) = result["unreachable_endpoints"]
    assert {key: unreachable[key] for key in ("node_id", "host", "port", "resolvable", "addresses", "connectable")} == {
        "node_id": 1, "host": UNRESOLVABLE_HOST, "port": port, "resolvable": False, "addresses": [],
        "connectable": False,
    }
    assert unreachable["error"], "a resolution failure must say why"
    assert result["endpoints"] == result["unreachable_endpoints"]
    assert result["summary"] == (
        f"bootstrap {bootstrap} reachable, but advertised host {UNRESOLVABLE_HOST} does not resolve from this host: "
        f"{UNRESOLVABLE_CONSEQUENCE}"
    )


def test_an_advertised_port_nothing_listens_on_is_unreachable(standins, run_client, tmp_path):
    port, advertised_port = standin.free_port("127.0.0.1"), standin.free_port("127.0.0.1")
    props = {
        "broker.id": "1",
        "listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{advertised_port}",
    }
    standins.start("b1", props, tmp_path)

    ok, result, _stderr = kafka_metadata(run_client, bootstrap=[f"127.0.0.1:{port}"], check_endpoints=True)

    assert ok, result
    (unreachable,) = result["unreachable_endpoints"]
    assert (unreachable["port"], unreachable["resolvable"], unreachable["addresses"], unreachable["connectable"]) == (
        advertised_port, True, ["127.0.0.1"], False)
    assert "Connection refused" in unreachable["error"]
    assert (
        f"advertised endpoint 127.0.0.1:{advertised_port} resolves but does not accept connections from this host"
        in result["summary"]
    )


def test_no_reachable_bootstrap_server_fails_listing_each_one(run_client):
    closed = standin.free_port("127.0.0.1")  # handed out, never bound again: nothing listens there
    servers = [f"{UNRESOLVABLE_HOST}:9092", f"127.0.0.1:{closed}"]

    ok, result, _stderr = kafka_metadata(run_client, bootstrap=servers, timeout=5)

    assert not ok
    assert result["msg"].startswith("no bootstrap server answered Metadata: ")
    assert f"{UNRESOLVABLE_HOST}:9092: {UNRESOLVABLE_HOST} does not resolve from this host" in result["msg"]
    assert f"127.0.0.1:{closed}: TCP connect failed (127.0.0.1:{closed}: Connection refused)" in result["msg"]
    assert [failure["server"] for failure in result["failures"]] == servers


def test_a_controller_listener_is_named_as_the_wrong_bootstrap(standins, run_client, tmp_path):
    broker_port, controller_port = standin.free_port("127.0.0.1"), standin.free_port("127.0.0.1")
    standins.start(
        "combined",
        {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
            "listeners": f"PLAINTEXT://127.0.0.1:{broker_port},CONTROLLER://127.0.0.1:{controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker_port}",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        },
        tmp_path,
    )

    ok, result, _stderr = kafka_metadata(run_client, bootstrap=[f"127.0.0.1:{controller_port}"])
    assert not ok
    assert "does not offer Metadata in its ApiVersions answer (a controller listener serves only ApiVersions" in (
        result["msg"])

    ok, result, _stderr = kafka_metadata(
        run_client, bootstrap=[f"127.0.0.1:{controller_port}", f"127.0.0.1:{broker_port}"]
    )
    assert ok, result
    assert result["bootstrap_used"] == f"127.0.0.1:{broker_port}"
    assert result["bootstrap_errors"][0]["server"] == f"127.0.0.1:{controller_port}"
    assert listed(result) == {1: f"127.0.0.1:{broker_port}"}


@pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl CLI is not installed")
def test_ssl_listener(standins, run_client, tmp_path):
    props, port, ca = standin.ssl_broker(tmp_path)
    standins.start("ssl", props, tmp_path / "state")
    bootstrap = f"localhost:{port}"
    tls = ("-X", "security.protocol=SSL", "-X", f"ssl.ca.location={ca}")

    ok, result, _stderr = kafka_metadata(
        run_client, bootstrap=[bootstrap], security_protocol="SSL", ssl_ca_file=str(ca), check_endpoints=True
    )
    assert ok, result
    assert listed(result) == standin.kcat_metadata(run_client, bootstrap, extra=tls)["brokers"] == {
        1: f"localhost:{port}"
    }
    assert result["unreachable_endpoints"] == []

    # The certificate names localhost and 127.0.0.1 only: another expected name fails verification.
    ok, result, _stderr = kafka_metadata(
        run_client, bootstrap=[bootstrap], security_protocol="SSL", ssl_ca_file=str(ca),
        ssl_server_hostname="broker.example",
    )
    assert not ok
    assert "TLS certificate verification failed for broker.example" in result["msg"]

    # The system CAs do not know the lab CA.
    ok, result, _stderr = kafka_metadata(run_client, bootstrap=[bootstrap], security_protocol="SSL")
    assert not ok
    assert "TLS certificate verification failed for localhost" in result["msg"]

    # A PLAINTEXT client on the SSL listener is told what to change.
    ok, result, _stderr = kafka_metadata(run_client, bootstrap=[bootstrap], timeout=5)
    assert not ok
    assert "ApiVersions v3" in result["msg"]
    assert "set security_protocol to SSL" in result["msg"]
