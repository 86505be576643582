# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The kafka_properties module on a container's env file (format=env), run through main() with module args.

The properties format is covered by tests/integration/targets/kafka_properties and test_properties.py; the file
handling both formats share (links, files that are not regular, the writers' lock, backups, check mode) at the end.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kafkaops.listeners.plugins.module_utils import _config_file
from ansible_collections.kafkaops.listeners.plugins.modules import kafka_properties

ENV_FILE = (b"# broker container \xff kept\n"
            b"export KAFKA_NODE_ID=1\r\n"
            b"KAFKA_PROCESS_ROLES='broker,controller'\n"
            b"KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://localhost:9092  # image default\n"
            b"KAFKA_INTER_BROKER_LISTENER_NAME=PLAINTEXT\n"
            b'CLUSTER_ID="MkU3OEVBNTcwNTJENDM2Qk"')
PLAN_ENV = {"KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://kafka0:9092", "KAFKA_INTER_BROKER_LISTENER_NAME": None,
            "KAFKA_NODE_ID": "1"}


def run(**args):
    """Run main() with these module args; return ("exit"|"fail", its keyword arguments)."""
    with patch_module_args(dict(args, format="env", validate_listeners=False)), \
            pytest.raises(SystemExit) as ended:  # see conftest.py
        kafka_properties.main()
    return ended.value.code[:2]


@pytest.fixture
def env_file(tmp_path):
    path = tmp_path / "kafka.env"
    path.write_bytes(ENV_FILE)
    return path


def test_check_mode_then_apply_then_nothing_to_do(env_file):
    kind, result = run(path=str(env_file), properties=PLAN_ENV, _ansible_check_mode=True, _ansible_diff=True)
    assert kind == "exit" and result["changed"] is True, result
    assert result["changed_keys"] == ["KAFKA_ADVERTISED_LISTENERS", "KAFKA_INTER_BROKER_LISTENER_NAME"]
    assert env_file.read_bytes() == ENV_FILE
    assert "KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://kafka0:9092\n" in result["diff"]["after"]

    inode = os.stat(env_file).st_ino
    kind, result = run(path=str(env_file), properties=PLAN_ENV)
    assert kind == "exit" and result["changed"] is True, result
    assert os.stat(env_file).st_ino != inode  # replaced by a rename, never rewritten in place
    assert env_file.read_bytes() == ENV_FILE.replace(
        b"KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://localhost:9092  # image default\n"
        b"KAFKA_INTER_BROKER_LISTENER_NAME=PLAINTEXT\n",
        b"KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://kafka0:9092\n")

    kind, result = run(path=str(env_file), properties=PLAN_ENV)
    assert (kind, result["changed"], result["changed_keys"]) == ("exit", False, [])


@pytest.mark.parametrize(("value", "why"), [
    ("PLAINTEXT://:9092\nKAFKA_NODE_ID=2", "line break"),
    ("it's # quoted", "single quotes cannot hold"),
])
def test_a_value_the_file_cannot_hold_fails_naming_the_variable_and_writes_nothing(env_file, value, why):
    kind, result = run(path=str(env_file), properties={"KAFKA_NODE_ID": "7", "KAFKA_LISTENERS": value})
    assert kind == "fail"
    assert result["msg"].startswith("cannot write to %s: KAFKA_LISTENERS: " % env_file) and why in result["msg"]
    assert env_file.read_bytes() == ENV_FILE


def test_a_file_compose_cannot_read_is_refused_naming_the_line(env_file):
    env_file.write_bytes(ENV_FILE + b"\nKAFKA LISTENERS=x\n")
    kind, result = run(path=str(env_file), properties=PLAN_ENV)
    assert kind == "fail" and result["msg"] == (
        "cannot parse %s: line 7: expected = after the variable name KAFKA" % env_file)


def test_validation_checks_the_properties_the_variables_set(env_file):
    with patch_module_args({"path": str(env_file), "format": "env",
                            "properties": {"KAFKA_LISTENERS": "PLAINTEXT://:9092,PLAINTEXT://:9093"}}), \
            pytest.raises(SystemExit) as ended:
        kafka_properties.main()
    kind, result = ended.value.code[:2]
    assert kind == "fail" and "Each listener must have a different name" in result["msg"], result
    assert env_file.read_bytes() == ENV_FILE


def test_a_pending_marker_is_created_before_the_write_kept_when_it_exists_and_not_in_check_mode(env_file, tmp_path):
    marker = tmp_path / "kafka.env.restart-pending"
    kind, result = run(path=str(env_file), properties=PLAN_ENV, pending_marker=str(marker), _ansible_check_mode=True)
    assert (kind, result["changed"], result["pending_marker_created"]) == ("exit", True, True)
    assert not marker.exists() and env_file.read_bytes() == ENV_FILE

    kind, result = run(path=str(env_file), properties=PLAN_ENV, pending_marker=str(marker))
    assert (kind, result["changed"], result["pending_marker_created"]) == ("exit", True, True)
    assert marker.read_text(encoding="utf-8").startswith("kafkaops.listeners: %s holds" % env_file)
    # the file already holds the keys: the marker alone is a change (the restart is still to happen)...
    marker.unlink()
    kind, result = run(path=str(env_file), properties=PLAN_ENV, pending_marker=str(marker))
    assert (result["changed"], result["changed_keys"], result["pending_marker_created"]) == (True, [], True)
    # ...and one that is there already stays as it is
    marker.write_text("left by an earlier run\n", encoding="utf-8")
    kind, result = run(path=str(env_file), properties=PLAN_ENV, pending_marker=str(marker))
    assert (result["changed"], result["pending_marker_created"]) == (False, False)
    assert marker.read_text(encoding="utf-8") == "left by an earlier run\n"


def test_a_refused_write_creates_no_marker(env_file, tmp_path):
    marker = tmp_path / "kafka.env.restart-pending"
    kind, result = run(path=str(env_file), properties={"KAFKA_LISTENERS": "a\nb"}, pending_marker=str(marker))
    assert kind == "fail" and not marker.exists()


# Files that are not a plain file in a quiet directory (the properties format; both formats share the handling)

SERVER = b"# kept \xe9\nnode.id=1\nadvertised.listeners=PLAINTEXT://old:9092\n"


def edit(path, **args):
    """Run main() on a server.properties at ``path`` setting the advertised listener; ("exit"|"fail", result)."""
    with patch_module_args(dict({"path": str(path), "properties": {"advertised.listeners": "PLAINTEXT://new:9092"},
                                 "validate_listeners": False}, **args)), pytest.raises(SystemExit) as ended:
        kafka_properties.main()
    return ended.value.code[:2]


def test_a_symlink_is_followed_the_target_changed_and_the_link_kept(tmp_path):
    target = tmp_path / "opt" / "server.properties"
    target.parent.mkdir()
    target.write_bytes(SERVER)
    link = tmp_path / "server.properties"
    link.symlink_to(target)
    kind, result = edit(link, backup=True)
    assert (kind, result["changed"], result["target"]) == ("exit", True, str(target)), result
    assert link.is_symlink() and target.read_bytes() == SERVER.replace(b"old", b"new")
    backup = Path(result["backup_file"])
    assert backup.parent == target.parent and backup.name.startswith("server.properties.")
    assert backup.read_bytes() == SERVER


@pytest.mark.parametrize("make", [os.mkfifo, os.mkdir], ids=["fifo", "directory"])
def test_a_path_that_is_not_a_regular_file_is_refused_in_both_modes(tmp_path, make):
    path = tmp_path / "server.properties"
    make(path)
    for check_mode in (True, False):
        kind, result = edit(path, _ansible_check_mode=check_mode)
        assert kind == "fail" and result["msg"].startswith("%s is a " % path), result
        assert "not a regular file: refusing to read or replace it" in result["msg"]


def test_a_missing_directory_fails_check_mode_as_it_fails_the_real_run(tmp_path):
    path = tmp_path / "missing" / "server.properties"
    failures = [edit(path, create=True, _ansible_check_mode=check_mode) for check_mode in (True, False)]
    assert failures[0] == failures[1]
    assert failures[0][0] == "fail"
    assert failures[0][1]["msg"] == "cannot write %s: directory %s does not exist" % (path, path.parent)


def test_a_backup_that_cannot_be_completed_leaves_no_file_and_the_original_untouched(tmp_path, monkeypatch):
    path = tmp_path / "server.properties"
    path.write_bytes(SERVER)

    def disk_full(_fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    kind, result = edit(path, backup=True)
    assert kind == "fail" and result["msg"].startswith("cannot back %s up as %s." % (path, path)), result
    assert "No space left on device" in result["msg"]
    assert os.listdir(tmp_path) == ["server.properties"] and path.read_bytes() == SERVER


def test_a_second_writer_waits_for_the_lock_and_fails_naming_it_when_it_is_held_too_long(tmp_path, monkeypatch):
    path = tmp_path / "server.properties"
    path.write_bytes(SERVER)
    monkeypatch.setattr(_config_file, "LOCK_WAIT", 0.3)
    with _config_file.locked(str(path)):  # what the broker's pre-start program holds while it writes
        kind, result = edit(path)
    assert kind == "fail" and result["msg"] == "another writer of %s held the lock on %s for more than 0.3 s" % (
        path, tmp_path)
    assert path.read_bytes() == SERVER
    assert edit(path)[1]["changed"] is True


def test_one_key_in_a_large_file_is_one_parse_and_one_edit(tmp_path, monkeypatch):
    # the editor's cost is linear in the file's size: the text is parsed once, when read, whatever the number of keys
    # (the edited text is only written, never parsed again)
    from ansible_collections.kafkaops.listeners.plugins.module_utils import _properties

    path = tmp_path / "server.properties"
    path.write_bytes(SERVER + b"".join(b"key.%d=value\n" % n for n in range(20000)))
    parses = []
    real = _properties._parse_entries
    monkeypatch.setattr(_properties, "_parse_entries", lambda text: parses.append(len(text)) or real(text))
    kind, result = edit(path, properties={"advertised.listeners": "PLAINTEXT://new:9092", "key.7": None, "a": "b"})
    assert kind == "exit" and result["changed_keys"] == ["a", "advertised.listeners", "key.7"]
    assert len(parses) == 1
