# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How long the resolvability check takes when the DNS server never answers, against its timeout.

The goal is that a check returns within 1.2x its timeout whatever the DNS server does; glibc alone would wait
5 s per attempt, 2 attempts, per server. Two resolver paths are measured:

* dnspython (``nameservers``): against a blackhole on 127.0.0.1 (UDP and TCP, reads and never answers);
* glibc (``getaddrinfo``): inside a private network + mount namespace made with ``unshare`` (root needed), whose
  ``/etc/resolv.conf`` is a bind mount pointing at a blackhole on 127.0.0.1:53 of that namespace. Both vanish with
  the child process. ``--glibc-baseline`` also times a bare ``getaddrinfo`` there: the cost without a deadline.

In the lab, ``--netns NAME`` runs the measurements inside an existing namespace (e.g. the ``dns-blackhole``
scenario) with its own resolv.conf; add ``--nameserver IP`` to measure the dnspython path against its server.
``--lab-prefix P`` does it on the first broker of the running ``dns-blackhole`` lab P (``lab/lab up --scenario
dns-blackhole --prefix P``), entering that machine as ``lab exec`` does: glibc with the broker's own resolv.conf,
dnspython against the lab's VPC resolver, which never answers; every check must end in a timeout.

Run: ``.venv/bin/python benchmarks/resolvability.py [--timeouts 0.5 1 2] [--names 1 8 32] [--repeat 3]``
     ``.venv/bin/python benchmarks/resolvability.py --lab-prefix P``   (root; a running dns-blackhole lab P)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import probe_names

GOAL = 1.2
LAB_COMMAND = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lab", "lab")
LAB_SCENARIO = "dns-blackhole"


class Blackhole:
    """UDP and TCP on one port of 127.0.0.1 that read everything and never answer."""

    def __init__(self, port: int = 0):
        for _attempt in range(50):
            self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.udp.bind(("127.0.0.1", port))
            self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                self.tcp.bind(("127.0.0.1", self.udp.getsockname()[1]))
                break
            except OSError:  # the TCP side of this port is taken: try another free UDP port
                self.udp.close()
                self.tcp.close()
                if port:
                    raise
        else:
            raise SystemExit("no free UDP+TCP port pair on 127.0.0.1")
        self.tcp.listen(64)
        self.port = self.udp.getsockname()[1]
        self.queries = 0
        self._held = []  # accepted TCP connections stay open and unanswered
        threading.Thread(target=self._read_udp, daemon=True).start()
        threading.Thread(target=self._accept_tcp, daemon=True).start()

    def _read_udp(self):
        while True:
            try:
                self.udp.recvfrom(4096)
            except OSError:
                return
            self.queries += 1

    def _accept_tcp(self):
        while True:
            try:
                conn, _peer = self.tcp.accept()
            except OSError:
                return
            self._held.append(conn)

    def close(self):
        for sock in [self.udp, self.tcp, *self._held]:
            sock.close()


def measure(path: str, count: int, timeout: float, repeat: int, **kwargs) -> dict:
    """Run probe_names ``repeat`` times on ``count`` names; return the worst elapsed time and what was reported."""
    names = ["b%d.blackhole.example" % index for index in range(count)]
    worst = 0.0
    errors = set()
    for _ in range(repeat):
        start = time.monotonic()
        outcome = probe_names(names, timeout=timeout, **kwargs)
        worst = max(worst, time.monotonic() - start)
        errors.update(result["error"] for result in outcome["results"])
        if any(result["resolvable"] for result in outcome["results"]):
            raise SystemExit("%s: a name resolved although the DNS server never answers" % path)
    return {"path": path, "names": count, "timeout": timeout, "elapsed": worst, "errors": sorted(errors)}


def glibc_baseline() -> dict:
    """Time one bare getaddrinfo (no deadline): what a dead DNS server costs without this module."""
    start = time.monotonic()
    try:
        socket.getaddrinfo("baseline.blackhole.example", None)
        error = "resolved"
    except socket.gaierror as exc:
        error = exc.strerror
    return {"path": "glibc, bare getaddrinfo", "names": 1, "timeout": None, "elapsed": time.monotonic() - start,
            "errors": [error]}


def run_here(args) -> list:
    """Measurements in the current namespace: glibc via resolv.conf, dnspython via --nameserver or a blackhole."""
    rows = []
    # in the child made by run_in_private_netns, resolv.conf points at 127.0.0.1:53 of the private namespace
    hole = Blackhole(53) if args.inside_blackhole else None
    for timeout in args.timeouts:
        for count in args.names:
            if args.glibc:
                rows.append(measure("glibc", count, timeout, args.repeat))
            if args.nameserver:
                rows.append(measure("dnspython", count, timeout, args.repeat, nameservers=[args.nameserver],
                                    dns_port=args.dns_port))
    if args.glibc and args.glibc_baseline:
        rows.append(glibc_baseline())
    if hole is not None and hole.queries == 0:
        raise SystemExit("the blackhole in the private namespace saw no query: resolv.conf was not used")
    return rows


def run_in_private_netns(args) -> list:
    """Re-run this script for the glibc path in a new net+mount namespace with a blackholed resolv.conf."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("skipping the glibc path: needs root and unshare to make a private network namespace", file=sys.stderr)
        return []
    with tempfile.TemporaryDirectory(prefix="resolvability-bench-") as tmp:
        resolv = os.path.join(tmp, "resolv.conf")
        with open(resolv, "w") as handle:
            handle.write("nameserver 127.0.0.1\n")  # glibc defaults: timeout 5 s, 2 attempts
        child = [sys.executable, os.path.abspath(__file__), "--child", "--inside-blackhole", "--repeat",
                 str(args.repeat), "--timeouts", *map(str, args.timeouts), "--names", *map(str, args.names)]
        if args.glibc_baseline:
            child.append("--glibc-baseline")
        command = ["unshare", "--net", "--mount", "--propagation", "private", "sh", "-c",
                   'mount --bind "$1" /etc/resolv.conf && ip link set lo up && shift && exec "$@"', "sh", resolv,
                   *child]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit("the private-namespace run failed:\n%s" % done.stderr)
    return json.loads(done.stdout)


def run_in_named_netns(args) -> list:
    """Re-run this script inside an existing namespace (a lab scenario), using that namespace's resolv.conf."""
    child = [sys.executable, os.path.abspath(__file__), "--child", "--repeat", str(args.repeat),
             "--timeouts", *map(str, args.timeouts), "--names", *map(str, args.names)]
    if args.nameserver:
        child += ["--nameserver", args.nameserver, "--dns-port", str(args.dns_port)]
    if args.glibc_baseline:
        child.append("--glibc-baseline")
    done = subprocess.run(["ip", "netns", "exec", args.netns, *child], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit("the run in namespace %s failed:\n%s" % (args.netns, done.stderr))
    return json.loads(done.stdout)


def lab_status(prefix: str) -> dict:
    """`lab status --json` of lab ``prefix``; exits naming the lab when there is none."""
    done = subprocess.run([sys.executable, LAB_COMMAND, "status", "--json", "--prefix", prefix], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit("--lab-prefix %s: %s" % (prefix, done.stderr.strip() or "lab status failed"))
    return json.loads(done.stdout)


def run_in_lab(args) -> list:
    """Re-run this script on the first broker of a running dns-blackhole lab, as `lab exec` enters that machine."""
    status = lab_status(args.lab_prefix)
    if status["scenario"] != LAB_SCENARIO:
        raise SystemExit("--lab-prefix %s: the lab runs scenario %s; this measurement needs %s (its VPC resolver "
                         "never answers): lab/lab up --scenario %s"
                         % (args.lab_prefix, status["scenario"], LAB_SCENARIO, LAB_SCENARIO))
    nodes = status["nodes"]
    broker = next(node["name"] for node in nodes if node["role"] == "broker" and node.get("etc_dir"))
    resolver = next(node["private_ip"] for node in nodes if node["name"] == "vpc-dns")
    child = [sys.executable, os.path.abspath(__file__), "--child", "--repeat", str(args.repeat),
             "--timeouts", *map(str, args.timeouts), "--names", *map(str, args.names),
             "--nameserver", resolver, "--dns-port", "53"]
    if args.glibc_baseline:
        child.append("--glibc-baseline")
    done = subprocess.run([sys.executable, LAB_COMMAND, "exec", broker, "--prefix", args.lab_prefix, "--", *child],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit("the run on %s of lab %s failed:\n%s" % (broker, args.lab_prefix, done.stderr))
    rows = json.loads(done.stdout)
    answered = sorted({error for row in rows if row["timeout"] is not None for error in row["errors"]
                       if not error.startswith("timed out")})
    if answered:
        raise SystemExit("lab %s: the VPC resolver answered (%s), so nothing was measured: switch the blackhole on "
                         "with `lab/lab fault vpc-dns dns=blackhole --prefix %s`"
                         % (args.lab_prefix, "; ".join(answered), args.lab_prefix))
    print("lab %s (%s): on broker %s, glibc with its resolv.conf, dnspython against the VPC resolver %s"
          % (args.lab_prefix, LAB_SCENARIO, broker, resolver))
    return rows


def report(rows: list) -> bool:
    """Print one line per measurement; return True when every bounded run met the goal."""
    print("%-26s %5s %8s %9s %8s  %s" % ("path", "names", "timeout", "elapsed", "ratio", "reported error"))
    ok = True
    for row in rows:
        if row["timeout"] is None:
            print("%-26s %5d %8s %8.2fs %8s  %s" % (row["path"], row["names"], "none", row["elapsed"], "-",
                                                    "; ".join(row["errors"])))
            continue
        ratio = row["elapsed"] / row["timeout"]
        ok = ok and ratio <= GOAL
        print("%-26s %5d %7.2fs %8.2fs %7.2fx  %s" % (row["path"], row["names"], row["timeout"], row["elapsed"],
                                                      ratio, "; ".join(row["errors"])))
    print("goal: every bounded run within %.1fx its timeout -> %s" % (GOAL, "met" if ok else "MISSED"))
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeouts", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--names", type=int, nargs="+", default=[1, 8, 32], help="names checked per call")
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell; the worst is reported")
    parser.add_argument("--glibc-baseline", action="store_true", help="also time a bare getaddrinfo (~10 s)")
    parser.add_argument("--netns", help="run inside this existing network namespace (a lab scenario)")
    parser.add_argument("--nameserver", help="with --netns: DNS server for the dnspython path (default: none)")
    parser.add_argument("--lab-prefix", help="run on the first broker of this running dns-blackhole lab (root)")
    parser.add_argument("--dns-port", type=int, default=53)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--inside-blackhole", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.glibc = True

    if args.child:
        print(json.dumps(run_here(args)))
        return 0
    if args.netns:
        return 0 if report(run_in_named_netns(args)) else 1
    if args.lab_prefix:
        return 0 if report(run_in_lab(args)) else 1
    # here: dnspython against a local blackhole, in this process; glibc in a private namespace
    hole = Blackhole()
    try:
        local = argparse.Namespace(**dict(vars(args), glibc=False, glibc_baseline=False, inside_blackhole=False,
                                          nameserver="127.0.0.1", dns_port=hole.port))
        rows = run_here(local)
    finally:
        hole.close()
    rows += run_in_private_netns(args)
    return 0 if report(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
