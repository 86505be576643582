"""The failures of the documented layouts (Confluent's "Configure Multi-Node Environment", "Kafka Listeners -
Explained"), reproduced with real kcat against the stand-in in the lab, and their fixes by hand."""

from __future__ import annotations

import pytest

from kafkaops_lab.paths import KAFKA_SERVICE, VENV_BIN
from kafkaops_lab.playbook_runs import SET_PROPERTIES

pytestmark = pytest.mark.lab

TOPIC = "listeners-demo"

DOCKER_BOB_FRED_ALICE = {
    "KAFKA_LISTENERS": "LISTENER_BOB://kafka0:29092,LISTENER_FRED://kafka0:9092,LISTENER_ALICE://kafka0:29094,"
                       "CONTROLLER://kafka0:29093",
    "KAFKA_ADVERTISED_LISTENERS": "LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092,"
                                  "LISTENER_ALICE://never-gonna-give-you-up:29094",
    "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "LISTENER_BOB:PLAINTEXT,LISTENER_FRED:PLAINTEXT,LISTENER_ALICE:PLAINTEXT,"
                                            "CONTROLLER:PLAINTEXT",
    "KAFKA_INTER_BROKER_LISTENER_NAME": "LISTENER_BOB",
}


def brokers_listed(output: str) -> list[str]:
    """'broker N at host:port' lines of `kcat -L`, without kcat's '(controller)' marker."""
    return [line.strip().split(" (")[0] for line in output.splitlines() if line.strip().startswith("broker ")]


def test_unresolvable_private_names_then_internal_external_by_hand_on_aws_private_dns_only(lab_factory):
    lab = lab_factory("aws-private-dns-only")
    public = {n: lab.node(n)["public_dns"] for n in ("b1", "b2", "b3")}
    private = {n: lab.node(n)["private_dns"] for n in ("b1", "b2", "b3")}
    bootstrap = f"{public['b1']}:9092"

    listing = lab.kcat("laptop", "-L", "-b", bootstrap)
    assert listing.returncode == 0, listing.stderr
    assert brokers_listed(listing.stdout) == [f"broker {i} at {private[f'b{i}']}:9092" for i in (1, 2, 3)]

    # the topic must exist first: a consumer of a missing topic fails differently
    produced = lab.kcat("client", "-P", "-b", f"{private['b1']}:9092", "-t", TOPIC, input_text="from-vpc\n")
    assert produced.returncode == 0, produced.stderr
    inside = lab.kcat("client", "-C", "-b", f"{private['b1']}:9092", "-t", TOPIC, "-o", "beginning", "-e", "-q")
    assert inside.stdout.splitlines() == ["from-vpc"]
    outside = lab.kcat("laptop", "-C", "-b", bootstrap, "-t", TOPIC, "-o", "beginning", "-e")
    assert outside.returncode != 0
    assert "Failed to resolve 'ip-198-18-0-1" in outside.stderr
    assert "Host resolution failure" in outside.stderr

    # option 2 (INTERNAL/EXTERNAL), written by hand, then the service restarted on every broker
    for node in ("b1", "b2", "b3"):
        roles = lab.node(node)["process_roles"]
        controller = ",CONTROLLER://:9093" if "controller" in roles else ""
        edit = lab.exec(
            node, str(VENV_BIN / "python"), "-c", SET_PROPERTIES,
            f"listeners=INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092{controller}",
            "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
            f"advertised.listeners=INTERNAL://{private[node]}:19092,EXTERNAL://{public[node]}:9092",
            "inter.broker.listener.name=INTERNAL")
        assert edit.returncode == 0, edit.stderr
        restart = lab.exec(node, str(KAFKA_SERVICE), "restart")
        assert restart.returncode == 0, restart.stderr
    listing = lab.kcat("laptop", "-L", "-b", bootstrap)
    assert f"broker 1 at {public['b1']}:9092" in brokers_listed(listing.stdout)
    produced = lab.kcat("laptop", "-P", "-b", bootstrap, "-t", "fixed", input_text="from-laptop\n")
    assert produced.returncode == 0, produced.stderr
    consumed = lab.kcat("laptop", "-C", "-b", bootstrap, "-t", "fixed", "-o", "beginning", "-e", "-q")
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.splitlines() == ["from-laptop"]
    internal = lab.kcat("client", "-L", "-b", f"{private['b2']}:19092")
    assert f"broker 2 at {private['b2']}:19092" in brokers_listed(internal.stdout)


def test_docker_listeners_answer_each_network_with_its_own_name(lab_factory):
    lab = lab_factory("docker-host")
    # the first Docker example (BOB and FRED): outside the host, FRED hands out localhost
    fresh = lab.kcat("laptop", "-L", "-b", "never-gonna-give-you-up:9092")
    assert brokers_listed(fresh.stdout) == ["broker 1 at localhost:9092"]

    env_file = lab.exec("dhost", "cat", "/etc/kafka/kafka0.env", check=True).stdout
    env = dict(line.split("=", 1) for line in env_file.splitlines() if "=" in line)
    env.update(DOCKER_BOB_FRED_ALICE)
    lab.exec("dhost", "sh", "-c", "cat > /etc/kafka/kafka0.env",
             input_text="".join(f"{key}={value}\n" for key, value in env.items()), check=True)
    restart = lab.exec("dhost", str(KAFKA_SERVICE), "restart")
    assert restart.returncode == 0, restart.stderr

    cases = [("kcat0", "kafka0:29092"), ("dhost", "localhost:9092"),
             ("laptop", "never-gonna-give-you-up:29094")]
    for node, bootstrap in cases:
        listing = lab.kcat(node, "-L", "-b", bootstrap)
        assert brokers_listed(listing.stdout) == [f"broker 1 at {bootstrap}"], (node, listing.stderr)
    produced = lab.kcat("laptop", "-P", "-b", "never-gonna-give-you-up:29094", "-t", "alice", input_text="hi\n")
    assert produced.returncode == 0, produced.stderr
    consumed = lab.kcat("kcat0", "-C", "-b", "kafka0:29092", "-t", "alice", "-o", "beginning", "-e", "-q")
    assert consumed.stdout.splitlines() == ["hi"]


def test_a_config_kafka_refuses_fails_the_service_with_kafkas_message(lab_factory):
    lab = lab_factory("aws-private-dns-only", brokers=1)
    edit = lab.exec("b1", str(VENV_BIN / "python"), "-c", SET_PROPERTIES,
                    "listeners=PLAINTEXT://:9092,PLAINTEXT://:9093")
    assert edit.returncode == 0, edit.stderr
    restart = lab.exec("b1", str(KAFKA_SERVICE), "restart")
    assert restart.returncode == 1
    assert "Each listener must have a different name" in restart.stderr
    assert lab.exec("b1", str(KAFKA_SERVICE), "status").returncode == 3
