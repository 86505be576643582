# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""TLS and SASL of every advertised endpoint, checked the way a client that reached it next would.

Private to kafkaops.listeners: no compatibility promise outside the collection.

A client bootstraps on one broker, then connects to the host:port each partition leader advertises, verifying
that leader's certificate against *the advertised host* (``ssl.endpoint.identification.algorithm=https``) and
authenticating again. So each advertised endpoint that resolves and connects is opened here with the listener's
protocol: TLS verified against its own advertised host, then SASL. Standard library only.
"""

from __future__ import annotations

import threading
import time

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import SECURITY_KEYS
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import show_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_connection import (
    DEFAULT_CLIENT_ID,
    KafkaAuthError,
    KafkaConnectError,
    KafkaConnection,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import KafkaClientError

#: endpoints opened at once (one thread each); a cluster has a few dozen, a hostile answer lists thousands
SECURITY_THREADS = 16


def _check_one(endpoint, deadline, ssl_context, sasl, client_id):
    """The SECURITY_KEYS of one endpoint, opened with the listener's TLS and SASL by ``deadline``."""
    result = {key: None for key in SECURITY_KEYS}
    connection = None
    try:
        connection = KafkaConnection.open(endpoint["host"], endpoint["port"], deadline, client_id, ssl_context, None,
                                          sasl)
    except KafkaAuthError as exc:
        result.update(authenticated=False, security_error=str(exc))
    except KafkaConnectError as exc:
        if exc.tls_outcome is not None:
            result.update(tls_verified=False, tls_outcome=exc.tls_outcome)
        result["security_error"] = str(exc)
        return result
    except KafkaClientError as exc:
        result["security_error"] = str(exc)
        return result
    finally:
        if connection is not None:
            connection.close()
    if ssl_context is not None:
        result.update(tls_verified=True, tls_outcome="verified")
    if sasl is not None and result["authenticated"] is None:
        result["authenticated"] = True
    return result


def check_endpoint_security(endpoints, timeout, ssl_context=None, sasl=None, client_id=DEFAULT_CLIENT_ID):
    """Add ``tls_verified``, ``tls_outcome``, ``authenticated`` and ``security_error`` to each of ``endpoints``
    (``_kafka_diagnosis.check_endpoints`` results), in place, and return them.

    Only endpoints that resolved and connected are opened, SECURITY_THREADS at a time, all within ``timeout``
    seconds of the call: one not opened by then says the check did not finish. A value is None where it does not
    apply (no TLS, no SASL) or was not reached; ``tls_outcome`` is ``verified`` or why not (``unknown_ca``,
    ``expired``, ``not_yet_valid``, ``name_mismatch``, ``handshake_failed``).
    """
    work = []
    for endpoint in endpoints:
        endpoint.update({key: None for key in SECURITY_KEYS})
        if (ssl_context is not None or sasl is not None) and endpoint.get("resolvable") and endpoint.get("connectable"):
            work.append(endpoint)
    deadline = time.monotonic() + timeout
    pending = list(reversed(work))
    results = {}
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not pending or time.monotonic() >= deadline:
                    return
                endpoint = pending.pop()
            result = _check_one(endpoint, deadline, ssl_context, sasl, client_id)
            with lock:
                results[id(endpoint)] = result

    threads = [threading.Thread(target=worker, daemon=True) for _thread in range(min(SECURITY_THREADS, len(work)))]
    for thread in threads:
        thread.start()
    guard = deadline + 5  # each open ends by the deadline; the extra seconds only guard against a hang
    for thread in threads:
        thread.join(max(guard - time.monotonic(), 0))
    with lock:  # a result that comes after the guard is not taken
        for endpoint in work:
            endpoint.update(results.get(id(endpoint)) or {
                "security_error": "the TLS/SASL check did not finish within the %g s timeout" % timeout})
    return endpoints


def insecure_endpoints(endpoints):
    """The endpoints whose certificate was not verified or whose authentication was refused."""
    return [e for e in endpoints if e.get("tls_verified") is False or e.get("authenticated") is False]


def summary_with_security(summary, endpoints):
    """``summary`` (``_kafka_diagnosis.summary_line``) followed by each endpoint a client reaches but cannot use
    securely, and why; unchanged when there is none."""
    failing = insecure_endpoints(endpoints)
    if not failing:
        return summary
    problems = []
    for endpoint in failing:
        where = show_hostport(endpoint["host"], endpoint["port"])
        problems.append("broker %d at %s: %s" % (endpoint["node_id"], where, endpoint["security_error"]))
    return "%s; but clients cannot use %d of them securely: %s" % (summary, len(failing), "; ".join(problems))
