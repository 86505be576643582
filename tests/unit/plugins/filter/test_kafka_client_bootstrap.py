# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The kafka_client_bootstrap filter: a client network's bootstrap from the override, the plan, or none."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.kafka_client_bootstrap import kafka_client_bootstrap

PLAN = {"clients": {
    "internet": {"bootstrap": "b1.example.com:9094,b2.example.com:9094", "listener": "EXTERNAL",
                 "protocol": "SASL_SSL", "endpoint_network": "public"},
    "vpc": {"bootstrap": "ip-198-18-0-11:19092", "listener": "INTERNAL", "protocol": "PLAINTEXT"},
}}
NONE = {"bootstrap": [], "source": "none", "listener": "", "protocol": "PLAINTEXT", "endpoint_network": ""}


def test_the_plan_gives_the_networks_servers_listener_and_protocol():
    assert kafka_client_bootstrap(PLAN, "internet") == {
        "bootstrap": ["b1.example.com:9094", "b2.example.com:9094"], "source": "plan", "listener": "EXTERNAL",
        "protocol": "SASL_SSL", "endpoint_network": "public"}
    assert kafka_client_bootstrap(PLAN, "vpc", override=[])["endpoint_network"] == ""


@pytest.mark.parametrize("override", [["lb.example.com:9092", " other:9092 "], "lb.example.com:9092, other:9092"])
def test_an_override_wins_and_keeps_the_listener_the_plan_gives_the_network(override):
    # other addresses of the network's listener (a load balancer): its protocol, as the verify role checks it; a
    # SASL_SSL listener written down as PLAINTEXT would give the client "I can connect but it still fails"
    assert kafka_client_bootstrap(PLAN, "internet", override=override) == {
        "bootstrap": ["lb.example.com:9092", "other:9092"], "source": "override", "listener": "EXTERNAL",
        "protocol": "SASL_SSL", "endpoint_network": "public"}
    # no plan is needed with an override; then nothing is known of the listener
    assert kafka_client_bootstrap({}, "internet", override=override) == {
        "bootstrap": ["lb.example.com:9092", "other:9092"], "source": "override", "listener": "",
        "protocol": "PLAINTEXT", "endpoint_network": ""}
    assert kafka_client_bootstrap(PLAN, "laptop", override=override)["protocol"] == "PLAINTEXT"


def test_a_network_the_plan_does_not_serve_has_none():
    assert kafka_client_bootstrap(PLAN, "laptop") == NONE
    assert kafka_client_bootstrap({}, "vpc", override="") == NONE
    assert kafka_client_bootstrap({"clients": None}, "vpc") == NONE


@pytest.mark.parametrize("plan, override, message", [
    (PLAN, " , ", r"override ' , ' names no server"),
    (PLAN, [9092], r"override must be a list of host:port strings or a comma-separated string, not \[9092\]"),
    (PLAN, {"vpc": "a:1"}, "override must be a list"),
    (["a:1"], (), "expects the listener plan .a mapping., not list"),
    ({"clients": ["vpc"]}, (), "the plan's clients must map client networks to their bootstrap, not list"),
    ({"clients": {"vpc": {"bootstrap": 19092}}}, (), "the plan's bootstrap for client network vpc must be a list"),
    ({"clients": {"vpc": "a:1"}}, ["b:2"], "the plan's entry for client network vpc must be a mapping, not str"),
])
def test_bad_input_is_named(plan, override, message):
    with pytest.raises(AnsibleFilterError, match="kafka_client_bootstrap: " + message):
        kafka_client_bootstrap(plan, "vpc", override=override)
