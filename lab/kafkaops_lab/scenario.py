"""Scenario files: one small JSON document per scenario under lab/scenarios/.

A scenario says which cloud the lab imitates and how its networks resolve names; the topology is derived from it.
Keys (all but `provider` optional):
  description           one line shown by `lab up`
  provider              aws | gcp | azure | openstack | oci | digitalocean | hetzner
  region, zone, project override the provider's defaults (kafkaops_lab.cloud.DEFAULT_PLACEMENT)
  brokers               default broker count (`lab up --brokers N` overrides it)
  controllers           separate KRaft controllers (0: the first brokers are combined broker+controller nodes)
  public_names_in_vpc   "private_ip" (AWS split horizon: public names resolve to private IPs inside the VPC)
                        or "none" (they do not resolve inside)
  vpc_dns_fault         null, or "blackhole" (the VPC resolver's packets are dropped once the brokers run)
  layout                "vpc" (brokers are VMs) or "docker-host" (one VM running the broker as a container)
  quorum                "kraft" (KRaft voters) or "zookeeper" (ZooKeeper-mode brokers and a ZooKeeper node `zk1`;
                        Kafka 3.x only, the last line with ZooKeeper mode is 3.9)
  kafka                 `standin` or `real[:VERSION]`: the broker the lab runs unless `lab up --kafka` says otherwise
  security              null, or a layout of kafkaops_lab/security.py's LAYOUTS ("sasl-ssl", "sasl-ssl-inter-broker",
                        "sasl-plaintext"): the cluster starts secured (real Kafka only)
  certificate_names     "all-names" (default) or "private-names": the certificate set a secured lab starts with
  load_balancer         null, or "nlb": a network load balancer on the router, one public name with a port per
                        broker (9100 plus its node id) forwarded to that broker's port 9092; its own client
                        `nlb-laptop` (client network `internet-nlb`) sits on the internet
  peered_vpc            false, or true: a second VPC peered with the brokers' one (routed both ways, no NAT, no way
                        to the internet side), whose own resolver answers only its private zone
                        (b<N>.kafka.peered.internal: broker N's private IP); client `peer` (client network
                        `peered-vpc`) sits there
  private_endpoints     false, or true: a consumer VPC with no route to the brokers, only a private endpoint per
                        broker (an address there forwarding port 9092 to that broker's port 9096, as an endpoint
                        service's load balancer does), named in its own resolver's zone
                        (b<N>.kafka.endpoints.internal); client `pe-client` (client network `private-endpoint`)
  install               "fresh" (default: a package install's file, nothing advertised, voters at the private IPs) or
                        "shipped": a cluster in service, each combined node starting from the file its Kafka release
                        ships as an operator adapts it (3.x static voters, 4.x a dynamic quorum formatted with
                        --initial-controllers; the private DNS name advertised; kafka_config.shipped_server_properties);
                        real Kafka, KRaft, combined nodes and no security only
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from . import cloud, security
from .paths import SCENARIO_DIR

MAX_BROKERS = 80  # brokers take 198.18.0.11 .. 198.18.0.90; controllers start at .101
MAX_CONTROLLERS = 9

_KEYS = {
    "description",
    "provider",
    "region",
    "zone",
    "project",
    "brokers",
    "controllers",
    "public_names_in_vpc",
    "vpc_dns_fault",
    "layout",
    "quorum",
    "kafka",
    "security",
    "certificate_names",
    "load_balancer",
    "peered_vpc",
    "private_endpoints",
    "install",
}


class ScenarioError(ValueError):
    """A scenario name or file is wrong; the message names the file and the key."""


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    provider: str
    region: str
    zone: str
    project: str | None
    brokers: int
    controllers: int
    public_names_in_vpc: str
    vpc_dns_fault: str | None
    layout: str
    kafka: str | None = None  # `standin` or `real[:VERSION]` (kafkaops_lab/kafka_real.py); None: the stand-in
    quorum: str = "kraft"  # where the cluster's metadata lives: KRaft voters or a ZooKeeper node
    security: str | None = None  # a layout of kafkaops_lab/security.py's LAYOUTS, or None: PLAINTEXT as a fresh install
    certificate_names: str = "all-names"
    load_balancer: str | None = None  # "nlb": one public name, a port per broker (topology.NLB_*)
    peered_vpc: bool = False  # a peered VPC with its own resolver and zone (topology.PEERED)
    private_endpoints: bool = False  # a consumer VPC reaching each broker through its own endpoint (topology.ENDPOINTS)
    install: str = "fresh"  # the nodes' first file: a package install's, or the release's shipped file as adapted


def available() -> list[str]:
    """Names of the scenario files shipped with the lab, sorted."""
    return sorted(path.stem for path in SCENARIO_DIR.glob("*.json"))


def load(name: str, directory: Path = SCENARIO_DIR) -> Scenario:
    """Read and validate scenario `name`; raise ScenarioError naming the file and what is wrong."""
    path = directory / f"{name}.json"
    if not path.is_file():
        raise ScenarioError(f"scenario {name!r} not found (known: {', '.join(available()) or 'none'})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ScenarioError(f"scenario file {path}: not readable JSON: {exc}") from exc
    return from_mapping(name, data, str(path))


def from_mapping(name: str, data: object, where: str) -> Scenario:
    """Validate a scenario given as a mapping (`where` names its source in errors)."""
    if not isinstance(data, dict):
        raise ScenarioError(f"{where}: must hold a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {unknown}; allowed: {sorted(_KEYS)}")
    provider = data.get("provider")
    if provider not in cloud.PROVIDERS:
        raise ScenarioError(f"{where}: key 'provider' must be one of {list(cloud.PROVIDERS)}, found {provider!r}")
    defaults = cloud.DEFAULT_PLACEMENT[provider]

    def choice(key: str, allowed: tuple, default: object) -> object:
        value = data.get(key, default)
        if value not in allowed:
            raise ScenarioError(f"{where}: key {key!r} must be one of {list(allowed)}, found {value!r}")
        return value

    def count(key: str, default: int, low: int, high: int) -> int:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ScenarioError(f"{where}: key {key!r} must be an integer {low}..{high}, found {value!r}")
        return value

    def text(key: str, default: str | None) -> str | None:
        value = data.get(key, default)
        if value is not None and (not isinstance(value, str) or not value):
            raise ScenarioError(f"{where}: key {key!r} must be a non-empty string, found {value!r}")
        return value

    def flag(key: str) -> bool:
        value = data.get(key, False)
        if not isinstance(value, bool):
            raise ScenarioError(f"{where}: key {key!r} must be true or false, found {value!r}")
        return value

    layout = choice("layout", ("vpc", "docker-host"), "vpc")
    brokers = count("brokers", 3, 1, MAX_BROKERS)
    if layout == "docker-host" and brokers != 1:
        raise ScenarioError(f"{where}: layout 'docker-host' runs exactly one broker container, found brokers={brokers}")
    for key in ("peered_vpc", "private_endpoints"):
        if layout == "docker-host" and data.get(key):
            raise ScenarioError(f"{where}: key {key!r} needs layout 'vpc' (its client reaches brokers in the VPC)")
    quorum = choice("quorum", ("kraft", "zookeeper"), "kraft")
    if quorum == "zookeeper" and (layout != "vpc" or data.get("controllers", 0)):
        raise ScenarioError(f"{where}: quorum 'zookeeper' needs layout 'vpc' and no KRaft controllers")
    install = choice("install", ("fresh", "shipped"), "fresh")
    if install == "shipped" and (quorum != "kraft" or layout != "vpc" or data.get("controllers", 0)
                                 or data.get("security")):
        raise ScenarioError(f"{where}: install 'shipped' needs quorum 'kraft', layout 'vpc', combined nodes (no "
                            "controllers) and no security")
    project = text("project", defaults["project"])
    if provider == "gcp" and not project:
        raise ScenarioError(f"{where}: provider 'gcp' needs key 'project'")
    return Scenario(
        name=name,
        description=text("description", name) or name,
        provider=provider,
        region=text("region", defaults["region"]) or defaults["region"],
        zone=text("zone", defaults["zone"]) or defaults["zone"],
        project=project,
        brokers=brokers,
        controllers=count("controllers", 0, 0, MAX_CONTROLLERS),
        public_names_in_vpc=choice("public_names_in_vpc", ("private_ip", "none"), "none"),
        vpc_dns_fault=choice("vpc_dns_fault", (None, "blackhole"), None),
        layout=layout,
        kafka=text("kafka", None),
        quorum=quorum,
        security=choice("security", (None, *security.LAYOUTS), None),
        certificate_names=choice("certificate_names", ("all-names", "private-names"), "all-names"),
        load_balancer=choice("load_balancer", (None, "nlb"), None),
        peered_vpc=flag("peered_vpc"),
        private_endpoints=flag("private_endpoints"),
        install=install,
    )
