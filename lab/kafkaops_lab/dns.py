"""DNS per network: one dnsmasq per resolver, and each node's resolv.conf and /etc/hosts.

- VPC resolver (198.18.0.2, namespace `<prefix>-vpc-dns`): private names -> private IPs; with
  `public_names_in_vpc: private_ip` (AWS split horizon) public names too, to the private IPs.
- Internet resolver (198.19.0.2, `<prefix>-inet-dns`): public names -> public IPs (and the Docker host's
  external name); private names never resolve.
- Peered VPC resolver (198.18.2.2, `<prefix>-peer-dns`, scenario key peered_vpc): only its own private zone,
  b<N>.kafka.peered.internal -> broker N's private IP; the brokers' VPC's names never resolve there.
- Consumer VPC resolver (198.18.3.2, `<prefix>-pe-dns`, scenario key private_endpoints): only its own zone,
  b<N>.kafka.endpoints.internal -> the address of broker N's private endpoint there.
- Docker's embedded DNS (198.18.1.1 inside the Docker host): container names, everything else forwarded to the
  VPC resolver.
Both cloud resolvers answer only from their own records: any other name gets an immediate NXDOMAIN.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from . import netns
from .state import LabDir
from .topology import (
    DOCKER_BRIDGE_IP,
    DOCKER_EXTERNAL_NAME,
    ENDPOINTS,
    INET_DNS_IP,
    NLB_PUBLIC_IP,
    PEERED,
    VPC_DNS_IP,
    Node,
    SideNetwork,
    Topology,
    side_networks,
)

# timeout:1 attempts:2 keeps a dead resolver's cost at a few seconds per lookup (glibc's default is 5 s x 2)
RESOLV_OPTIONS = "options timeout:1 attempts:2"
LOCALHOST_LINES = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"

# resolver node name -> (listen address, name of its records file)
RESOLVERS = {"vpc-dns": (VPC_DNS_IP, "vpc"), "inet-dns": (INET_DNS_IP, "inet")}


def vpc_records(topo: Topology) -> list[tuple[str, str]]:
    """(IP, name) records of the VPC resolver; the first name of an IP is also its PTR."""
    records = []
    for node in topo.nodes:
        private_dns = topo.private_dns(node)
        if node.network != "vpc" or not node.cloud_named or not private_dns:
            continue
        records.append((node.private_ip, private_dns))
        public_dns = topo.public_dns(node)
        if public_dns and topo.scenario.public_names_in_vpc == "private_ip":
            records.append((node.private_ip, public_dns))
    return records


def internet_records(topo: Topology) -> list[tuple[str, str]]:
    """(IP, name) records of the internet resolver: public names only."""
    records = []
    for node in topo.nodes:
        public_dns = topo.public_dns(node)
        if node.public_ip and public_dns:
            records.append((node.public_ip, public_dns))
        if node.role == "docker-host" and node.public_ip:
            records.append((node.public_ip, DOCKER_EXTERNAL_NAME))
    if topo.load_balancer() is not None:
        records.append((NLB_PUBLIC_IP, topo.load_balancer()))
    return records


def side_records(topo: Topology, side: SideNetwork) -> list[tuple[str, str]]:
    """(IP, name) records of `side`'s own resolver: its zone's name for each broker, at the broker's private IP
    (peered VPC) or at the address of its endpoint (consumer VPC)."""
    records = []
    for node in topo.nodes:
        name = topo.zone_name(node, side)
        if name:
            records.append((topo.endpoint_ip(node) if side is ENDPOINTS else node.private_ip, name))
    return records


def docker_records(topo: Topology) -> list[tuple[str, str]]:
    """(IP, name) records of Docker's embedded DNS: the containers by service name."""
    return [(node.private_ip, node.name) for node in topo.nodes if node.network == "container"]


def hosts_file(records: list[tuple[str, str]]) -> str:
    return "".join(f"{ip}\t{name}\n" for ip, name in records)


def dnsmasq_config(lab: LabDir, listen: str, records_file: Path, upstream: str | None, log: Path) -> str:
    """A dnsmasq configuration answering from `records_file`, forwarding the rest to `upstream` or NXDOMAIN."""
    lines = [
        "# kafkaops lab resolver",
        "no-resolv", "no-hosts", "no-poll", "bind-interfaces",
        f"listen-address={listen}",
        "user=root", "group=root",
        "pid-file=",
        f"addn-hosts={records_file}",
        "domain-needed",
        "local-ttl=0",
        "log-queries",
        f"log-facility={log}",
    ]
    lines.append(f"server={upstream}" if upstream else "local=/#/")  # local=/#/: unknown names -> NXDOMAIN
    return "\n".join(lines) + "\n"


def resolver_nodes(topo: Topology) -> list[tuple[Node, str, str, str | None]]:
    """(node to run in, listen address, records name, upstream) for every resolver of the lab."""
    out = [(topo.node(name), address, records, None) for name, (address, records) in RESOLVERS.items()]
    for node in topo.by_role("docker-host"):
        out.append((node, DOCKER_BRIDGE_IP, "docker", VPC_DNS_IP))
    for side in side_networks(topo.scenario):
        out.append((topo.node(side.resolver), side.dns_ip, side.network, None))
    return out


def write_records(topo: Topology, lab: LabDir) -> None:
    """(Re)write every resolver's records file from the topology."""
    lab.dns.mkdir(parents=True, exist_ok=True)
    for name, records in (("vpc", vpc_records(topo)), ("inet", internet_records(topo)),
                          ("docker", docker_records(topo)),
                          *((side.network, side_records(topo, side)) for side in (PEERED, ENDPOINTS))):
        path = lab.dns / f"{name}.hosts"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(hosts_file(records), encoding="utf-8")
        tmp.replace(path)


def start_resolvers(topo: Topology, lab: LabDir) -> dict[str, int]:
    """Start every resolver; return {records name: PID}. Waits until each listens on port 53."""
    write_records(topo, lab)
    pids: dict[str, int] = {}
    procs = []
    for node, address, records, upstream in resolver_nodes(topo):
        config = lab.dns / f"{records}.conf"
        config.write_text(dnsmasq_config(lab, address, lab.dns / f"{records}.hosts", upstream,
                                         lab.dns / f"{records}.log"), encoding="utf-8")
        err = open(lab.dns / f"{records}.stderr", "w")  # noqa: SIM115 - handed to the child
        proc = subprocess.Popen(netns.in_netns(node.namespace, ["dnsmasq", "--keep-in-foreground",
                                                                f"--conf-file={config}"]),
                                stdin=subprocess.DEVNULL, stdout=err, stderr=err, start_new_session=True)
        err.close()
        procs.append((records, node, proc))
        pids[records] = proc.pid
    for records, node, proc in procs:
        try:
            netns.wait_listening(proc.pid, {53}, 10, f"{records} resolver in {node.namespace}")
        except netns.LabError as exc:
            detail = (lab.dns / f"{records}.stderr").read_text(errors="replace").strip()
            raise netns.LabError(f"{exc}\n{detail}") from None
    return pids


def reload_resolvers(topo: Topology, lab: LabDir, pids: dict[str, int]) -> None:
    """Rewrite the records and make every dnsmasq re-read them (SIGHUP also empties its cache)."""
    write_records(topo, lab)
    for pid in pids.values():
        if netns.pid_alive(pid):
            os.kill(pid, signal.SIGHUP)


def blackhole_rules(drop: bool) -> str:
    """iptables-restore input for a resolver namespace: drop every DNS packet, or nothing."""
    rules = ["*filter", ":INPUT ACCEPT [0:0]", ":FORWARD ACCEPT [0:0]", ":OUTPUT ACCEPT [0:0]"]
    if drop:
        rules += ["-A INPUT -p udp --dport 53 -j DROP", "-A INPUT -p tcp --dport 53 -j DROP"]
    return "\n".join(rules + ["COMMIT"]) + "\n"


def set_blackhole(topo: Topology, resolver: str, drop: bool) -> None:
    """Make resolver node `resolver` (vpc-dns / inet-dns) silently drop every query, or answer again."""
    node = topo.node(resolver)
    if node.role != "dns":
        raise netns.LabUsageError(f"lab {topo.prefix}: node {resolver} is not a resolver (use vpc-dns or inet-dns)")
    netns.configure_firewall(node.namespace, [], blackhole_rules(drop), f"DNS fault on {resolver}")


def nameserver_for(node: Node) -> str:
    if node.network == "container":
        return DOCKER_BRIDGE_IP
    if node.network == "internet":
        return INET_DNS_IP
    for side in (PEERED, ENDPOINTS):
        if node.network == side.network:
            return side.dns_ip
    return VPC_DNS_IP


def resolv_conf(topo: Topology, node: Node) -> str:
    """The node's /etc/resolv.conf: its network's resolver and the provider's search domains."""
    lines = [f"# kafkaops lab: {node.name} uses the {node.network} resolver", f"nameserver {nameserver_for(node)}"]
    ident = topo.identity(node)
    if ident and ident.search_domains:
        lines.append("search " + " ".join(ident.search_domains))
    lines.append(RESOLV_OPTIONS)
    return "\n".join(lines) + "\n"


def etc_hosts(topo: Topology, node: Node) -> str:
    """The node's /etc/hosts: localhost, plus what the cloud image (or Docker) writes for the node itself."""
    text = LOCALHOST_LINES
    ident = topo.identity(node)
    if ident:
        text += "".join(line + "\n" for line in ident.hosts_lines)
    if node.network == "container" and node.hostname:
        text += f"{node.private_ip}\t{node.hostname}\n"
    return text
