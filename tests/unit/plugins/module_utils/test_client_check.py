# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""client_security: kafka_metadata's security options, as the module and `kafka-listeners doctor` both give them."""

from __future__ import annotations

import ssl

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils import _client_check
from ansible_collections.kafkaops.listeners.plugins.module_utils._client_check import client_security
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_connection import NoBootstrapServerError
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_diagnosis import check_endpoints
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import KafkaClientError


def test_plaintext_has_neither_tls_nor_sasl():
    assert client_security({"security_protocol": "PLAINTEXT"}) == (None, None)
    assert client_security({}) == (None, None)


def test_sasl_ssl_gives_a_verifying_context_and_credentials_that_hide_the_password():
    context, sasl = client_security({"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512",
                                     "sasl_username": "kafkaops", "sasl_password": "hunter2"})
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    assert (sasl.mechanism, sasl.username) == ("SCRAM-SHA-512", "kafkaops")
    assert "hunter2" not in repr(sasl)


@pytest.mark.parametrize(("options", "message"), [
    ({"security_protocol": "PLAINTEXT", "ssl_ca_file": "/ca.pem"},
     "ssl_ca_file only apply with security_protocol SSL or SASL_SSL, but security_protocol is PLAINTEXT"),
    ({"security_protocol": "SSL", "sasl_mechanism": "PLAIN"},
     "sasl_mechanism only apply with security_protocol SASL_PLAINTEXT or SASL_SSL, but security_protocol is SSL"),
    ({"security_protocol": "SASL_PLAINTEXT"}, "security_protocol SASL_PLAINTEXT needs sasl_mechanism"),
    ({"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN", "sasl_password": "hunter2"},
     "sasl_mechanism PLAIN needs sasl_username and sasl_password"),
    ({"security_protocol": "TLS"}, "security_protocol 'TLS' is not one of"),
])
def test_misused_or_missing_options_are_named(options, message):
    with pytest.raises(KafkaClientError) as raised:
        client_security(options)
    assert message in str(raised.value)
    assert "hunter2" not in str(raised.value)


# ------------------------------------------------------------------- check_ahead: kafka_broker_facts' self_check

AHEAD = {"bootstrap": "p1.internal:19092", "listener": "INTERNAL", "timeout": 1.0, "security_protocol": "PLAINTEXT"}


def clean_answer(**changes):
    """What inspect_cluster returns for a cluster whose every endpoint works from here."""
    answer = {"unreachable_endpoints": [], "insecure_endpoints": [], "warnings": [],
              "summary": "bootstrap p1.internal:19092 reachable and all 3 advertised endpoint(s) resolve"}
    return dict(answer, **changes)


@pytest.mark.parametrize(("answer", "passed"), [
    (clean_answer(), True),
    (clean_answer(unreachable_endpoints=[{"host": "p2.internal"}]), False),
    (clean_answer(insecure_endpoints=[{"host": "p2.internal"}]), False),
    # a warning kafka_metadata would print (a duplicate endpoint, LISTENER_NOT_FOUND): the role's own check prints it
    (clean_answer(warnings=["brokers 1 and 2 both advertise p1.internal:19092"]), False),
])
def test_the_check_ahead_passes_only_where_the_self_check_passes_without_a_warning(monkeypatch, answer, passed):
    asked = []
    monkeypatch.setattr(_client_check, "inspect_cluster",
                        lambda *args, **kwargs: asked.append((args, kwargs)) or answer)
    outcome = _client_check.check_ahead(AHEAD)
    assert outcome == {"bootstrap": "p1.internal:19092", "listener": "INTERNAL", "security_protocol": "PLAINTEXT",
                       "passed": passed, "summary": answer["summary"]}
    # the check kafka_metadata makes for the role's self check, with hosts no other machine could use left alone
    assert asked == [((["p1.internal:19092"], 1.0, None, None), {"usable_only": True})]


@pytest.mark.parametrize(("options", "summary"), [
    (dict(AHEAD, bootstrap="169.254.169.254:80"), "not checked: 169.254.169.254 is a link-local host"),
    (dict(AHEAD, bootstrap="[::1]:19092"), "not checked: ::1 is a loopback host"),
    (dict(AHEAD, bootstrap="localhost.:19092"), "not checked: localhost is a loopback host"),
    (dict(AHEAD, bootstrap="p1.internal"), "self_check.bootstrap 'p1.internal' is not of the form host:port"),
    (dict(AHEAD, security_protocol="SASL_SSL", sasl_password="hunter2"), "security_protocol SASL_SSL needs"),
])
def test_the_check_ahead_connects_nowhere_it_should_not_and_says_why_it_did_not_pass(monkeypatch, options, summary):
    monkeypatch.setattr(_client_check, "inspect_cluster", lambda *args, **kwargs: pytest.fail("asked %r" % (args,)))
    outcome = _client_check.check_ahead(options)
    assert outcome["passed"] is False and outcome["summary"].startswith(summary), outcome
    assert "hunter2" not in repr(outcome)


@pytest.mark.parametrize("error", [
    NoBootstrapServerError([("p1.internal:19092", "connection refused")]),
    RuntimeError("a bug"),
])
def test_the_check_ahead_reports_a_cluster_that_does_not_answer_or_a_failure_instead_of_raising(monkeypatch, error):
    def inspect(*args, **kwargs):
        raise error

    monkeypatch.setattr(_client_check, "inspect_cluster", inspect)
    outcome = _client_check.check_ahead(AHEAD)
    assert outcome["passed"] is False and str(error) in outcome["summary"], outcome


def test_endpoints_on_hosts_no_other_machine_could_use_are_reported_not_probed_with_usable_only():
    probed = []

    def probe(names, **options):
        probed.extend(names)
        return {"results": [{"name": name, "resolvable": True, "addresses": ["10.0.0.2"], "connectable": True,
                             "error": None} for name in names]}

    brokers = [{"node_id": 1, "host": "p1.internal", "port": 19092},
               {"node_id": 2, "host": "169.254.169.254", "port": 19092},
               {"node_id": 3, "host": "LocalHost.", "port": 19092}]
    checked = check_endpoints(brokers, 1.0, probe=probe, usable_only=True)
    assert probed == ["p1.internal"]
    assert [endpoint["connectable"] for endpoint in checked] == [True, False, False]
    assert checked[1]["error"] == ("not checked: broker 2 advertises 169.254.169.254, a link-local host (the address "
                                   "169.254.169.254)")
    assert checked[2]["error"].startswith("not checked: broker 3 advertises LocalHost, a loopback host")
    # without usable_only (kafka_metadata, the doctor) every advertised host is checked, as a client there would
    probed.clear()
    check_endpoints(brokers, 1.0, probe=probe)
    assert sorted(probed) == ["169.254.169.254", "LocalHost", "p1.internal"]
