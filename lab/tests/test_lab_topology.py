"""The lab's pure parts (no root needed): scenarios, names, addresses, NAT rules, configs, inventory, DNS records."""

from __future__ import annotations

import ipaddress
import json
import re
import uuid

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import plan_listeners
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import parse_properties
from kafkaops_lab import cloud, dns, inventory, kafka_config, lab, netns, nodes, scenario, security, topology
from kafkaops_lab.state import LabDir

IMDS_ALLOWED_KEYS = {"provider", "instance_id", "region", "zone", "private_ip", "private_dns", "public_ip",
                     "public_dns", "network_id", "hostname", "mac", "project_id", "project_number", "imdsv1",
                     "region_code", "vnic_id"}


def build(name: str, brokers: int | None = None, prefix: str = "kt0001") -> topology.Topology:
    return topology.build(prefix, scenario.load(name), brokers)


def test_every_shipped_scenario_loads_and_builds():
    names = scenario.available()
    for required in ("aws-split-horizon", "aws-private-dns-only", "gcp", "azure", "docker-host", "dns-blackhole",
                     "kraft-separate-controllers"):
        assert required in names
    for name in names:
        topo = build(name)
        assert topo.by_role("router") and topo.by_role("control")
        assert [n for n in topo.kafka_nodes() if "broker" in n.kafka_roles], name


def test_unknown_scenario_names_the_known_ones():
    with pytest.raises(scenario.ScenarioError, match="scenario 'nope' not found .*aws-split-horizon"):
        scenario.load("nope")


@pytest.mark.parametrize(("data", "message"), [
    ({"provider": "moon"}, "key 'provider' must be one of"),
    ({"provider": "aws", "brokers": 0}, "key 'brokers' must be an integer 1..80"),
    ({"provider": "aws", "colour": "red"}, "unknown keys \\['colour'\\]"),
    ({"provider": "aws", "public_names_in_vpc": "yes"}, "key 'public_names_in_vpc' must be one of"),
    ({"provider": "aws", "layout": "docker-host", "brokers": 2}, "exactly one broker container"),
    ({"provider": "aws", "peered_vpc": 1}, "key 'peered_vpc' must be true or false"),
    ({"provider": "aws", "layout": "docker-host", "brokers": 1, "peered_vpc": True}, "'peered_vpc' needs layout 'vpc'"),
    ({"provider": "aws", "private_endpoints": "yes"}, "key 'private_endpoints' must be true or false"),
    ({"provider": "aws", "install": "tarball"}, "key 'install' must be one of"),
    ({"provider": "aws", "install": "shipped", "quorum": "zookeeper"}, "install 'shipped' needs quorum 'kraft'"),
    ({"provider": "aws", "install": "shipped", "controllers": 3}, "combined nodes"),
])
def test_bad_scenario_files_say_which_key_is_wrong(data, message):
    with pytest.raises(scenario.ScenarioError, match=message):
        scenario.from_mapping("x", data, "x.json")


@pytest.mark.parametrize("prefix", ["", "a", "KL12", "kl-1", "1abc", "abcdefghijk"])
def test_bad_prefixes_are_refused(prefix):
    with pytest.raises(topology.TopologyError, match="prefix"):
        topology.check_prefix(prefix)


def test_aws_names_follow_ec2():
    topo = build("aws-private-dns-only")
    b1 = topo.node("b1")
    assert (b1.private_ip, b1.public_ip) == ("198.18.0.11", "198.19.0.11")
    assert topo.private_dns(b1) == "ip-198-18-0-11.us-west-2.compute.internal"
    assert topo.public_dns(b1) == "ec2-198-19-0-11.us-west-2.compute.amazonaws.com"
    assert topo.hostname(b1) == topo.private_dns(b1)
    assert topo.identity(b1).dmi["product_uuid"].startswith("ec2")
    assert cloud.aws_private_dns("10.0.0.5", "us-east-1") == "ip-10-0-0-5.ec2.internal"


def test_gcp_and_azure_have_internal_names_and_no_public_dns():
    gcp = build("gcp")
    b2 = gcp.node("b2")
    assert gcp.private_dns(b2) == "b2.c.kafkaops-lab.internal"
    assert gcp.hostname(b2) == "b2"
    assert gcp.public_dns(b2) is None and b2.public_ip == "198.19.0.12"
    assert gcp.identity(b2).dmi["product_name"] == "Google Compute Engine"
    azure = build("azure")
    ident = azure.identity(azure.node("b1"))
    assert ident.private_dns.startswith("b1.") and ident.private_dns.endswith(".internal.cloudapp.net")
    assert ident.public_dns is None
    assert ident.dmi["chassis_asset_tag"] == "7783-7084-3265-9085-8269-3286-77"


@pytest.mark.parametrize("provider", cloud.PROVIDERS)
def test_metadata_values_match_the_emulator_schema(provider):
    topo = topology.build("kt0001", scenario.from_mapping(provider, {"provider": provider}, "test"))
    for node in topo.nodes:
        if node.vm:
            values = topo.identity(node).metadata
            assert set(values) <= IMDS_ALLOWED_KEYS
            assert values["provider"] == provider and values["private_ip"] == node.private_ip
            assert values["mac"] == node.mac


def test_dmi_strings_identify_each_provider():
    expected = {"openstack": ("product_name", "OpenStack Nova"), "oci": ("chassis_asset_tag", "OracleCloud.com"),
                "digitalocean": ("sys_vendor", "DigitalOcean"), "hetzner": ("sys_vendor", "Hetzner")}
    for provider, (key, value) in expected.items():
        placement = cloud.Placement(provider, "r", "z", "p", "seed")
        assert cloud.identity(placement, "b1", "198.18.0.11", None, "0a:00:00:00:00:01").dmi[key] == value


def test_docker_host_layout():
    topo = build("docker-host")
    dhost, kafka0, kcat0 = topo.node("dhost"), topo.node("kafka0"), topo.node("kcat0")
    assert dhost.vm and dhost.ssh and dhost.public_ip
    assert kafka0.network == "container" and kafka0.parent == "dhost" and kafka0.private_ip == "198.18.1.2"
    assert topo.bootstrap(kcat0) == ["kafka0:29092"]
    assert topo.bootstrap(dhost) == ["localhost:9092"]
    assert topo.bootstrap(topo.node("laptop")) == ["never-gonna-give-you-up:29094"]


def test_kraft_separate_controllers_and_combined_voters():
    topo = build("kraft-separate-controllers")
    assert [n.kafka_roles for n in topo.by_role("controller")] == [["controller"]] * 3
    assert all(n.kafka_roles == ["broker"] for n in topo.by_role("broker"))
    combined = build("aws-private-dns-only", brokers=5)
    roles = [n.kafka_roles for n in combined.by_role("broker")]
    assert roles == [["broker", "controller"]] * 3 + [["broker"]] * 2


def test_zookeeper_mode_brokers_have_no_process_roles_and_a_zookeeper_node(tmp_path):
    topo = build("aws-zookeeper")
    zookeeper = topo.node("zk1")
    assert (zookeeper.role, zookeeper.private_ip, zookeeper.kafka_roles) == ("zookeeper", "198.18.0.5", [])
    assert topo.zookeeper_connect() == "198.18.0.5:2181"
    assert all(topo.process_roles(n) == [] for n in topo.by_role("broker")) and not topo.by_role("controller")
    props = kafka_config.fresh_zookeeper_mode_properties(1, topo.zookeeper_connect()).splitlines()
    assert "broker.id=1" in props and "zookeeper.connect=198.18.0.5:2181" in props
    assert not [line for line in props if line.startswith(("process.roles", "node.id", "controller."))]
    assert "kafka_process_roles: []" in inventory.render(topo, LabDir("kt0001", root=tmp_path))
    kraft = build("aws-private-dns-only")
    assert [kraft.process_roles(n) for n in kraft.by_role("broker")] == [["broker", "controller"]] * 3
    with pytest.raises(scenario.ScenarioError, match="quorum 'zookeeper' needs layout 'vpc' and no KRaft controllers"):
        scenario.from_mapping("x", {"provider": "aws", "quorum": "zookeeper", "controllers": 3}, "x.json")


def test_interface_names_fit_and_devices_never_land_in_the_root_namespace():
    largest = {"aws-private-dns-only": scenario.MAX_BROKERS, "docker-host": None, "kraft-separate-controllers": None,
               "aws-four-networks": scenario.MAX_BROKERS}
    for name, brokers in largest.items():
        topo = build(name, brokers)
        for line in netns.root_batch(topo):
            if line.startswith("link add"):
                words = line.split()
                assert len(words[2]) <= netns.MAX_IFNAME
                assert words[3] == "netns" and words[4].startswith("kt0001-"), line
                if "peer" in words:
                    peer = words[words.index("peer") + 2]
                    assert len(peer) <= netns.MAX_IFNAME
                    assert words[words.index("peer") + 3] == "netns"


def test_router_nat_is_one_to_one_per_instance():
    topo = build("aws-private-dns-only", brokers=2)
    rules = netns.router_rules(topo)
    assert "-A PREROUTING -d 198.19.0.11/32 -j DNAT --to-destination 198.18.0.11" in rules
    assert "-A POSTROUTING -s 198.18.0.12/32 -o br-inet -j SNAT --to-source 198.19.0.12" in rules
    assert "-A FORWARD -i br-inet -d 198.18.0.0/24 -j REJECT" in rules
    assert "192.0.2." not in rules and "203.0.113." not in rules


def test_four_networks_place_a_client_on_each_and_peer_the_second_vpc_without_nat(tmp_path):
    topo = build("aws-four-networks", brokers=2)
    networks = {node.name: (node.network, node.client_network) for node in topo.by_role("client")}
    assert networks == {"client": ("vpc", "vpc"), "laptop": ("internet", "internet"),
                        "nlb-laptop": ("internet", "internet-nlb"), "peer": ("peered", "peered-vpc")}
    peer, b2 = topo.node("peer"), topo.node("b2")
    assert ipaddress.ip_address(peer.private_ip) in topology.PEERED.net
    assert topo.bootstrap(peer) == [f"b1.{topology.PEERED.zone}:9092", f"b2.{topology.PEERED.zone}:9092"]
    balancer = topo.load_balancer()
    assert topo.bootstrap(topo.node("nlb-laptop")) == [f"{balancer}:9101", f"{balancer}:9102"]
    # the peered resolver answers its own zone only: each broker's private IP, never the VPC's names
    assert dns.side_records(topo, topology.PEERED) == [(topo.node("b1").private_ip, f"b1.{topology.PEERED.zone}"),
                                        (b2.private_ip, f"b2.{topology.PEERED.zone}")]
    assert f"nameserver {topology.PEERED.dns_ip}\n" in dns.resolv_conf(topo, peer)
    assert "link add br-peer netns kt0001-router type bridge" in netns.root_batch(topo)
    router = netns.namespace_batches(topo)["kt0001-router"]
    assert "link set v-peer master br-peer" in router and "link set v-peer-dns master br-peer" in router
    assert f"route add default via {topology.PEERED.gateway}" in netns.namespace_batches(topo)["kt0001-peer"]
    rules = netns.router_rules(topo).splitlines()
    # routed to the VPC's private addresses, refused where the router NATs (public IPs, the load balancer)
    refused = "-A FORWARD -i br-peer -m conntrack --ctstate DNAT -j REJECT --reject-with icmp-net-unreachable"
    assert rules.index(refused) < rules.index("-A FORWARD -i br-peer -o br-vpc -d 198.18.0.0/24 -j ACCEPT")
    assert "-A FORWARD -i br-peer -j REJECT --reject-with icmp-net-unreachable" in rules
    assert not [rule for rule in rules if "SNAT" in rule and str(topology.PEERED.net) in rule]
    text = inventory.render(topo, LabDir("kt0001", root=tmp_path))
    assert 'kafka_client_network: "peered-vpc"' in text and 'kafka_client_network: "internet-nlb"' in text
    assert f'ansible_host: "{peer.private_ip}"' in text
    assert f'lab_peered_dns: "b2.{topology.PEERED.zone}"' in text and f'lab_load_balancer: "{balancer}"' in text
    without = build("aws-private-dns-only")
    assert "br-peer" not in netns.router_rules(without) and not dns.side_records(without, topology.PEERED)
    assert {node.name for node in without.by_role("client")} == {"client", "laptop"}


def test_private_endpoints_forward_one_address_per_broker_and_route_nothing_else(tmp_path):
    topo = topology.build("kt0001", scenario.from_mapping("pe", {"provider": "aws", "private_endpoints": True}, "pe"),
                          brokers=2)
    client, b2 = topo.node("pe-client"), topo.node("b2")
    side = topology.ENDPOINTS
    assert (client.network, client.client_network, client.private_ip) == ("endpoint", "private-endpoint", "198.18.3.4")
    assert topo.endpoint_ip(b2) == "198.18.3.12" and topo.endpoint_dns(b2) == f"b2.{side.zone}"
    assert topo.bootstrap(client) == [f"b1.{side.zone}:9092", f"b2.{side.zone}:9092"]
    # its resolver names the endpoints, never the brokers' own addresses
    assert dns.side_records(topo, side) == [("198.18.3.11", f"b1.{side.zone}"), ("198.18.3.12", f"b2.{side.zone}")]
    assert f"nameserver {side.dns_ip}\n" in dns.resolv_conf(topo, client)
    router = netns.namespace_batches(topo)["kt0001-router"]
    assert "addr add 198.18.3.12/32 dev br-pe" in router and "link set v-pe-client master br-pe" in router
    rules = netns.router_rules(topo).splitlines()
    assert (f"-A PREROUTING -i br-pe -d 198.18.3.12/32 -p tcp --dport {topology.ENDPOINT_PORT} -j DNAT "
            f"--to-destination {b2.private_ip}:{topology.ENDPOINT_TARGET_PORT}") in rules
    assert "-A POSTROUTING -s 198.18.3.0/24 -o br-vpc -j SNAT --to-source 198.18.0.1" in rules
    # only what an endpoint forwards gets through; into it only Ansible's SSH from the control node
    accept = "-A FORWARD -i br-pe -o br-vpc -m conntrack --ctstate DNAT --ctorigdst 198.18.3.0/24 -j ACCEPT"
    refuse_out = "-A FORWARD -i br-pe -j REJECT --reject-with icmp-net-unreachable"
    ssh = "-A FORWARD -i br-vpc -o br-pe -s 198.18.0.3 -p tcp --dport 22 -j ACCEPT"
    refuse_in = "-A FORWARD -o br-pe -j REJECT --reject-with icmp-net-unreachable"
    order = [rules.index(rule) for rule in (accept, refuse_out, ssh, refuse_in, "-A FORWARD -i br-vpc -j ACCEPT")]
    assert order == sorted(order)
    text = inventory.render(topo, LabDir("kt0001", root=tmp_path))
    assert 'kafka_client_network: "private-endpoint"' in text and f'lab_endpoint_dns: "b2.{side.zone}"' in text


def test_restart_never_reuses_a_public_ip():
    topo = build("aws-private-dns-only")
    b1 = topo.node("b1")
    first = topo.next_public_ip()
    assert first not in topo.used_public_ips()
    topo.retired_public_ips.append(b1.public_ip)
    b1.public_ip = first
    assert topo.next_public_ip() not in {first, "198.19.0.11"}
    again = topology.Topology.from_dict(json.loads(json.dumps(topo.to_dict())))
    assert again.node("b1").public_ip == first and again.retired_public_ips == ["198.19.0.11"]


def test_vpc_resolver_records_per_scenario():
    private_only = build("aws-private-dns-only", brokers=1)
    split = build("aws-split-horizon", brokers=1)
    public = "ec2-198-19-0-11.us-west-2.compute.amazonaws.com"
    assert ("198.18.0.11", public) not in dns.vpc_records(private_only)
    assert ("198.18.0.11", public) in dns.vpc_records(split)
    assert ("198.19.0.11", public) in dns.internet_records(split)
    assert all(not name.endswith(".internal") for _ip, name in dns.internet_records(split))
    assert ("198.19.0.11", topology.DOCKER_EXTERNAL_NAME) in dns.internet_records(build("docker-host"))


def test_resolv_conf_points_each_network_at_its_resolver():
    topo = build("aws-private-dns-only")
    assert "nameserver 198.18.0.2\nsearch us-west-2.compute.internal" in dns.resolv_conf(topo, topo.node("b1"))
    assert "nameserver 198.19.0.2" in dns.resolv_conf(topo, topo.node("laptop"))
    docker = build("docker-host")
    assert "nameserver 198.18.1.1" in dns.resolv_conf(docker, docker.node("kafka0"))


def test_fresh_install_properties_advertise_nothing():
    text = kafka_config.fresh_server_properties(2, ["broker", "controller"], "1@198.18.0.11:9093")
    lines = text.splitlines()
    assert "listeners=PLAINTEXT://:9092,CONTROLLER://:9093" in lines
    assert not any(line.startswith("advertised.listeners") for line in lines)
    assert "node.id=2" in lines and "process.roles=broker,controller" in lines
    controller = kafka_config.fresh_server_properties(101, ["controller"], "101@198.18.0.101:9093").splitlines()
    assert "listeners=CONTROLLER://:9093" in controller
    assert not any(line.startswith("inter.broker.listener.name") for line in controller)


@pytest.mark.parametrize(("variable", "flavor", "expected"), [
    ("KAFKA_ADVERTISED_LISTENERS", "confluent", "advertised.listeners"),
    ("KAFKA_CONFLUENT_SUPPORT__CUSTOMER___ID", "confluent", "confluent.support-customer_id"),
    ("KAFKA_CONFLUENT_SUPPORT__CUSTOMER___ID", "apache", "confluent.support_customer-id"),
])
def test_docker_env_names_follow_each_image(variable, flavor, expected):
    assert kafka_config.property_name(variable, flavor) == expected


def test_docker_env_becomes_properties_like_the_entrypoint():
    env = kafka_config.fresh_docker_env("kafka0", "AAAAAAAAAAAAAAAAAAAAAA")
    props = kafka_config.env_to_properties(env)
    assert props["advertised.listeners"] == "LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092"
    assert "cluster.id" not in props and "CLUSTER_ID" not in props
    derived = kafka_config.env_to_properties({"KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://h:9092",
                                              "KAFKA_HEAP_OPTS": "-Xmx1g"})
    assert derived == {"advertised.listeners": "PLAINTEXT://h:9092", "listeners": "PLAINTEXT://0.0.0.0:9092"}
    with pytest.raises(kafka_config.DockerEnvError, match="CLUSTER_ID"):
        kafka_config.env_to_properties({"KAFKA_PROCESS_ROLES": "broker", "KAFKA_ADVERTISED_LISTENERS": "P://h:1"})
    with pytest.raises(kafka_config.DockerEnvError, match="KAFKA_ADVERTISED_LISTENERS"):
        kafka_config.env_to_properties({"KAFKA_NODE_ID": "1"})


def test_env_file_round_trip_and_errors():
    env = {"KAFKA_NODE_ID": "1", "KAFKA_LISTENERS": "A://x:1"}
    assert kafka_config.parse_env_file(kafka_config.render_env_file(env), "f") == env
    assert kafka_config.parse_env_file('# c\nexport KAFKA_X="a b"\n', "f") == {"KAFKA_X": "a b"}
    with pytest.raises(kafka_config.DockerEnvError, match="f:2: expected KEY=VALUE"):
        kafka_config.parse_env_file("A=1\nnot a line\n", "f")


def test_inventory_groups_and_proxy_command(tmp_path):
    topo = build("kraft-separate-controllers")
    text = inventory.render(topo, LabDir("kt0001", root=tmp_path))
    assert "ProxyCommand=ip netns exec kt0001-ctl nc %h %p" in text
    assert '"ansible_python_interpreter":' not in text  # keys are plain, values quoted
    for group in ("kafka_brokers:", "kafka_controllers:", "kafka_clients:"):
        assert group in text
    assert 'kafka_client_network: "internet"' in text and 'kafka_client_network: "vpc"' in text
    assert 'kafka_dmi_path: "/sys/class/dmi/id"' in text
    assert "ansible_control_path_dir:" in text


def test_inventory_yaml_parses_to_the_expected_structure(tmp_path):
    yaml = pytest.importorskip("yaml", reason="PyYAML (an ansible-core dependency) parses the inventory")
    topo = build("docker-host")
    data = yaml.safe_load(inventory.render(topo, LabDir("kt0001", root=tmp_path)))
    children = data["all"]["children"]
    dhost = children["kafka_brokers"]["hosts"]["dhost"]
    assert dhost["kafka_deployment"] == "docker" and dhost["kafka_container_name"] == "kafka0"
    assert children["kafka_clients"]["hosts"]["dhost"]["kafka_client_network"] == "docker-host"
    assert children["kafka_clients"]["hosts"]["laptop"]["ansible_host"] == "198.19.0.3"


def test_kafka_machines_are_logged_into_as_the_sudo_user_and_clients_as_root(tmp_path):
    yaml = pytest.importorskip("yaml", reason="PyYAML (an ansible-core dependency) parses the inventory")
    for name, kafka_machines, clients in (("kraft-separate-controllers", ["b1", "c1"], ["client", "laptop"]),
                                          ("docker-host", ["dhost"], ["kcat0", "laptop"])):
        topo = build(name)
        lab_dir = LabDir("kt0001", root=tmp_path)
        data = yaml.safe_load(inventory.render(topo, lab_dir))
        assert data["all"]["vars"]["ansible_user"] == "root"
        hosts = {host: values for group in data["all"]["children"].values() for host, values in group["hosts"].items()}
        for host in kafka_machines:  # the cloud image's user, and its system Python (the venv's is under /root)
            assert (hosts[host]["ansible_user"], hosts[host]["ansible_python_interpreter"]) == ("admin",
                                                                                               "/usr/bin/python3")
        for host in clients:
            assert "ansible_user" not in hosts.get(host, {})
        sshd = nodes.sshd_config(lab_dir, topo.node(kafka_machines[0]))
        assert "AuthorizedKeysFile .ssh/authorized_keys" in sshd  # the user's own; root keeps the lab's
        assert sshd.endswith(f"Match User root\n  AuthorizedKeysFile {lab_dir.ssh / 'authorized_keys'}\n")


@pytest.mark.parametrize("layout", sorted(security.LAYOUTS))
@pytest.mark.parametrize("roles", (["broker", "controller"], ["broker"], ["controller"]))
def test_every_secured_layout_starts_by_kafkas_rules_with_the_brokers_login_on_a_sasl_inter_broker_listener(
        layout, roles):
    found = {"key_password": "kp-test", "scram_users": {security.SCRAM_USER: "sp-test"}}
    fresh = kafka_config.fresh_server_properties(1, roles, "1@b1:9093" if "controller" in roles else "101@c1:9093")
    props = parse_properties(security.server_properties(fresh, roles, layout, found)).to_dict()
    assert check_kafka_config(props, kafka_version="4.4.0") == []
    protocols = security.LAYOUTS[layout]
    assert props["listener.security.protocol.map"] == ",".join(f"{k}:{v}" for k, v in protocols.items())
    assert ("ssl.keystore.location" in props) == security.uses_tls(layout)
    internal_login = props.get("listener.name.internal.scram-sha-512.sasl.jaas.config", "")
    if "broker" in roles and protocols["INTERNAL"].startswith("SASL_"):
        assert props["sasl.mechanism.inter.broker.protocol"] == security.SCRAM_MECHANISM
        assert 'username="kafkaops" password="sp-test"' in internal_login
    else:
        assert "sasl.mechanism.inter.broker.protocol" not in props and "password" not in internal_login


def test_cluster_ids_never_start_with_a_dash_as_kafkas_own_do_not(monkeypatch):
    """kafka-storage format reads `-t -...` as a missing cluster id; Kafka's Uuid.randomUuid draws again, so must we."""
    draws = iter([uuid.UUID(bytes=b"\xf8" + bytes(15)), uuid.UUID(bytes=b"\x01" * 16)])
    monkeypatch.setattr(lab.uuid, "uuid4", lambda: next(draws))
    assert lab.cluster_id() == "AQEBAQEBAQEBAQEBAQEBAQ"


@pytest.mark.parametrize("release", ["3.9.2", "4.4.0"])
def test_the_shipped_files_as_adapted_pass_kafkas_startup_rules_and_are_planned_in_service(release):
    """What aws-in-service starts each node from: Kafka accepts it, and the planner keeps what it runs."""
    topo = build("aws-in-service")
    nodes = [node for node in topo.kafka_nodes() if "broker" in node.kafka_roles]
    controllers = [(node.node_id, node.private_ip) for node in nodes]
    facts = []
    for node in nodes:
        text = kafka_config.shipped_server_properties(release, node.node_id, topo.hostname(node), node.private_ip,
                                                      controllers)
        props = parse_properties(text).to_dict()
        assert check_kafka_config(props, kafka_version=release) == [], (release, node.name)
        assert ("controller.quorum.bootstrap.servers" in props) is (release >= "4")
        facts.append({"name": node.name, "node_id": node.node_id, "process_roles": ["broker", "controller"],
                      "private_host": topo.hostname(node), "private_ip": node.private_ip,
                      "public_dns": topo.public_dns(node), "public_ip": node.public_ip,
                      "current_properties": props, "external_checks": []})
    plan = plan_listeners(facts, {"kafka_version": release})
    assert plan["reason"].startswith("in service: kept PLAINTEXT :9092 for the VPC (private names); added EXTERNAL "
                                     ":9094 for the internet"), plan["reason"]
    # the directory ids of --initial-controllers are Kafka Uuids: 22 base64url characters, one per controller
    entries = kafka_config.initial_controllers("kt0001", controllers).split(",")
    assert [entry.split("@")[0] for entry in entries] == [str(node_id) for node_id, _ip in controllers]
    assert all(re.fullmatch(r"[0-9]+@198\.18\.0\.[0-9]+:9093:[A-Za-z0-9_-]{22}", entry) for entry in entries)
