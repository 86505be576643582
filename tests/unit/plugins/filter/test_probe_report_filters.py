# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The verify role's wording of what its probes found: the endpoints that failed, and how each bootstrap a client
network used before the run answers now."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.kafka_bootstraps_before_report import (
    bootstraps_before_report,
)
from ansible_collections.kafkaops.listeners.plugins.filter.kafka_failed_endpoints import failed_endpoints

PLAN = {"brokers": [{"name": "b1", "node_id": 1}, {"name": "b2", "node_id": 2}]}
UNRESOLVED = {"node_id": 1, "host": "ec2-old.example", "port": 9092, "resolvable": False, "connectable": None,
              "error": "Name or service not known", "security_error": None}
REFUSED = {"node_id": 7, "host": "10.0.0.7", "port": 9094, "resolvable": True, "connectable": True, "error": None,
           "security_error": "certificate verify failed"}
SILENT = {"node_id": 2, "host": "10.0.0.2", "port": 9092, "resolvable": True, "connectable": False, "error": None,
          "security_error": None}


def test_failed_endpoints_name_the_broker_the_host_and_why():
    answer = {"unreachable_endpoints": [UNRESOLVED, SILENT], "insecure_endpoints": [REFUSED]}
    assert failed_endpoints(answer, PLAN) == [
        "broker b1 at ec2-old.example:9092 (Name or service not known)", "broker b2 at 10.0.0.2:9092 (not reached)",
        "broker with node id 7 at 10.0.0.7:9094 (certificate verify failed)"]
    assert failed_endpoints({"failed": True, "msg": "no broker answered"}, {}) == []


def test_failed_endpoints_refuse_what_is_not_an_answer():
    with pytest.raises(AnsibleFilterError, match="expected kafka_metadata's answer"):
        failed_endpoints(["b1:9092"], PLAN)


def _result(bootstrap, source, listener="", **answer):
    return dict(answer, item={"bootstrap": bootstrap, "source": source, "listener": listener})


def test_bootstraps_before_report_words_failures_stale_names_and_outcomes():
    working = _result(["10.0.0.1:9092"], "advertised before the run", summary="2 brokers answered", listener="VPC")
    handing_out = _result(["10.0.0.1:9093"], "records of t (run r)", summary="1 broker answered",
                          unreachable_endpoints=[UNRESOLVED, SILENT], insecure_endpoints=[REFUSED])
    stale = _result(["old-1.example:9092", "old-2.example:9092"], "advertised before the run", failed=True,
                    msg="old-1.example does not resolve from this host; old-2.example does not resolve from this host")
    down = _result(["old-1.example:9092", "10.0.0.9:9092"], "verify_bootstrap_before", failed=True,
                   msg="old-1.example does not resolve from this host; 10.0.0.9:9092 refused")
    planned = {"bootstrap": ["10.0.0.1:19092"], "source": "advertised before the run", "planned": True}
    report = bootstraps_before_report([working, handing_out, stale, down], [planned, {"planned": False}])
    assert report["unresolvable"] == [stale]
    assert report["failures"] == [
        "10.0.0.1:9093 (records of t (run r), listener ?): 1 broker answered: Failed to resolve 'ec2-old.example:9092'"
        " (Name or service not known); Failed to connect to '10.0.0.2:9092'; TLS/SASL refused by '10.0.0.7:9094'"
        " (certificate verify failed)",
        "old-1.example:9092,10.0.0.9:9092 (verify_bootstrap_before, listener ?): old-1.example does not resolve from"
        " this host; 10.0.0.9:9092 refused"]
    assert report["outcomes"] == [
        "10.0.0.1:19092 (advertised before the run) is the planned bootstrap, checked above",
        "10.0.0.1:9092 (advertised before the run): 2 brokers answered",
        "10.0.0.1:9093 (records of t (run r)): 1 broker answered",
        "old-1.example:9092,old-2.example:9092 (advertised before the run): " + stale["msg"]
        + " (not counted: these names resolve nowhere from this network, so no client used them before this run"
          " either; the run changes no DNS)",
        "old-1.example:9092,10.0.0.9:9092 (verify_bootstrap_before): " + down["msg"]]


def test_bootstraps_before_report_of_nothing_asked_and_of_a_result_without_its_item():
    assert bootstraps_before_report([], []) == {"failures": [], "unresolvable": [], "outcomes": []}
    unanswered = _result(["a:1"], "s", failed=True)
    assert bootstraps_before_report([unanswered])["failures"] == ["a:1 (s, listener ?): no answer"]
    with pytest.raises(AnsibleFilterError, match="each with its item"):
        bootstraps_before_report([{"failed": True, "msg": "x"}])
