#!/usr/bin/env python3
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Ansible inventory script: the inventory of the lab this molecule scenario brought up, or no hosts yet.

Molecule links it as `<ephemeral dir>/inventory/hosts` (provisioner.inventory.links), so it exists before the lab
does. The scenario's create playbook links `<ephemeral dir>/lab-inventory.yml` to the inventory `lab/lab`
wrote; this script serves that file in the script-inventory JSON form (`--list`, `--host NAME`), and an empty
inventory while there is no lab (before create, after destroy).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# the link's own path, not its target: the ephemeral directory is two levels above the link
EPHEMERAL_DIR = Path(sys.argv[0]).absolute().parent.parent
LAB_INVENTORY = EPHEMERAL_DIR / "lab-inventory.yml"


def script_inventory(data: dict) -> dict:
    """Turn a YAML inventory (`all:` with nested hosts/vars/children) into the script format with `_meta`."""
    groups: dict[str, dict] = {}
    hostvars: dict[str, dict] = {}

    def walk(name: str, group: dict) -> None:
        group = group or {}
        entry = groups.setdefault(name, {"hosts": [], "vars": {}, "children": []})
        entry["vars"].update(group.get("vars") or {})
        for host, host_data in (group.get("hosts") or {}).items():
            if host not in entry["hosts"]:
                entry["hosts"].append(host)
            hostvars.setdefault(host, {}).update(host_data or {})
        for child, child_group in (group.get("children") or {}).items():
            if child not in entry["children"]:
                entry["children"].append(child)
            walk(child, child_group)

    for name, group in data.items():
        walk(name, group)
    groups["_meta"] = {"hostvars": hostvars}
    return groups


def main(argv: list[str]) -> int:
    """Print the inventory (`--list`) or one host's variables (`--host NAME`) as JSON; 2 on bad usage."""
    if argv != ["--list"] and not (len(argv) == 2 and argv[0] == "--host"):
        print("usage: lab_inventory.py --list | --host NAME", file=sys.stderr)
        return 2
    inventory: dict = {"_meta": {"hostvars": {}}}
    if LAB_INVENTORY.exists():
        # PyYAML is an ansible-core dependency: the python3 first on PATH is the venv's when molecule runs (make)
        import yaml

        try:
            inventory = script_inventory(yaml.safe_load(LAB_INVENTORY.read_text(encoding="utf-8")) or {})
        except (OSError, yaml.YAMLError, AttributeError) as exc:
            print(f"lab_inventory.py: cannot read the lab's inventory {LAB_INVENTORY}: {exc}", file=sys.stderr)
            return 1
    if argv[0] == "--host":
        print(json.dumps(inventory["_meta"]["hostvars"].get(argv[1], {})))
    else:
        print(json.dumps(inventory))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
