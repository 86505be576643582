"""Lab life cycle: up, down, status, restart-instance, fault, and the argv that runs a command on a node.

Safety: the lab only creates namespaces named `<prefix>-*`, devices inside them, /etc/netns/<prefix>-*/ and its
state directory. Teardown kills exactly the processes inside the lab's namespaces (`ip netns pids`), deletes
those namespaces (their devices and the holders' mounts go with them) and the files, and works from whatever a
half-finished `up` left behind, because it finds everything by the prefix rather than by the saved state.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import time
import uuid
from pathlib import Path

from . import dns, inventory, kafka_real, logins, netns, nodes, scenario, security, seeded, state, topology
from .netns import LabError, LabUsageError
from .state import LabDir
from .topology import Topology

SUDO = "/usr/bin/sudo"
REQUIRED_TOOLS = ("ip", "unshare", "nsenter", "dnsmasq", "ssh-keygen", "nc", "iptables-restore", "sysctl")
IMDS_FAULTS = ("down", "slow", "token_refused", "garbage")
FAIL_AFTER_ENV = "KAFKAOPS_LAB_FAIL_AFTER"  # test hook: make `up` fail after the named step
ETC_NETNS_MARKER = ".etc-netns-created-by-lab"  # in the state root: /etc/netns did not exist before a lab


def require_root(action: str) -> None:
    if os.geteuid() != 0:
        raise LabError(f"lab {action}: needs root (network namespaces, mounts, iptables)")


def require_tools() -> None:
    missing = [tool for tool in REQUIRED_TOOLS if shutil.which(tool) is None]
    # the Kafka machines' login user escalates with sudo and runs modules with the system Python (logins.py)
    missing += [path for path in (nodes.SSHD, SUDO, logins.SYSTEM_PYTHON) if not os.path.exists(path)]
    if missing:
        raise LabError(f"lab up: missing tools {', '.join(missing)} (tools/install-system-deps installs them; or "
                       "apt-get install openssh-server dnsmasq-base netcat-openbsd iproute2 iptables procps "
                       "util-linux kcat sudo python3)")


def cluster_id() -> str:
    """A KRaft cluster id: 16 random bytes, base64url without padding (what kafka-storage random-uuid prints).

    Like Kafka's own Uuid.randomUuid, never one that starts with "-": kafka-storage format would read `-t -...` as a
    missing cluster id (one draw in 64 did, and a clean-clone run's real-Kafka lab failed to format its storage)."""
    while True:
        candidate = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not candidate.startswith("-"):
            return candidate


def load(prefix: str | None) -> tuple[LabDir, dict, Topology]:
    """The lab `prefix` (or the only running one): its directory, saved state and topology."""
    lab = LabDir(state.resolve_prefix(prefix))
    saved = lab.load()
    return lab, saved, Topology.from_dict(saved["topology"])


def _mark_etc_netns() -> None:
    """Create /etc/netns if missing, remembering that a lab created it (so the last teardown removes it). Labs
    brought up at the same time race for it: the one whose mkdir fails found it made by another, which marks it."""
    if not netns.ETC_NETNS.exists():
        try:
            netns.ETC_NETNS.mkdir(parents=True)
        except FileExistsError:
            return
        state.state_root().mkdir(parents=True, exist_ok=True)
        (state.state_root() / ETC_NETNS_MARKER).touch()


def up(scenario_name: str, brokers: int | None = None, prefix: str | None = None, kafka_home: str | None = None,
       keep_on_failure: bool = False, progress=None, kafka: str | None = None, empty: bool = False) -> dict:
    """Bring a lab up and return its status; on failure tear down what was built (unless keep_on_failure).

    The broker is the stand-in unless `kafka` (`real[:VERSION]`), $KAFKAOPS_LAB_KAFKA or the scenario's `kafka`
    key asks for Apache Kafka (fetched into the cache first when missing), or `kafka_home` names a release.
    Real Kafka gets the seeded topic (seeded.py) unless `empty`.
    """
    require_root("up")
    require_tools()
    chosen = scenario.load(scenario_name)
    taken = set(state.running_prefixes()) | {name.split("-", 1)[0] for name in netns.namespaces()}
    prefix = topology.check_prefix(prefix) if prefix else state.new_prefix(taken)
    if prefix in taken or LabDir(prefix).path.exists():
        raise LabUsageError(f"lab {prefix} already exists: `lab down --prefix {prefix}` first")
    if kafka_home:
        if not any((Path(kafka_home) / "libs").glob("kafka_2.13-*.jar")):
            raise LabUsageError(f"--kafka-home {kafka_home}: no libs/kafka_2.13-*.jar there")
        kafka_kind = f"real:{kafka_home}"
    else:
        try:
            kind, version = kafka_real.choose(kafka, chosen.kafka)
            if chosen.quorum == "zookeeper" and version and not kafka_real.supports_zookeeper(version):
                raise LabUsageError(f"lab up: scenario {chosen.name} runs brokers in ZooKeeper mode, which Apache "
                                    f"Kafka {version} no longer has (removed in 4.0): use a 3.x release or standin")
            kafka_home = str(kafka_real.ensure_release(version)) if version else None
        except kafka_real.KafkaChoiceError as exc:
            raise LabUsageError(f"lab up: {exc}") from None
        kafka_kind = f"{kind}:{version}" if version else kind
    if chosen.install == "shipped" and not kafka_home:
        raise LabUsageError(f"lab up: scenario {chosen.name} starts from Kafka's shipped files of a release, which "
                            "the stand-in has none of: use --kafka real")
    if chosen.security and not kafka_home:
        raise LabUsageError(f"lab up: scenario {chosen.name} starts secured ({chosen.security}), which the stand-in "
                            "does not serve (no SASL): use --kafka real")
    topo = topology.build(prefix, chosen, brokers, kafka_real.release_of(Path(kafka_home)) if kafka_home else None)
    lab = LabDir(prefix)
    say = progress or (lambda _message: None)
    timings: dict[str, float] = {}
    saved = {"prefix": prefix, "status": "starting", "started_at": time.time(), "topology": topo.to_dict(),
             "cluster_id": cluster_id(), "kafka": kafka_kind, "kafka_home": kafka_home, "holders": {}, "services": {},
             "resolvers": {}, "timings": timings}
    with lab.lock():
        lab.save(saved)
        try:
            clock = time.monotonic()

            def step(name: str) -> None:
                nonlocal clock
                now = time.monotonic()
                timings[name] = round(now - clock, 3)
                clock = now
                if os.environ.get(FAIL_AFTER_ENV) == name:  # lets tests check teardown of a half-built lab
                    raise LabError(f"lab {prefix}: failure injected after step {name!r} (${FAIL_AFTER_ENV})")

            _mark_etc_netns()
            nodes.generate_ssh_keys(topo, lab)
            if chosen.security:
                security.make_pki(lab.path / "pki", nodes.certificate_names(topo))
            for node in topo.nodes:
                nodes.write_node_files(topo, lab, node, saved["cluster_id"], kafka_home)
                netns.write_netns_etc(node.namespace, {"resolv.conf": dns.resolv_conf(topo, node),
                                                       "hosts": dns.etc_hosts(topo, node)})
            step("files")
            say(f"lab {prefix}: networks")
            netns.build_networks(topo)
            step("networks")
            saved["resolvers"] = dns.start_resolvers(topo, lab)
            step("resolvers")
            say(f"lab {prefix}: nodes")
            saved["holders"] = nodes.start_holders(topo, lab)
            lab.save(saved)
            step("holders")
            saved["services"] = nodes.start_services(topo, lab, saved["holders"])
            lab.save(saved)
            step("sshd+metadata")
            say(f"lab {prefix}: brokers")
            nodes.start_kafka(topo, saved["holders"], timeout=nodes.REAL_KAFKA_START_TIMEOUT if kafka_home else 90,
                              zookeeper=bool(kafka_home) and chosen.quorum == "zookeeper")
            saved["cluster_formed"] = nodes.wait_cluster(
                topo, lab_pki_ca=str(lab.path / "pki" / "ca.pem") if chosen.security else None)
            step("kafka")
            if kafka_home:
                brokers_up = sum("broker" in node.kafka_roles for node in topo.kafka_nodes())
                saved["seeded"] = seeded.plan(brokers_up, bool(chosen.security), empty)
                if "skipped" not in saved["seeded"]:
                    say(f"lab {prefix}: seeding {seeded.TOPIC}")
                    saved["seeded"] = seeded.seed(prefix, seeded.clients(topo, _argv_of(prefix)), saved["seeded"])
                lab.save(saved)
                step("seeded")
            if chosen.vpc_dns_fault == "blackhole":
                dns.set_blackhole(topo, "vpc-dns", True)
            inventory.write(topo, lab)
            nodes.write_ssh_client_config(topo, lab)
            step("inventory")
            saved["status"] = "up"
            lab.save(saved)
        except BaseException:
            saved["status"] = "failed"
            if keep_on_failure:
                lab.save(saved)
            else:
                teardown(prefix)
            raise
    return status(prefix)


def teardown(prefix: str) -> list[str]:
    """Remove everything of lab `prefix`; return what was removed. Idempotent; needs no saved state."""
    topology.check_prefix(prefix)
    removed = []
    spaces = netns.lab_namespaces(prefix)
    killed: set[int] = set()
    for grace in (5.0, 1.0):  # a second sweep catches anything started while the first one ran
        pids = sorted({pid for space in spaces for pid in netns.namespace_pids(space)} - {os.getpid()})
        if not pids:
            break
        netns.terminate(pids, grace)
        killed |= set(pids)
    if killed:
        removed.append(f"{len(killed)} processes")
    for space in spaces:
        netns.delete_namespace(space)
    if spaces:
        removed.append(f"{len(spaces)} namespaces")
    if netns.ETC_NETNS.is_dir():
        for entry in netns.ETC_NETNS.glob(f"{prefix}-*"):
            shutil.rmtree(entry, ignore_errors=True)
    root = state.state_root()
    lab = LabDir(prefix)
    if lab.path.exists():
        shutil.rmtree(lab.path, ignore_errors=True)
        removed.append(str(lab.path))
    marker = root / ETC_NETNS_MARKER
    if marker.exists() and netns.ETC_NETNS.is_dir() and not any(netns.ETC_NETNS.iterdir()):
        netns.ETC_NETNS.rmdir()
        marker.unlink()
    if root.is_dir() and not any(root.iterdir()):
        root.rmdir()
    return removed


def down(prefix: str | None) -> list[str]:
    """Tear down lab `prefix` (or the only running one). A lab that is already gone is not an error."""
    require_root("down")
    if prefix is None:
        if not state.running_prefixes() and not os.environ.get(state.PREFIX_ENV):
            return []  # nothing running: down twice in a row is fine
        prefix = state.resolve_prefix(None)
    return teardown(topology.check_prefix(prefix))


def _holder(saved: dict, topo: Topology, node: topology.Node) -> int:
    pid = saved.get("holders", {}).get(node.name)
    if pid is None or not netns.pid_alive(pid):
        raise LabError(f"lab {topo.prefix}: node {node.name} is not running (its namespace holder is gone)")
    return pid


def node_argv(prefix: str | None, name: str, argv: list[str]) -> list[str]:
    """The argv that runs `argv` on node `name`: inside its namespaces, as root, like an SSH session would."""
    _lab, saved, topo = load(prefix)
    node = topo.node(name)
    if not argv:
        raise LabUsageError("lab exec: no command given (lab exec NODE -- CMD ...)")
    if node.host:
        return nodes.enter(_holder(saved, topo, node)) + argv
    return netns.in_netns(node.namespace, argv)


def _argv_of(prefix: str):
    """name -> the argv prefix that runs a program on that node of lab `prefix` (what `lab exec` runs)."""
    return lambda name: node_argv(prefix, name, ["true"])[:-1]


def check_seeded(prefix: str | None) -> dict:
    """The seeded topic read back from a client network that can use the cluster now (seeded.check): what was
    written, where it was read and the problems found (none: intact). A lab without it says why in `seeded`."""
    _lab, saved, topo = load(prefix)
    written = saved.get("seeded") or {"skipped": "the stand-in: no seeded topic"}
    if "skipped" in written:
        return {"seeded": written, "read_from": None, "problems": []}
    read_from, found = seeded.check(topo.prefix, written, seeded.clients(topo, _argv_of(topo.prefix),
                                                                         seeded.OTHER_PORTS))
    return {"seeded": written, "read_from": read_from, "problems": found}


def status(prefix: str | None) -> dict:
    """What `lab status --json` prints: the lab and, per node, its role, addresses, names and bootstrap."""
    lab, saved, topo = load(prefix)
    node_list = []
    for node in topo.nodes:
        holder = saved.get("holders", {}).get(node.name)
        entry = {
            "name": node.name,
            "namespace": node.namespace,
            "role": node.role,
            "network": node.network,
            "private_ip": node.private_ip,
            "public_ip": node.public_ip,
            "private_dns": topo.private_dns(node),
            "public_dns": topo.public_dns(node),
            "hostname": topo.hostname(node),
            "peered_dns": topo.peered_dns(node),
            "endpoint_dns": topo.endpoint_dns(node),
            "ssh": nodes.ssh_address(node) if node.ssh else None,
            "running": bool(holder and netns.pid_alive(holder)) if node.host
            else (netns.NETNS_RUN_DIR / node.namespace).exists(),
        }
        if node.host:
            # the upper layer of the node's /etc: read it from the host, change files through the node
            entry["etc_dir"] = str(lab.node(node.name) / "etc")
        if node.kafka_roles:
            entry["kafka_node_id"] = node.node_id
            entry["process_roles"] = topo.process_roles(node)
            entry["service_log"] = str(lab.node(node.name) / "log" / "kafka.out")
        if node.vm:
            entry["dmi_path"] = nodes.DMI_PATH
            entry["metadata_values"] = str(lab.node(node.name) / "imds.json")
        if node.client_network:
            servers = topo.bootstrap(node)
            entry["client_network"] = node.client_network
            entry["bootstrap"] = servers[0] if servers else None
            entry["bootstrap_servers"] = ",".join(servers)
        node_list.append(entry)
    return {
        "prefix": topo.prefix,
        "scenario": topo.scenario.name,
        "description": topo.scenario.description,
        "load_balancer": None if topo.load_balancer() is None else {
            "host": topo.load_balancer(), "ports": topo.load_balancer_ports()},
        "provider": topo.scenario.provider,
        "status": saved.get("status"),
        "state_dir": str(lab.path),
        "inventory": str(lab.inventory),
        "ssh_config": str(lab.ssh / "config"),
        "proxy_command": nodes.proxy_command(topo),
        "cluster_id": saved.get("cluster_id"),
        "kafka": saved.get("kafka", "standin"),
        "cluster_formed": saved.get("cluster_formed"),
        "security": None if not topo.scenario.security else {
            "layout": topo.scenario.security, "listener_protocols": security.LAYOUTS[topo.scenario.security],
            "certificate_names": topo.scenario.certificate_names, "ca_file": security.CA_FILE,
            "keystore": security.KEYSTORE, "sasl_mechanism": security.SCRAM_MECHANISM,
            "sasl_username": security.SCRAM_USER, "pki_dir": str(lab.path / "pki"),
            "secrets_file": str(lab.path / "pki" / "secrets.json")},
        "timings": saved.get("timings", {}),
        "seeded": saved.get("seeded"),
        "nodes": node_list,
    }


def _kafka_action(saved: dict, topo: Topology, node: topology.Node, action: str) -> None:
    argv = nodes.kafka_service(_holder(saved, topo, node), action)
    netns.run(argv, what=f"kafka-service {action} on {node.name}", timeout=150)


def restart_instance(prefix: str | None, name: str) -> dict:
    """Simulate a cloud stop/start of `name`: new public IP and DNS name everywhere; the private IP stays.

    As on a real stop/start the broker process goes down with the instance and starts again with its
    unchanged configuration once the instance is back.
    """
    require_root("restart-instance")
    lab, saved, topo = load(prefix)
    node = topo.node(name)
    if not node.vm or not node.public_ip:
        raise LabUsageError(f"lab {topo.prefix}: node {name} is not a cloud instance with a public IP")
    runs_kafka = bool(node.kafka_roles) or node.role == "docker-host"
    with lab.lock():
        old_ip, old_dns = node.public_ip, topo.public_dns(node)
        if runs_kafka:
            _kafka_action(saved, topo, node, "stop")
        node.public_ip = topo.next_public_ip()
        topo.retired_public_ips.append(old_ip)
        netns.set_public_ip(topo, node, old_ip)
        dns.reload_resolvers(topo, lab, saved.get("resolvers", {}))
        nodes.write_metadata(topo, lab, node)
        saved["topology"] = topo.to_dict()
        lab.save(saved)
        inventory.write(topo, lab)
        nodes.write_ssh_client_config(topo, lab)
        if runs_kafka:
            _kafka_action(saved, topo, node, "start")
    return {"node": name, "old_public_ip": old_ip, "public_ip": node.public_ip, "old_public_dns": old_dns,
            "public_dns": topo.public_dns(node)}


def fault(prefix: str | None, name: str, spec: str) -> str:
    """Inject or clear a fault: `imds=down|slow|token_refused|garbage|v1only|ok` on an instance,
    `dns=blackhole|ok` on a resolver (vpc-dns, inet-dns). Returns what was done.

    `imds=v1only` (AWS) makes the instance IMDSv1-only: token-less GETs are served, the IMDSv2 token PUT is refused.
    Every other `imds=` value restores IMDSv2-only access.
    """
    require_root("fault")
    lab, _saved, topo = load(prefix)
    node = topo.node(name)
    kind, sep, value = spec.partition("=")
    if not sep:
        raise LabUsageError(f"fault {spec!r}: expected KIND=VALUE, e.g. imds=down or dns=blackhole")
    with lab.lock():
        if kind == "imds":
            if not node.vm:
                raise LabUsageError(f"lab {topo.prefix}: node {name} has no metadata emulator")
            if value not in (*IMDS_FAULTS, "ok", "v1only"):
                raise LabUsageError(f"fault imds={value}: expected one of {', '.join(IMDS_FAULTS)}, ok, v1only")
            if value == "v1only" and topo.scenario.provider != "aws":
                raise LabUsageError(f"fault imds=v1only: IMDSv1 is AWS's; lab {topo.prefix} is on "
                                    f"{topo.scenario.provider}")
            nodes.write_metadata(topo, lab, node, imdsv1=value == "v1only")
            control = lab.node(name) / "imds-control.json"
            tmp = control.with_suffix(".tmp")
            chosen = {"ok": None, "v1only": "token_refused"}.get(value, value)
            tmp.write_text(json.dumps({"fault": chosen}) + "\n", encoding="utf-8")
            tmp.replace(control)
        elif kind == "dns":
            if value not in ("blackhole", "ok"):
                raise LabUsageError(f"fault dns={value}: expected blackhole or ok")
            dns.set_blackhole(topo, name, value == "blackhole")
        else:
            raise LabUsageError(f"fault {spec!r}: unknown kind {kind!r} (imds or dns)")
    return f"lab {topo.prefix}: {name} {kind}={value}"
