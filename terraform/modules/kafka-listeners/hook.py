#!/usr/bin/env python3
"""Input checks and generated files for run-playbook.sh, the kafka-listeners Terraform hook.

`python3 hook.py prepare WORKDIR` reads the KL_* environment variables that the module's local-exec provisioner
sets, refuses bad values with a message naming the Terraform variable, and writes into WORKDIR (which the caller
created mode 0700):

- inventory.yml      the Ansible inventory (JSON, which is YAML): group kafka_brokers, one host per broker
- extra-vars.json    the non-secret extra vars
- secret-vars.json   the secret extra vars, mode 0600, only when there are some
- ssh-probe-args     NUL-separated ssh arguments (options, key, port, user) for the wait-for-SSH loop
- playbook-args      NUL-separated ansible-playbook arguments, the playbook last
- hosts.tsv          one "name<TAB>address" line per broker, in rollout order

Standard library only; no value of KL_SECRET_EXTRA_VARS is ever printed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

ADDRESS_KINDS = ("public_ip", "public_dns", "private_ip", "private_dns")
HOST_KEY_POLICIES = ("yes", "accept-new")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# the Terraform variable behind each environment variable, so errors speak the user's language
TERRAFORM_NAMES = {
    "KL_CLUSTER_NAME": "cluster_name",
    "KL_BROKERS": "brokers",
    "KL_SSH_USER": "ssh_user",
    "KL_SSH_PRIVATE_KEY_FILE": "ssh_private_key_path",
    "KL_SSH_PORT": "ssh_port",
    "KL_SSH_ADDRESS": "ssh_address",
    "KL_SSH_PROXY_COMMAND": "ssh_proxy_command",
    "KL_SSH_KNOWN_HOSTS_FILE": "ssh_known_hosts_file",
    "KL_SSH_STRICT_HOST_KEY_CHECKING": "ssh_strict_host_key_checking",
    "KL_SSH_WAIT_ATTEMPTS": "ssh_wait_attempts",
    "KL_SSH_WAIT_DELAY": "ssh_wait_delay_seconds",
    "KL_SSH_CONNECT_TIMEOUT": "ssh_connect_timeout_seconds",
    "KL_USE_TERRAFORM_NAMES": "use_terraform_names",
    "KL_BECOME": "become",
    "KL_EXTRA_VARS": "extra_vars",
    "KL_SECRET_EXTRA_VARS": "secret_extra_vars",
    "KL_PLAYBOOK": "playbook",
    "KL_ANSIBLE_PLAYBOOK": "ansible_playbook_path",
    "KL_ANSIBLE_PLAYBOOK_ARGS": "ansible_playbook_args",
    "KL_INVENTORY_FILE": "inventory_file",
}


class HookInputError(ValueError):
    """A KL_* value the hook cannot use; the message names the variable and what is wrong."""


def _label(env_name: str) -> str:
    return f"{env_name} (variable {TERRAFORM_NAMES[env_name]})"


def _text(env: dict, name: str, required: bool = True) -> str:
    value = env.get(name, "")
    if required and not value.strip():
        raise HookInputError(f"{_label(name)} is empty")
    return value


def _whole_number(env: dict, name: str, low: int, high: int) -> int:
    raw = _text(env, name)
    try:
        number = float(raw)
    except ValueError:
        raise HookInputError(f"{_label(name)} must be a whole number, got {raw!r}") from None
    if number != int(number) or not low <= number <= high:
        raise HookInputError(f"{_label(name)} must be a whole number from {low} to {high}, got {raw!r}")
    return int(number)


def _choice(env: dict, name: str, choices: tuple[str, ...]) -> str:
    value = _text(env, name)
    if value not in choices:
        raise HookInputError(f"{_label(name)} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _json(env: dict, name: str, kind: type, secret: bool = False):
    raw = _text(env, name)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        shown = "" if secret else f": {exc}"
        raise HookInputError(f"{_label(name)} is not valid JSON{shown}") from None
    if not isinstance(value, kind):
        raise HookInputError(f"{_label(name)} must be a JSON {kind.__name__}, got {type(value).__name__}")
    return value


def _brokers(env: dict, address_kind: str) -> list[dict]:
    brokers = _json(env, "KL_BROKERS", list)
    if not brokers:
        raise HookInputError(f"{_label('KL_BROKERS')} lists no broker")
    seen: set[str] = set()
    checked = []
    for index, broker in enumerate(brokers, start=1):
        where = f"{_label('KL_BROKERS')}, broker {index}"
        if not isinstance(broker, dict):
            raise HookInputError(f"{where} must be an object, got {type(broker).__name__}")
        fields = {}
        for field in ("name", "id", "private_ip", "private_dns", "public_ip", "public_dns"):
            value = broker.get(field)
            if value is not None and not isinstance(value, str):
                raise HookInputError(f"{where}: {field} must be a string, got {type(value).__name__}")
            fields[field] = (value or "").strip()
        for field in ("name", "id", "private_ip"):
            if not fields[field]:
                raise HookInputError(f"{where}: {field} is missing or empty")
        name = fields["name"]
        if not NAME_PATTERN.match(name):
            raise HookInputError(f"{where}: name {name!r} may only hold letters, digits, '-', '_' and '.'")
        if name in seen:
            raise HookInputError(f"{where}: name {name!r} is used twice")
        seen.add(name)
        if not fields[address_kind]:
            raise HookInputError(f"{where} ({name}) has no {address_kind}, which ssh_address={address_kind} "
                                 f"connects to; choose another ssh_address or give the instance that address")
        checked.append(fields)
    return checked


def _static_facts(broker: dict) -> dict:
    return {
        "private_host": broker["private_dns"] or broker["private_ip"],
        "public_dns": broker["public_dns"] or None,
        "public_ip": broker["public_ip"] or None,
    }


def _nul_file(path: Path, items: list[str]) -> None:
    for item in items:
        if "\0" in item:
            raise HookInputError(f"an argument holds a NUL byte: {item!r}")
    path.write_bytes(b"".join(item.encode() + b"\0" for item in items))


def prepare(env: dict, workdir: Path) -> list[tuple[str, str]]:
    """Check the KL_* inputs and write the run's files into workdir; return (name, address) per broker.

    Raises HookInputError naming the Terraform variable when an input is unusable, before anything is written outside
    workdir (the caller removes workdir).
    """
    cluster_name = _text(env, "KL_CLUSTER_NAME")
    if not NAME_PATTERN.match(cluster_name):
        raise HookInputError(f"{_label('KL_CLUSTER_NAME')} {cluster_name!r} may only hold letters, digits, "
                             f"'-', '_' and '.'")
    address_kind = _choice(env, "KL_SSH_ADDRESS", ADDRESS_KINDS)
    brokers = _brokers(env, address_kind)
    user = _text(env, "KL_SSH_USER")
    key_file = _text(env, "KL_SSH_PRIVATE_KEY_FILE")
    if "-----BEGIN" in key_file:  # a pasted key: say so without echoing it
        raise HookInputError(f"{_label('KL_SSH_PRIVATE_KEY_FILE')} holds a key, not a path: give the key file's path")
    key_path = Path(key_file).expanduser()
    if not key_path.is_file() or not os.access(key_path, os.R_OK):
        raise HookInputError(f"{_label('KL_SSH_PRIVATE_KEY_FILE')}: {key_file} is not a readable file")
    port = _whole_number(env, "KL_SSH_PORT", 1, 65535)
    _whole_number(env, "KL_SSH_WAIT_ATTEMPTS", 1, 1000)
    _whole_number(env, "KL_SSH_WAIT_DELAY", 0, 600)
    connect_timeout = _whole_number(env, "KL_SSH_CONNECT_TIMEOUT", 1, 300)
    host_key_policy = _choice(env, "KL_SSH_STRICT_HOST_KEY_CHECKING", HOST_KEY_POLICIES)
    use_terraform_names = _choice(env, "KL_USE_TERRAFORM_NAMES", ("true", "false")) == "true"
    become = _choice(env, "KL_BECOME", ("true", "false")) == "true"
    extra_vars = _json(env, "KL_EXTRA_VARS", dict)
    secret_vars = _json(env, "KL_SECRET_EXTRA_VARS", dict, secret=True) if env.get("KL_SECRET_EXTRA_VARS") else {}
    playbook = _text(env, "KL_PLAYBOOK")
    playbook_args = _json(env, "KL_ANSIBLE_PLAYBOOK_ARGS", list)
    if not all(isinstance(arg, str) for arg in playbook_args):
        raise HookInputError(f"{_label('KL_ANSIBLE_PLAYBOOK_ARGS')} must be a list of strings")
    inventory_copy = _text(env, "KL_INVENTORY_FILE", required=False).strip()

    known_hosts = _text(env, "KL_SSH_KNOWN_HOSTS_FILE", required=False).strip()
    if not known_hosts:
        # trust on first use: per run, or beside the kept inventory so a re-run by hand pins the same keys
        known_hosts = f"{inventory_copy}.known_hosts" if inventory_copy else str(workdir / "known_hosts")
    elif host_key_policy == "yes" and not Path(known_hosts).expanduser().is_file():
        raise HookInputError(f"{_label('KL_SSH_KNOWN_HOSTS_FILE')}: {known_hosts} does not exist, and "
                             f"ssh_strict_host_key_checking=yes only accepts keys listed there")

    ssh_options = [
        "-o", f"UserKnownHostsFile={known_hosts}",
        "-o", f"StrictHostKeyChecking={host_key_policy}",
        "-o", "IdentitiesOnly=yes",
        "-o", f"ConnectTimeout={connect_timeout}",
    ]
    proxy_command = _text(env, "KL_SSH_PROXY_COMMAND", required=False).strip()
    if proxy_command:
        ssh_options += ["-o", f"ProxyCommand={proxy_command}"]

    hosts = {}
    for broker in brokers:
        # only variables a role reads: the addresses reach the broker role as broker_static_facts when asked for
        host = {"ansible_host": broker[address_kind]}
        if use_terraform_names:
            host["broker_static_facts"] = _static_facts(broker)
        hosts[broker["name"]] = host
    inventory = {
        "all": {
            "vars": {
                "ansible_user": user,
                "ansible_port": port,
                "ansible_ssh_private_key_file": str(key_path),
                "ansible_ssh_common_args": shlex.join(ssh_options),
                # recycled cloud addresses must not reuse another run's SSH master connection; a short name in
                # Ansible's own control folder, since a socket path in a long TMPDIR exceeds the 104-byte limit
                "ansible_control_path": f"%(directory)s/kl-{workdir.name[-6:]}-%%C",
                # the broker role names the cluster by it (and plans it apart from others run with it), the verify
                # role's records too
                "broker_cluster_name": cluster_name,
                # privilege for the broker role's writes and restarts (sudo from ssh_user; none for a root login)
                "broker_become": become,
                "verify_cluster_name": cluster_name,
            },
            # an empty client group: the site playbook's verify play then skips without a "no such group" warning
            "children": {"kafka_brokers": {"hosts": hosts}, "kafka_clients": {"hosts": {}}},
        }
    }

    inventory_text = json.dumps(inventory, indent=2) + "\n"
    (workdir / "inventory.yml").write_text(inventory_text, encoding="utf-8")
    (workdir / "extra-vars.json").write_text(json.dumps(extra_vars), encoding="utf-8")
    playbook_argv = ["-i", str(workdir / "inventory.yml"), "-e", f"@{workdir / 'extra-vars.json'}"]
    if secret_vars:
        secret_path = workdir / "secret-vars.json"
        descriptor = os.open(secret_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(secret_vars, handle)
        playbook_argv += ["-e", f"@{secret_path}"]
    playbook_argv += [*playbook_args, playbook]
    _nul_file(workdir / "playbook-args", playbook_argv)
    _nul_file(workdir / "ssh-probe-args", [*ssh_options, "-o", "BatchMode=yes", "-i", str(key_path),
                                           "-p", str(port), "-l", user])
    lines = [(broker["name"], broker[address_kind]) for broker in brokers]
    (workdir / "hosts.tsv").write_text("".join(f"{name}\t{address}\n" for name, address in lines), encoding="utf-8")
    if inventory_copy:
        Path(inventory_copy).expanduser().parent.mkdir(parents=True, exist_ok=True)
        Path(inventory_copy).expanduser().write_text(inventory_text, encoding="utf-8")
    return lines


def main(argv: list[str]) -> int:
    """`hook.py prepare WORKDIR`: exit 0 with the files written, 2 with a message on bad input."""
    if len(argv) != 3 or argv[1] != "prepare":
        print("usage: hook.py prepare WORKDIR", file=sys.stderr)
        return 2
    try:
        prepare(dict(os.environ), Path(argv[2]))
    except HookInputError as exc:
        print(f"kafka-listeners: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
