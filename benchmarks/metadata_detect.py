#!/usr/bin/env python3
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How long instance metadata lookups take: off-cloud detection, and a fetch per provider against the emulator.

    .venv/bin/python benchmarks/metadata_detect.py [--rounds N]

Off-cloud (an empty and an absent DMI directory, and this machine's own /sys/class/dmi/id) the lookup must finish
well under 0.1 s without opening a socket: sockets are disabled while it is measured. Each provider's fetch runs
against lab/kafkaops_lab/imds_emulator.py on 127.0.0.1 (a random free port), never against 169.254.169.254.
Prints the median and the maximum over the rounds; the figures are for the docs, nothing asserts on them.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HELPERS = ROOT / "tests" / "unit" / "plugins" / "module_utils" / "metadata"
OFF_CLOUD_GOAL = 0.1  # seconds


def _timed(function, rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return samples


def _line(label: str, samples: list[float], note: str = "") -> str:
    return "%-34s median %8.2f ms   max %8.2f ms%s" % (label, statistics.median(samples) * 1000,
                                                      max(samples) * 1000, note)


# A fresh interpreter: module import plus the first off-cloud lookup, as a managed node pays it once per task.
_COLD = """
import time
start = time.perf_counter()
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import lookup_instance_metadata
record, _ = lookup_instance_metadata({"provider": "auto", "dmi_path": %r})
assert record["provider"] == "none", record
print(time.perf_counter() - start)
"""


def _cold(dmi: str, rounds: int) -> list[float]:
    runs = min(rounds, 10)  # each one starts an interpreter
    return [float(subprocess.run([sys.executable, "-c", _COLD % dmi], check=True, capture_output=True,
                                 text=True).stdout) for _ in range(runs)]


def _refuse_sockets(*args, **kwargs):
    raise RuntimeError("off-cloud detection opened a socket")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=50, help="measurements per case (default 50)")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(HELPERS))
    import metadata_lab  # test helpers: emulator process, values, DMI strings

    from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import (
        fetch_metadata,
        lookup_instance_metadata,
    )

    print("instance metadata lookup, %d rounds each (python %s)" % (args.rounds, sys.version.split()[0]))
    with tempfile.TemporaryDirectory() as work:
        empty = Path(work) / "dmi-empty"
        empty.mkdir()
        cases = [("off-cloud, empty DMI dir", str(empty)), ("off-cloud, absent DMI dir", str(Path(work) / "none")),
                 ("auto, this machine's DMI", "/sys/class/dmi/id")]
        real_socket, real_connect = socket.socket, socket.create_connection
        socket.socket, socket.create_connection = _refuse_sockets, _refuse_sockets
        try:
            for label, dmi in cases:
                record, _ = lookup_instance_metadata({"provider": "auto", "dmi_path": dmi})
                samples = _timed(lambda d=dmi: lookup_instance_metadata({"provider": "auto", "dmi_path": d}),
                                 args.rounds)
                verdict = "ok" if max(samples) < OFF_CLOUD_GOAL else "OVER"
                print(_line(label, samples, "   provider=%s, goal < %g s: %s" % (record["provider"], OFF_CLOUD_GOAL,
                                                                                 verdict)))
        finally:
            socket.socket, socket.create_connection = real_socket, real_connect
        samples = _cold(str(empty), args.rounds)
        verdict = "ok" if max(samples) < OFF_CLOUD_GOAL else "OVER"
        print(_line("off-cloud, fresh interpreter", samples, "   import + first lookup (%d runs), goal < %g s: %s"
                    % (len(samples), OFF_CLOUD_GOAL, verdict)))

        missing = metadata_lab.emulator_missing()
        if missing:
            print("fetch timings skipped: %s" % missing)
            return 0
        emulator = metadata_lab.Emulator(Path(work))
        try:
            print("fetch against the emulator at %s (per-request timeout 5 s):" % emulator.endpoint)
            for provider in sorted(metadata_lab.VALUES):
                emulator.serve(metadata_lab.VALUES[provider])
                fetch_metadata(provider, emulator.endpoint, 5.0, 20.0)  # warm-up, and proof that it works
                samples = _timed(lambda p=provider: fetch_metadata(p, emulator.endpoint, 5.0, 20.0), args.rounds)
                print(_line("  " + provider, samples))
        finally:
            emulator.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
