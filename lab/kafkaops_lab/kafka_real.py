"""Real Apache Kafka in the lab: which broker a lab runs, and the JVM command lines that run it.

A lab runs either the project's wire-level stand-in (`standin`, the default) or Apache Kafka itself
(`real:VERSION`, or `real` for the first version of lab/kafka-dist/versions). The choice comes from
`lab up --kafka`, else $KAFKAOPS_LAB_KAFKA, else the scenario's `kafka` key. Real releases are resolved from
Maven Central by lab/kafka-dist/fetch into a cache outside the checkout (`<cache>/<version>/libs/*.jar`,
the layout of a distribution tarball's libs/, so a KAFKA_HOME unpacked from a tarball works the same way).

Standard library only: lab/kafka-service imports this on the lab's nodes.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .paths import DIST_DIR

FETCH = DIST_DIR / "fetch"
KIND_ENV = "KAFKAOPS_LAB_KAFKA"
STANDIN = "standin"
# Small and quick to start on 2 shared cores (benchmarks/kafka_jvm_start.py measures the choice).
JVM_OPTIONS = ("-Xmx256m", "-Xms256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
               "-Djava.awt.headless=true")
MAIN_CLASS = "kafka.Kafka"
STORAGE_TOOL = "kafka.tools.StorageTool"  # the `kafka-storage.sh` main class, 3.9 and 4.x alike
# what `zookeeper-server-start.sh` runs; ZooKeeper's jars come with Kafka 3.x's own dependencies
ZOOKEEPER_MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
LAST_ZOOKEEPER_MAJOR = 3  # Kafka 4.0 removed ZooKeeper mode


class KafkaChoiceError(ValueError):
    """A `--kafka` / $KAFKAOPS_LAB_KAFKA value that names no broker the lab can run."""


def versions() -> list[str]:
    """The Apache Kafka releases the lab fetches, default first (lab/kafka-dist/versions)."""
    lines = (DIST_DIR / "versions").read_text(encoding="utf-8").splitlines()
    return [line.split()[0] for line in lines if line.strip() and not line.lstrip().startswith("#")]


def cache_root() -> Path:
    """Where fetch puts the releases (same rule as lab/kafka-dist/fetch)."""
    if os.environ.get("KAFKAOPS_KAFKA_CACHE"):
        return Path(os.environ["KAFKAOPS_KAFKA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kafkaops-listeners" / "kafka"


def parse_kind(value: str) -> tuple[str, str | None]:
    """`standin` -> ("standin", None); `real` / `real:4.4.0` -> ("real", "4.4.0")."""
    value = value.strip()
    if value == STANDIN:
        return STANDIN, None
    kind, _, version = value.partition(":")
    if kind != "real":
        raise KafkaChoiceError(f"kafka {value!r}: expected 'standin', 'real' or 'real:VERSION' "
                               f"(versions: {', '.join(versions())})")
    version = version or versions()[0]
    if version not in versions():
        raise KafkaChoiceError(f"kafka {value!r}: version {version} is not in {DIST_DIR / 'versions'} "
                               f"({', '.join(versions())})")
    return "real", version


def choose(flag: str | None, scenario_value: str | None) -> tuple[str, str | None]:
    """The broker a lab runs: the `--kafka` flag, else $KAFKAOPS_LAB_KAFKA, else the scenario, else the stand-in."""
    return parse_kind(flag or os.environ.get(KIND_ENV) or scenario_value or STANDIN)


def supports_zookeeper(version: str) -> bool:
    """True for the releases that still run brokers in ZooKeeper mode (3.x)."""
    return int(version.split(".", 1)[0]) <= LAST_ZOOKEEPER_MAJOR


def ensure_release(version: str) -> Path:
    """KAFKA_HOME of `version` (a directory with libs/), fetched first when the cache lacks it (else instant)."""
    proc = subprocess.run([str(FETCH), version], capture_output=True, text=True)
    if proc.returncode != 0:
        raise KafkaChoiceError(f"cannot fetch Apache Kafka {version} (lab/kafka-dist/fetch):\n"
                               f"{(proc.stderr or proc.stdout).strip()}")
    return Path(proc.stdout.strip().splitlines()[-1])


def libs_dir(home: Path) -> Path:
    """The jar directory of a KAFKA_HOME (the cache entry or an unpacked distribution)."""
    libs = home / "libs"
    if not any(libs.glob("kafka_2.13-*.jar")):
        raise FileNotFoundError(f"{home}: no libs/kafka_2.13-*.jar (run `make kafka-dist`)")
    return libs


def release_of(home: Path) -> str:
    """The Apache Kafka release of a KAFKA_HOME, from its kafka_2.13-VERSION.jar (`4.4.0`)."""
    for jar in sorted(libs_dir(home).glob("kafka_2.13-*.jar")):
        version = jar.name[len("kafka_2.13-"):-len(".jar")]
        if version and version[0].isdigit() and "-" not in version:
            return version
    raise FileNotFoundError(f"{home}: no libs/kafka_2.13-VERSION.jar names the release")


def log4j_option(libs: Path) -> str:
    """The system property pointing Kafka's logging at the lab's configuration: log4j2 (4.x) or reload4j (3.x)."""
    if any(libs.glob("log4j-core-2*.jar")):
        return f"-Dlog4j2.configurationFile={DIST_DIR / 'log4j2.properties'}"
    return f"-Dlog4j.configuration=file:{DIST_DIR / 'log4j.properties'}"


def java_command(home: Path, main_class: str, *args: str, extra_options: list[str] | None = None) -> list[str]:
    """`java <lab options> -cp libs/* MAIN ARGS` for a KAFKA_HOME."""
    libs = libs_dir(home)
    return ["java", *JVM_OPTIONS, *(extra_options or []), log4j_option(libs), "-cp", f"{libs}/*", main_class, *args]


def broker_command(home: Path, config: str) -> list[str]:
    """The broker: what `kafka-server-start.sh CONFIG` runs, with the lab's heap and logging."""
    return java_command(home, MAIN_CLASS, config)


def zookeeper_command(home: Path, config: str) -> list[str]:
    """ZooKeeper from a Kafka 3.x KAFKA_HOME: what `zookeeper-server-start.sh CONFIG` runs."""
    return java_command(home, ZOOKEEPER_MAIN_CLASS, config)


def format_command(home: Path, cluster_id: str, config: str, add_scram: list[str] | None = None,
                   initial_controllers: str | None = None) -> list[str]:
    """`kafka-storage format -t CLUSTER_ID -c CONFIG --ignore-formatted [--add-scram MECHANISM=[name=..,password=..]]
    [--initial-controllers ID@HOST:PORT:DIRECTORY-ID,...]`, as the StorageTool class (SCRAM users bootstrapped into
    the metadata, KIP-900; a dynamic quorum's first voters, KIP-853)."""
    scram = [arg for entry in add_scram or [] for arg in ("--add-scram", entry)]
    dynamic = ["--initial-controllers", initial_controllers] if initial_controllers else []
    return java_command(home, STORAGE_TOOL, "format", "-t", cluster_id, "-c", config, "--ignore-formatted", *scram,
                        *dynamic)


def startup_error(output: str, limit: int = 40) -> str:
    """Kafka's own error lines from its console output, verbatim, without the config dump and stack frames.

    A refused start prints the whole effective configuration (hundreds of lines) before the error; what a person
    needs is the ERROR line and the exception messages (`Caused by:` included). Without any, the last lines.
    """
    lines = output.splitlines()
    first = next((index for index, line in enumerate(lines)
                  if " ERROR " in line or " FATAL " in line or line.startswith(("Exception", "java.", "org.apache."))
                  or "Exception:" in line.split(" (", 1)[0]), None)
    if first is None:
        return "\n".join(lines[-limit:])
    kept = [line for line in lines[first:] if not line.startswith(("\tat ", "\t... ")) and line.strip()]
    return "\n".join(kept[:limit])
