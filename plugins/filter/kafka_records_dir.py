# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_records_dir
short_description: The default folder of the verify role's records, for a playbook folder
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - C(kafka-listener-records) beside the playbook; for the collection's own playbooks (a playbook folder inside
    C(ansible_collections/), such as C(kafkaops.listeners.site)'s) in the directory C(ansible-playbook) was started
    from (C($PWD), else C($HOME)), never inside the installed collection.
  - The one default of the verify role's C(verify_records_dir), which the broker role's C(broker_records_dir)
    reads too; with O(folder), the same rule for the audit role's C(audit_output_dir).
options:
  _input:
    description: The playbook's folder (C(playbook_dir)).
    type: str
    required: true
  folder:
    description: The name of the folder in that place (the audit role's output is C(kafka-listener-audit)).
    type: str
    default: kafka-listener-records
    version_added: 0.4.0
"""

EXAMPLES = r"""
- name: Show where the verify role writes its records by default
  ansible.builtin.debug:
    msg: "{{ playbook_dir | kafkaops.listeners.kafka_records_dir }}"
"""

RETURN = r"""
_value:
  description: The folder, on the controller.
  type: str
"""

import os

from ansible.errors import AnsibleFilterError


def kafka_records_dir(playbook_dir, folder="kafka-listener-records"):
    """The default folder ``folder`` for ``playbook_dir`` (see the plugin documentation)."""
    if not isinstance(playbook_dir, str) or not playbook_dir:
        raise AnsibleFilterError("kafka_records_dir: expected the playbook's folder (playbook_dir), got %r"
                                 % (playbook_dir,))
    if not isinstance(folder, str) or not folder or "/" in folder or folder in (".", ".."):
        raise AnsibleFilterError("kafka_records_dir: folder must be the name of one folder, got %r" % (folder,))
    base = playbook_dir
    if "/ansible_collections/" in playbook_dir:
        base = os.environ.get("PWD") or os.environ.get("HOME", "")
    return base + "/" + folder


class FilterModule:
    """The kafka_records_dir filter."""

    def filters(self):
        return {"kafka_records_dir": kafka_records_dir}
