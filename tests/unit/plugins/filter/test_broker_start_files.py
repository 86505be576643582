# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""broker_start_files says which start-time files a run writes or removes, from the checksums the broker holds."""

from __future__ import annotations

import hashlib

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.broker_start_files import broker_start_files
from ansible_collections.kafkaops.listeners.plugins.filter.prestart_program import prestart_program

PATHS = {"program": "/usr/local/libexec/kafka-prestart", "decision": "/etc/kafka/server.properties.listeners.json",
         "dropin": "/etc/systemd/system/kafka.service.d/kafkaops-listeners.conf"}
TEXTS = {"program": "#!/usr/bin/python3\nprint('prestart')\n", "decision": '{\n    "version": 1\n}\n',
         "dropin": "[Service]\nExecStartPre=-/usr/bin/python3 /usr/local/libexec/kafka-prestart\n"}


def sha1(text):
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def found(**texts):
    """The checksums kafka_broker_facts returns when the broker holds ``texts`` (by file name; None: absent)."""
    return {PATHS[name]: None if text is None else sha1(text) for name, text in texts.items()}


UP_TO_DATE = found(**TEXTS)
NOTHING = {"program": False, "decision": False, "dropin": False, "dropin_unwanted": False, "changes": False,
           "writes": []}


def test_files_that_hold_this_runs_texts_are_left_alone():
    assert broker_start_files(UP_TO_DATE, True, PATHS, TEXTS) == NOTHING


def test_a_first_run_writes_all_three():
    assert broker_start_files(found(program=None, decision=None, dropin=None), True, PATHS, TEXTS) == {
        "program": True, "decision": True, "dropin": True, "dropin_unwanted": False, "changes": True,
        "writes": [PATHS["program"], PATHS["decision"], PATHS["dropin"]]}


def test_a_missing_checksum_entry_counts_as_a_file_to_write():
    assert broker_start_files({}, True, PATHS, TEXTS)["writes"] == list(PATHS.values())


@pytest.mark.parametrize("name", ["program", "decision", "dropin"])
def test_one_changed_text_writes_that_file_only(name):
    result = broker_start_files(UP_TO_DATE, True, PATHS, dict(TEXTS, **{name: TEXTS[name] + "# changed\n"}))
    assert result == dict(NOTHING, **{name: True, "changes": True, "writes": [PATHS[name]]})


def test_a_broker_the_rollout_restarts_gets_its_decision_there_but_still_counts_as_writing_it():
    result = broker_start_files(found(program=TEXTS["program"], decision="{}\n", dropin=TEXTS["dropin"]), True,
                                PATHS, TEXTS, restarts=True)
    assert result == dict(NOTHING, writes=[PATHS["decision"]])


def test_with_the_feature_off_a_left_over_dropin_is_removed_and_nothing_written():
    result = broker_start_files(found(program="old", decision=None, dropin="old"), False, PATHS)
    assert result == dict(NOTHING, dropin_unwanted=True, changes=True, writes=[PATHS["dropin"]])


def test_with_the_feature_off_and_no_dropin_nothing_happens_and_no_text_is_needed():
    assert broker_start_files(found(program="old", dropin=None), False, PATHS) == NOTHING
    assert broker_start_files({}, False, {"program": PATHS["program"], "decision": None, "dropin": None}) == NOTHING


def test_without_a_kafka_unit_the_dropin_is_neither_written_nor_removed():
    paths = dict(PATHS, dropin=None)
    assert broker_start_files(found(program=None, decision=None), True, paths, TEXTS)["writes"] == [
        PATHS["program"], PATHS["decision"]]
    assert broker_start_files({}, False, paths) == NOTHING


@pytest.mark.parametrize(("paths", "texts", "message"), [
    (PATHS, {}, "texts.program, texts.decision, texts.dropin must be given"),
    (PATHS, dict(TEXTS, dropin=None), "texts.dropin must be given"),
    (dict(PATHS, decision=None), TEXTS, "paths.decision must be given"),
], ids=["no texts", "a text missing", "no decision path"])
def test_with_the_feature_on_what_is_missing_is_named(paths, texts, message):
    with pytest.raises(AnsibleFilterError, match=message):
        broker_start_files(UP_TO_DATE, True, paths, texts)


def test_input_that_is_not_a_mapping_is_named():
    with pytest.raises(AnsibleFilterError, match="expected mappings of checksums and paths, got list and dict"):
        broker_start_files([], True, PATHS, TEXTS)


def test_with_program_python_the_filter_compares_the_pre_start_program_it_builds():
    program = prestart_program("/usr/bin/python3")
    texts = {"decision": TEXTS["decision"], "dropin": TEXTS["dropin"]}
    held = found(program=program, decision=TEXTS["decision"], dropin=TEXTS["dropin"])
    assert broker_start_files(held, True, PATHS, texts, program_python="/usr/bin/python3") == NOTHING
    assert broker_start_files(held, True, PATHS, texts, program_python="/usr/bin/python3.12")["writes"] == [
        PATHS["program"]]


def test_without_the_programs_text_or_its_interpreter_the_program_is_named():
    with pytest.raises(AnsibleFilterError,
                       match="texts.program must be given .*or decision and dropin with program_python"):
        broker_start_files(UP_TO_DATE, True, PATHS, {"decision": TEXTS["decision"], "dropin": TEXTS["dropin"]})
