# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The metadata client of kafka_metadata and the doctor against a hostile broker on 127.0.0.1 (``hostile_broker``):
hosts it forges are reported, never looked up; answers past the broker bound are refused; answers dripped a byte at
a time end within the timeout, in every stage (Kafka requests, TLS, SASL, the endpoints' TLS/SASL check)."""

from __future__ import annotations

import re
import threading

import pytest
from hostile_broker import ESCAPE_CLUSTER_ID, ESCAPE_HOST, FORGED_HOST, HostileBroker

from ansible_collections.kafkaops.listeners.plugins.module_utils import _endpoint_security as es
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_connection as kconn
from ansible_collections.kafkaops.listeners.plugins.module_utils._client_check import inspect_cluster
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_auth import SaslCredentials
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import MAX_BROKERS

# only a guard against hangs (a dripped answer takes 100 s whole); nothing here is a speed assertion
HANG_GUARD_S = 30
PLAIN = SaslCredentials("PLAIN", "alice", "alice-secret")


@pytest.fixture
def hostile():
    started = []

    def start(behaviour, **options):
        broker = HostileBroker(behaviour, **options)
        started.append(broker)
        return broker

    yield start
    for broker in started:
        broker.close()


def guarded(function, *args, **kwargs):
    """``function(*args, **kwargs)``'s result or exception; fails the test when it is still running at the guard."""
    outcome = {}

    def call():
        try:
            outcome["value"] = function(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive(), "hang guard: %s did not return within %d s" % (function.__name__, HANG_GUARD_S)
    return outcome


def test_forged_hosts_are_reported_as_invalid_and_never_looked_up(hostile):
    broker = hostile("forged")
    result = inspect_cluster([broker.address], 2)
    assert result["cluster_id"] == ESCAPE_CLUSTER_ID  # data as the broker sent it: escaping is the printer's part
    by_id = {endpoint["node_id"]: endpoint for endpoint in result["endpoints"]}
    assert by_id[1]["connectable"] is True
    for node_id, host in ((2, FORGED_HOST), (3, ESCAPE_HOST)):
        assert (by_id[node_id]["host"], by_id[node_id]["resolvable"], by_id[node_id]["addresses"]) == (host, False, [])
        assert by_id[node_id]["error"].startswith("invalid host %r from the Metadata answer (broker %d)"
                                                  % (host, node_id))


def test_an_answer_past_the_broker_bound_is_refused(hostile):
    broker = hostile("flood", brokers=MAX_BROKERS + 1)
    with pytest.raises(kconn.NoBootstrapServerError, match="lists more than %d brokers" % MAX_BROKERS):
        kconn.fetch_metadata([broker.address], 5)


def test_a_flood_at_the_bound_gets_a_result_for_every_endpoint_within_the_timeout(hostile):
    broker = hostile("flood", brokers=MAX_BROKERS)
    outcome = guarded(inspect_cluster, [broker.address], 1)
    endpoints = outcome["value"]["endpoints"]
    assert len(endpoints) == MAX_BROKERS
    # nothing listens on those ports: each endpoint failed to connect, or was left when the timeout came
    assert all(not endpoint["connectable"] and endpoint["error"] for endpoint in endpoints)


@pytest.mark.parametrize(("behaviour", "options", "message"), [
    ("drip", {}, "ApiVersions v3: timed out"),
    ("sasl-drip", {"sasl": PLAIN}, "SASL authentication failed: SaslHandshake v1: timed out"),
    ("tls-drip", {"ssl_context": kconn.make_ssl_context(verify=False)}, "TLS handshake failed: .*timed out"),
])
def test_an_answer_dripped_a_byte_at_a_time_ends_at_the_timeout(hostile, behaviour, options, message):
    broker = hostile(behaviour)
    outcome = guarded(kconn.fetch_metadata, [broker.address], 1, **options)
    assert isinstance(outcome.get("error"), kconn.NoBootstrapServerError), outcome
    assert outcome["error"].failures[0][0] == broker.address
    assert re.search(message, outcome["error"].failures[0][1]), outcome["error"].failures


def test_the_endpoints_tls_sasl_check_ends_at_the_timeout_however_many_drip(hostile):
    broker = hostile("sasl-drip")
    endpoints = [{"node_id": node, "host": "127.0.0.1", "port": broker.port, "resolvable": True,
                  "connectable": True} for node in range(3 * es.SECURITY_THREADS)]
    guarded(es.check_endpoint_security, endpoints, 1, None, PLAIN)
    errors = [endpoint["security_error"] for endpoint in endpoints]
    # the first ones opened time out in SASL; the others were not begun before the timeout
    assert all(error is not None and ("timed out" in error or error.startswith("the TLS/SASL check did not finish"))
               for error in errors), errors
    assert any("did not finish within the 1 s timeout" in error for error in errors)
