# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kafka_preferred_leaders' own checks; the elections it asks are in module_utils/test_kafka_client.py (the bytes and
a broker that answers) and in the lab (lab/tests/test_real_kafka_rollout.py, real Kafka)."""

from __future__ import annotations

import socket

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kafkaops.listeners.plugins.modules import kafka_preferred_leaders


def run(**args):
    with patch_module_args(args), pytest.raises(SystemExit) as ended:  # see conftest.py
        kafka_preferred_leaders.main()
    return ended.value.code[:2]


def test_a_negative_node_id_is_named():
    kind, result = run(bootstrap=["127.0.0.1:9092"], node_id=-1)
    assert kind == "fail" and result["msg"] == "node_id must be 0 or more, got -1"


def test_no_bootstrap_server_answering_fails_naming_each_one():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # released below: nothing listens there
    kind, result = run(bootstrap=["127.0.0.1:%d" % port], node_id=2, timeout=2)
    assert kind == "fail" and result["msg"].startswith("no bootstrap server answered Metadata: 127.0.0.1:%d: " % port)
    assert [failure["server"] for failure in result["failures"]] == ["127.0.0.1:%d" % port]


def test_security_options_are_checked_before_anything_is_asked():
    kind, result = run(bootstrap=["127.0.0.1:9092"], node_id=2, security_protocol="PLAINTEXT",
                       sasl_mechanism="PLAIN")
    assert kind == "fail" and "sasl_mechanism" in result["msg"]
