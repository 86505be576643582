"""`lab up` / `lab down`: a lab leaves nothing behind, labs with different prefixes coexist, down is idempotent."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from kafkaops_lab.netns import pid_alive
from kafkaops_lab.paths import KAFKA_SERVICE

pytestmark = pytest.mark.lab

STATE_ROOT = Path(os.environ.get("KAFKAOPS_LAB_STATE_ROOT", "/run/kafkaops-lab"))


def _namespaces() -> set[str]:
    return set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()


def _root_links() -> set[str]:
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    return {line.split(":")[1].strip().split("@")[0] for line in out.splitlines()}


def _mount_points() -> set[str]:
    with open("/proc/self/mountinfo") as handle:
        return {line.split()[4] for line in handle}


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline and int(entry) != os.getpid():
            found.append(f"{entry}: {cmdline}")
    return found


def _lab_pids(prefix: str) -> set[int]:
    pids = set()
    for namespace in _namespaces():
        if namespace.startswith(prefix + "-"):
            out = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True).stdout
            pids |= {int(pid) for pid in out.split()}
    return pids


def _etc_netns_entries(prefix: str) -> list[str]:
    return sorted(name for name in os.listdir("/etc/netns") if name.startswith(prefix)) \
        if os.path.isdir("/etc/netns") else []


def assert_nothing_left(prefix: str, namespaces_before: set[str], links_before: set[str], pids: set[int]) -> None:
    assert not [ns for ns in _namespaces() if ns.startswith(prefix + "-")]
    # labs of other suites may come and go meanwhile (make lab-tests runs two at a time): a namespace that vanished
    # is only this lab's doing if its own lab is still up
    vanished = [ns for ns in namespaces_before - _namespaces() if (STATE_ROOT / ns.split("-", 1)[0]).exists()]
    assert vanished == [], "down removed namespaces it did not create"
    assert _root_links() == links_before
    assert not [mount for mount in _mount_points() if prefix in mount]
    assert not [pid for pid in pids if pid_alive(pid)], "processes of the lab survived down"
    assert not _processes_mentioning(str(STATE_ROOT / prefix))
    assert not _etc_netns_entries(prefix)
    assert not (STATE_ROOT / prefix).exists()


def test_up_down_leaves_nothing_behind(lab_factory, lab_cli):
    namespaces_before, links_before, mounts_before = _namespaces(), _root_links(), _mount_points()
    etc_netns_existed = os.path.isdir("/etc/netns")
    lab = lab_factory("aws-private-dns-only")
    prefix = lab.prefix
    assert {f"{prefix}-{name}" for name in ("router", "vpc-dns", "inet-dns", "ctl", "laptop", "client",
                                            "b1", "b2", "b3")} <= _namespaces()
    assert _root_links() == links_before, "the lab created devices in the root namespace"
    assert [m for m in _mount_points() - mounts_before if not m.startswith("/run/netns/")] == []
    pids = _lab_pids(prefix)
    assert len(pids) >= 3 * 4  # per broker at least holder, sshd, metadata emulator, broker
    out = lab.down().stdout
    assert "namespaces" in out
    assert_nothing_left(prefix, namespaces_before, links_before, pids)
    if not etc_netns_existed:
        assert not os.path.isdir("/etc/netns") or any(os.scandir("/etc/netns"))
    again = lab_cli.command("down", "--prefix", prefix)
    assert "nothing" in again.stdout


def test_two_labs_side_by_side(lab_factory):
    first = lab_factory("aws-private-dns-only", brokers=1)
    second = lab_factory("gcp", brokers=1)
    assert first.prefix != second.prefix
    # same addresses, separate worlds: each client sees its own lab's broker names
    meta_first = first.kcat("client", "-L", "-b", "198.18.0.11:9092", "-m", "10")
    meta_second = second.kcat("client", "-L", "-b", "198.18.0.11:9092", "-m", "10")
    assert "broker 1 at ip-198-18-0-11.us-west-2.compute.internal:9092" in meta_first.stdout
    assert "broker 1 at b1.c.kafkaops-lab.internal:9092" in meta_second.stdout
    namespaces_before, links_before = _namespaces(), _root_links()
    pids = _lab_pids(first.prefix)
    first.down()
    assert_nothing_left(first.prefix, namespaces_before - {n for n in namespaces_before
                                                           if n.startswith(first.prefix + "-")}, links_before, pids)
    still = second.kcat("client", "-L", "-b", "198.18.0.11:9092", "-m", "10")
    assert "broker 1 at b1.c.kafkaops-lab.internal:9092" in still.stdout


@pytest.mark.parametrize("step", ["networks", "holders", "sshd+metadata"])
def test_failed_up_cleans_up_after_itself(step, lab_cli):
    prefix = lab_cli.new_prefix()
    namespaces_before, links_before = _namespaces(), _root_links()
    try:
        proc = lab_cli.command("up", "--scenario", "aws-private-dns-only", "--brokers", "1", "--prefix", prefix,
                               check=False, env={"KAFKAOPS_LAB_FAIL_AFTER": step})
        assert proc.returncode == 1
        assert f"failure injected after step '{step}'" in proc.stderr
        assert_nothing_left(prefix, namespaces_before, links_before, set())
    finally:
        lab_cli.command("down", "--prefix", prefix, check=False)


def test_down_works_after_a_half_failed_up_that_was_kept(lab_cli):
    prefix = lab_cli.new_prefix()
    namespaces_before, links_before = _namespaces(), _root_links()
    try:
        proc = lab_cli.command("up", "--scenario", "docker-host", "--prefix", prefix, "--keep-on-failure",
                               check=False, env={"KAFKAOPS_LAB_FAIL_AFTER": "holders"})
        assert proc.returncode == 1
        pids = _lab_pids(prefix)
        assert pids, "a kept lab still has its processes"
        assert lab_cli.attach(prefix).status["status"] == "failed"
        lab_cli.command("down", "--prefix", prefix)
        assert_nothing_left(prefix, namespaces_before, links_before, pids)
    finally:
        lab_cli.command("down", "--prefix", prefix, check=False)


def test_commands_name_the_lab_and_the_missing_node(lab_aws_private, lab_cli):
    proc = lab_aws_private.run("exec", "b9", "--", "true", check=False)
    assert proc.returncode == 2
    assert f"lab {lab_aws_private.prefix}: node b9 not found" in proc.stderr
    missing = lab_cli.command("status", "--prefix", "knothere", check=False)
    assert missing.returncode == 3 and "lab knothere: not running" in missing.stderr
    bad = lab_cli.command("up", "--scenario", "no-such-scenario", "--prefix", lab_cli.new_prefix(), check=False)
    assert bad.returncode == 2 and "scenario 'no-such-scenario' not found" in bad.stderr


def test_status_lists_every_node_with_its_addresses(lab_aws_private):
    status = lab_aws_private.refresh()
    assert status["status"] == "up" and status["cluster_formed"] is True
    b2 = lab_aws_private.node("b2")
    assert b2 == b2 | {"role": "broker", "namespace": f"{lab_aws_private.prefix}-b2", "private_ip": "198.18.0.12",
                       "public_ip": "198.19.0.12", "private_dns": "ip-198-18-0-12.us-west-2.compute.internal",
                       "public_dns": "ec2-198-19-0-12.us-west-2.compute.amazonaws.com", "running": True}
    laptop, client = lab_aws_private.node("laptop"), lab_aws_private.node("client")
    assert laptop["bootstrap"] == "ec2-198-19-0-11.us-west-2.compute.amazonaws.com:9092"
    assert client["bootstrap"] == "ip-198-18-0-11.us-west-2.compute.internal:9092"
    roles = {node["name"]: node["role"] for node in status["nodes"]}
    assert roles["router"] == "router" and roles["ctl"] == "control" and roles["vpc-dns"] == "dns"


def test_kraft_separate_controllers_run(lab_factory):
    lab = lab_factory("kraft-separate-controllers")
    controllers = [node for node in lab.status["nodes"] if node["role"] == "controller"]
    assert [(n["name"], n["kafka_node_id"], n["process_roles"]) for n in controllers] == [
        ("c1", 101, ["controller"]), ("c2", 102, ["controller"]), ("c3", 103, ["controller"])]
    props = lab.exec("c2", "cat", "/etc/kafka/server.properties", check=True).stdout.splitlines()
    assert "process.roles=controller" in props and "listeners=CONTROLLER://:9093" in props
    assert "controller.quorum.voters=101@198.18.0.101:9093,102@198.18.0.102:9093,103@198.18.0.103:9093" in props
    assert lab.exec("c3", str(KAFKA_SERVICE), "status").returncode == 0
    broker_props = lab.exec("b1", "cat", "/etc/kafka/server.properties", check=True).stdout.splitlines()
    assert "process.roles=broker" in broker_props and "listeners=PLAINTEXT://:9092" in broker_props
    listing = lab.kcat("client", "-L", "-b", "ip-198-18-0-11.us-west-2.compute.internal:9092")
    assert listing.stdout.count("  broker ") == 3
    inventory = Path(lab.status["inventory"]).read_text()
    assert "kafka_controllers:" in inventory and "c1:" in inventory


def test_labs_brought_up_at_once_share_the_etc_netns_one_of_them_made(monkeypatch, tmp_path):
    """Two labs racing for a missing /etc/netns (xdist workers starting at once on a fresh machine): the one whose
    mkdir fails found it made by the other, which alone marks it for the last teardown."""
    from kafkaops_lab import lab as lab_module

    class MadeMeanwhile:
        def exists(self):
            return False

        def mkdir(self, parents=False):
            raise FileExistsError(17, "File exists", "/etc/netns")

    monkeypatch.setattr(lab_module.netns, "ETC_NETNS", MadeMeanwhile())
    monkeypatch.setattr(lab_module.state, "state_root", lambda: tmp_path / "state")
    lab_module._mark_etc_netns()
    assert not (tmp_path / "state").exists()
