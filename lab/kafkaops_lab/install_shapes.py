"""How Kafka is installed on a lab node: where its server.properties lies and the systemd unit that starts it.

A real fleet is not laid out alike, so the lab is not either, and the broker role must find each node's file and
unit itself (the inventory names neither):
- a fresh install (scenario `install: fresh`) is a package's: /etc/kafka/server.properties, started by a `kafka`
  unit running `/usr/bin/kafka-server-start /etc/kafka/server.properties`;
- a cluster started from Kafka's shipped files (`install: shipped`) runs from Kafka's tarball under /opt, as operators
  unpack it, its file where the release ships it (4.x config/server.properties, 3.x config/kraft/server.properties
  beside the ZooKeeper-mode config/server.properties), started by a unit the operator wrote, one shape per broker:
  1. /opt/kafka_2.13-V with the symlink /opt/kafka to it, unit `kafka` naming /opt/kafka/config/...;
  2. /opt/kafka_2.13-V alone, unit `kafka-broker` naming it through `Environment=KAFKA_HOME=...`;
  3. /opt/kafka a plain folder, unit `kafka` starting config/server.properties from `WorkingDirectory=/opt/kafka`,
     and a drop-in replacing ExecStart with the release's KRaft file (on 3.x the unit alone names the
     ZooKeeper-mode sample: a reader that skips drop-ins picks the wrong file).
There is no systemd on a lab node: lab/kafka-service runs Kafka on the file the unit names
(KAFKA_SERVICE_CONFIG) and runs the unit's drop-ins' ExecStartPre (KAFKA_SERVICE_NAME); /opt is the node's own
(an overlay whose upper layer is nodes/<name>/opt), the release's libs/ a symlink to the lab's Kafka cache.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .kafka_config import fresh_zookeeper_mode_properties, release_major
from .topology import Node, Topology

PACKAGE_PROPERTIES = "/etc/kafka/server.properties"


@dataclass
class Shape:
    """One node's install: the file Kafka reads (as its unit names it), its unit, the tarball's folder (None for a
    package), and the files (real path on the node -> text) and symlinks (path -> relative target) that lay it out."""

    properties: str
    unit: str
    home: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)

    def real(self, path: str) -> str:
        """`path` with the symlinks of the shape resolved."""
        for link, target in self.links.items():
            if path == link or path.startswith(link + "/"):
                return os.path.join(os.path.dirname(link), target) + path[len(link):]
        return path


def _unit(description: str, service: list[str]) -> str:
    return "\n".join(["[Unit]", f"Description={description}", "After=network-online.target", "", "[Service]",
                      "Type=simple", "User=kafka", *service, "Restart=on-failure", "", "[Install]",
                      "WantedBy=multi-user.target", ""])


def shape(topo: Topology, node: Node) -> Shape:
    """The install of Kafka node `node` (a VPC node with Kafka roles)."""
    if topo.scenario.install != "shipped":
        unit = _unit("Apache Kafka (package)", [f"ExecStart=/usr/bin/kafka-server-start {PACKAGE_PROPERTIES}"])
        return Shape(PACKAGE_PROPERTIES, "kafka", files={"/etc/systemd/system/kafka.service": unit})
    release = topo.kafka_release
    kraft = "config/server.properties" if release_major(release) >= 4 else "config/kraft/server.properties"
    versioned = f"/opt/kafka_2.13-{release}"
    variant = (node.node_id - 1) % 3
    home = "/opt/kafka" if variant == 2 else versioned
    files = {}
    if kraft != "config/server.properties":  # 3.x ships the ZooKeeper-mode file too
        files[f"{home}/config/server.properties"] = fresh_zookeeper_mode_properties(0, "localhost:2181")
    if variant == 0:
        properties, name = f"/opt/kafka/{kraft}", "kafka"
        unit = _unit("Apache Kafka", [f"ExecStart=/opt/kafka/bin/kafka-server-start.sh {properties}"])
        links = {"/opt/kafka": os.path.basename(versioned)}
    elif variant == 1:
        properties, name, links = f"{versioned}/{kraft}", "kafka-broker", {}
        unit = _unit("Apache Kafka broker", [
            f"Environment=KAFKA_HOME={versioned} \"KAFKA_HEAP_OPTS=-Xmx1g -Xms1g\"",
            "ExecStart=${KAFKA_HOME}/bin/kafka-server-start.sh ${KAFKA_HOME}/" + kraft])
    else:
        properties, name, links = f"/opt/kafka/{kraft}", "kafka", {}
        unit = _unit("Apache Kafka", ["WorkingDirectory=/opt/kafka",
                                      "ExecStart=/opt/kafka/bin/kafka-server-start.sh config/server.properties"])
        files[f"/etc/systemd/system/{name}.service.d/override.conf"] = (
            f"[Service]\nExecStart=\nExecStart=/opt/kafka/bin/kafka-server-start.sh {kraft}\n")
    files[f"/etc/systemd/system/{name}.service"] = unit
    return Shape(properties, name, home=home, files=files, links=links)


def lay_out(base: Path, found: Shape, properties_text: str, kafka_home: str | None) -> None:
    """Write `found` into the node's upper layers `base`/etc and `base`/opt (nodes/<name>/), with the broker's
    `properties_text` at its place and the tarball's libs/ a symlink to `kafka_home`'s (the release the lab runs)."""
    def place(path: str) -> Path:
        top, rest = path.lstrip("/").split("/", 1)
        if top not in ("etc", "opt"):
            raise ValueError(f"{path}: a lab node's own files are under /etc and /opt only")
        (base / f"{top}-work").mkdir(parents=True, exist_ok=True)
        return base / top / rest

    for path, text in {**found.files, found.real(found.properties): properties_text}.items():
        place(path).parent.mkdir(parents=True, exist_ok=True)
        place(path).write_text(text, encoding="utf-8")
    for path, target in found.links.items():
        place(path).symlink_to(target)
    if found.home and kafka_home:
        place(found.home + "/libs").symlink_to(Path(kafka_home) / "libs")
