"""Machines of the lab: per-node mount/UTS namespaces, their files, sshd, metadata emulator and Kafka service.

A node that is a machine (broker, controller, client, Docker host, container) gets a *holder*: a process started
with `ip netns exec NS unshare --mount --uts` that mounts the node's private filesystem view, sets the hostname
and sleeps. Everything else started on the node enters the holder's namespaces with `nsenter`, so sshd, the
metadata emulator, the broker and every SSH session see the same machine:
- /etc is an overlay whose upper layer is nodes/<name>/etc (its own hostname, hosts, resolv.conf, /etc/kafka,
  /etc/default/kafka-service, the Kafka unit, and on SSH nodes the non-root login user of logins.py): files are
  real files, so editors and Ansible can replace them by rename; on a node with Kafka's tarball (install_shapes.py)
  /opt is an overlay too, upper layer nodes/<name>/opt;
- /home is nodes/<name>/home (bound) on SSH nodes: the login user's home;
- /run and /tmp are private tmpfs (sshd needs /run/sshd; Kafka's default log.dirs are under /tmp); the lab's
  state directory is bound back into /run at its usual path;
- cloud instances see read-only overlays on /sys/devices/virtual (adding dmi/id/ with the provider's DMI
  strings) and /sys/class (adding the dmi/id symlink to it), as on a real machine.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path

from . import dns, install_shapes, kafka_config, kafka_real, logins, security
from .netns import METADATA_IP, LabError, in_netns, wait_listening
from .paths import IMDS_EMULATOR, KAFKA_SERVICE, REPO_ROOT
from .state import LabDir
from .topology import (
    CONTAINER_NET,
    CONTROLLER_PORT,
    DOCKER_CONTAINER,
    DOCKER_PUBLISHED_PORTS,
    ZOOKEEPER_PORT,
    Node,
    Topology,
)

REAL_KAFKA_START_TIMEOUT = 150.0  # kafka-service bounds real Kafka's start at 120 s, plus formatting storage
DOCKER_PROXY = Path(__file__).resolve().parent / "docker_proxy.py"
SSHD = "/usr/sbin/sshd"
DMI_PATH = "/sys/class/dmi/id"
DOCKER_ENV_FILE = f"/etc/kafka/{DOCKER_CONTAINER}.env"

# Runs as the holder: $1 lab dir, $2 node dir, $3 hostname, $4 "1" for a cloud instance (DMI overlay), $5 the
# checkout (bound back when it sits under /tmp or /run, as a CI clone may: the lab runs its Python from there).
HOLDER_SCRIPT = r"""
set -eu
lab=$1 node=$2 repo=$5
exec 3<"$lab" 4<"$repo"
if [ "$4" = 1 ]; then  # DMI where the kernel puts it, and the /sys/class/dmi/id symlink to it
  mount -t overlay lab-dmi -o "ro,lowerdir=$node/sysvirtual:/sys/devices/virtual" /sys/devices/virtual
  mount -t overlay lab-dmi -o "ro,lowerdir=$node/sysclass:/sys/class" /sys/class
fi
mount -t overlay lab-etc -o "lowerdir=/etc,upperdir=$node/etc,workdir=$node/etc-work" /etc
if [ -d "$node/opt" ]; then  # Kafka's tarball unpacked under /opt (install_shapes.py)
  mount -t overlay lab-opt -o "lowerdir=/opt,upperdir=$node/opt,workdir=$node/opt-work" /opt
fi
if [ -d "$node/home" ]; then mount --bind "$node/home" /home; fi  # the login user's home (logins.py)
mount -t tmpfs -o mode=0755,size=64m lab-run /run
mkdir -p "$lab" /run/sshd /run/lock
mount --no-canonicalize --bind /proc/self/fd/3 "$lab"  # the fd still names the real directory
exec 3<&-
mount -t tmpfs -o mode=1777,size=1g lab-tmp /tmp
case "$repo" in
  /tmp/*|/run/*) mkdir -p "$repo"; mount --no-canonicalize --bind /proc/self/fd/4 "$repo" ;;
esac
exec 4<&-
hostname "$3"
echo ready
exec sleep infinity >/dev/null 2>&1 </dev/null
"""


def python_for_lab() -> str:
    """The interpreter that runs the stand-in and the metadata emulator: the project's venv if present."""
    venv = REPO_ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else os.environ.get("KAFKAOPS_LAB_PYTHON", "/usr/bin/python3")


def enter(pid: int) -> list[str]:
    """argv prefix that runs a command on the node held by `pid` (its network, mount and UTS namespaces)."""
    return ["nsenter", f"--target={pid}", "--mount", "--uts", "--net", "--"]


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)


def controllers(topo: Topology) -> list[tuple[int, str]]:
    """(node id, private IP) of the lab's KRaft controllers."""
    return [(node.node_id, node.private_ip)
            for node in topo.kafka_nodes() if "controller" in node.kafka_roles and node.network == "vpc"]


def voters(topo: Topology) -> str:
    """controller.quorum.voters of the lab's cluster (controllers by private IP, so the quorum needs no DNS)."""
    return kafka_config.quorum_voters((node_id, ip, CONTROLLER_PORT) for node_id, ip in controllers(topo))


def service_defaults(topo: Topology, lab: LabDir, node: Node, cluster_id: str, kafka_home: str | None) -> str:
    """/etc/default/kafka-service for `node`: how lab/kafka-service runs the broker there."""
    log_dir = lab.node(node.name) / "log"
    values = {
        "KAFKA_SERVICE_PYTHON": python_for_lab(),
        "KAFKA_SERVICE_REPO": str(REPO_ROOT),
        "KAFKA_SERVICE_STATE_DIR": str(lab.cluster),
        "KAFKA_SERVICE_LOG_DIR": str(log_dir),
        "KAFKA_SERVICE_CONFIG": "/etc/kafka/server.properties",
        "KAFKA_CLUSTER_ID": cluster_id,
    }
    if kafka_home:
        values["KAFKA_HOME"] = kafka_home
    if node.kafka_roles and node.network == "vpc":  # the file and the unit of the node's install
        installed = install_shapes.shape(topo, node)
        values.update({"KAFKA_SERVICE_CONFIG": installed.properties, "KAFKA_SERVICE_NAME": installed.unit})
    if node.role == "zookeeper":
        values.update({"KAFKA_SERVICE_KIND": "zookeeper", "KAFKA_SERVICE_CONFIG": "/etc/kafka/zookeeper.properties"})
    if topo.scenario.security:
        values["KAFKA_FORMAT_SCRAM_FILE"] = security.SCRAM_FILE
    if topo.scenario.install == "shipped" and kafka_home and node.kafka_roles \
            and kafka_config.release_major(kafka_real.release_of(Path(kafka_home))) >= 4:
        values["KAFKA_FORMAT_INITIAL_CONTROLLERS"] = kafka_config.initial_controllers(topo.prefix, controllers(topo))
    if node.role == "docker-host":
        container = topo.node(DOCKER_CONTAINER)
        values.update({
            "KAFKA_SERVICE_CONTAINER": container.name,
            "KAFKA_SERVICE_CONTAINER_PIDFILE": str(lab.node(container.name) / "holder.pid"),
            "KAFKA_SERVICE_ENV_FILE": DOCKER_ENV_FILE,
            "KAFKA_SERVICE_LOG_DIR": str(lab.node(container.name) / "log"),
            "KAFKA_IMAGE_FLAVOR": "confluent",
        })
    lines = [f"# kafkaops lab: how {KAFKA_SERVICE} runs Kafka on {node.name}"]
    lines += [f"{key}={value}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


def write_node_files(topo: Topology, lab: LabDir, node: Node, cluster_id: str, kafka_home: str | None) -> None:
    """Write everything `node` needs before its holder starts (its /etc layer, DMI, sshd, metadata values)."""
    base = lab.node(node.name)
    etc = base / "etc"
    (base / "etc-work").mkdir(parents=True, exist_ok=True)
    (base / "log").mkdir(parents=True, exist_ok=True)
    _write(etc / "hostname", (topo.hostname(node) or node.name) + "\n")
    _write(etc / "hosts", dns.etc_hosts(topo, node))
    _write(etc / "resolv.conf", dns.resolv_conf(topo, node))
    if node.kafka_roles and node.network == "vpc":
        if topo.scenario.quorum == "zookeeper":
            props = kafka_config.fresh_zookeeper_mode_properties(node.node_id, topo.zookeeper_connect())
        elif topo.scenario.install == "shipped":
            props = kafka_config.shipped_server_properties(kafka_real.release_of(Path(kafka_home)), node.node_id,
                                                           topo.hostname(node), node.private_ip, controllers(topo))
        else:
            props = kafka_config.fresh_server_properties(node.node_id, node.kafka_roles, voters(topo))
        if topo.scenario.security:
            props = write_security_files(topo, lab, node, props)
        install_shapes.lay_out(base, install_shapes.shape(topo, node), props, kafka_home)
    if node.role == "zookeeper":
        _write(etc / "kafka" / "zookeeper.properties", kafka_config.fresh_zookeeper_properties(ZOOKEEPER_PORT))
    if topo.scenario.security and node.client_network:
        _write(etc / "kafka" / "tls" / "ca.pem", (lab.path / "pki" / "ca.pem").read_text())
    if node.role == "docker-host":
        env = kafka_config.fresh_docker_env(DOCKER_CONTAINER, cluster_id)
        _write(etc / "kafka" / f"{DOCKER_CONTAINER}.env", kafka_config.render_env_file(env))
    if node.network == "container" and node.kafka_roles:
        (etc / "kafka").mkdir(parents=True, exist_ok=True)  # the image's entrypoint writes server.properties
    if node.kafka_roles and node.network == "vpc" or node.role in ("docker-host", "zookeeper"):
        _write(etc / "default" / "kafka-service", service_defaults(topo, lab, node, cluster_id, kafka_home))
    if node.vm:
        write_metadata(topo, lab, node)
        _write(base / "imds-control.json", json.dumps({"fault": None}) + "\n")
        write_dmi(base, topo.identity(node).dmi)
    if node.ssh:
        _write(base / "sshd_config", sshd_config(lab, node))
        logins.add_login_user(etc, base / "home", (lab.ssh / "id_ed25519.pub").read_text())


def write_security_files(topo: Topology, lab: LabDir, node: Node, fresh: str) -> str:
    """A secured lab's Kafka node: its key store, the CA and the SCRAM users in /etc/kafka/tls; returns its
    server.properties made secured from the fresh install's `fresh`."""
    pki = lab.path / "pki"
    found = security.load_secrets(pki)
    tls = lab.node(node.name) / "etc" / "kafka" / "tls"
    _write(tls / "ca.pem", (pki / "ca.pem").read_text())
    _write(tls / "broker.pem", security.keystore(pki, node.name, topo.scenario.certificate_names), 0o600)
    _write(tls / "scram-users", security.scram_arguments(found), 0o600)
    return security.server_properties(fresh, node.kafka_roles, topo.scenario.security, found)


def certificate_names(topo: Topology) -> dict[str, dict[str, list[str]]]:
    """Per Kafka node of the VPC, the names its certificates carry: private DNS and IP, public DNS and IP."""
    names = {}
    for node in topo.kafka_nodes():
        if node.network != "vpc":
            continue
        names[node.name] = {"private": [n for n in (topo.private_dns(node), node.private_ip) if n],
                            "public": [n for n in (topo.public_dns(node), node.public_ip) if n]}
    return names


def write_dmi(base: Path, dmi: dict[str, str]) -> None:
    """The node's DMI strings as /sys/devices/virtual/dmi/id/* plus the /sys/class/dmi/id symlink (overlay layers)."""
    for name, value in dmi.items():
        # product_uuid is root-only on real machines; the rest is world-readable
        _write(base / "sysvirtual" / "dmi" / "id" / name, value + "\n", 0o400 if name == "product_uuid" else 0o444)
    link = base / "sysclass" / "dmi" / "id"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to("../../devices/virtual/dmi/id")


def write_metadata(topo: Topology, lab: LabDir, node: Node, imdsv1: bool = False) -> None:
    """(Re)write the metadata emulator's values for `node` (the emulator re-reads them on every request).

    `imdsv1` makes an AWS emulator also serve token-less GETs (HttpTokens optional).
    """
    path = lab.node(node.name) / "imds.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({**topo.identity(node).metadata, "imdsv1": imdsv1}, indent=1) + "\n",
                   encoding="utf-8")
    tmp.replace(path)


def sshd_config(lab: LabDir, node: Node) -> str:
    base = lab.node(node.name)
    return "\n".join([
        f"# kafkaops lab: sshd of {node.name}",
        "Port 22",
        "ListenAddress 0.0.0.0",
        f"HostKey {base / 'ssh_host_ed25519_key'}",
        # the login user's keys in its home: sshd reads them as that user, who cannot enter the lab's ssh folder
        "AuthorizedKeysFile .ssh/authorized_keys",
        "PermitRootLogin prohibit-password",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "UseDNS no",
        "PidFile /run/sshd.pid",
        "PrintMotd no",
        "MaxStartups 100:30:200",
        "MaxSessions 100",
        "AcceptEnv LANG LC_* KAFKA_HOME",
        "Subsystem sftp /usr/lib/openssh/sftp-server",
        "Match User root",
        f"  AuthorizedKeysFile {lab.ssh / 'authorized_keys'}",
        "",
    ])


def generate_ssh_keys(topo: Topology, lab: LabDir) -> None:
    """The lab's client key and one host key per SSH node (in parallel), authorized_keys and known_hosts."""
    lab.ssh.mkdir(parents=True, exist_ok=True)
    os.chmod(lab.ssh, 0o700)
    jobs = [(lab.ssh / "id_ed25519", f"kafkaops-lab-{topo.prefix}")]
    jobs += [(lab.node(node.name) / "ssh_host_ed25519_key", f"{node.name}@{topo.prefix}")
             for node in topo.nodes if node.ssh]
    procs = []
    for path, comment in jobs:
        path.parent.mkdir(parents=True, exist_ok=True)
        procs.append(subprocess.Popen(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
    for proc, (path, _comment) in zip(procs, jobs, strict=True):
        _out, err = proc.communicate(timeout=30)
        if proc.returncode != 0:
            raise LabError(f"ssh-keygen for {path} failed: {err.decode(errors='replace').strip()}")
    _write(lab.ssh / "authorized_keys", (lab.ssh / "id_ed25519.pub").read_text(), 0o600)
    known = []
    for node in topo.nodes:
        if node.ssh:
            key = (lab.node(node.name) / "ssh_host_ed25519_key.pub").read_text().split()
            known.append(f"{ssh_address(node)} {key[0]} {key[1]}")
    _write(lab.ssh / "known_hosts", "\n".join(known) + "\n", 0o600)


def ssh_address(node: Node) -> str:
    """The address Ansible and ssh dial for `node` (through the control namespace)."""
    return node.public_ip if node.network == "internet" else node.private_ip


def proxy_command(topo: Topology) -> str:
    """The SSH ProxyCommand: open the TCP connection from inside the control namespace (no route from root)."""
    return f"ip netns exec {topo.node('ctl').namespace} nc %h %p"


def write_ssh_client_config(topo: Topology, lab: LabDir) -> Path:
    """An ssh_config with one Host entry per SSH node: `ssh -F <lab>/ssh/config b1`."""
    blocks = []
    for node in topo.nodes:
        if not node.ssh:
            continue
        blocks.append("\n".join([
            f"Host {node.name}",
            f"  HostName {ssh_address(node)}",
            f"  User {logins.logs_in_as(node)}",
            f"  IdentityFile {lab.ssh / 'id_ed25519'}",
            "  IdentitiesOnly yes",
            f"  UserKnownHostsFile {lab.ssh / 'known_hosts'}",
            "  StrictHostKeyChecking yes",
            f"  ProxyCommand {proxy_command(topo)}",
        ]))
    path = lab.ssh / "config"
    _write(path, "\n\n".join(blocks) + "\n", 0o600)
    return path


def start_holders(topo: Topology, lab: LabDir, timeout: float = 20) -> dict[str, int]:
    """Start the holder of every machine node in parallel; return {node name: holder PID} once all are ready."""
    procs: dict[str, subprocess.Popen] = {}
    for node in topo.nodes:
        if not node.host:
            continue
        base = lab.node(node.name)
        err = open(base / "log" / "holder.err", "w")  # noqa: SIM115 - handed to the child
        argv = in_netns(node.namespace, ["unshare", "--mount", "--uts", "--propagation", "private", "sh", "-c",
                                         HOLDER_SCRIPT, f"holder-{node.name}", str(lab.path), str(base),
                                         topo.hostname(node) or node.name, "1" if node.vm else "0",
                                         str(REPO_ROOT)])
        procs[node.name] = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                                            start_new_session=True)
        err.close()
    waiting = {proc.stdout.fileno(): name for name, proc in procs.items()}
    deadline = time.monotonic() + timeout
    while waiting:
        ready, _, _ = select.select(list(waiting), [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            names = ", ".join(sorted(waiting.values()))
            raise LabError(f"node holder(s) {names} not ready after {timeout:g} s")
        for fd in ready:
            name = waiting.pop(fd)
            line = procs[name].stdout.readline().decode(errors="replace").strip()
            procs[name].stdout.close()
            if line != "ready":
                detail = (lab.node(name) / "log" / "holder.err").read_text(errors="replace").strip()
                raise LabError(f"node {name}: setting up its mounts and hostname failed:\n{detail}")
    pids = {name: proc.pid for name, proc in procs.items()}
    for name, pid in pids.items():
        _write(lab.node(name) / "holder.pid", f"{pid}\n")
    return pids


def _spawn(argv: list[str], log: Path) -> int:
    """Start a long-running process detached from the lab command, output to `log`; return its PID."""
    with open(log, "ab") as out:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True,
                                cwd=str(REPO_ROOT))
    return proc.pid


def start_sshd(lab: LabDir, node: Node, holder: int) -> int:
    base = lab.node(node.name)
    return _spawn(enter(holder) + [SSHD, "-D", "-e", "-f", str(base / "sshd_config")], base / "log" / "sshd.log")


def start_metadata(lab: LabDir, node: Node, holder: int) -> int:
    base = lab.node(node.name)
    argv = enter(holder) + [python_for_lab(), str(IMDS_EMULATOR), "--values", str(base / "imds.json"), "--bind",
                            METADATA_IP, "--port", "80", "--control", str(base / "imds-control.json")]
    return _spawn(argv, base / "log" / "imds.log")


def start_docker_proxy(lab: LabDir, node: Node, holder: int) -> int:
    base = lab.node(node.name)
    container_ip = str(CONTAINER_NET.network_address + 2)
    forwards = [arg for port in DOCKER_PUBLISHED_PORTS for arg in ("--forward", f"{port}={container_ip}:{port}")]
    argv = enter(holder) + [python_for_lab(), str(DOCKER_PROXY), "--listen", "::", *forwards]
    return _spawn(argv, base / "log" / "docker-proxy.log")


SERVICE_PORTS = {"sshd": {22}, "imds": {80}, "docker-proxy": set(DOCKER_PUBLISHED_PORTS)}


def start_services(topo: Topology, lab: LabDir, holders: dict[str, int], timeout: float = 20) -> dict[str, dict]:
    """Start sshd on SSH nodes, the metadata emulator on cloud instances and the Docker host's port proxy;
    wait until they listen."""
    started: dict[str, dict] = {}
    for node in topo.nodes:
        if node.name not in holders:
            continue
        pids = {}
        if node.ssh:
            pids["sshd"] = start_sshd(lab, node, holders[node.name])
        if node.vm:
            if not IMDS_EMULATOR.exists():
                raise LabError(f"metadata emulator {IMDS_EMULATOR} is missing")
            pids["imds"] = start_metadata(lab, node, holders[node.name])
        if node.role == "docker-host":
            pids["docker-proxy"] = start_docker_proxy(lab, node, holders[node.name])
        started[node.name] = pids
    for name, pids in started.items():
        for service, pid in pids.items():
            ports = SERVICE_PORTS[service]
            try:
                wait_listening(pid, ports, timeout, f"{service} on {name}")
            except LabError as exc:
                log = lab.node(name) / "log" / f"{service}.log"
                raise LabError(f"{exc}\n{log.read_text(errors='replace').strip()}") from None
    return started


def kafka_service(holder: int, action: str) -> list[str]:
    """argv running `kafka-service <action>` on the node held by `holder` (as an SSH session would)."""
    return enter(holder) + [str(KAFKA_SERVICE), action]


def start_kafka(topo: Topology, holders: dict[str, int], timeout: float = 90, zookeeper: bool = False) -> None:
    """`kafka-service start` on every Kafka node in parallel (the Docker host starts its container's broker); with
    `zookeeper` (real Kafka in ZooKeeper mode), on the ZooKeeper node first: a ZooKeeper-mode broker that finds no
    ZooKeeper gives up after zookeeper.connection.timeout.ms."""
    if zookeeper:
        _service_start(topo.by_role("zookeeper"), holders, timeout)
    _service_start([node for node in topo.nodes if (node.kafka_roles and node.network == "vpc")
                    or node.role == "docker-host"], holders, timeout)


def _service_start(targets: list[Node], holders: dict[str, int], timeout: float) -> None:
    """`kafka-service start` on `targets` in parallel; LabError with every node's failure."""
    procs = []
    for node in targets:
        proc = subprocess.Popen(kafka_service(holders[node.name], "start"), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=str(REPO_ROOT),
                                env=service_environment())
        procs.append((node, proc))
    failures = []
    for node, proc in procs:
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            failures.append(f"{node.name}: kafka-service start did not finish within {timeout:g} s")
            continue
        if proc.returncode != 0:
            failures.append(f"{node.name}: kafka-service start failed (exit {proc.returncode}):\n"
                            f"{out.decode(errors='replace').strip()}")
    if failures:
        raise LabError("\n".join(failures))


def service_environment() -> dict[str, str]:
    """A login-like environment for commands run on nodes (what sshd would give a root session)."""
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
           "LANG": "C.UTF-8", "USER": "root", "LOGNAME": "root", "SHELL": "/bin/bash"}
    if os.environ.get("TERM"):
        env["TERM"] = os.environ["TERM"]
    return env


def wait_cluster(topo: Topology, timeout: float = 3.0, lab_pki_ca: str | None = None) -> bool | None:
    """Wait until every VPC broker lists all brokers in its metadata (asked with kcat from the control namespace).

    Brokers re-read the cluster's registrations once a second (the stand-in) or learn them from the controller
    (real Kafka), so right after start a broker may list fewer. A cluster that does not list everyone within
    `timeout` is not an error here: this returns False instead of failing. A secured lab whose INTERNAL listener
    wants SASL is not asked (None): Debian's kcat cannot log in to Kafka 4.x with SCRAM (recipe-security.rst,
    "Client problems seen with SASL").
    """
    brokers = [node for node in topo.kafka_nodes() if "broker" in node.kafka_roles and node.network == "vpc"]
    control = topo.node("ctl").namespace
    pending = {node.name: node for node in brokers}
    port, tls = 9092, []
    if topo.scenario.security and security.LAYOUTS[topo.scenario.security]["INTERNAL"] != "SSL":
        return None
    if lab_pki_ca:  # a secured lab: ask INTERNAL over TLS
        port, tls = security.INTERNAL_PORT, ["-X", "security.protocol=ssl", "-X", f"ssl.ca.location={lab_pki_ca}"]
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        procs = {name: subprocess.Popen(in_netns(control, ["kcat", "-L", "-m", "2", "-b", f"{node.private_ip}:{port}",
                                                           *tls]),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                 for name, node in pending.items()}
        for name, proc in procs.items():
            out, _ = proc.communicate(timeout=10)
            listed = sum(1 for line in out.decode(errors="replace").splitlines() if line.strip().startswith("broker "))
            if listed >= len(brokers):
                pending.pop(name)
        if pending:
            time.sleep(0.2)
    return not pending

