"""Broker configuration as a fresh install has it, and the Docker images' KAFKA_* environment convention.

`fresh_server_properties` writes what a freshly installed Kafka node would run with: the distribution's
defaults with only node.id and the quorum filled in, in particular `listeners=PLAINTEXT://:9092` and no
`advertised.listeners`, so every broker advertises its own host name (where the single-listener failure starts).
`env_to_properties` turns a container's KAFKA_* variables into server.properties keys the way the images'
entrypoints do (Confluent cp-kafka and Apache apache/kafka differ in how `-` and `_` are escaped).
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterable, Mapping

PROTOCOL_MAP = "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
IMAGE_FLAVORS = ("confluent", "apache")
# the last section of the distribution's KRaft files, the same in every release the lab runs
RETENTION_LINES = (
    "",
    "############################# Log Retention Policy #############################",
    "log.retention.hours=168",
    "log.segment.bytes=1073741824",
    "log.retention.check.interval.ms=300000",
    "",
)
# the socket settings and log basics of the distribution's KRaft files, the same in every release the lab runs
SOCKET_LINES = (
    "num.network.threads=3",
    "num.io.threads=8",
    "socket.send.buffer.bytes=102400",
    "socket.receive.buffer.bytes=102400",
    "socket.request.max.bytes=104857600",
)
LOG_BASICS_LINES = (
    "num.partitions=1",
    "num.recovery.threads.per.data.dir=1",
)
# Variables both images read themselves instead of turning them into server.properties keys.
NON_PROPERTY_VARIABLES = frozenset(
    {
        "KAFKA_VERSION",
        "KAFKA_HEAP_OPTS",
        "KAFKA_HEAP_OPT",
        "KAFKA_LOG4J_OPTS",
        "KAFKA_OPTS",
        "KAFKA_JMX_OPTS",
        "KAFKA_JVM_PERFORMANCE_OPTS",
        "KAFKA_GC_LOG_OPTS",
        "KAFKA_LOG4J_ROOT_LOGLEVEL",
        "KAFKA_LOG4J_LOGGERS",
        "KAFKA_TOOLS_LOG4J_LOGLEVEL",
        "KAFKA_JMX_PORT",
        "KAFKA_JMX_HOSTNAME",
    }
)


class DockerEnvError(ValueError):
    """A container environment the image's entrypoint would refuse; the message names the variable."""


def quorum_voters(voters: Iterable[tuple[int, str, int]]) -> str:
    """controller.quorum.voters for (node id, host, port) entries."""
    return ",".join(f"{node_id}@{host}:{port}" for node_id, host, port in voters)


def fresh_server_properties(node_id: int, roles: list[str], voters: str) -> str:
    """server.properties of a freshly installed KRaft node with `roles` (process.roles) and quorum `voters`.

    Combined and broker nodes listen with `PLAINTEXT://:9092` (every interface) and set no advertised
    listeners; controllers listen on `CONTROLLER://:9093`. log.dirs is the distribution's /tmp default (each
    lab node has its own /tmp).
    """
    is_broker = "broker" in roles
    is_controller = "controller" in roles
    listeners = []
    if is_broker:
        listeners.append("PLAINTEXT://:9092")
    if is_controller:
        listeners.append("CONTROLLER://:9093")
    kind = "combined" if is_broker and is_controller else ("broker" if is_broker else "controller")
    lines = [
        "# Apache Kafka node configuration as a fresh package install leaves it (kafkaops lab).",
        "# Only node.id and the quorum voters were filled in; the listeners are the distribution's defaults.",
        "",
        "############################# Server Basics #############################",
        f"process.roles={','.join(roles)}",
        f"node.id={node_id}",
        f"controller.quorum.voters={voters}",
        "",
        "############################# Socket Server Settings #############################",
        "# An empty host binds every interface. Without advertised.listeners the node advertises its host name.",
        f"listeners={','.join(listeners)}",
    ]
    if is_broker:
        lines += [
            "#advertised.listeners=PLAINTEXT://your.host.name:9092",
            "inter.broker.listener.name=PLAINTEXT",
        ]
    lines.append("controller.listener.names=CONTROLLER")
    if is_broker:
        lines.append(f"listener.security.protocol.map={PROTOCOL_MAP}")
    lines += [
        *SOCKET_LINES,
        "",
        "############################# Log Basics #############################",
        f"log.dirs=/tmp/kraft-{kind}-logs",
        *LOG_BASICS_LINES,
        "",
        "############################# Internal Topic Settings #############################",
        "offsets.topic.replication.factor=1",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        *RETENTION_LINES,
    ]
    return "\n".join(lines)


def release_major(version: str) -> int:
    """The major number of an Apache Kafka release (``4`` of ``4.4.0``)."""
    return int(version.split(".", 1)[0])


def shipped_server_properties(version: str, node_id: int, private_dns: str, private_ip: str,
                              controllers: list[tuple[int, str]]) -> str:
    """server.properties of a combined KRaft node of a cluster in service: the file Kafka `version` ships for a
    combined node, as an operator adapts it on a VPC (`controllers`: (node id, private IP) of every controller).

    3.x ships config/kraft/server.properties with a static quorum (`controller.quorum.voters`, adapted to the
    controllers' private IPs) and advertises `localhost`; 4.x ships config/server.properties with a dynamic quorum
    (`controller.quorum.bootstrap.servers`, formatted with `--initial-controllers`) and advertises the controller
    too. The operator advertises the private DNS name for clients, the private IP for the controller, and raises
    the internal topics' replication to the cluster's size. Only the keys the shipped file sets are written.
    """
    dynamic = release_major(version) >= 4
    advertised = [f"PLAINTEXT://{private_dns}:9092"]
    if dynamic:
        quorum = "controller.quorum.bootstrap.servers=" + ",".join(f"{ip}:9093" for _id, ip in controllers)
        advertised.append(f"CONTROLLER://{private_ip}:9093")
    else:
        quorum = "controller.quorum.voters=" + ",".join(f"{node}@{ip}:9093" for node, ip in controllers)
    replicas = min(3, len(controllers))
    lines = [
        f"# Apache Kafka {version}'s shipped config/{'' if dynamic else 'kraft/'}server.properties",
        "# as an operator adapts it on a VPC (kafkaops lab): the node's id, the quorum at the controllers' private",
        "# IPs, the private DNS name advertised to clients, the internal topics replicated.",
        "",
        "############################# Server Basics #############################",
        "process.roles=broker,controller",
        f"node.id={node_id}",
        quorum,
        "",
        "############################# Socket Server Settings #############################",
        "listeners=PLAINTEXT://:9092,CONTROLLER://:9093",
        "inter.broker.listener.name=PLAINTEXT",
        f"advertised.listeners={','.join(advertised)}",
        "controller.listener.names=CONTROLLER",
        f"listener.security.protocol.map={PROTOCOL_MAP}",
        *SOCKET_LINES,
        "",
        "############################# Log Basics #############################",
        "log.dirs=/tmp/kraft-combined-logs",
        *LOG_BASICS_LINES,
        "",
        "############################# Internal Topic Settings #############################",
        f"offsets.topic.replication.factor={replicas}",
    ]
    if dynamic:
        lines += [f"share.coordinator.state.topic.replication.factor={replicas}",
                  f"share.coordinator.state.topic.min.isr={min(2, replicas)}"]
    lines += [
        f"transaction.state.log.replication.factor={replicas}",
        f"transaction.state.log.min.isr={min(2, replicas)}",
        *RETENTION_LINES,
    ]
    return "\n".join(lines)


def initial_controllers(prefix: str, controllers: list[tuple[int, str]]) -> str:
    """`kafka-storage format --initial-controllers` of a dynamic quorum: `id@host:port:directory-id` per controller,
    each directory id a Kafka Uuid (base64url, 22 characters) derived from the lab's prefix and the node id."""
    entries = []
    for node, ip in controllers:
        raw = uuid.uuid5(uuid.NAMESPACE_URL, f"kafkaops-lab:{prefix}:{node}").bytes
        directory = base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
        entries.append(f"{node}@{ip}:9093:{directory}")
    return ",".join(entries)


def fresh_zookeeper_mode_properties(broker_id: int, zookeeper_connect: str) -> str:
    """server.properties of a freshly installed ZooKeeper-mode broker (Kafka 3.x's config/server.properties).

    broker.id and zookeeper.connect filled in, no process.roles; like the KRaft layout it listens with
    `PLAINTEXT://:9092` and advertises nothing, so the broker registers its host name in ZooKeeper.
    """
    return "\n".join([
        "# Apache Kafka broker configuration (ZooKeeper mode) as a fresh package install leaves it (kafkaops lab).",
        "# Only broker.id and zookeeper.connect were filled in; the listeners are the distribution's defaults.",
        "",
        "############################# Server Basics #############################",
        f"broker.id={broker_id}",
        "",
        "############################# Socket Server Settings #############################",
        "# An empty host binds every interface. Without advertised.listeners the broker advertises its host name.",
        "listeners=PLAINTEXT://:9092",
        "#advertised.listeners=PLAINTEXT://your.host.name:9092",
        "#listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
        "num.network.threads=3",
        "num.io.threads=8",
        "",
        "############################# Log Basics #############################",
        "log.dirs=/tmp/kafka-logs",
        "num.partitions=1",
        "offsets.topic.replication.factor=1",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        "",
        "############################# Zookeeper #############################",
        f"zookeeper.connect={zookeeper_connect}",
        "zookeeper.connection.timeout.ms=18000",
        "group.initial.rebalance.delay.ms=0",
        "",
    ])


def fresh_zookeeper_properties(client_port: int) -> str:
    """zookeeper.properties as Kafka 3.x ships it (a single ZooKeeper server, data under /tmp, no admin server)."""
    return "\n".join([
        "# ZooKeeper of the lab's ZooKeeper-mode brokers, as Kafka 3.x's config/zookeeper.properties (kafkaops lab).",
        "dataDir=/tmp/zookeeper",
        f"clientPort={client_port}",
        "maxClientCnxns=0",
        "admin.enableServer=false",
        "",
    ])


def fresh_docker_env(container: str, cluster_id: str) -> dict[str, str]:
    """The first Docker example of "Kafka Listeners - Explained" (listeners BOB and FRED, no ALICE) as a single-node
    KRaft container."""
    return {
        "KAFKA_NODE_ID": "1",
        "KAFKA_PROCESS_ROLES": "broker,controller",
        "KAFKA_CONTROLLER_QUORUM_VOTERS": f"1@{container}:29093",
        "KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER",
        "KAFKA_LISTENERS": f"LISTENER_BOB://{container}:29092,LISTENER_FRED://{container}:9092,"
        f"CONTROLLER://{container}:29093",
        "KAFKA_ADVERTISED_LISTENERS": f"LISTENER_BOB://{container}:29092,LISTENER_FRED://localhost:9092",
        "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "LISTENER_BOB:PLAINTEXT,LISTENER_FRED:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "KAFKA_INTER_BROKER_LISTENER_NAME": "LISTENER_BOB",
        "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1",
        "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS": "100",
        "KAFKA_LOG_DIRS": "/tmp/kraft-combined-logs",
        "CLUSTER_ID": cluster_id,
    }


def render_env_file(env: Mapping[str, str]) -> str:
    """A Compose `env_file`: one KEY=VALUE per line."""
    return "".join(f"{key}={value}\n" for key, value in env.items())


def parse_env_file(text: str, where: str) -> dict[str, str]:
    """Parse a Compose `env_file` (KEY=VALUE lines, # comments, optional surrounding quotes)."""
    env: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key or not key.replace("_", "").isalnum():
            raise DockerEnvError(f"{where}:{number}: expected KEY=VALUE, found {raw!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        env[key] = value
    return env


def property_name(variable: str, flavor: str) -> str:
    """KAFKA_FOO_BAR -> foo.bar. Confluent: `__` is `-`, `___` is `_`; Apache: `__` is `_`, `___` is `-`."""
    if flavor not in IMAGE_FLAVORS:
        raise DockerEnvError(f"image flavor {flavor!r} is not one of {list(IMAGE_FLAVORS)}")
    triple, double = ("_", "-") if flavor == "confluent" else ("-", "_")
    name = variable[len("KAFKA_") :].lower()
    return name.replace("___", "\0").replace("__", "\1").replace("_", ".").replace("\0", triple).replace("\1", double)


def env_to_properties(env: Mapping[str, str], flavor: str = "confluent") -> dict[str, str]:
    """server.properties keys from a container environment, as the image's entrypoint writes them.

    Like both images: KAFKA_LISTENERS defaults to KAFKA_ADVERTISED_LISTENERS with every host replaced by
    0.0.0.0, KRaft (KAFKA_PROCESS_ROLES set) needs CLUSTER_ID, and a node with the broker role needs
    KAFKA_ADVERTISED_LISTENERS (a controller-only node must not set it).
    """
    env = dict(env)
    roles = [role.strip() for role in env.get("KAFKA_PROCESS_ROLES", "").split(",") if role.strip()]
    if roles and not env.get("CLUSTER_ID"):
        raise DockerEnvError("CLUSTER_ID environment variable not set (required with KAFKA_PROCESS_ROLES)")
    advertised = env.get("KAFKA_ADVERTISED_LISTENERS", "")
    if roles == ["controller"]:
        if advertised:
            raise DockerEnvError("KAFKA_ADVERTISED_LISTENERS is not supported on a KRaft controller.")
        env.pop("KAFKA_ADVERTISED_LISTENERS", None)
    elif not advertised:
        raise DockerEnvError("KAFKA_ADVERTISED_LISTENERS environment variable not set (the image requires it)")
    if not env.get("KAFKA_LISTENERS") and advertised and roles != ["controller"]:
        env["KAFKA_LISTENERS"] = ",".join(_bind_all(entry) for entry in advertised.split(","))
    return {
        property_name(key, flavor): value
        for key, value in env.items()
        if key.startswith("KAFKA_") and key not in NON_PROPERTY_VARIABLES
    }


def _bind_all(endpoint: str) -> str:
    """NAME://host:port -> NAME://0.0.0.0:port (how the images derive listeners from advertised listeners)."""
    scheme, sep, rest = endpoint.strip().partition("://")
    if not sep:
        return endpoint.strip()
    port = rest.rsplit(":", 1)[-1]
    return f"{scheme}://0.0.0.0:{port}"


def render_properties(props: Mapping[str, str], header: str) -> str:
    """A server.properties text with a comment header and one key=value per line."""
    return f"# {header}\n" + "".join(f"{key}={value}\n" for key, value in props.items())
