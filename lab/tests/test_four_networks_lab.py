"""Four client networks on real Apache Kafka (scenario aws-four-networks), the layout of docs' load-balancer and
private-endpoint recipes: the brokers' VPC (`client`), a peered VPC whose own resolver answers only its zone
(`peer`), the internet through a network load balancer (`nlb-laptop`) and the internet direct (`laptop`).

In file order: on a fresh install every network but the VPC fails on the private names the brokers advertise;
site.yml with `broker_networks` (one listener per route) converges and the verify role passes from every network;
kcat, confluent-kafka and kafka-python then round-trip from each network on its own listener, each listing every
broker at that network's address for it; a second site.yml run changes nothing and verifies again.
"""

from __future__ import annotations

import json

import pytest
import real_kafka_pairs as pairs
import scenario_matrix as sm

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_routes import derived_listener_name
from kafkaops_lab.playbook_runs import SITE_PLAYBOOK, run_playbook
from kafkaops_lab.pytest_plugin import REAL_KAFKA_UP_TIMEOUT, scenario_lab

pytestmark = pytest.mark.lab

SCENARIO = "aws-four-networks"
TOPIC = "four-networks"
# client node -> its client network (the lab's kafka_client_network)
CLIENTS = {"client": "vpc", "peer": "peered-vpc", "laptop": "internet", "nlb-laptop": "internet-nlb"}
PORTS = {"vpc": 19092, "peered-vpc": 9095, "internet": 9094, "internet-nlb": 9092}  # the port each broker binds
VERIFY_TASK = "Every advertised endpoint must resolve and connect from this network"


@pytest.fixture(scope="module")
def lab(lab_kcat_required):
    # replicated data would make it a cluster in service, planned to keep its listeners (issue 26)
    with scenario_lab(SCENARIO, kafka="real", timeout=REAL_KAFKA_UP_TIMEOUT,
                      empty="a fresh install: these tests hold the layouts planned for a new cluster") as running:
        yield running


def brokers(lab) -> list[dict]:
    return sorted((node for node in lab.status["nodes"] if node["role"] == "broker"),
                  key=lambda node: node["kafka_node_id"])


def broker_networks(lab) -> list[dict]:
    """The four routes, as an operator writes them: private names, the peered zone's names (a static map: that
    network's resolver knows nothing else), public names, the load balancer's name with a port per broker."""
    balancer = lab.status["load_balancer"]
    return [
        {"name": "vpc", "route": "private", "port": PORTS["vpc"]},
        {"name": "peered-vpc", "route": "static", "port": PORTS["peered-vpc"],
         "endpoints": {node["name"]: f"{node['peered_dns']}:{PORTS['peered-vpc']}" for node in brokers(lab)}},
        {"name": "internet", "route": "public", "port": PORTS["internet"]},
        {"name": "internet-nlb", "route": "load_balancer", "host": balancer["host"], "ports": balancer["ports"],
         "port": PORTS["internet-nlb"]},
    ]


def expected_endpoints(lab, network: str) -> dict[int, str]:
    """{node id: host:port} the brokers must advertise to `network`, from the routes given to site.yml."""
    route = {entry["name"]: entry for entry in broker_networks(lab)}[network]
    out = {}
    for node in brokers(lab):
        if route["route"] == "load_balancer":
            endpoint = f"{route['host']}:{route['ports'][node['name']]}"
        elif route["route"] == "static":
            endpoint = route["endpoints"][node["name"]]
        else:
            host = node["private_dns"] if route["route"] == "private" else node["public_dns"]
            endpoint = f"{host}:{PORTS[network]}"
        out[node["kafka_node_id"]] = endpoint
    return out


def site(lab, workdir):
    run = run_playbook(lab, SITE_PLAYBOOK, workdir, "-e", json.dumps({"broker_networks": broker_networks(lab)}))
    assert run.returncode == 0, run.explain()
    verified = {result["host"]: result["msg"] for result in run.results
                if result["task"].endswith(VERIFY_TASK) and result["status"] == "ok"}
    assert verified.keys() == CLIENTS.keys(), run.explain()
    for node, network in CLIENTS.items():
        # with client networks the verify role also names the endpoint network and listener it probed there
        where = f"({network} network, endpoint network {network} on listener {derived_listener_name(network)})"
        assert f"{where}: all {len(brokers(lab))} advertised endpoints resolve and connect" in verified[node]
    # and each client's probe records name the same endpoint network, with its route
    routes = {entry["name"]: entry["route"] for entry in broker_networks(lab)}
    probed = {(record["client"], record["client_network"], record["endpoint_network"], record["route"])
              for path in (workdir / "records").glob("probes-*.jsonl")
              for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    assert probed == {(node, network, network, routes[network]) for node, network in CLIENTS.items()}
    return run


def test_a_fresh_install_fails_from_every_network_but_the_vpc(lab):
    inside = lab.node("client")["bootstrap_servers"]
    produced = lab.kcat("client", "-P", "-b", inside, "-t", TOPIC, input_text="from-vpc\n")
    assert produced.returncode == 0, produced.stderr
    private = {node["kafka_node_id"]: f"{node['private_dns']}:9092" for node in brokers(lab)}
    outside = [node for node in CLIENTS if node != "client"]
    views = sm.run_parallel([lambda node=node: (sm.kcat_brokers(lab, node, lab.node(node)["bootstrap_servers"])[0],
                                                lab.kcat(node, "-C", "-b", lab.node(node)["bootstrap_servers"],
                                                         "-t", TOPIC, "-o", "beginning", "-e"))
                             for node in outside])
    for node, (listing, consumed) in zip(outside, views, strict=True):
        assert listing == private, node  # the bootstrap works: the route to every broker is there
        assert consumed.returncode != 0, node
        assert "Failed to resolve 'ip-198-18-0-1" in consumed.stderr, (node, consumed.stderr)
        assert "Local: Host resolution failure" in consumed.stderr, (node, consumed.stderr)


def test_site_yml_converges_and_the_verify_role_passes_from_every_network(lab, tmp_path):
    run = site(lab, tmp_path)
    assert {result["host"] for result in run.changed()} >= {node["name"] for node in brokers(lab)}


def test_every_network_round_trips_with_kcat_confluent_kafka_and_kafka_python(lab):
    endpoints = {network: expected_endpoints(lab, network) for network in CLIENTS.values()}
    views = sm.run_parallel([lambda node=node, network=network: pairs.client_view(
        lab, node, ",".join(endpoints[network].values()), f"{TOPIC}-{node}") for node, network in CLIENTS.items()])
    for (node, network), view in zip(CLIENTS.items(), views, strict=True):
        assert view["brokers"] == endpoints[network], node
        assert view["kcat"]["delivered"] and view["kcat"]["consumed"] == ["v"], (node, view["kcat"])
        for library in ("confluent-kafka", "kafka-python"):
            assert view[library]["delivered"] and view[library]["consumed"] == ["v"], (node, library, view[library])


def test_a_second_run_changes_nothing_and_verifies_again(lab, tmp_path):
    run = site(lab, tmp_path)
    assert run.changed() == [], run.explain()
