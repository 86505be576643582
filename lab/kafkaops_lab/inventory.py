"""The Ansible inventory of a lab: every SSH node, reached only through the control namespace.

Groups: kafka_brokers, kafka_controllers (KRaft voters, combined nodes included), kafka_clients (with
kafka_client_network: vpc | internet | internet-nlb | peered-vpc | private-endpoint | docker-host), docker_hosts.
Connection settings are group-wide: the lab's key, host keys pinned in the lab's known_hosts, ProxyCommand
`ip netns exec <ctl> nc %h %p`, and as root the Python that runs the tests (interpreter discovery picks a broken
shim on this machine kind). The Kafka machines (brokers, controllers, the Docker host) override the login per host:
the non-root user with sudo and the system Python (logins.py).
Facts the tests compare against (addresses, DNS names) are host vars prefixed `lab_`.
"""

from __future__ import annotations

import json
import shlex

from . import install_shapes, logins
from . import nodes as lab_nodes
from .paths import KAFKA_SERVICE
from .state import LabDir
from .topology import DOCKER_CONTAINER, Node, Topology


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)  # a JSON string or list is a valid YAML flow scalar


def to_yaml(data: dict, indent: int = 0) -> str:
    """Block-style YAML for nested dicts of scalars and lists (enough for an inventory, no PyYAML needed)."""
    out = []
    pad = "  " * indent
    for key, value in data.items():
        if isinstance(value, dict):
            if value:
                out.append(f"{pad}{key}:\n{to_yaml(value, indent + 1)}")
            else:
                out.append(f"{pad}{key}: {{}}\n")
        else:
            out.append(f"{pad}{key}: {_scalar(value)}\n")
    return "".join(out)


def ssh_common_args(topo: Topology, lab: LabDir) -> str:
    return " ".join([
        "-o", shlex.quote(f"ProxyCommand={lab_nodes.proxy_command(topo)}"),
        "-o", f"UserKnownHostsFile={lab.ssh / 'known_hosts'}",
        "-o", "StrictHostKeyChecking=yes",
        "-o", "IdentitiesOnly=yes",
        "-o", "ConnectTimeout=20",
    ])


def host_vars(topo: Topology, node: Node) -> dict:
    hostvars: dict = {"ansible_host": lab_nodes.ssh_address(node)}
    if logins.logs_in_as(node) != "root":
        hostvars.update({"ansible_user": logins.logs_in_as(node),
                         "ansible_python_interpreter": logins.python_for(node, lab_nodes.python_for_lab())})
    if node.kafka_roles:
        hostvars.update({
            "kafka_deployment": "package",
            "kafka_node_id": node.node_id,
            "kafka_process_roles": topo.process_roles(node),
            # for assertions only: the role finds the file itself (install_shapes.py)
            "kafka_config_path": install_shapes.shape(topo, node).properties,
        })
    if node.role == "docker-host":
        container = topo.node(DOCKER_CONTAINER)
        hostvars.update({
            "kafka_deployment": "docker",
            "kafka_node_id": container.node_id,
            "kafka_process_roles": list(container.kafka_roles),
            "kafka_container_name": container.name,
            "kafka_docker_env_file": lab_nodes.DOCKER_ENV_FILE,
        })
    if node.vm:
        hostvars["kafka_dmi_path"] = lab_nodes.DMI_PATH
    if node.client_network:
        hostvars["kafka_client_network"] = node.client_network
        hostvars["kafka_bootstrap_servers"] = ",".join(topo.bootstrap(node))
    hostvars.update({
        "lab_node": node.name,
        "lab_namespace": node.namespace,
        "lab_private_ip": node.private_ip if node.network not in ("internet", "container") else None,
        "lab_public_ip": node.public_ip,
        "lab_private_dns": topo.private_dns(node),
        "lab_public_dns": topo.public_dns(node),
        "lab_hostname": topo.hostname(node),
    })
    if topo.peered_dns(node):
        hostvars["lab_peered_dns"] = topo.peered_dns(node)  # its name in the peered VPC's own zone
    if topo.endpoint_dns(node):
        hostvars["lab_endpoint_dns"] = topo.endpoint_dns(node)  # its private endpoint's name in the consumer VPC
    return hostvars


def render(topo: Topology, lab: LabDir) -> str:
    """The inventory YAML for `topo`."""
    groups: dict[str, dict] = {"kafka_brokers": {}, "kafka_controllers": {}, "kafka_clients": {}, "docker_hosts": {}}
    for node in topo.nodes:
        if not node.ssh:
            continue
        hostvars = host_vars(topo, node)
        if "broker" in node.kafka_roles or node.role == "docker-host":
            groups["kafka_brokers"][node.name] = hostvars
        if "controller" in node.kafka_roles:
            groups["kafka_controllers"][node.name] = hostvars
        if node.client_network:
            groups["kafka_clients"][node.name] = hostvars
        if node.role == "docker-host":
            groups["docker_hosts"][node.name] = hostvars
    data = {
        "all": {
            "vars": {
                "ansible_user": "root",
                "ansible_ssh_private_key_file": str(lab.ssh / "id_ed25519"),
                "ansible_ssh_common_args": ssh_common_args(topo, lab),
                "ansible_python_interpreter": lab_nodes.python_for_lab(),
                # labs share addresses: a per-lab directory keeps SSH multiplexing from crossing labs
                "ansible_control_path_dir": str(lab.ssh / "cp"),
                "kafka_service_command": str(KAFKA_SERVICE),
                "lab_prefix": topo.prefix,
                "lab_scenario": topo.scenario.name,
                "lab_provider": topo.scenario.provider,
                "lab_state_dir": str(lab.path),
                **({"lab_load_balancer": topo.load_balancer()} if topo.load_balancer() else {}),
            },
            "children": {name: {"hosts": hosts} for name, hosts in groups.items() if hosts},
        }
    }
    header = (f"# Ansible inventory of kafkaops lab {topo.prefix} (scenario {topo.scenario.name}), written by "
              f"lab/lab; `lab down` removes it.\n")
    return header + to_yaml(data)


def write(topo: Topology, lab: LabDir) -> None:
    tmp = lab.inventory.with_suffix(".tmp")
    tmp.write_text(render(topo, lab), encoding="utf-8")
    tmp.replace(lab.inventory)
