# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kafka_metadata's own decisions around the cluster's answer; the answer itself (the bytes, a broker that answers,
the endpoint checks) is in module_utils/test_kafka_client.py and in the lab (lab/tests/test_kafka_metadata.py)."""

from __future__ import annotations

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kafkaops.listeners.plugins.modules import kafka_metadata

SUMMARY = ("bootstrap 10.0.0.1:9092 reachable, but advertised host ip-10-0-0-2.internal does not resolve from this"
           " host: clients fail after the first connection")


def answer(unreachable=(), insecure=()):
    """What inspect_cluster returns for a checked cluster, with these endpoints failing."""
    return {"brokers": [{"node_id": 1, "host": "ip-10-0-0-2.internal", "port": 9092}], "topics": [],
            "endpoints": [], "unreachable_endpoints": list(unreachable), "insecure_endpoints": list(insecure),
            "summary": SUMMARY, "warnings": []}


def run(monkeypatch, result, **args):
    monkeypatch.setattr(kafka_metadata, "inspect_cluster", lambda *a, **kw: dict(result))
    with patch_module_args(args), pytest.raises(SystemExit) as ended:  # see conftest.py
        kafka_metadata.main()
    return ended.value.code[:2]


@pytest.mark.parametrize("failing", [
    {"unreachable": [{"host": "ip-10-0-0-2.internal", "port": 9092, "error": "does not resolve"}]},
    {"insecure": [{"host": "ip-10-0-0-2.internal", "port": 9093, "error": "unknown CA"}]},
])
def test_fail_on_endpoint_errors_fails_with_the_summary_and_keeps_the_answer(monkeypatch, failing):
    kind, result = run(monkeypatch, answer(**failing), bootstrap=["10.0.0.1:9092"], check_endpoints=True,
                       fail_on_endpoint_errors=True)
    assert kind == "fail" and result["msg"] == SUMMARY
    assert result["unreachable_endpoints"] == failing.get("unreachable", [])
    assert result["insecure_endpoints"] == failing.get("insecure", [])
    assert result["brokers"] == answer()["brokers"]


def test_without_fail_on_endpoint_errors_failing_endpoints_are_only_returned(monkeypatch):
    unreachable = [{"host": "ip-10-0-0-2.internal", "port": 9092, "error": "does not resolve"}]
    kind, result = run(monkeypatch, answer(unreachable), bootstrap=["10.0.0.1:9092"], check_endpoints=True)
    assert kind == "exit" and result["unreachable_endpoints"] == unreachable and "msg" not in result


def test_every_endpoint_working_passes_with_fail_on_endpoint_errors(monkeypatch):
    kind, result = run(monkeypatch, answer(), bootstrap=["10.0.0.1:9092"], check_endpoints=True,
                       fail_on_endpoint_errors=True)
    assert kind == "exit" and result["summary"] == SUMMARY


def test_fail_on_endpoint_errors_without_check_endpoints_is_refused_before_anything_is_asked(monkeypatch):
    asked = []
    monkeypatch.setattr(kafka_metadata, "inspect_cluster", lambda *a, **kw: asked.append(a) or answer())
    with patch_module_args({"bootstrap": ["10.0.0.1:9092"], "fail_on_endpoint_errors": True}), \
            pytest.raises(SystemExit) as ended:
        kafka_metadata.main()
    kind, result = ended.value.code[:2]
    assert kind == "fail" and result["msg"] == (
        "fail_on_endpoint_errors needs check_endpoints=true (the endpoints are only checked then)")
    assert asked == []
