"""The seeded topic's pure parts (kafkaops_lab/seeded.py): what `lab up` writes, and what the check reports.

No root, no lab: the live side (written at `lab up`, read back before `down`) runs in every real-Kafka lab suite.
"""

from __future__ import annotations

import subprocess

import pytest

from kafkaops_lab import pytest_plugin, seeded


def test_three_brokers_get_replication_factor_3_and_min_insync_2():
    plan = seeded.plan(3, secured=False, empty=False)
    assert (plan["topic"], plan["replication_factor"], plan["min_insync_replicas"]) == ("lab-seeded", 3, 2)
    assert seeded.expected_values(plan)[:2] == ["lab-seeded-0", "lab-seeded-1"]
    assert len(seeded.expected_values(plan)) == plan["messages"] == seeded.MESSAGES


def test_more_brokers_keep_3_replicas_and_two_brokers_get_2_and_2():
    assert seeded.plan(6, secured=False, empty=False)["replication_factor"] == 3
    two = seeded.plan(2, secured=False, empty=False)
    assert (two["replication_factor"], two["min_insync_replicas"]) == (2, 2)


def test_nothing_is_written_with_one_broker_a_secured_lab_or_empty_and_the_state_says_why():
    assert "nothing to replicate" in seeded.plan(1, secured=False, empty=False)["skipped"]
    assert "secured" in seeded.plan(3, secured=True, empty=False)["skipped"]
    assert "--empty" in seeded.plan(3, secured=False, empty=True)["skipped"]


def _report(plan: dict, seen: dict, isr: list[int]) -> dict:
    partitions = {str(part): {"replicas": [1, 2, 3], "isr": [1, 2, 3]} for part in range(plan["partitions"])}
    partitions["1"]["isr"] = isr
    return {"seen": seen, "errors": [], "partitions": partitions}


def test_an_intact_topic_has_no_problem():
    plan = seeded.plan(3, secured=False, empty=False)
    whole = {value: 1 for value in seeded.expected_values(plan)}
    assert seeded.problems(plan, _report(plan, whole, [3, 1, 2])) == []


def test_the_problems_name_the_partition_its_isr_and_the_messages_missing_or_read_twice():
    plan = seeded.plan(3, secured=False, empty=False)
    seen = {value: 1 for value in seeded.expected_values(plan)[2:]}
    seen["lab-seeded-5"] = 2
    found = seeded.problems(plan, _report(plan, seen, [1, 2]))
    assert found == ["partitions out of their full ISR: lab-seeded-1 replicas [1, 2, 3] ISR [1, 2]",
                     "2 of 300 messages missing: lab-seeded-0, lab-seeded-1",
                     "1 message(s) read more than once: {'lab-seeded-5': 2}"]


def _lab_answering(monkeypatch, returncode: int) -> pytest_plugin.RunningLab:
    """A RunningLab whose `lab` command answers `returncode` (no lab is brought up)."""
    answer = subprocess.CompletedProcess(["lab", "seeded"], returncode, "out", "err")
    monkeypatch.setattr(pytest_plugin, "lab_command", lambda *args, **kwargs: answer)
    lab = pytest_plugin.RunningLab.__new__(pytest_plugin.RunningLab)
    lab.prefix = "kt0000"
    return lab


def test_the_teardown_check_passes_a_lab_the_test_took_down_itself(monkeypatch):
    _lab_answering(monkeypatch, pytest_plugin.LAB_NOT_FOUND).assert_seeded_intact()


def test_the_teardown_check_fails_on_data_not_intact(monkeypatch):
    with pytest.raises(pytest.fail.Exception, match="seeded data is not intact"):
        _lab_answering(monkeypatch, 1).assert_seeded_intact()
