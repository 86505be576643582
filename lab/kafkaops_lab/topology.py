"""The nodes of one lab: names, namespaces, roles, addresses and the names clients should use.

Address plan (every lab uses the same plan: labs are isolated from each other by their namespaces):
  VPC      198.18.0.0/24  router .1, VPC resolver .2, control .3, in-VPC client .4, ZooKeeper .5, brokers .11..,
                          controllers .101..
  internet 198.19.0.0/24  router .1, internet resolver .2, laptop .3, instance public IPs .11.. (1:1 NAT)
  docker   198.18.1.0/24  inside the Docker host VM: bridge docker0 .1, container kafka0 .2, client container .3
  peered   198.18.2.0/24  a second VPC peered with the brokers' (scenario key peered_vpc): router .1, its own
                          resolver .2, client `peer` .4
  endpoint 198.18.3.0/24  a consumer VPC with a private endpoint per broker (scenario key private_endpoints):
                          router .1, its own resolver .2, client `pe-client` .4, broker N's endpoint .10+N
Nothing here touches the system: the topology is pure data, saved in the lab's state file.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from dataclasses import asdict, dataclass, field

from . import cloud
from .scenario import MAX_BROKERS, Scenario

PRIVATE_NET = ipaddress.IPv4Network("198.18.0.0/24")
PUBLIC_NET = ipaddress.IPv4Network("198.19.0.0/24")
CONTAINER_NET = ipaddress.IPv4Network("198.18.1.0/24")
ROUTER_PRIVATE_IP = "198.18.0.1"
ROUTER_PUBLIC_IP = "198.19.0.1"
VPC_DNS_IP = "198.18.0.2"
INET_DNS_IP = "198.19.0.2"
DOCKER_BRIDGE_IP = "198.18.1.1"
FIRST_INSTANCE_HOST = 11  # brokers start at .11 on both networks
FIRST_CONTROLLER_HOST = 101
ZOOKEEPER_HOST = 5
PUBLIC_POOL_FIRST = 11  # public IPs handed out to instances (and again after a restart-instance)

PLAINTEXT_PORT = 9092
NLB_PUBLIC_IP = "198.19.0.6"  # the load balancer's address on the internet side (scenario key load_balancer)
NLB_BASE_PORT = 9100  # broker N is at NLB_BASE_PORT + N on the load balancer, forwarded to its PLAINTEXT_PORT
NLB_CLIENT_HOST = 4  # `nlb-laptop`, the internet client that reaches the brokers through the load balancer
ENDPOINT_PORT = 9092  # what clients dial on a private endpoint
ENDPOINT_TARGET_PORT = 9096  # the broker port each private endpoint forwards to (its endpoint service's target)
ENDPOINT_FIRST_HOST = 10  # broker N's private endpoint is .10+N in the consumer VPC


@dataclass(frozen=True)
class SideNetwork:
    """A private network beside the brokers' VPC: a bridge on the router (its gateway .1), a resolver of its own (.2)
    answering only its zone, where b<N>.<zone> names broker N's address there, and a client (.4)."""

    network: str  # Node.network of its nodes
    net: ipaddress.IPv4Network
    bridge: str
    zone: str
    resolver: str  # node names
    client: str
    client_network: str  # the client's kafka_client_network

    @property
    def gateway(self) -> str:
        return str(self.net.network_address + 1)

    @property
    def dns_ip(self) -> str:
        return str(self.net.network_address + 2)

    @property
    def client_ip(self) -> str:
        return str(self.net.network_address + 4)


# peered: routed to the brokers' VPC without NAT (a peering connection); its names are the brokers' private IPs.
# endpoint: no route at all; only each broker's private endpoint (an address of the router there) forwards to it.
PEERED = SideNetwork("peered", ipaddress.IPv4Network("198.18.2.0/24"), "br-peer", "kafka.peered.internal", "peer-dns",
                     "peer", "peered-vpc")
ENDPOINTS = SideNetwork("endpoint", ipaddress.IPv4Network("198.18.3.0/24"), "br-pe", "kafka.endpoints.internal",
                        "pe-dns", "pe-client", "private-endpoint")


def side_networks(scenario: Scenario) -> list[SideNetwork]:
    """The private networks beside the VPC that `scenario` asks for."""
    return [side for side, present in ((PEERED, scenario.peered_vpc), (ENDPOINTS, scenario.private_endpoints))
            if present]
CONTROLLER_PORT = 9093
ZOOKEEPER_PORT = 2181
ZOOKEEPER_NODE = "zk1"
DOCKER_CONTAINER = "kafka0"
DOCKER_CLIENT_CONTAINER = "kcat0"
DOCKER_EXTERNAL_NAME = "never-gonna-give-you-up"  # ALICE's host in "Kafka Listeners - Explained"
DOCKER_PUBLISHED_PORTS = (9092, 29094)  # that document's compose file publishes FRED and ALICE

PREFIX_RE = re.compile(r"^[a-z][a-z0-9]{1,9}$")

# role -> what the node gets: its own mount/UTS namespaces ("host"), sshd, fake DMI + metadata emulator ("vm").
ROLES = ("broker", "controller", "client", "control", "router", "dns", "docker-host", "container", "zookeeper")


class TopologyError(ValueError):
    """A lab cannot be laid out as asked (bad prefix, too many brokers, unknown node)."""


@dataclass
class Node:
    """One namespace of the lab and what runs in it."""

    name: str  # short name used on the command line: b1, c1, client, laptop, ctl, router, vpc-dns, ...
    role: str
    namespace: str
    network: str  # vpc | internet | container | peered | endpoint | both (the router)
    private_ip: str | None = None
    public_ip: str | None = None
    host: bool = False  # own mount + UTS namespaces, own /etc, /run, /tmp (a machine, not just a network stack)
    ssh: bool = False  # runs sshd, reachable from Ansible through the control namespace
    vm: bool = False  # a cloud instance: fake DMI directory and metadata emulator on 169.254.169.254
    cloud_named: bool = False  # its names come from the provider (kafkaops_lab.cloud); else `hostname` below
    hostname: str | None = None
    node_id: int | None = None  # Kafka node.id
    kafka_roles: list[str] = field(default_factory=list)  # what it does in Kafka: broker and/or controller
    client_network: str | None = None  # for clients: vpc | internet | internet-nlb | peered-vpc | private-endpoint |
    #                                    docker-host | docker-network
    parent: str | None = None  # for containers: the Docker host node
    mac: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Topology:
    prefix: str
    scenario: Scenario
    placement: cloud.Placement
    nodes: list[Node]
    retired_public_ips: list[str] = field(default_factory=list)  # given up by restart-instance, never reused
    kafka_release: str | None = None  # the Apache Kafka release the nodes run (None: the stand-in)

    def node(self, name: str) -> Node:
        """The node called `name`; TopologyError naming the lab and the known nodes otherwise."""
        for node in self.nodes:
            if node.name == name:
                return node
        known = ", ".join(n.name for n in self.nodes)
        raise TopologyError(f"lab {self.prefix}: node {name} not found (nodes: {known})")

    def by_role(self, *roles: str) -> list[Node]:
        return [node for node in self.nodes if node.role in roles]

    def kafka_nodes(self) -> list[Node]:
        """Nodes that run a Kafka process (brokers, controllers, the broker container)."""
        return [node for node in self.nodes if node.kafka_roles]

    def process_roles(self, node: Node) -> list[str]:
        """process.roles of a Kafka node: its roles under KRaft, none in ZooKeeper mode."""
        return [] if self.scenario.quorum == "zookeeper" else list(node.kafka_roles)

    def zookeeper_connect(self) -> str | None:
        """zookeeper.connect of the lab's ZooKeeper-mode brokers (by IP, so the metadata quorum needs no DNS)."""
        nodes = self.by_role("zookeeper")
        return ",".join(f"{node.private_ip}:{ZOOKEEPER_PORT}" for node in nodes) or None

    def identity(self, node: Node) -> cloud.Identity | None:
        """The cloud's view of `node` (names, DMI, metadata), or None for nodes that are not cloud instances."""
        if not node.cloud_named or node.private_ip is None:
            return None
        return cloud.identity(self.placement, node.name, node.private_ip, node.public_ip, node.mac or "")

    def private_dns(self, node: Node) -> str | None:
        ident = self.identity(node)
        if ident:
            return ident.private_dns
        return node.name if node.network == "container" else None  # the service name on the Docker network

    def public_dns(self, node: Node) -> str | None:
        ident = self.identity(node)
        return ident.public_dns if ident else None

    def hostname(self, node: Node) -> str | None:
        ident = self.identity(node)
        return ident.hostname if ident else node.hostname

    def load_balancer(self) -> str | None:
        """The load balancer's public DNS name, or None when the scenario has none."""
        if self.scenario.load_balancer is None:
            return None
        return f"kafka-nlb.elb.{self.placement.region}.amazonaws.com"

    def load_balancer_ports(self) -> dict[str, int]:
        """{broker node name: its port on the load balancer} (empty without one)."""
        if self.scenario.load_balancer is None:
            return {}
        return {node.name: NLB_BASE_PORT + node.node_id for node in self.kafka_nodes()
                if "broker" in node.kafka_roles and node.network == "vpc"}

    def zone_name(self, node: Node, side: SideNetwork) -> str | None:
        """Broker `node`'s name in `side`'s own zone, or None (not a VPC broker, or the lab lacks `side`)."""
        if side not in side_networks(self.scenario) or "broker" not in node.kafka_roles or node.network != "vpc":
            return None
        return f"{node.name}.{side.zone}"

    def peered_dns(self, node: Node) -> str | None:
        """A broker's name in the peered VPC's own zone (its private IP there), or None without a peered VPC."""
        return self.zone_name(node, PEERED)

    def endpoint_dns(self, node: Node) -> str | None:
        """A broker's private endpoint's name in the consumer VPC's zone, or None without private endpoints."""
        return self.zone_name(node, ENDPOINTS)

    def endpoint_ip(self, node: Node) -> str | None:
        """The address of broker `node`'s private endpoint in the consumer VPC (None without one)."""
        if self.endpoint_dns(node) is None:
            return None
        return str(ENDPOINTS.net.network_address + ENDPOINT_FIRST_HOST + node.node_id)

    def used_public_ips(self) -> set[str]:
        return {node.public_ip for node in self.nodes if node.public_ip}

    def next_public_ip(self) -> str:
        """A public IP no instance holds and none held before in this lab (a stop/start never gets its old IP)."""
        used = self.used_public_ips() | set(self.retired_public_ips)
        for host in range(PUBLIC_POOL_FIRST, 255):
            candidate = str(PUBLIC_NET.network_address + host)
            if candidate not in used:
                return candidate
        raise TopologyError(f"lab {self.prefix}: public address pool {PUBLIC_NET} is exhausted")

    def bootstrap(self, client: Node) -> list[str]:
        """host:port entries a client on `client.client_network` should bootstrap from (all brokers)."""
        brokers = [node for node in self.kafka_nodes() if "broker" in node.kafka_roles]
        network = client.client_network
        if network == "docker-network":
            return [f"{DOCKER_CONTAINER}:29092"]
        if network == "docker-host":
            return [f"localhost:{PLAINTEXT_PORT}"]
        if self.scenario.layout == "docker-host" and network == "internet":
            return [f"{DOCKER_EXTERNAL_NAME}:29094"]
        if network == "internet-nlb":
            return [f"{self.load_balancer()}:{port}" for _name, port in sorted(self.load_balancer_ports().items())]
        if network == "peered-vpc":
            return [f"{self.peered_dns(broker)}:{PLAINTEXT_PORT}" for broker in brokers]
        if network == "private-endpoint":
            return [f"{self.endpoint_dns(broker)}:{ENDPOINT_PORT}" for broker in brokers]
        entries = []
        for broker in brokers:
            if network == "vpc":
                host = self.private_dns(broker) or broker.private_ip
            else:
                host = self.public_dns(broker) or broker.public_ip
            if host:
                entries.append(f"{host}:{PLAINTEXT_PORT}")
        return entries

    def to_dict(self) -> dict:
        return {
            "prefix": self.prefix,
            "scenario": asdict(self.scenario),
            "placement": asdict(self.placement),
            "nodes": [node.to_dict() for node in self.nodes],
            "retired_public_ips": list(self.retired_public_ips),
            "kafka_release": self.kafka_release,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Topology:
        return cls(
            prefix=data["prefix"],
            scenario=Scenario(**data["scenario"]),
            placement=cloud.Placement(**data["placement"]),
            nodes=[Node(**node) for node in data["nodes"]],
            retired_public_ips=list(data.get("retired_public_ips", [])),
            kafka_release=data.get("kafka_release"),
        )


def check_prefix(prefix: str) -> str:
    """Return `prefix` if it can name namespaces (a lowercase letter, then 1-9 lowercase letters/digits)."""
    if not PREFIX_RE.match(prefix):
        raise TopologyError(
            f"prefix {prefix!r} is invalid: use a lowercase letter followed by 1-9 lowercase letters or digits"
        )
    return prefix


def _mac(ip: str) -> str:
    """A locally administered MAC derived from the node's IP (what the metadata emulator reports)."""
    octets = ipaddress.IPv4Address(ip).packed
    return "0a:" + ":".join(f"{b:02x}" for b in octets) + ":01"


def _container_id(prefix: str, name: str) -> str:
    """12 hex characters, the hostname Docker gives a container by default."""
    return hashlib.sha256(f"{prefix}/{name}".encode()).hexdigest()[:12]


def build(prefix: str, scenario: Scenario, brokers: int | None = None, kafka_release: str | None = None) -> Topology:
    """Lay out the lab for `scenario` (with `brokers` overriding the scenario's broker count) on Apache Kafka
    `kafka_release` (None: the stand-in)."""
    check_prefix(prefix)
    count = scenario.brokers if brokers is None else brokers
    if scenario.layout == "docker-host" and count != 1:
        raise TopologyError(f"scenario {scenario.name} runs exactly one broker container; --brokers {count} given")
    if not 1 <= count <= MAX_BROKERS:
        raise TopologyError(f"--brokers must be 1..{MAX_BROKERS}, got {count}")
    placement = cloud.Placement(scenario.provider, scenario.region, scenario.zone, scenario.project, seed=prefix)

    def ns(name: str) -> str:
        return f"{prefix}-{name}"

    def vpc(host: int) -> str:
        return str(PRIVATE_NET.network_address + host)

    def pub(host: int) -> str:
        return str(PUBLIC_NET.network_address + host)

    def outside_client(name: str, network: str, ip: str, client_network: str) -> Node:
        """A client machine outside the brokers' VPC (laptop, nlb-laptop, peer, pe-client)."""
        public = network == "internet"
        return Node(name, "client", ns(name), network, None if public else ip, ip if public else None, host=True,
                    ssh=True, hostname=name, client_network=client_network)

    def vpc_instance(name: str, role: str, host: int, public: bool, **extra) -> Node:
        """A cloud instance in the brokers' VPC (dhost, client, brokers, controllers): reached over SSH, named by the
        cloud, with a MAC made from its private IP and, where `public`, a public IP."""
        return Node(name, role, ns(name), "vpc", vpc(host), pub(host) if public else None, host=True, ssh=True,
                    cloud_named=True, mac=_mac(vpc(host)), **extra)

    def container(name: str, role: str, host: int, **extra) -> Node:
        """A container on the Docker host, named as Docker names it."""
        return Node(name, role, ns(name), "container", str(CONTAINER_NET.network_address + host), host=True,
                    hostname=_container_id(prefix, name), parent="dhost", **extra)

    nodes = [
        Node("router", "router", ns("router"), "both", ROUTER_PRIVATE_IP, ROUTER_PUBLIC_IP),
        Node("vpc-dns", "dns", ns("vpc-dns"), "vpc", VPC_DNS_IP),
        Node("inet-dns", "dns", ns("inet-dns"), "internet", None, INET_DNS_IP),
        Node("ctl", "control", ns("ctl"), "vpc", vpc(3)),
        outside_client("laptop", "internet", pub(3), "internet"),
    ]
    if scenario.load_balancer is not None:
        nodes.append(outside_client("nlb-laptop", "internet", pub(NLB_CLIENT_HOST), "internet-nlb"))
    for side in side_networks(scenario):
        nodes.append(Node(side.resolver, "dns", ns(side.resolver), side.network, side.dns_ip))
        nodes.append(outside_client(side.client, side.network, side.client_ip, side.client_network))
    if scenario.layout == "docker-host":
        nodes += [
            vpc_instance("dhost", "docker-host", FIRST_INSTANCE_HOST, True, vm=True, client_network="docker-host"),
            container(DOCKER_CONTAINER, "broker", 2, node_id=1, kafka_roles=["broker", "controller"]),
            container(DOCKER_CLIENT_CONTAINER, "client", 3, client_network="docker-network"),
        ]
        return Topology(prefix, scenario, placement, nodes, kafka_release=kafka_release)

    nodes.append(vpc_instance("client", "client", 4, False, client_network="vpc"))
    if scenario.quorum == "zookeeper":
        nodes.append(Node(ZOOKEEPER_NODE, "zookeeper", ns(ZOOKEEPER_NODE), "vpc", vpc(ZOOKEEPER_HOST), host=True,
                          hostname=ZOOKEEPER_NODE))
    combined = scenario.controllers == 0 and scenario.quorum == "kraft"
    for index in range(1, count + 1):
        host = FIRST_INSTANCE_HOST + index - 1
        roles = ["broker", "controller"] if combined and index <= 3 else ["broker"]
        nodes.append(vpc_instance(f"b{index}", "broker", host, True, vm=True, node_id=index, kafka_roles=roles))
    for index in range(1, scenario.controllers + 1):
        host = FIRST_CONTROLLER_HOST + index - 1
        nodes.append(vpc_instance(f"c{index}", "controller", host, False, vm=True, node_id=100 + index,
                                  kafka_roles=["controller"]))
    return Topology(prefix, scenario, placement, nodes, kafka_release=kafka_release)
