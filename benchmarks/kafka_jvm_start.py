#!/usr/bin/env python3
"""Time from `java ... kafka.Kafka` to a listening broker, per JVM option set (what the lab's choice buys).

    sudo .venv/bin/python benchmarks/kafka_jvm_start.py [--version 4.4.0] [--repeat 3]

Each run formats a fresh single-node KRaft store (combined broker and controller on loopback) in a private
network namespace (`unshare --net`, only `lo`), starts the broker with one option set, waits until its client
port listens, and stops it. Prints the median and min per option set and the ratio of each median to the
baseline (the heap bound alone). Needs root (network namespace) and `make kafka-dist`. The machine is shared:
read medians, not single runs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from kafkaops_lab import kafka_real

HEAP = ["-Xmx256m", "-Xms256m"]
OPTION_SETS = {
    "heap only (baseline)": HEAP,
    "+SerialGC": [*HEAP, "-XX:+UseSerialGC"],
    "+SerialGC +C1 only (lab)": [*HEAP, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"],
}
PORT = 19092
# Binds the client port last, once the broker is unfenced: this is the time a client waits.
SERVER = f"""process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{PORT + 1}
listeners=PLAINTEXT://127.0.0.1:{PORT},CONTROLLER://127.0.0.1:{PORT + 1}
controller.listener.names=CONTROLLER
offsets.topic.replication.factor=1
log.dirs={{data}}
"""
# In the namespace: bring lo up, start the broker, print the seconds until the port listens, stop it.
SCRIPT = r"""
ip link set lo up
start=$(date +%s.%N)
"$@" >"$LOGFILE" 2>&1 &
pid=$!
until cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -qE ":$(printf '%04X' "$PORT") 0+:0000 0A"; do
  kill -0 "$pid" 2>/dev/null || { echo "broker exited: $(tail -3 "$LOGFILE")" >&2; exit 1; }
  sleep 0.05
done
echo "$(date +%s.%N) - $start" | bc
kill "$pid"; wait "$pid" || true
"""


def one_run(home: Path, options: list[str]) -> float:
    with tempfile.TemporaryDirectory(prefix="kafka-jvm-bench-") as work:
        config = Path(work) / "server.properties"
        config.write_text(SERVER.format(data=f"{work}/data"), encoding="utf-8")
        fmt = kafka_real.format_command(home, "MkU3OEVBNTcwNTJENDM2Qk", str(config))
        subprocess.run(fmt, check=True, capture_output=True)
        broker = kafka_real.java_command(home, kafka_real.MAIN_CLASS, str(config))
        broker = [word for word in broker if word not in kafka_real.JVM_OPTIONS]
        broker[1:1] = options
        proc = subprocess.run(["unshare", "--net", "--", "bash", "-c", SCRIPT, "bench", *broker], text=True,
                              capture_output=True, timeout=300,
                              env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PORT": str(PORT),
                                   "LOGFILE": f"{work}/kafka.out"})
        if proc.returncode != 0:
            raise SystemExit(f"benchmark run failed:\n{proc.stderr}")
        return float(proc.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default=kafka_real.versions()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    home = kafka_real.ensure_release(args.version)
    times: dict[str, list[float]] = {name: [] for name in OPTION_SETS}
    for _ in range(args.repeat):  # interleaved, so load changes hit every option set alike
        for name, options in OPTION_SETS.items():
            times[name].append(one_run(home, options))
    baseline = statistics.median(times["heap only (baseline)"])
    print(f"Apache Kafka {args.version}: seconds from java to a listening client port, {args.repeat} runs each")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<48} median {median:6.2f}  min {min(values):6.2f}  ratio to baseline {median / baseline:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
