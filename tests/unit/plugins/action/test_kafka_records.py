# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The kafka_records action plugin, run in process with a task object standing in for the playbook's."""

from __future__ import annotations

import json
import os
import stat
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail, AnsibleError

from ansible_collections.kafkaops.listeners.plugins.action.kafka_records import ActionModule

RECORDS = [{"broker": "b1", "node_id": 1, "public_dns": None, "endpoints": ["a:9092"]},
           {"broker": "b2", "node_id": 2, "public_dns": "ec2-x", "endpoints": []}]


def run_action(args: dict, check_mode: bool = False) -> dict:
    task = MagicMock(args=args, check_mode=check_mode, async_val=0)
    action = ActionModule(task, MagicMock(), MagicMock(), loader=None, templar=None, shared_loader_obj=None)
    return action.run(task_vars={})


def test_writes_one_json_object_per_line_and_makes_the_folder(tmp_path):
    dest = tmp_path / "records" / "probes-run-client.jsonl"
    result = run_action({"dest": str(dest), "records": RECORDS})
    assert result["changed"] is False and result["count"] == 2 and result["dest"] == str(dest)
    assert [json.loads(line) for line in dest.read_text(encoding="utf-8").splitlines()] == RECORDS
    assert stat.S_IMODE(dest.stat().st_mode) == 0o644
    assert stat.S_IMODE(dest.parent.stat().st_mode) == 0o755 & ~_umask()
    assert [p.name for p in dest.parent.iterdir()] == [dest.name], "the temporary file was left behind"


def test_no_records_write_an_empty_file(tmp_path):
    dest = tmp_path / "brokers.jsonl"
    run_action({"dest": str(dest), "records": []})
    assert dest.read_bytes() == b""


def test_check_mode_writes_nothing(tmp_path):
    dest = tmp_path / "records" / "brokers.jsonl"
    result = run_action({"dest": str(dest), "records": RECORDS}, check_mode=True)
    assert result["changed"] is False and "check mode" in result["msg"]
    assert not dest.parent.exists()


def test_an_unwritable_destination_fails_with_its_path(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    dest = blocker / "brokers.jsonl"
    with pytest.raises(AnsibleActionFail, match="cannot write the records to " + str(dest)):
        run_action({"dest": str(dest), "records": RECORDS})


def test_records_must_be_mappings(tmp_path):
    with pytest.raises(AnsibleError, match="records"):
        run_action({"dest": str(tmp_path / "x.jsonl"), "records": ["not a mapping"]})


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
