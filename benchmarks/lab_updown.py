#!/usr/bin/env python3
"""Wall time of `lab up` and `lab down` for 3 and 12 brokers (goal: up under 5 s for 3 brokers).

    sudo .venv/bin/python benchmarks/lab_updown.py [--brokers 3 12] [--repeat 3] [--scenario aws-private-dns-only]

Each run brings a lab up through the `lab` command (every broker started and the cluster formed), reads the
per-step times the lab records, and tears it down. Prints one line per size: median and min of up and down,
and the median of each step of up. Needs root; the machine is shared, so read medians, not single runs.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import time
from pathlib import Path

LAB = Path(__file__).resolve().parent.parent / "lab" / "lab"


def lab(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, str(LAB), *args], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"lab {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def one_run(scenario: str, brokers: int) -> tuple[float, float, dict]:
    prefix = "kb" + secrets.token_hex(3)
    start = time.perf_counter()
    try:
        status = json.loads(lab("up", "--scenario", scenario, "--brokers", str(brokers), "--prefix", prefix,
                                "--json").stdout)
        up = time.perf_counter() - start
    finally:
        start = time.perf_counter()
        lab("down", "--prefix", prefix)
        down = time.perf_counter() - start
    if not status.get("cluster_formed"):
        print(f"warning: {brokers} brokers: the cluster had not formed when up returned", file=sys.stderr)
    return up, down, status.get("timings", {})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--brokers", type=int, nargs="+", default=[3, 12])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scenario", default="aws-private-dns-only")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("lab_updown: needs root (the lab creates network namespaces)", file=sys.stderr)
        return 2
    print(f"scenario {args.scenario}, {args.repeat} runs each, {os.cpu_count()} CPUs")
    for brokers in args.brokers:
        ups, downs, steps = [], [], {}
        for _ in range(args.repeat):
            up, down, timings = one_run(args.scenario, brokers)
            ups.append(up)
            downs.append(down)
            for step, seconds in timings.items():
                steps.setdefault(step, []).append(seconds)
        step_text = ", ".join(f"{step} {statistics.median(values):.2f}" for step, values in steps.items())
        print(f"{brokers:>3} brokers: up median {statistics.median(ups):.2f} s (min {min(ups):.2f}), "
              f"down median {statistics.median(downs):.2f} s (min {min(downs):.2f}); up steps: {step_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
