# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Action plugin of kafka_records: write JSON-lines records on the controller, in the controller's own process."""

from __future__ import annotations

import json
import os
import tempfile

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

ARGUMENT_SPEC = {
    "dest": {"type": "path", "required": True},
    "records": {"type": "list", "elements": "dict", "required": True},
}


def write_records(dest: str, records: list) -> None:
    """Write one JSON object per line to ``dest`` (mode 0644) through a temporary file and a rename; make its folder
    (mode 0755) when it is missing."""
    folder = os.path.dirname(os.path.abspath(dest))
    os.makedirs(folder, mode=0o755, exist_ok=True)
    fd, tmp_path = tempfile.mkstemp(prefix=".kafka_records.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(record) + "\n" for record in records)
        os.chmod(tmp_path, 0o644)
        os.replace(tmp_path, dest)
    except BaseException:
        if os.path.exists(tmp_path):
            os.unlink(tmp_path)
        raise


class ActionModule(ActionBase):
    """Writes the records where the controller runs, without a module call: no connection, no interpreter start."""

    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]  # (validation result, validated args)
        dest = args["dest"]
        # records are an append-only log of what a run saw, not managed state: writing them is never a change
        result.update(changed=False, dest=dest, count=len(args["records"]))
        if self._task.check_mode:
            result["msg"] = "check mode: nothing written"
            return result
        try:
            write_records(dest, args["records"])
        except (OSError, TypeError, ValueError) as exc:
            raise AnsibleActionFail("cannot write the records to %s: %s" % (dest, exc)) from exc
        return result
