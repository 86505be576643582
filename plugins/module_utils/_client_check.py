# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The check a client's machine runs against a cluster, shared by the kafka_metadata module and the
``kafka-listeners doctor`` command: the listener's security options turned into a TLS context and SASL credentials,
then Metadata from the bootstrap servers and every advertised endpoint resolved, connected, TLS-verified and
authenticated from here.

Private to kafkaops.listeners: no compatibility promise outside the collection. Standard library only (modules run
on managed nodes).
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    SASL_OPTIONS,
    SECURITY_PROTOCOLS,
    SSL_OPTIONS,
    uses_sasl,
    uses_tls,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoint_security import (
    check_endpoint_security,
    insecure_endpoints,
    summary_with_security,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import special_address
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import HostPortError, parse_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_auth import (
    MECHANISMS,
    SaslCredentials,
    SaslError,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_connection import (
    DEFAULT_CLIENT_ID,
    fetch_metadata,
    make_ssl_context,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_diagnosis import (
    check_endpoints,
    endpoint_warnings,
    listener_not_found,
    summarize_metadata,
    summary_line,
    unreachable_endpoints,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import KafkaClientError
from ansible_collections.kafkaops.listeners.plugins.module_utils._restart_gate import (
    MIN_INSYNC,
    QUORUM_MAX_LAG_MS,
    restart_check,
)

#: the argument spec of the security options (doc fragment kafkaops.listeners.kafka_client) of the modules that speak
#: to Kafka with this client
SECURITY_ARGUMENT_SPEC = {
    "security_protocol": {"type": "str", "choices": list(SECURITY_PROTOCOLS), "default": "PLAINTEXT"},
    "sasl_mechanism": {"type": "str", "choices": list(MECHANISMS)},
    "sasl_username": {"type": "str"},
    "sasl_password": {"type": "str", "no_log": True},
    "sasl_oauthbearer_token": {"type": "str", "no_log": True},
    "ssl_ca_file": {"type": "path"},
    "ssl_cert_file": {"type": "path"},
    "ssl_key_file": {"type": "path"},
    "ssl_key_password": {"type": "str", "no_log": True},
    "ssl_verify": {"type": "bool", "default": True},
    "ssl_server_hostname": {"type": "str"},
}

#: AnsibleModule's required_by for SECURITY_ARGUMENT_SPEC: a separate key file is the key of a client certificate
SECURITY_REQUIRED_BY = {"ssl_key_file": "ssl_cert_file"}


def fail_client_error(module, exc):
    """Fail ``module`` with the KafkaClientError ``exc``'s message and, where no bootstrap server answered, each
    server's reason as ``failures`` ([{"server", "error"}]; empty otherwise)."""
    module.fail_json(msg=str(exc), failures=[{"server": server, "error": reason}
                                             for server, reason in getattr(exc, "failures", [])])


def client_security(options):
    """``(ssl_context, sasl)`` for kafka_metadata's security options (``security_protocol``, ``ssl_*``,
    ``sasl_*``; a missing one counts as unset, ``ssl_verify`` as true); each is None where the protocol has no TLS
    or no SASL.

    Raises KafkaClientError naming the option: one that does not apply to the protocol, a missing SASL mechanism or
    credential, a file that cannot be loaded. The message never carries a password or token.
    """
    protocol = options.get("security_protocol") or "PLAINTEXT"
    if protocol not in SECURITY_PROTOCOLS:
        raise KafkaClientError("security_protocol %r is not one of %s" % (protocol, ", ".join(SECURITY_PROTOCOLS)))
    ssl_context = sasl = None
    if uses_tls(protocol):
        ssl_context = make_ssl_context(options.get("ssl_ca_file"), options.get("ssl_cert_file"),
                                       options.get("ssl_key_file"), options.get("ssl_key_password"),
                                       options.get("ssl_verify", True))
    else:
        # ssl_server_hostname is the module's, not a listener's client setting, and as much TLS-only
        misused = [name for name in SSL_OPTIONS + ("ssl_server_hostname",) if options.get(name) is not None]
        if misused:
            raise KafkaClientError("%s only apply with security_protocol SSL or SASL_SSL, but security_protocol is %s"
                                   % (", ".join(misused), protocol))
    if uses_sasl(protocol):
        if options.get("sasl_mechanism") is None:
            raise KafkaClientError("security_protocol %s needs sasl_mechanism" % protocol)
        try:
            sasl = SaslCredentials(options["sasl_mechanism"], options.get("sasl_username"),
                                   options.get("sasl_password"), options.get("sasl_oauthbearer_token"))
        except SaslError as exc:
            raise KafkaClientError(str(exc)) from None
    else:
        misused = [name for name in SASL_OPTIONS if options.get(name) is not None]
        if misused:
            raise KafkaClientError("%s only apply with security_protocol SASL_PLAINTEXT or SASL_SSL, but "
                                   "security_protocol is %s" % (", ".join(misused), protocol))
    return ssl_context, sasl


def inspect_cluster(bootstrap, timeout, ssl_context=None, sasl=None, server_hostname=None, topics=None,
                    client_id=DEFAULT_CLIENT_ID, endpoints=True, restart=None, usable_only=False):
    """What a client on this machine meets: kafka_metadata's result, plus ``warnings`` (a list of sentences).

    Metadata comes from the first bootstrap server that answers (``_kafka_connection.fetch_metadata``, which raises
    KafkaClientError, or NoBootstrapServerError naming every server, when none does). With ``endpoints`` every
    advertised endpoint is resolved and connected from here, then opened with the listener's TLS and SASL, and the
    result has ``endpoints``, ``unreachable_endpoints`` and ``insecure_endpoints``. ``summary`` says the outcome in
    one line. With ``restart`` ({"node_id", "stage", "node_name", "assume_min_insync_replicas", "checks",
    "quorum_max_lag_ms"}), ``restart_check`` says whether that node may be restarted now or is back after its restart
    (``_restart_gate.restart_check``; "checks" defaults to the partitions only). With ``usable_only`` an endpoint
    whose host no other machine could use is reported, not connected to (``_kafka_diagnosis.check_endpoints``).
    """
    checks = (restart.get("checks") or ["partitions"]) if restart is not None else []
    before = restart is not None and restart["stage"] == "before_restart" and "partitions" in checks
    answer = fetch_metadata(bootstrap, timeout, topics=topics, client_id=client_id, ssl_context=ssl_context,
                            server_hostname=server_hostname, sasl=sasl,
                            topic_config_keys=[MIN_INSYNC] if before else None, quorum="quorum" in checks)
    result = summarize_metadata(answer["metadata"])
    if restart is not None:
        result["restart_check"] = restart_check(answer, restart["node_id"], restart["stage"], restart.get("node_name"),
                                                restart.get("assume_min_insync_replicas"), checks,
                                                restart.get("quorum_max_lag_ms") or QUORUM_MAX_LAG_MS)
    result.update(bootstrap_used=answer["bootstrap_used"], bootstrap_errors=answer["bootstrap_errors"],
                  metadata_version=answer["metadata_version"])
    checked = None
    if endpoints:
        checked = check_endpoints(result["brokers"], timeout, usable_only=usable_only)
        check_endpoint_security(checked, timeout, ssl_context, sasl, client_id)
        # not "unreachable": Ansible would take a truthy one to mean the managed node is unreachable
        result.update(endpoints=checked, unreachable_endpoints=unreachable_endpoints(checked),
                      insecure_endpoints=insecure_endpoints(checked))
    result["summary"] = summary_line(answer["bootstrap_used"], result["brokers"], checked)
    if checked is not None:
        result["summary"] = summary_with_security(result["summary"], checked)
    warnings = endpoint_warnings(result["brokers"], answer["bootstrap_used"])
    missing_listener = listener_not_found(result["topics"])
    if missing_listener:
        warnings.append("the leaders of %s have no endpoint on the listener this request used (LISTENER_NOT_FOUND)"
                        % ", ".join(missing_listener))
    result["warnings"] = warnings
    return result


def check_ahead(options):
    """kafka_broker_facts' ``self_check``: the broker role's self check (kafka_metadata with ``check_endpoints`` and
    ``fail_on_endpoint_errors``) made in the role's first call, before the plan, on the inter-broker endpoint the
    newest verify run recorded. ``options``: ``bootstrap`` (one host:port), ``listener`` (returned as given),
    ``timeout`` and kafka_metadata's security options.

    Never raises: ``{"bootstrap", "listener", "security_protocol", "passed", "summary"}``, where ``passed`` is true
    only when the check would have passed without a warning (every advertised endpoint resolved, connected and, on
    TLS or SASL, verified and authenticated from here), and ``summary`` says the outcome or why it failed. A host
    no other machine could use, the bootstrap server's or an advertised one, is not connected to; the check then
    does not pass, and the role makes its own after the plan, as it does whenever this one did not pass.
    """
    outcome = {"bootstrap": options["bootstrap"], "listener": options.get("listener"),
               "security_protocol": options.get("security_protocol") or "PLAINTEXT", "passed": False}
    try:
        host = parse_hostport(options["bootstrap"], "self_check.bootstrap")[0]
        special = special_address(host)
        if special is not None:
            return dict(outcome, summary="not checked: %s is a %s host (%s)" % (host, special[0], special[1]))
        ssl_context, sasl = client_security(options)
        result = inspect_cluster([options["bootstrap"]], options["timeout"], ssl_context, sasl, usable_only=True)
    except (HostPortError, KafkaClientError) as exc:
        return dict(outcome, summary=str(exc))
    except Exception as exc:  # noqa: BLE001 - a head start only: the role's own check runs and reports
        return dict(outcome, summary="the check stopped: %s: %s" % (type(exc).__name__, exc))
    passed = not (result["unreachable_endpoints"] or result["insecure_endpoints"] or result["warnings"])
    return dict(outcome, passed=passed, summary=result["summary"])
