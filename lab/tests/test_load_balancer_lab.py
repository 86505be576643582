"""Routes with something in front of the brokers (scenario aws-nlb): a network load balancer (one public name on the
router, port 9100+N forwarded to broker N's port 9092) and a consumer VPC with a private endpoint per broker (its
port 9092 forwarded to broker N's port 9096, as an endpoint service's load balancer does).

First the failures on a fresh install: the laptop bootstraps through the load balancer, gets the brokers' own
(private) names back, and cannot consume; behind the private endpoints nothing listens yet. Then site.yml with
broker_networks (the VPC on private names, the internet on public names, the load balancer's network on its name
and a port per broker, the endpoints' network on a static map of their names), after which kcat lists every broker
at the load balancer from the laptop and at its endpoint from the consumer VPC, and round-trips a message on each.

Per network: verify from the laptop as a client of the load balancer's network fails first, naming that network, each
broker and the private host it advertised; a route the brokers would use among themselves whose hosts do not resolve
from them is refused before anything is written, naming the network, the broker and the host; after the fix every
client's probe records name its endpoint network and route, and verify passes from the load balancer's network.
"""

from __future__ import annotations

import json

import pytest

from kafkaops_lab import topology
from kafkaops_lab.paths import REPO_ROOT
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, produce_and_consume, run_playbook

pytestmark = pytest.mark.lab

VERIFY_PLAYBOOK = REPO_ROOT / "playbooks" / "verify.yml"

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
    as_nlb_client = ("-e", json.dumps({"broker_networks": networks, "verify_client_network": "internet-nlb"}),
                     "--limit", "kafka_brokers:laptop")
    before = run_playbook(lab, VERIFY_PLAYBOOK, tmp_path / "verify-before", *as_nlb_client)
    assert before.returncode != 0, before.explain()
    where = "laptop (internet-nlb network, endpoint network internet-nlb on listener INTERNET_NLB): "
    assert where in before.stdout, before.explain()
    for name in ports:
        assert f"broker {name} at {private[name]}:9092 (" in before.stdout, before.explain()

    # a route the brokers would use among themselves, on hosts they cannot resolve: refused before any write
    config = {name: lab.exec(name, "cat", "/etc/kafka/server.properties", check=True).stdout for name in ports}
    unresolvable = {name: f"vpce-{name}.no-such-zone.internal:9092" for name in ports}
    link = {"name": "link", "route": "static", "endpoints": unresolvable, "inter_broker": True, "port": 9095}
    refused = run_playbook(lab, SITE_PLAYBOOK, tmp_path / "refused", "-e",
                           json.dumps({"broker_networks": [*networks, link]}))
    assert refused.returncode != 0, refused.explain()
    assert "network link (route static) carries the inter-broker listener LINK" in refused.stdout, refused.explain()
    for name in ports:
        assert f"host vpce-{name}.no-such-zone.internal of broker {name} does not resolve from broker" in \
            refused.stdout, refused.explain()
    assert {name: lab.exec(name, "cat", "/etc/kafka/server.properties", check=True).stdout for name in ports} == config

    run = run_playbook(lab, SITE_PLAYBOOK, tmp_path, "-e", json.dumps({"broker_networks": networks}))
    assert run.returncode == 0, run.explain()
    # the site run's probes: each client on its network's route, as the lab's inventory places the clients
    routes = {entry["name"]: entry["route"] for entry in networks}
    clients = {node["name"]: node["client_network"] for node in lab.status["nodes"] if node["role"] == "client"}
    probed = {(record["client"], record["endpoint_network"], record["route"])
              for path in (tmp_path / "records").glob("probes-*.jsonl")
              for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    assert probed == {(name, network, routes[network]) for name, network in clients.items()}
    assert set(clients.values()) == set(routes), clients

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

    after = run_playbook(lab, VERIFY_PLAYBOOK, tmp_path / "verify-after", *as_nlb_client)
    assert after.returncode == 0, after.explain()
    assert where + "all 3 advertised endpoints resolve and connect" in after.stdout, after.explain()
    records = [record for path in (tmp_path / "verify-after" / "records").glob("probes-*-laptop.jsonl")
               for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())]
    assert sorted((r["client_network"], r["listener"], r["endpoint_network"], r["route"], r["advertised_host"],
                   r["advertised_port"]) for r in records) == sorted(
        ("internet-nlb", "INTERNET_NLB", "internet-nlb", "load_balancer", host, ports[name]) for name in ports)
