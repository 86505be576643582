#!/usr/bin/env python3
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How the listener planner's time grows with the number of brokers: it should grow about tenfold per tenfold.

    .venv/bin/python benchmarks/plan_bench.py [--brokers 100 1000 10000] [--fleets new networks in-service]
                                              [--repeat 3] [--profile N]

Each fleet is synthetic: three KRaft controllers and N brokers with private and public names and IPs, every
broker's resolvability facts holding a bounded number of names (its own and its neighbours': the input grows
linearly, as a planner that is near-linear in brokers needs; facts with every name checked from every broker are
quadratic input by themselves).

* ``new``: nothing runs yet; ``auto`` finds a public name not checked from every broker and plans ``dual``;
* ``networks``: four client networks (private, public, a load balancer with a port per broker, a static map);
* ``in-service``: every broker advertises PLAINTEXT on its private name now; the plan keeps it and adds EXTERNAL.

Prints the best of ``--repeat`` times per size and the ratio per tenfold step (size ratios other than ten are
scaled to it as a power law); ``--profile N`` prints cProfile's top functions for N brokers instead. The figures
are for the docs; nothing asserts on them.
"""

from __future__ import annotations

import argparse
import cProfile
import ipaddress
import math
import pstats
import sys
import time

from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import plan_listeners

CONTROLLERS = 3
NEIGHBOURS = 3  # the other brokers whose names each broker's facts hold
PRIVATE_NET = ipaddress.ip_address("10.0.0.10")
PUBLIC_NET = ipaddress.ip_address("198.18.0.10")
LB_HOST = "kafka-lb.example.com"
LB_BASE = 30000


def _private(index: int) -> str:
    return "ip-10-%d.eu-west-1.compute.internal" % index


def _public(index: int) -> str:
    return "ec2-198-18-%d.eu-west-1.compute.amazonaws.com" % index


def _node(index: int, roles: str, size: int) -> dict:
    others = [(index + step) % size for step in range(NEIGHBOURS + 1)]
    checks = [{"name": name, "resolvable": True, "connectable": True, "addresses": [address]}
              for other in others
              for name, address in ((_public(other), str(PUBLIC_NET + other)),
                                    (_private(other), str(PRIVATE_NET + other)))]
    return {"name": "kafka-%d" % index, "node_id": index, "process_roles": roles, "private_host": _private(index),
            "private_ip": str(PRIVATE_NET + index), "public_dns": _public(index),
            "public_ip": str(PUBLIC_NET + index), "external_checks": checks}


def _running(index: int) -> dict:
    """A broker's current keys in service: PLAINTEXT advertised on its private name, static voters."""
    voters = ",".join("%d@%s:9093" % (node, _private(node)) for node in range(CONTROLLERS))
    return {"listeners": "PLAINTEXT://:9092", "advertised.listeners": "PLAINTEXT://%s:9092" % _private(index),
            "inter.broker.listener.name": "PLAINTEXT", "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "controller.quorum.voters": voters}


def fleet(kind: str, brokers: int) -> tuple:
    """(broker facts, options) of a synthetic fleet of ``kind`` with ``brokers`` brokers and three controllers."""
    size = CONTROLLERS + brokers
    nodes = [_node(index, "controller" if index < CONTROLLERS else "broker", size) for index in range(size)]
    options: dict = {}
    if kind == "networks":
        names = [node["name"] for node in nodes[CONTROLLERS:]]
        options = {"mode": "networks", "networks": [
            {"name": "vpc", "route": "private"},
            {"name": "internet", "route": "public", "protocol": "SASL_SSL"},
            {"name": "nlb", "route": "load_balancer", "host": LB_HOST,
             "ports": {name: LB_BASE + number for number, name in enumerate(names)}},
            {"name": "peering", "route": "static",
             "endpoints": {name: "%s:%d" % (PRIVATE_NET + number + 100000, 9095) for number, name in enumerate(names)}},
        ]}
    elif kind == "in-service":
        for node in nodes:
            if node["process_roles"] == "broker":
                node["current_properties"] = _running(node["node_id"])
    elif kind != "new":
        raise ValueError("unknown fleet %r" % kind)
    return nodes, options


def _time(kind: str, brokers: int, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        nodes, options = fleet(kind, brokers)  # fresh facts: the planner must not gain from an earlier run
        start = time.perf_counter()
        plan = plan_listeners(nodes, options)
        best = min(best, time.perf_counter() - start)
        if len(plan["brokers"]) != CONTROLLERS + brokers:
            raise SystemExit("%s, %d brokers: the plan has %d nodes" % (kind, brokers, len(plan["brokers"])))
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brokers", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--fleets", nargs="+", default=["new", "networks", "in-service"],
                        choices=["new", "networks", "in-service"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, metavar="N", help="cProfile one plan of each fleet with N brokers")
    args = parser.parse_args()
    if args.profile:
        for kind in args.fleets:
            nodes, options = fleet(kind, args.profile)
            profile = cProfile.Profile()
            profile.runcall(plan_listeners, nodes, options)
            print("== %s, %d brokers" % (kind, args.profile))
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        return 0
    sizes = sorted(args.brokers)
    print("plan_listeners, best of %d (python %s); ratio per 10x brokers, near-linear ~ 10-12x"
          % (args.repeat, sys.version.split()[0]))
    for kind in args.fleets:
        times = [_time(kind, size, args.repeat) for size in sizes]
        cells = ["%6d brokers %8.3f s" % item for item in zip(sizes, times, strict=True)]
        ratios = ["%.1fx" % ((later / earlier) ** (1 / math.log10(big / small)))
                  for small, big, earlier, later in zip(sizes, sizes[1:], times, times[1:], strict=False)]
        print("%-10s %s   per 10x: %s" % (kind, " | ".join(cells), ", ".join(ratios) or "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
