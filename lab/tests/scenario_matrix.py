"""Helpers of test_scenario_matrix.py: the lab's facts -> the project's listener plan -> brokers -> real clients.

Everything that runs on a lab node goes through `lab exec` / `lab kcat` (RunningLab of the lab's pytest plugin), so
traffic starts and ends inside the lab's namespaces. Ansible reaches the brokers over real SSH with the lab's inventory.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import subprocess
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from ansible_collections.kafkaops.listeners.plugins.filter.to_docker_env import to_docker_env
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import plan_listeners
from kafkaops_lab import lab as lab_life_cycle
from kafkaops_lab import paths

SITE_VARS = paths.SITE_VARS
REPO_ROOT = paths.REPO_ROOT
KAFKA_SERVICE = str(paths.KAFKA_SERVICE)
VENV_BIN = paths.VENV_BIN
VENV_PYTHON = str(VENV_BIN / "python")
ANSIBLE_TIMEOUT = 300  # hang guard only
CLIENT_TIMEOUT = 120  # hang guard only, per client process
CLUSTER_TIMEOUT = 90  # hang guard only: restarted brokers finding each other again

SCENARIOS = (
    "aws-private-dns-only", "aws-split-horizon", "azure", "digitalocean", "dns-blackhole", "docker-host", "gcp",
    "hetzner", "kraft-separate-controllers", "oci", "openstack",
)
METADATA_KEYS = ("private_ip", "private_dns", "public_ip", "public_dns")
# What each provider's instance metadata holds (the emulator's table in lab/README.md and the notes of
# plugins/modules/instance_metadata.py); every other key is null there although the lab's network has the value.
METADATA_HOLDS = {
    "aws": {"private_ip", "private_dns", "public_ip", "public_dns"},
    "gcp": {"private_ip", "private_dns", "public_ip"},
    "openstack": {"private_ip", "private_dns", "public_ip"},
    "azure": {"private_ip", "public_ip"},
    "digitalocean": {"private_ip", "public_ip"},
    "hetzner": {"private_ip", "public_ip"},
    "oci": {"private_ip"},  # the public IP lives on the VNIC's public IP object, only in the OCI API
}
# roles/broker defaults the plan depends on
BROKER_RESOLVE_TIMEOUT = 2.0
DOCKER_PUBLISHED_PORTS = (9092, 29094)  # what the lab's Docker host publishes to its container
VPC_NET = ipaddress.ip_network("198.18.0.0/16")  # the VPC and the Docker network behind the Docker host


# Which of the plan's client networks (endpoint["network"]) each lab client network is meant to use, per mode.
MEANT_NETWORK = {
    "single": {"vpc": "all", "internet": "all"},
    "dual": {"vpc": "internal", "internet": "external"},
    "docker": {"docker-network": "container", "docker-host": "docker-host", "internet": "external"},
}


def ansible_env() -> dict:
    return {
        **os.environ,
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_COLLECTIONS_PATH": str(REPO_ROOT / ".venv" / "collections"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_FORKS": "10",
        "ANSIBLE_PIPELINING": "1",  # one SSH round trip per module run: the lab's sshd needs no tty
        "ANSIBLE_DEPRECATION_WARNINGS": "0",
    }


_RESULT_HEAD = re.compile(r"^(\S+) \| (SUCCESS|CHANGED|FAILED!|UNREACHABLE!) => ", re.MULTILINE)


def parse_adhoc(stdout: str) -> dict[str, tuple[str, dict]]:
    """`ansible` ad-hoc output (default callback) -> {host: (status, result)}."""
    decoder = json.JSONDecoder()
    results = {}
    for match in _RESULT_HEAD.finditer(stdout):
        result, _end = decoder.raw_decode(stdout, match.end())
        results[match.group(1)] = (match.group(2).rstrip("!"), result)
    return results


def ansible_module(lab, pattern: str, module: str, args: str) -> tuple[dict[str, tuple[str, dict]], str]:
    """Run `module` ad hoc on the lab's hosts matching `pattern`, over SSH: ({host: (status, result)}, stderr).

    Warnings are on stderr (the default callback prints them there, not in the result)."""
    inventory = lab.status["inventory"]
    proc = subprocess.run([str(VENV_BIN / "ansible"), "-i", inventory, pattern, "-m", module, "-a", args],
                          cwd=REPO_ROOT, env=ansible_env(), capture_output=True, text=True, timeout=ANSIBLE_TIMEOUT)
    results = parse_adhoc(proc.stdout)
    if not results:
        raise AssertionError(f"no result in the ansible output (exit {proc.returncode}):\n{proc.stdout}\n"
                             f"{proc.stderr}")
    return results, proc.stderr


def inventory_hosts(lab) -> dict:
    """The lab inventory's hosts -> their variables."""
    data = yaml.safe_load(Path(lab.status["inventory"]).read_text(encoding="utf-8"))
    hosts: dict = {}
    for group in data["all"]["children"].values():
        hosts.update(group["hosts"])
    return hosts


def kafka_hosts(lab) -> list[str]:
    """Inventory names of the hosts that run Kafka (brokers, controllers, the Docker host), in inventory order."""
    return [name for name, hostvars in inventory_hosts(lab).items() if hostvars.get("kafka_node_id") is not None]


def expected_metadata(node: dict, provider: str) -> dict:
    """What instance_metadata must report for a lab node: its `lab status` values the provider's metadata holds."""
    holds = METADATA_HOLDS[provider]
    return {"provider": provider, **{key: node[key] if key in holds else None for key in METADATA_KEYS}}


_NODE_ARGV: dict[tuple[str, str], list[str]] = {}


def on_node(lab, node: str, *argv: str, input_text: str | None = None,
            timeout: float = CLIENT_TIMEOUT) -> subprocess.CompletedProcess:
    """Run argv on lab node `node` exactly as `lab exec NODE -- argv` would (the same nsenter argv, looked up once
    per node, so a client run costs no extra Python start); output captured as text."""
    key = (lab.prefix, node)
    if key not in _NODE_ARGV:
        _NODE_ARGV[key] = lab_life_cycle.node_argv(lab.prefix, node, ["true"])[:-1]
    return subprocess.run([*_NODE_ARGV[key], *argv], capture_output=True, text=True, timeout=timeout,
                          input=input_text)


def run_parallel(calls: list) -> list:
    """Run zero-argument callables in threads; their results in order (the first exception is re-raised)."""
    if not calls:
        return []
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return [future.result() for future in [pool.submit(call) for call in calls]]


# ------------------------------------------------------------------------------------------------ planning

# Runs on a broker: the resolvability module's check of names (roles/broker/tasks/resolve.yml), results as JSON.
PROBE_NAMES = """
import json, sys
from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import probe_names
names, timeout = json.loads(sys.argv[1]), float(sys.argv[2])
print(json.dumps(probe_names(names, timeout=timeout)["results"]))
"""


def external_checks(lab, hosts: list[str], names: list[str]) -> dict[str, list]:
    """Each broker's resolvability results for every broker's public DNS name, checked from that broker."""
    if not names:
        return {host: [] for host in hosts}

    def check(host: str) -> list:
        proc = on_node(lab, host, VENV_PYTHON, "-c", PROBE_NAMES, json.dumps(names), str(BROKER_RESOLVE_TIMEOUT))
        assert proc.returncode == 0, f"resolvability check on {host} failed:\n{proc.stderr}"
        return json.loads(proc.stdout)

    return dict(zip(hosts, run_parallel([lambda host=host: check(host) for host in hosts]), strict=True))


def planner_facts(lab, metadata: dict[str, dict], checks: dict[str, list]) -> list[dict]:
    """The facts roles/broker feeds the planner (preflight.yml, resolve.yml), from each host's instance metadata."""
    hostvars = inventory_hosts(lab)
    facts = []
    for host, values in metadata.items():  # in the order given: the plan's (and its bootstrap lists') order
        docker = hostvars[host].get("kafka_deployment") == "docker"
        container = hostvars[host].get("kafka_container_name") if docker else None
        facts.append({
            "name": host,
            "node_id": hostvars[host]["kafka_node_id"],
            "process_roles": hostvars[host]["kafka_process_roles"],
            # preflight.yml: the private DNS name, else the private IP; in a container, the container's name
            "private_host": container or values["private_dns"] or values["private_ip"],
            "public_dns": values["public_dns"],
            "public_ip": values["public_ip"],
            "container_name": container,
            "external_checks": checks[host],
        })
    return facts


def plan_for(lab, facts: list[dict]) -> dict:
    """The cluster's plan as roles/broker/tasks/plan_listeners.yml computes it (docker mode on a Docker host)."""
    docker = any(item["container_name"] for item in facts)
    return plan_listeners(facts, {"mode": "docker" if docker else "auto", "check_connectivity": False,
                                  "security_protocols": {}})


# ------------------------------------------------------------------------------------------------ applying

# Runs on a Kafka node: set the plan's keys in server.properties (null removes a key), everything else kept.
WRITE_PROPERTIES = """
import json, sys
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import edit_properties
path, changes = sys.argv[1], json.loads(sys.stdin.read())
text = open(path, encoding="utf-8").read()
open(path, "w", encoding="utf-8").write(edit_properties(text, changes))
"""

# Runs on a Docker host: set KAFKA_* variables of the container's env file (null removes one), the rest kept.
WRITE_ENV_FILE = """
import json, sys
path, changes = sys.argv[1], json.loads(sys.stdin.read())
lines = []
for line in open(path, encoding="utf-8").read().splitlines():
    key = line.split("=", 1)[0].strip()
    if key in changes:
        value = changes.pop(key)
        if value is None:
            continue
        line = key + "=" + value
    lines.append(line)
lines += [key + "=" + value for key, value in changes.items() if value is not None]
open(path, "w", encoding="utf-8").write("\\n".join(lines) + "\\n")
"""


def write_plan(lab, plan: dict) -> None:
    """Write each node's planned keys where the lab's Kafka reads them (server.properties or the env file)."""
    hostvars = inventory_hosts(lab)
    run_parallel([lambda node=node: _write_node(lab, hostvars[node["name"]], node) for node in plan["brokers"]])


def _write_node(lab, host: dict, node: dict) -> None:
    if host.get("kafka_deployment") == "docker":
        # vars/main.yml (_broker_config_keys): the variables of keys the plan removes go, the plan's variables are set
        removed = [key for key, value in node["properties"].items() if value is None]
        changes = {name: None for name in to_docker_env({key: "" for key in removed})}
        changes.update(to_docker_env(node))
        script, path = WRITE_ENV_FILE, host["kafka_docker_env_file"]
    else:
        changes, script, path = node["properties"], WRITE_PROPERTIES, host["kafka_config_path"]
    proc = on_node(lab, node["name"], VENV_PYTHON, "-c", script, path, input_text=json.dumps(changes))
    assert proc.returncode == 0, f"writing {path} on {node['name']} failed:\n{proc.stderr}"


def restart_kafka(lab, hosts: list[str]) -> None:
    """Restart Kafka on every host at once with the lab's service script; each must come back up."""
    procs = run_parallel([lambda host=host: on_node(lab, host, KAFKA_SERVICE, "restart") for host in hosts])
    for host, proc in zip(hosts, procs, strict=True):
        assert proc.returncode == 0, (f"kafka-service restart on {host} failed (exit status {proc.returncode}; "
                                      f"negative: killed by that signal):\n{proc.stdout}\n{proc.stderr}")


# ------------------------------------------------------------------------------------------------ clients


def kcat_brokers(lab, node: str, bootstrap: str) -> tuple[dict[int, str] | None, str]:
    """`kcat -L -J` on `node`: ({broker id: "host:port"}, stderr); None when kcat failed."""
    proc = on_node(lab, node, "kcat", "-L", "-J", "-b", bootstrap, "-m", "6")
    if proc.returncode != 0:
        return None, proc.stderr
    brokers = json.loads(proc.stdout)["brokers"]
    return {broker["id"]: broker["name"] for broker in brokers}, proc.stderr


def wait_for_brokers(lab, node: str, bootstrap: str, expected: dict[int, str]) -> dict[int, str] | None:
    """Poll `kcat -L` on `node` until it lists `expected` (a hang guard, not a timed assertion); the last listing."""
    deadline = time.monotonic() + CLUSTER_TIMEOUT
    listed = None
    while time.monotonic() < deadline:
        listed, _stderr = kcat_brokers(lab, node, bootstrap)
        if listed == expected:
            return listed
        time.sleep(0.5)
    return listed


# Runs on a client node: the kafka_metadata module's own steps (plugins/modules/kafka_metadata.py main()).
KAFKA_METADATA = """
import json, sys
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_connection import fetch_metadata
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import KafkaClientError
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_diagnosis import (
    check_endpoints, summarize_metadata, unreachable_endpoints)
bootstrap, timeout = sys.argv[1].split(","), float(sys.argv[2])
try:
    answer = fetch_metadata(bootstrap, timeout)
except KafkaClientError as exc:
    print(json.dumps({"failed": True, "msg": str(exc)}))
    raise SystemExit(0)
result = summarize_metadata(answer["metadata"])
endpoints = check_endpoints(result["brokers"], timeout)
result.update(failed=False, bootstrap_used=answer["bootstrap_used"], endpoints=endpoints,
              unreachable_endpoints=unreachable_endpoints(endpoints))
print(json.dumps(result))
"""


def kafka_metadata(lab, node: str, bootstrap: str, timeout: float = 5.0) -> dict:
    """The kafka_metadata module's result (with check_endpoints) for `bootstrap`, computed on `node`."""
    proc = on_node(lab, node, VENV_PYTHON, "-c", KAFKA_METADATA, bootstrap, str(timeout))
    assert proc.returncode == 0, f"kafka_metadata on {node} crashed:\n{proc.stderr}"
    return json.loads(proc.stdout)


def kafka_metadata_module(lab, node: str, args: dict) -> tuple[str, dict]:
    """The real module through `ansible localhost -m` inside `node`'s namespaces: (status, result)."""
    env = ansible_env()
    argv = ["env", *(f"{key}={env[key]}" for key in ("ANSIBLE_CONFIG", "ANSIBLE_COLLECTIONS_PATH", "ANSIBLE_NOCOLOR")),
            "ANSIBLE_LOCALHOST_WARNING=0", "ANSIBLE_INVENTORY_UNPARSED_WARNING=0",
            str(VENV_BIN / "ansible"), "localhost", "-m", "kafkaops.listeners.kafka_metadata", "-a", json.dumps(args)]
    proc = on_node(lab, node, *argv, timeout=ANSIBLE_TIMEOUT)
    results = parse_adhoc(proc.stdout)
    assert "localhost" in results, f"no module result from ansible on {node}:\n{proc.stdout}\n{proc.stderr}"
    return results["localhost"]


# Runs on a client node: produce one message with confluent-kafka or kafka-python and, when asked, read the
# partition back from the beginning; every error the client reports is collected. Prints JSON.
CLIENT_SCRIPT = textwrap.dedent(
    """
    import io, json, logging, os, sys, time
    spec = json.loads(sys.argv[1])
    bootstrap, topic, value, wait = spec["bootstrap"], spec["topic"], spec["value"], spec["timeout"]
    out = {"delivered": False, "consumed": [], "errors": [], "exception": None, "log": ""}
    if spec["library"] == "confluent-kafka":
        import confluent_kafka as ck
        def on_error(err):
            out["errors"].append({"name": err.name(), "str": err.str()})
        def on_delivery(err, _msg):
            out["delivered"] = err is None
            if err is not None:
                out["errors"].append({"name": err.name(), "str": err.str()})
        common = {"bootstrap.servers": bootstrap, "error_cb": on_error, "log_level": 0, **spec["librdkafka"]}
        producer = ck.Producer({**common, "message.timeout.ms": int(wait * 1000)})
        producer.produce(topic, value.encode(), on_delivery=on_delivery)
        # the delivery report comes when message.timeout.ms runs out; on a loaded machine that can be late, so wait
        # for it (bounded only as a hang guard) rather than exit without it
        producer.flush(wait + 60)
        if spec["consume"] and out["delivered"]:
            consumer = ck.Consumer({**common, "group.id": "scenario-matrix", "enable.auto.commit": False,
                                    "enable.partition.eof": True})
            consumer.assign([ck.TopicPartition(topic, 0, ck.OFFSET_BEGINNING)])
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                message = consumer.poll(1)
                if message is None:
                    continue
                if message.error():
                    if message.error().code() == ck.KafkaError._PARTITION_EOF:
                        break
                    out["errors"].append({"name": message.error().name(), "str": message.error().str()})
                    continue
                out["consumed"].append(message.value().decode())
            consumer.close()
    else:
        from kafka import KafkaConsumer, KafkaProducer, TopicPartition
        if spec["read_before_close"]:
            # kafka-python 3.0.12 drops what it read in the same call that saw the broker close the connection (a
            # refused login's error response, for one): keep a copy to show what the broker said
            from kafka.net import transport
            out["read_before_close"] = []
            for cls in (transport.KafkaTCPTransport, transport.KafkaSSLTransport):
                def recv(self, _recv=cls._sock_recv):
                    data, err = _recv(self)
                    if err is not None and data:
                        out["read_before_close"].append(data.decode("latin-1"))
                    return data, err
                cls._sock_recv = recv
        log = io.StringIO()
        handler = logging.StreamHandler(log)
        logging.getLogger("kafka").addHandler(handler)
        logging.getLogger("kafka").setLevel(logging.WARNING)
        wait_ms = int(wait * 1000)
        try:
            producer = KafkaProducer(bootstrap_servers=bootstrap.split(","), max_block_ms=wait_ms,
                                     request_timeout_ms=wait_ms, bootstrap_timeout_ms=wait_ms, **spec["kafka_python"])
            producer.send(topic, value.encode()).get(timeout=wait)
            out["delivered"] = True
            producer.close(timeout=5)
            if spec["consume"]:
                consumer = KafkaConsumer(bootstrap_servers=bootstrap.split(","), group_id=None,
                                         enable_auto_commit=False, consumer_timeout_ms=wait_ms,
                                         bootstrap_timeout_ms=wait_ms, **spec["kafka_python"])
                partition = TopicPartition(topic, 0)
                consumer.assign([partition])
                consumer.seek_to_beginning(partition)
                end = consumer.end_offsets([partition])[partition]
                for message in consumer:
                    out["consumed"].append(message.value.decode())
                    if message.offset + 1 >= end:
                        break
                consumer.close()
        except Exception as exc:
            out["exception"] = {"type": type(exc).__name__, "str": str(exc)}
        text = log.getvalue()  # the first errors say why (a refused login), the last how it ended
        out["log"] = text if len(text) <= 8000 else text[:4000] + " ... " + text[-4000:]
    print(json.dumps(out), flush=True)
    os._exit(0)  # what was to be seen is reported: no waiting for the clients' shutdown
    """
)


def python_client(lab, node: str, library: str, bootstrap: str, topic: str, value: str, consume: bool,
                  timeout: float, librdkafka: dict | None = None, kafka_python: dict | None = None,
                  read_before_close: bool = False) -> dict:
    """Run CLIENT_SCRIPT with `library` on `node`; its JSON report plus the process's stderr. `librdkafka` and
    `kafka_python` are extra client settings (TLS, SASL) for confluent-kafka and kafka-python; with
    `read_before_close`, kafka-python's report also holds (`read_before_close`) the bytes it read and dropped when
    a broker closed the connection."""
    spec = {"library": library, "bootstrap": bootstrap, "topic": topic, "value": value, "consume": consume,
            "timeout": timeout, "librdkafka": librdkafka or {}, "kafka_python": kafka_python or {},
            "read_before_close": read_before_close}
    proc = on_node(lab, node, VENV_PYTHON, "-c", CLIENT_SCRIPT, json.dumps(spec))
    assert proc.returncode == 0 and proc.stdout.strip(), f"{library} on {node} crashed:\n{proc.stderr}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    report["stderr"] = proc.stderr
    return report


def kcat_round_trip(lab, node: str, bootstrap: str, topic: str, value: str, timeout: float) -> dict:
    """kcat produces `value` to `topic`, then reads the topic from the beginning; what each step said."""
    produce = on_node(lab, node, "kcat", "-P", "-b", bootstrap, "-t", topic, "-X",
                      f"message.timeout.ms={int(timeout * 1000)}", input_text=value + "\n")
    report = {"produce_rc": produce.returncode, "produce_stderr": produce.stderr, "consumed": None}
    if produce.returncode == 0:
        consume = on_node(lab, node, "kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q")
        report.update(consume_rc=consume.returncode, consume_stderr=consume.stderr,
                      consumed=consume.stdout.splitlines())
    return report


# ------------------------------------------------------------------------------------------------ expectations


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def resolvable_names(status: dict, network: str) -> set[str]:
    """Names the resolver of a lab client network answers (lab/kafkaops_lab/dns.py, README 'DNS per network')."""
    nodes = status["nodes"]
    if network == "internet":
        names = {node["public_dns"] for node in nodes if node["public_dns"] and node["public_ip"]}
        if status["scenario"] == "docker-host":
            names.add("never-gonna-give-you-up")
        return names
    vm_nodes = [node for node in nodes if node.get("etc_dir") and node["network"] == "vpc" and node["private_dns"]]
    names = {node["private_dns"] for node in vm_nodes}
    if status["scenario"] == "aws-split-horizon":
        names |= {node["public_dns"] for node in vm_nodes if node["public_dns"]}
    if network == "docker-network":
        names |= {node["name"] for node in nodes if node["network"] == "container"}
    return names


def expected_outcome(status: dict, client: dict, host: str, port: int) -> str:
    """What a client on `client`'s network meets connecting to advertised host:port in this lab:

    ok, resolve (the name does not resolve there), dns-timeout (the network's resolver never answers),
    unreachable (a private address from the internet: the router rejects it) or refused (its own localhost).
    """
    network = client["client_network"]
    if host == "localhost":
        return "ok" if network == "docker-host" and port in DOCKER_PUBLISHED_PORTS else "refused"
    if is_ip(host):
        private = ipaddress.ip_address(host) in VPC_NET
        return "unreachable" if private and network == "internet" else "ok"
    if network != "internet" and status["scenario"] == "dns-blackhole":
        return "dns-timeout"  # the VPC resolver (also Docker's upstream) drops every query
    return "ok" if host in resolvable_names(status, network) else "resolve"


# ------------------------------------------------------------------------------------------------ the plan's view


def first_entry(bootstrap: str) -> str:
    """The first host:port of a bootstrap list (the module tries it first; kcat then asks the same broker)."""
    return bootstrap.split(",")[0]


def listed(result: dict) -> dict[int, str]:
    """kafka_metadata's brokers as {node id: "host:port"} (kcat_brokers' form)."""
    return {broker["node_id"]: f"{broker['host']}:{broker['port']}" for broker in result["brokers"]}


def network_of(plan: dict, client: dict) -> str | None:
    """The plan's network (endpoint["network"]) meant for a lab client."""
    return MEANT_NETWORK[plan["mode"]].get(client["client_network"])


def meant_bootstrap(plan: dict, client: dict) -> str | None:
    """The bootstrap list the plan gives the client's network, or None when it plans no listener for it."""
    network = network_of(plan, client)
    return plan["bootstrap"].get(network) if network else None


def listener_endpoints(plan: dict, network: str) -> list[tuple[str, int]]:
    """(host, port) every broker advertises for `network`, in plan order."""
    return [(endpoint["host"], endpoint["port"]) for node in plan["brokers"] for endpoint in node["endpoints"]
            if endpoint["network"] == network]


def planned_listing(plan: dict, network: str) -> dict[int, str]:
    return {node["node_id"]: endpoint["hostport"] for node in plan["brokers"] for endpoint in node["endpoints"]
            if endpoint["network"] == network}


def expected_listing(plan: dict, network: str) -> dict[int, str]:
    """The brokers a Metadata answer from the first broker lists for `network`: all of them, on every scenario.

    Also on dns-blackhole, where the brokers cannot resolve each other's names: Kafka keeps every registered,
    running broker in Metadata whatever its advertised names (real Kafka 4.4.0 does; the stand-in follows it).
    """
    return planned_listing(plan, network)


def outcome_of_listener(status: dict, plan: dict, client: dict) -> str:
    """What `client` meets on the endpoints of the listener meant for it (one outcome for all, else 'mixed')."""
    outcomes = {expected_outcome(status, client, host, port)
                for host, port in listener_endpoints(plan, network_of(plan, client))}
    return outcomes.pop() if len(outcomes) == 1 else "mixed"


def _first_broker(plan: dict) -> dict:
    return next(node for node in plan["brokers"] if node["endpoints"])


def reach_address(status: dict, client: dict, broker: str) -> str:
    """The address through which `client` reaches Kafka host `broker` at all, whatever the listener."""
    nodes = {node["name"]: node for node in status["nodes"]}
    network = client["client_network"]
    if network == "internet":  # the instance's public address, through the router's 1:1 NAT
        return nodes[broker]["public_dns"] or nodes[broker]["public_ip"]
    if network == "vpc":
        return nodes[broker]["private_ip"]
    container = next(node for node in status["nodes"] if node["network"] == "container" and node.get("kafka_node_id"))
    # the Docker host reaches its container by IP (not by name); containers by name (Docker's DNS)
    return container["private_ip"] if network == "docker-host" else container["name"]


def wrong_listener(status: dict, plan: dict, client: dict) -> tuple[str, str] | None:
    """(network, bootstrap) of a listener meant for another network that `client` can still connect to."""
    meant = network_of(plan, client)
    broker = _first_broker(plan)
    for endpoint in broker["endpoints"]:
        if endpoint["network"] == meant:
            continue
        if plan["mode"] == "docker" and client["client_network"] == "internet" and \
                endpoint["port"] not in DOCKER_PUBLISHED_PORTS:
            continue  # not published: the Docker host refuses it before Kafka is involved
        host = reach_address(status, client, broker["name"])
        return endpoint["network"], f"{host}:{endpoint['port']}"
    return None


def config_location(matrix, host: str) -> tuple[str, str]:
    """(node, path) of the server.properties Kafka of inventory host `host` runs with."""
    hostvars = inventory_hosts(matrix.lab)[host]
    if hostvars.get("kafka_deployment") == "docker":  # made from the env file when the container starts
        return hostvars["kafka_container_name"], "/etc/kafka/server.properties"
    return host, hostvars["kafka_config_path"]


# ------------------------------------------------------------------------------------------------ verdicts


def client_call(lab, node: str, library: str, bootstrap: str, topic: str, timeout: float, consume: bool):
    """A zero-argument call running `library` on `node` (produce `topic`-value, then read it back if asked)."""
    value = f"{topic}-value"
    if library == "kcat":
        return lambda: kcat_round_trip(lab, node, bootstrap, topic, value, timeout)
    return lambda: python_client(lab, node, library, bootstrap, topic, value, consume, timeout)


def round_trip_problems(library: str, report: dict, topic: str) -> list[str]:
    """What went wrong with a produce + consume that should have worked (empty when it did)."""
    value = f"{topic}-value"
    if library == "kcat":
        if report["produce_rc"] != 0:
            return [f"kcat -P failed: {report['produce_stderr'][-800:]}"]
        if report["consume_rc"] != 0 or report["consumed"] != [value]:
            return [f"kcat -C read {report['consumed']}: {report['consume_stderr'][-800:]}"]
        return []
    if not report["delivered"] or report["consumed"] != [value] or report["exception"]:
        return [f"delivered {report['delivered']}, read {report['consumed']}, exception {report['exception']}, "
                f"errors {report.get('errors', [])[:3]}, log {report.get('log', '')[-600:]}"]
    return []


def _librdkafka_texts(outcome: str, host: str, port: int) -> list[tuple[str, str]]:
    """(librdkafka's error class, its message) pairs, any of which a connection to advertised host:port that fails
    with `outcome` reports (localhost: whichever of its addresses librdkafka tried)."""
    return {
        "resolve": [("_RESOLVE", f"Failed to resolve '{host}:{port}': Name or service not known")],
        "dns-timeout": [("_RESOLVE", f"Failed to resolve '{host}:{port}': Temporary failure in name resolution")],
        "unreachable": [("_TRANSPORT", f"Connect to ipv4#{host}:{port} failed: Network is unreachable")],
        "refused": [("_TRANSPORT", f"Connect to ipv4#127.0.0.1:{port} failed: Connection refused"),
                    ("_TRANSPORT", f"Connect to ipv6#[::1]:{port} failed: Connection refused")],
    }[outcome]


def _kafka_python_text(outcome: str, host: str, port: int) -> str:
    return {
        "resolve": f"DNS lookup failed for {host}:{port}, gaierror(-2, 'Name or service not known')",
        "dns-timeout": f"DNS lookup failed for {host}:{port}, gaierror(-3, 'Temporary failure in name resolution')",
        "unreachable": "KafkaConnectionError: 101 ENETUNREACH",
        "refused": "KafkaConnectionError: 111 ECONNREFUSED",
    }[outcome]


# how kcat names librdkafka's error classes on its "% ERROR:" lines
_KCAT_CLASS = {"_RESOLVE": "Local: Host resolution failure", "_TRANSPORT": "Local: Broker transport failure"}


def failure_problems(library: str, report: dict, outcome: str, endpoints: list[tuple[str, int]]) -> list[str]:
    """What is wrong with a produce that must fail with `outcome` on one of `endpoints` (empty when it did)."""
    texts = [text for host, port in endpoints for text in _librdkafka_texts(outcome, host, port)]
    if library == "kcat":
        stderr = report["produce_stderr"]
        if report["produce_rc"] == 0:
            return ["kcat -P succeeded"]
        if not any(message in stderr and _KCAT_CLASS[name] in stderr for name, message in texts):
            return [f"kcat -P said no {texts[0]}: {stderr[-800:]}"]
        return []
    if report["delivered"]:
        return ["the message was delivered"]
    if library == "confluent-kafka":
        errors = report["errors"]
        if not any(error["name"] == name and message in error["str"] for error in errors for name, message in texts):
            return [f"no {texts[0]} among the errors {errors[:4]}"]
        if "_MSG_TIMED_OUT" not in {error["name"] for error in errors}:
            return [f"the delivery report did not say the message timed out: {errors[-3:]}"]
        return []
    wanted = [_kafka_python_text(outcome, host, port) for host, port in endpoints]
    exception = report["exception"] or {}
    if exception.get("type") != "KafkaTimeoutError":
        return [f"expected KafkaTimeoutError, got {exception}"]
    if not any(text in report["log"] for text in wanted):
        return [f"kafka-python logged no {wanted[0]!r}: {report['log'][-800:]}"]
    return []


def endpoint_problems(endpoint: dict, outcome: str) -> list[str]:
    """What is wrong with kafka_metadata's report of an endpoint that fails with `outcome` from the client."""
    error = endpoint["error"] or ""
    if outcome in ("resolve", "dns-timeout"):
        reasons = ("Name or service not known",) if outcome == "resolve" else (
            "Temporary failure in name resolution", "timed out")
        good = not endpoint["resolvable"] and not endpoint["connectable"] and any(r in error for r in reasons)
    else:
        reason = "Network is unreachable" if outcome == "unreachable" else "Connection refused"
        good = endpoint["resolvable"] and not endpoint["connectable"] and reason in error
    return [] if good else [f"endpoint {endpoint} does not report {outcome}"]
