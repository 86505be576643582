"""Routes with something in front of the brokers (scenario aws-nlb): a network load balancer (one public name on the
router, port 9100+N forwarded to broker N's port 9092) and a consumer VPC with a private endpoint per broker (its
port 9092 forwarded to broker N's port 9096, as an endpoint service's load balancer does).

First the failures on a fresh install: the laptop bootstraps through the load balancer, gets the brokers' own
(private) names back, and cannot consume; behind the private endpoints nothing listens yet. Then site.yml with
broker_networks (the VPC on private names, the internet on public names, the load balancer's network on its name
and a port per broker, the endpoints' network on a static map of their names), after which kcat lists every broker
at the load balancer from the laptop and at its endpoint from the consumer VPC, and round-trips a message on each.
"""

from __future__ import annotations

import json

import pytest

from kafkaops_lab import topology
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, produce_and_consume, run_playbook

pytestmark = pytest.mark.lab

TOPIC = "through-the-nlb"


def brokers_listed(output: str) -> list[str]:
    """'broker N at host:port' lines of `kcat -L`, without kcat's '(controller)' marker."""
    return [line.strip().split(" (")[0] for line in output.splitlines() if line.strip().startswith("broker ")]


def test_through_the_load_balancer_and_the_endpoints_fails_first_and_round_trips_after_site_yml(lab_factory,
                                                                                                  tmp_path):
    lab = lab_factory("aws-nlb")
    balancer = lab.status["load_balancer"]
    host, ports = balancer["host"], balancer["ports"]
    bootstrap = ",".join(f"{host}:{ports[name]}" for name in sorted(ports))
    private = {name: lab.node(name)["private_dns"] for name in ports}

    listing = lab.kcat("laptop", "-L", "-b", bootstrap)
    assert listing.returncode == 0, listing.stderr
    assert set(brokers_listed(listing.stdout)) == {
        f"broker {lab.node(name)['kafka_node_id']} at {private[name]}:9092" for name in ports}
    # the topic must exist first: a consumer of a missing topic fails differently
    inside = f"{private['b1']}:9092"
    produced = lab.kcat("client", "-P", "-b", inside, "-t", TOPIC, input_text="from-vpc\n")
    assert produced.returncode == 0, produced.stderr
    outside = lab.kcat("laptop", "-C", "-b", bootstrap, "-t", TOPIC, "-o", "beginning", "-e")
    assert outside.returncode != 0
    assert "Failed to resolve 'ip-198-18-0-1" in outside.stderr
    assert "Host resolution failure" in outside.stderr
    endpoint_port, target_port = topology.ENDPOINT_PORT, topology.ENDPOINT_TARGET_PORT
    endpoints = {name: f"{lab.node(name)['endpoint_dns']}:{endpoint_port}" for name in ports}
    through_endpoints = ",".join(endpoints[name] for name in sorted(endpoints))
    consumer = lab.kcat("pe-client", "-L", "-b", through_endpoints, "-m", "3")
    assert consumer.returncode != 0 and "Connection refused" in consumer.stderr, consumer.stderr

    networks = [
        {"name": "vpc", "route": "private", "port": 19092},
        {"name": "internet", "route": "public", "port": 9094},
        # a port per broker, as a map (start-time re-discovery then plans each broker alone with it)
        {"name": "internet-nlb", "route": "load_balancer", "host": host, "ports": ports, "port": 9092},
        {"name": "private-endpoint", "route": "static", "endpoints": endpoints, "port": target_port},
    ]
    run = run_playbook(lab, SITE_PLAYBOOK, tmp_path, "-e", json.dumps({"broker_networks": networks}))
    assert run.returncode == 0, run.explain()

    listing = lab.kcat("laptop", "-L", "-b", bootstrap)
    assert listing.returncode == 0, listing.stderr
    assert set(brokers_listed(listing.stdout)) == {
        f"broker {lab.node(name)['kafka_node_id']} at {host}:{ports[name]}" for name in ports}
    produce_and_consume(lab, "laptop", ["-b", bootstrap], TOPIC)
    listing = lab.kcat("pe-client", "-L", "-b", through_endpoints)
    assert listing.returncode == 0, listing.stderr
    assert set(brokers_listed(listing.stdout)) == {
        f"broker {lab.node(name)['kafka_node_id']} at {endpoints[name]}" for name in ports}
    produce_and_consume(lab, "pe-client", ["-b", through_endpoints], TOPIC)
