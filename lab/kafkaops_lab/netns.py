"""Network namespaces, links, addresses, routes and NAT of one lab, and the commands that build them.

Every device is created directly inside a lab namespace (`ip link add NAME netns NS ...`), so nothing ever
appears in the root namespace and interface names only need to be unique per namespace (15 characters max):
`eth0` inside nodes, `v-<node>` router-side ports on the bridges `br-vpc` / `br-inet` (both inside the router
namespace), `docker0` / `veth-<container>` inside the Docker host, `imds0` (an ifb device holding
169.254.169.254/32) inside cloud instances.
The router does what an internet gateway does: 1:1 NAT between each instance's public and private address
(DNAT inbound, SNAT outbound, hairpin for VPC hosts that use a public address), SNAT for the rest of the VPC,
and refuses to forward internet traffic to private addresses. A peered VPC (`br-peer`) is routed to and from the
brokers' VPC as a peering connection is: no NAT, source addresses kept, and no way on to the internet side (nor to
the public addresses and load balancer the router NATs). A consumer VPC with private endpoints (`br-pe`) has no
route to anything: only each broker's endpoint, an address of the router there, forwards its port to that broker
(DNAT, and SNAT to the router's VPC address: the broker never sees the consumer's addresses, as behind an endpoint
service's load balancer).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from .topology import (
    CONTAINER_NET,
    DOCKER_BRIDGE_IP,
    DOCKER_PUBLISHED_PORTS,
    ENDPOINT_PORT,
    ENDPOINT_TARGET_PORT,
    ENDPOINTS,
    NLB_PUBLIC_IP,
    PLAINTEXT_PORT,
    PRIVATE_NET,
    PUBLIC_NET,
    ROUTER_PRIVATE_IP,
    ROUTER_PUBLIC_IP,
    Node,
    Topology,
    side_networks,
)

METADATA_IP = "169.254.169.254"
NETNS_RUN_DIR = Path("/run/netns")
ETC_NETNS = Path("/etc/netns")
MAX_IFNAME = 15


class LabError(RuntimeError):
    """A lab operation failed; the message says which step and includes the tool's own error."""


class LabUsageError(LabError):
    """The command asked for something that cannot be (wrong node kind, bad fault name); nothing was changed."""


def run(argv: Sequence[str], *, input_text: str | None = None, timeout: float = 60, check: bool = True,
        what: str | None = None) -> subprocess.CompletedProcess:
    """Run a command and capture its output; LabError with its stderr when it fails and `check` is set."""
    try:
        proc = subprocess.run(list(argv), input=input_text, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise LabError(f"{what or argv[0]}: command {argv[0]!r} not found (install the lab's packages)") from None
    except subprocess.TimeoutExpired:
        raise LabError(f"{what or argv[0]}: no answer within {timeout:g} s: {' '.join(argv)}") from None
    if check and proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip()
        raise LabError(f"{what or argv[0]} failed (exit {proc.returncode}): {' '.join(argv)}\n{detail}")
    return proc


def in_netns(namespace: str, argv: Sequence[str]) -> list[str]:
    """argv run inside `namespace` (with its /etc/netns/<ns>/ files bind-mounted over /etc)."""
    return ["ip", "netns", "exec", namespace, *argv]


def ip_batch(lines: list[str], namespace: str | None = None, what: str = "ip") -> None:
    """Run many `ip` commands in one process (one per line), in `namespace` if given."""
    if not lines:
        return
    argv = ["ip"] + (["-n", namespace] if namespace else []) + ["-batch", "-"]
    run(argv, input_text="\n".join(lines) + "\n", what=what)


def namespaces() -> list[str]:
    """Names of all network namespaces `ip netns` knows."""
    if not NETNS_RUN_DIR.is_dir():
        return []
    return sorted(entry.name for entry in NETNS_RUN_DIR.iterdir())


def lab_namespaces(prefix: str) -> list[str]:
    """Namespaces whose name carries this lab's prefix (`<prefix>-...`)."""
    return [name for name in namespaces() if name.startswith(prefix + "-")]


def namespace_pids(namespace: str) -> list[int]:
    """PIDs of the processes whose network namespace is `namespace`."""
    proc = run(["ip", "netns", "pids", namespace], check=False)
    return [int(token) for token in proc.stdout.split() if token.isdigit()]


def listening_ports(pid: int) -> set[int]:
    """TCP ports in LISTEN state in the network namespace of process `pid` (read from /proc, no traffic)."""
    ports = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 3 and fields[3] == "0A":  # 0A = TCP_LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def pid_alive(pid: int) -> bool:
    """True if `pid` runs and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_listening(pid: int, ports: set[int], timeout: float, what: str) -> None:
    """Wait until `ports` listen in the namespace of `pid`; LabError if the process dies or time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        missing = ports - listening_ports(pid)
        if not missing:
            return
        if not pid_alive(pid):
            raise LabError(f"{what}: process {pid} exited before port(s) {sorted(missing)} listened")
        if time.monotonic() > deadline:
            raise LabError(f"{what}: port(s) {sorted(missing)} not listening after {timeout:g} s")
        time.sleep(0.02)


def terminate(pids: list[int], grace: float = 5.0) -> None:
    """SIGTERM `pids`, then SIGKILL whatever still runs after `grace` seconds."""
    for pid in pids:
        with _ignore_missing():
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(pid_alive(pid) for pid in pids):
        time.sleep(0.02)
    for pid in pids:
        if pid_alive(pid):
            with _ignore_missing():
                os.kill(pid, signal.SIGKILL)


class _ignore_missing:
    """Context manager: a process that is already gone is not an error."""

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        return kind is ProcessLookupError


# ----------------------------------------------------------------------------------------------------------------
# Building the networks
# ----------------------------------------------------------------------------------------------------------------


def router_port(node: Node) -> str:
    """Name of `node`'s veth end on the router's bridge."""
    return _ifname(f"v-{node.name}")


def docker_port(node: Node) -> str:
    """Name of a container's veth end on the Docker host's bridge."""
    return _ifname(f"veth-{node.name}")


def _ifname(name: str) -> str:
    if len(name) > MAX_IFNAME:
        raise LabError(f"interface name {name!r} is longer than {MAX_IFNAME} characters")
    return name


def root_batch(topo: Topology) -> list[str]:
    """`ip -batch` lines run from the root namespace: create the namespaces and every device inside them."""
    router = topo.node("router").namespace
    lines = [f"netns add {node.namespace}" for node in topo.nodes]
    lines += [f"link add br-vpc netns {router} type bridge", f"link add br-inet netns {router} type bridge"]
    lines += [f"link add {side.bridge} netns {router} type bridge" for side in side_networks(topo.scenario)]
    for node in topo.nodes:
        if node.role == "router":
            continue
        mac = f" address {node.mac}" if node.mac else ""
        if node.network == "container":
            parent = topo.node(node.parent).namespace
            peer = f"peer name {docker_port(node)} netns {parent}"
        else:
            peer = f"peer name {router_port(node)} netns {router}"
        lines.append(f"link add eth0 netns {node.namespace}{mac} type veth {peer}")
        if node.vm:
            lines.append(f"link add imds0 netns {node.namespace} type ifb")
        if node.role == "docker-host":
            lines.append(f"link add docker0 netns {node.namespace} type bridge")
    return lines


def namespace_batches(topo: Topology) -> dict[str, list[str]]:
    """Per-namespace `ip -batch` lines: addresses, links up, bridge ports, routes."""
    batches: dict[str, list[str]] = {}
    router_lines = [
        "link set lo up",
        f"addr add {ROUTER_PRIVATE_IP}/{PRIVATE_NET.prefixlen} dev br-vpc",
        f"addr add {ROUTER_PUBLIC_IP}/{PUBLIC_NET.prefixlen} dev br-inet",
        "link set br-vpc up",
        "link set br-inet up",
    ]
    sides = {side.network: side for side in side_networks(topo.scenario)}
    for side in sides.values():
        router_lines += [f"addr add {side.gateway}/{side.net.prefixlen} dev {side.bridge}",
                         f"link set {side.bridge} up"]
    for node in topo.nodes:
        if node.role == "router":
            continue
        lines = ["link set lo up", "link set eth0 up"]
        if node.network == "container":
            parent = topo.node(node.parent)
            lines.append(f"addr add {node.private_ip}/{CONTAINER_NET.prefixlen} dev eth0")
            lines.append(f"route add default via {DOCKER_BRIDGE_IP}")
            batches.setdefault(parent.namespace, []).extend(
                [f"link set {docker_port(node)} master docker0", f"link set {docker_port(node)} up"])
        elif node.network == "vpc" or node.network in sides:
            net, gateway, bridge = ((PRIVATE_NET, ROUTER_PRIVATE_IP, "br-vpc") if node.network == "vpc" else
                                    (sides[node.network].net, sides[node.network].gateway, sides[node.network].bridge))
            lines.append(f"addr add {node.private_ip}/{net.prefixlen} dev eth0")
            lines.append(f"route add default via {gateway}")
            router_lines += [f"link set {router_port(node)} master {bridge}", f"link set {router_port(node)} up"]
        else:  # internet side: its address is public
            lines.append(f"addr add {node.public_ip}/{PUBLIC_NET.prefixlen} dev eth0")
            lines.append(f"route add default via {ROUTER_PUBLIC_IP}")
            router_lines += [f"link set {router_port(node)} master br-inet", f"link set {router_port(node)} up"]
        if node.vm:
            lines += ["link set imds0 up", f"addr add {METADATA_IP}/32 dev imds0"]
        if node.role == "docker-host":
            lines += [f"addr add {DOCKER_BRIDGE_IP}/{CONTAINER_NET.prefixlen} dev docker0", "link set docker0 up"]
        batches.setdefault(node.namespace, [])[:0] = lines  # own lines first, bridge ports after
    router_lines += [f"addr add {ip}/32 dev br-inet" for ip in nat_public_ips(topo)]
    if topo.load_balancer() is not None:
        router_lines.append(f"addr add {NLB_PUBLIC_IP}/32 dev br-inet")
    router_lines += [f"addr add {address}/32 dev {ENDPOINTS.bridge}" for _node, address in endpoints(topo)]
    batches[topo.node("router").namespace] = router_lines
    return batches


def nat_public_ips(topo: Topology) -> list[str]:
    """Public IPs the router answers for (instances in the VPC that have one)."""
    return [node.public_ip for node in topo.nodes if node.network == "vpc" and node.public_ip]


def endpoints(topo: Topology) -> list[tuple[Node, str]]:
    """(broker, the address of its private endpoint) for every broker, when the lab has private endpoints."""
    return [(node, topo.endpoint_ip(node)) for node in topo.nodes if topo.endpoint_ip(node)]


def router_rules(topo: Topology) -> str:
    """The router's iptables-restore input: 1:1 NAT per instance, SNAT for the rest, no inbound to private IPs."""
    vpc = str(PRIVATE_NET)
    nat = ["*nat", ":PREROUTING ACCEPT [0:0]", ":INPUT ACCEPT [0:0]", ":OUTPUT ACCEPT [0:0]",
           ":POSTROUTING ACCEPT [0:0]"]
    for node in topo.nodes:
        if node.network != "vpc" or not node.public_ip:
            continue
        nat.append(f"-A PREROUTING -d {node.public_ip}/32 -j DNAT --to-destination {node.private_ip}")
        nat.append(f"-A POSTROUTING -s {node.private_ip}/32 -o br-inet -j SNAT --to-source {node.public_ip}")
        # hairpin: a VPC host that dials this instance's public IP must see the reply come back via the router
        nat.append(f"-A POSTROUTING -s {node.private_ip}/32 -o br-vpc -m conntrack --ctstate DNAT "
                   f"-j SNAT --to-source {node.public_ip}")
    for name, port in topo.load_balancer_ports().items():
        # the load balancer: one public address, a port per broker, forwarded to that broker's listener port
        nat.append(f"-A PREROUTING -d {NLB_PUBLIC_IP}/32 -p tcp --dport {port} "
                   f"-j DNAT --to-destination {topo.node(name).private_ip}:{PLAINTEXT_PORT}")
    for node, address in endpoints(topo):
        nat.append(f"-A PREROUTING -i {ENDPOINTS.bridge} -d {address}/32 -p tcp --dport {ENDPOINT_PORT} "
                   f"-j DNAT --to-destination {node.private_ip}:{ENDPOINT_TARGET_PORT}")
    if endpoints(topo):
        nat.append(f"-A POSTROUTING -s {ENDPOINTS.net} -o br-vpc -j SNAT --to-source {ROUTER_PRIVATE_IP}")
    nat += [
        f"-A POSTROUTING -s {vpc} -o br-vpc -m conntrack --ctstate DNAT -j SNAT --to-source {ROUTER_PUBLIC_IP}",
        f"-A POSTROUTING -s {vpc} -o br-inet -j SNAT --to-source {ROUTER_PUBLIC_IP}",
        "COMMIT",
    ]
    flt = [
        "*filter", ":INPUT ACCEPT [0:0]", ":FORWARD ACCEPT [0:0]", ":OUTPUT ACCEPT [0:0]",
        "-A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
        *side_network_rules(topo),
        "-A FORWARD -i br-vpc -j ACCEPT",
        "-A FORWARD -i br-inet -o br-inet -j ACCEPT",  # bridged traffic between internet hosts
        "-A FORWARD -i br-inet -m conntrack --ctstate DNAT -j ACCEPT",  # inbound only through 1:1 NAT
        f"-A FORWARD -i br-inet -d {vpc} -j REJECT --reject-with icmp-net-unreachable",
        "-A FORWARD -i br-inet -j REJECT --reject-with icmp-net-unreachable",
        "COMMIT",
    ]
    return "\n".join(nat + flt) + "\n"


def side_network_rules(topo: Topology) -> list[str]:
    """FORWARD rules of the networks beside the VPC. The peered VPC reaches the brokers' VPC by private address only
    (a public address or the load balancer, DNATed by the router, is the internet side: refused); the VPC's own
    rule (-i br-vpc -j ACCEPT) lets it reach the peered VPC. The consumer VPC reaches only what its endpoints
    forward to, and nothing reaches it but SSH from the control node (Ansible's way to its client)."""
    rules = []
    for side in side_networks(topo.scenario):
        reject = "-j REJECT --reject-with icmp-net-unreachable"
        rules.append(f"-A FORWARD -i {side.bridge} -o {side.bridge} -j ACCEPT")  # bridged: its resolver and client
        if side is ENDPOINTS:
            rules += [f"-A FORWARD -i {side.bridge} -o br-vpc -m conntrack --ctstate DNAT --ctorigdst {side.net} "
                      "-j ACCEPT",
                      f"-A FORWARD -i {side.bridge} {reject}",
                      f"-A FORWARD -i br-vpc -o {side.bridge} -s {topo.node('ctl').private_ip} -p tcp --dport 22 "
                      "-j ACCEPT",
                      f"-A FORWARD -o {side.bridge} {reject}"]
        else:
            rules += [f"-A FORWARD -i {side.bridge} -m conntrack --ctstate DNAT {reject}",
                      f"-A FORWARD -i {side.bridge} -o br-vpc -d {PRIVATE_NET} -j ACCEPT",
                      f"-A FORWARD -i {side.bridge} {reject}"]
    return rules


def docker_host_rules() -> str:
    """The Docker host's iptables-restore input: published ports DNAT to the container, containers masqueraded."""
    container_ip = str(CONTAINER_NET.network_address + 2)
    nat = ["*nat", ":PREROUTING ACCEPT [0:0]", ":INPUT ACCEPT [0:0]", ":OUTPUT ACCEPT [0:0]",
           ":POSTROUTING ACCEPT [0:0]"]
    for port in DOCKER_PUBLISHED_PORTS:
        target = f"-j DNAT --to-destination {container_ip}:{port}"
        nat.append(f"-A PREROUTING -m addrtype --dst-type LOCAL -p tcp --dport {port} {target}")
        nat.append(f"-A OUTPUT -m addrtype --dst-type LOCAL -p tcp --dport {port} {target}")
    nat += [
        f"-A POSTROUTING -s {CONTAINER_NET} ! -o docker0 -j MASQUERADE",
        "-A POSTROUTING -s 127.0.0.0/8 -o docker0 -j MASQUERADE",  # localhost:9092 -> container (route_localnet)
        "COMMIT",
    ]
    return "\n".join(nat) + "\n"


def router_sysctls() -> list[str]:
    # no ICMP redirects: hairpinned packets leave by the port they came in, and a redirect would bypass the NAT;
    # no ICMP rate limit: every rejected connect gets its "network unreachable" at once, however many clients retry
    # (rate-limited, some SYNs got no answer and the client saw a timeout instead, depending on timing)
    return ["net.ipv4.ip_forward=1", "net.ipv4.conf.all.send_redirects=0",
            "net.ipv4.conf.default.send_redirects=0", "net.ipv4.conf.br-vpc.send_redirects=0",
            "net.ipv4.icmp_ratelimit=0"]


def docker_host_sysctls() -> list[str]:
    return ["net.ipv4.ip_forward=1", "net.ipv4.conf.docker0.route_localnet=1"]


def configure_firewall(namespace: str, sysctls: list[str], rules: str | None, what: str) -> None:
    """Set `sysctls` and load iptables `rules` (iptables-restore input) inside `namespace`."""
    script = "sysctl -q -w " + " ".join(sysctls) if sysctls else "true"
    if rules is not None:
        script += " && iptables-restore"
    run(in_netns(namespace, ["sh", "-c", script]), input_text=rules, what=what)


def build_networks(topo: Topology) -> None:
    """Create every namespace and device of `topo`, address them and load the router's and Docker host's NAT."""
    ip_batch(root_batch(topo), what="create namespaces and links")
    for namespace, lines in namespace_batches(topo).items():
        ip_batch(lines, namespace, what=f"configure {namespace}")
    configure_firewall(topo.node("router").namespace, router_sysctls(), router_rules(topo), "router NAT")
    for node in topo.by_role("docker-host"):
        configure_firewall(node.namespace, docker_host_sysctls(), docker_host_rules(), "Docker port publishing")


def set_public_ip(topo: Topology, node: Node, old_ip: str | None) -> None:
    """Move `node`'s public address on the router (after topo has the new one) and reload the NAT rules."""
    router = topo.node("router").namespace
    lines = []
    if old_ip:
        lines.append(f"addr del {old_ip}/32 dev br-inet")
    if node.public_ip:
        lines.append(f"addr add {node.public_ip}/32 dev br-inet")
    ip_batch(lines, router, what=f"move public IP of {node.name}")
    configure_firewall(router, [], router_rules(topo), "router NAT")


def write_netns_etc(namespace: str, files: dict[str, str]) -> None:
    """Write /etc/netns/<namespace>/<file> (what `ip netns exec` bind-mounts over /etc/<file>)."""
    directory = ETC_NETNS / namespace
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")


def delete_namespace(namespace: str) -> None:
    """Delete `namespace` (its devices go with it); a namespace that is already gone is fine."""
    if (NETNS_RUN_DIR / namespace).exists():
        run(["ip", "netns", "del", namespace], what=f"delete namespace {namespace}", check=False)
