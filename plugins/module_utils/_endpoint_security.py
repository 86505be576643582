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

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import show_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_connection import (
    DEFAULT_CLIENT_ID,
    KafkaAuthError,
    KafkaConnectError,
    KafkaConnection,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import KafkaClientError

#: the keys :func:`check_endpoint_security` adds to each endpoint
SECURITY_KEYS = ("tls_verified", "tls_outcome", "authenticated", "security_error")


def _check_one(endpoint, timeout, ssl_context, sasl, client_id):
    connection = None
    try:
        connection = KafkaConnection.open(endpoint["host"], endpoint["port"], time.monotonic() + timeout, client_id,
                                          ssl_context, None, sasl)
    except KafkaAuthError as exc:
        endpoint["authenticated"] = False
        endpoint["security_error"] = str(exc)
    except KafkaConnectError as exc:
        if exc.tls_outcome is not None:
            endpoint["tls_verified"] = False
            endpoint["tls_outcome"] = exc.tls_outcome
        endpoint["security_error"] = str(exc)
        return
    except KafkaClientError as exc:
        endpoint["security_error"] = str(exc)
        return
    finally:
        if connection is not None:
            connection.close()
    if ssl_context is not None:
        endpoint["tls_verified"] = True
        endpoint["tls_outcome"] = "verified"
    if sasl is not None and endpoint["authenticated"] is None:
        endpoint["authenticated"] = True


def check_endpoint_security(endpoints, timeout, ssl_context=None, sasl=None, client_id=DEFAULT_CLIENT_ID):
    """Add ``tls_verified``, ``tls_outcome``, ``authenticated`` and ``security_error`` to each of ``endpoints``
    (``_kafka_diagnosis.check_endpoints`` results), in place, and return them.

    Only endpoints that resolved and connected are opened (in parallel, each within ``timeout`` seconds). A value
    is None where it does not apply (no TLS, no SASL) or was not reached; ``tls_outcome`` is ``verified`` or why
    not (``unknown_ca``, ``expired``, ``not_yet_valid``, ``name_mismatch``, ``handshake_failed``).
    """
    threads = []
    for endpoint in endpoints:
        endpoint.update({key: None for key in SECURITY_KEYS})
        if ssl_context is None and sasl is None:
            continue
        if not (endpoint.get("resolvable") and endpoint.get("connectable")):
            continue
        thread = threading.Thread(target=_check_one, args=(endpoint, timeout, ssl_context, sasl, client_id),
                                  daemon=True)
        thread.start()
        threads.append((thread, endpoint))
    guard = time.monotonic() + timeout + 5  # each check ends within its timeout; this only guards against a hang
    for thread, endpoint in threads:
        thread.join(max(guard - time.monotonic(), 0))
        if thread.is_alive():
            endpoint["security_error"] = "the TLS/SASL check did not finish"
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
