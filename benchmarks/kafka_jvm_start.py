#!/usr/bin/env python3
"""Time and CPU from `java ... kafka.Kafka` to a listening broker, per JVM option set (what the lab's choice buys).

    sudo .venv/bin/python benchmarks/kafka_jvm_start.py [--version 4.4.0] [--repeat 3]

Each run formats a fresh single-node KRaft store (combined broker and controller on loopback) in a private
network namespace (`unshare --net`, only `lo`), starts the broker with one option set, waits until its client
port listens, and stops it (SIGTERM, as kafka-service and `lab down` do). Per option set it prints the medians of:
the wall seconds until the port listens; the CPU seconds the JVM used until then (user + system, /proc/PID/stat);
the seconds from SIGTERM to the JVM's exit; and the CPU seconds of the storage-format JVM run before it
(getrusage of the children). The last option set is the lab's with a dynamic class-data sharing archive
(kafkaops_lab/class_archive.py): one run first writes it as its JVM exits (`-XX:ArchiveClassesAtExit`; the
format's JVM writes its own), printed apart with the dump's time in its stop seconds; the repeated runs read it.
Ratios are to the baseline (the heap bound alone). Needs root (network namespace) and `make kafka-dist`. The
machine is shared: read medians, not single runs.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from kafkaops_lab import kafka_real

HEAP = ["-Xmx256m", "-Xms256m"]
LAB = [*HEAP, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
QUIET = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
ARCHIVED = "lab + class archive (read)"
OPTION_SETS = {
    "heap only (baseline)": HEAP,
    "+SerialGC": [*HEAP, "-XX:+UseSerialGC"],
    "+SerialGC +C1 only (lab)": LAB,
    ARCHIVED: LAB,  # + -XX:SharedArchiveFile, see archive_options
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
# In the namespace: bring lo up, start the broker; print the seconds until the port listens, the JVM's CPU seconds
# by then (utime + stime of /proc/PID/stat, in clock ticks) and the seconds from SIGTERM to its exit.
SCRIPT = r"""
ip link set lo up
start=$(date +%s.%N)
"$@" >"$LOGFILE" 2>&1 &
pid=$!
until cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -qE ":$(printf '%04X' "$PORT") 0+:0000 0A"; do
  kill -0 "$pid" 2>/dev/null || { echo "broker exited: $(tail -3 "$LOGFILE")" >&2; exit 1; }
  sleep 0.05
done
listening=$(date +%s.%N)
ticks=$(sed 's/.*) //' /proc/$pid/stat | awk '{print $12 + $13}')
kill "$pid"; wait "$pid" || true
echo "$listening - $start" | bc
echo "$ticks / $(getconf CLK_TCK)" | bc -l
echo "$(date +%s.%N) - $listening" | bc
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def archive_options(archive: Path) -> list[str]:
    """Read `archive` once it exists, else write it as the JVM exits (the benchmark's runs never overlap)."""
    flag = "SharedArchiveFile" if archive.exists() else "ArchiveClassesAtExit"
    return [f"-XX:{flag}={archive}", *QUIET]


def one_run(home: Path, options: list[str], archives: Path | None) -> tuple[float, float, float, float]:
    """(wall s to listening, JVM CPU s by then, s from SIGTERM to exit, CPU s of the storage format)."""
    with tempfile.TemporaryDirectory(prefix="kafka-jvm-bench-") as work:
        config = Path(work) / "server.properties"
        config.write_text(SERVER.format(data=f"{work}/data"), encoding="utf-8")
        fmt = kafka_real.format_command(home, "MkU3OEVBNTcwNTJENDM2Qk", str(config))
        broker = kafka_real.java_command(home, kafka_real.MAIN_CLASS, str(config))
        for argv, name in ((fmt, "format"), (broker, "broker")):
            argv[:] = [word for word in argv if word not in kafka_real.JVM_OPTIONS]
            argv[1:1] = options + (archive_options(archives / f"{name}.jsa") if archives else [])
        before = children_cpu()
        subprocess.run(fmt, check=True, capture_output=True)
        format_cpu = children_cpu() - before
        proc = subprocess.run(["unshare", "--net", "--", "bash", "-c", SCRIPT, "bench", *broker], text=True,
                              capture_output=True, timeout=300,
                              env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PORT": str(PORT),
                                   "LOGFILE": f"{work}/kafka.out"})
        if proc.returncode != 0:
            raise SystemExit(f"benchmark run failed:\n{proc.stderr}")
        wall, cpu, stop = (float(line) for line in proc.stdout.split())
        return wall, cpu, stop, format_cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default=kafka_real.versions()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    home = kafka_real.ensure_release(args.version)
    runs: dict[str, list[tuple[float, ...]]] = {name: [] for name in OPTION_SETS}
    with tempfile.TemporaryDirectory(prefix="kafka-jvm-bench-cds-") as archives:
        write_run = one_run(home, OPTION_SETS[ARCHIVED], Path(archives))
        sizes = {jsa.name: jsa.stat().st_size / 2**20 for jsa in sorted(Path(archives).glob("*.jsa"))}
        for _ in range(args.repeat):  # interleaved, so load changes hit every option set alike
            for name, options in OPTION_SETS.items():
                runs[name].append(one_run(home, options, Path(archives) if name == ARCHIVED else None))
    print(f"Apache Kafka {args.version}: medians of {args.repeat} runs each; wall and CPU seconds from java to a "
          f"listening client port, seconds from SIGTERM to exit, CPU seconds of the storage format")
    baseline = [statistics.median(column) for column in zip(*runs["heap only (baseline)"], strict=True)]
    for name, values in runs.items():
        medians = [statistics.median(column) for column in zip(*values, strict=True)]
        print(f"{name:<30} wall {medians[0]:6.2f} ({medians[0] / baseline[0]:.2f})  "
              f"CPU {medians[1]:6.2f} ({medians[1] / baseline[1]:.2f})  stop {medians[2]:5.2f}  "
              f"format CPU {medians[3]:5.2f} ({medians[3] / baseline[3]:.2f})")
    print(f"{'archive write run (once)':<30} wall {write_run[0]:6.2f}         CPU {write_run[1]:6.2f}         "
          f"stop {write_run[2]:5.2f}  format CPU {write_run[3]:5.2f}; archives "
          + ", ".join(f"{name} {size:.0f} MiB" for name, size in sizes.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
