# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Record schemas of the fleet audit: what the verify role writes and what the audit writes back.

``docs/records.md`` documents every field; keep the two in step. Input records carry ``schema_version``; the
audit reads every version up to :data:`SCHEMA_VERSION` and refuses newer ones (written by a newer verify role).
"""

from __future__ import annotations

from pyspark.sql import types as T

# the verify role's record builder owns the record version and the config columns; the audit reads the same ones
from ansible_collections.kafkaops.listeners.plugins.module_utils._records import CONFIG_COLUMNS
from ansible_collections.kafkaops.listeners.plugins.module_utils._records import SCHEMA_VERSION as SCHEMA_VERSION

BROKERS_SCHEMA = T.StructType([
    T.StructField("schema_version", T.IntegerType(), False),
    T.StructField("run_id", T.StringType(), False),
    T.StructField("observed_at", T.TimestampType(), False),
    T.StructField("cluster", T.StringType(), False),
    T.StructField("broker", T.StringType(), False),
    T.StructField("node_id", T.LongType(), False),
    T.StructField("provider", T.StringType(), True),
    T.StructField("private_host", T.StringType(), True),
    T.StructField("public_dns", T.StringType(), True),
    T.StructField("public_ip", T.StringType(), True),
    T.StructField("container_name", T.StringType(), True),
    T.StructField("process_roles", T.ArrayType(T.StringType(), True), True),
    *[T.StructField(column, T.StringType(), True) for column in CONFIG_COLUMNS.values()],
    T.StructField("other_config", T.StringType(), True),
    T.StructField("external_checks", T.StringType(), True),
    T.StructField("plan_options", T.StringType(), True),
])
"""One broker (node) of one cluster as one verify run saw it: identity, facts, current config, plan options."""

PROBES_SCHEMA = T.StructType([
    T.StructField("schema_version", T.IntegerType(), False),
    T.StructField("run_id", T.StringType(), False),
    T.StructField("observed_at", T.TimestampType(), False),
    T.StructField("cluster", T.StringType(), False),
    T.StructField("client", T.StringType(), False),
    T.StructField("client_network", T.StringType(), False),
    T.StructField("listener", T.StringType(), False),
    T.StructField("endpoint_network", T.StringType(), True),
    T.StructField("route", T.StringType(), True),
    T.StructField("broker", T.StringType(), False),
    T.StructField("node_id", T.LongType(), True),
    T.StructField("advertised_host", T.StringType(), False),
    T.StructField("advertised_port", T.IntegerType(), False),
    T.StructField("bootstrap_ok", T.BooleanType(), True),
    T.StructField("resolvable", T.BooleanType(), True),
    T.StructField("addresses", T.ArrayType(T.StringType(), True), True),
    T.StructField("connectable", T.BooleanType(), True),
    T.StructField("error", T.StringType(), True),
    T.StructField("elapsed_ms", T.DoubleType(), True),
    T.StructField("tls_verified", T.BooleanType(), True),
    T.StructField("tls_outcome", T.StringType(), True),
    T.StructField("authenticated", T.BooleanType(), True),
    T.StructField("security_error", T.StringType(), True),
])
"""One advertised endpoint probed once from one client: bootstrap, name resolution and TCP connect results, and
the TLS and SASL outcome on the endpoint (null where the listener has none, or the endpoint was not reached); the
listener's endpoint network and route in the plan (null in records written before them)."""

#: Columns that name one advertised endpoint, and one probe series (an endpoint seen from one client).
ENDPOINT_COLUMNS = ("cluster", "broker", "listener", "advertised_host", "advertised_port")
SERIES_COLUMNS = (*ENDPOINT_COLUMNS, "client_network", "client")

FINDINGS_SCHEMA = T.StructType([
    T.StructField("rule_id", T.StringType(), False),
    T.StructField("rule", T.StringType(), False),
    T.StructField("severity", T.StringType(), False),
    T.StructField("cluster", T.StringType(), False),
    T.StructField("broker", T.StringType(), True),
    T.StructField("listener", T.StringType(), True),
    T.StructField("endpoint", T.StringType(), True),
    T.StructField("client_network", T.StringType(), True),
    T.StructField("subject", T.StringType(), True),
    T.StructField("message", T.StringType(), False),
    T.StructField("details", T.StringType(), True),
    T.StructField("run_id", T.StringType(), True),
    T.StructField("observed_at", T.TimestampType(), True),
    T.StructField("finding_key", T.StringType(), False),
])
"""One finding. ``finding_key`` hashes (rule_id, cluster, broker, listener, endpoint, client_network, subject), so
the same problem keeps its key from one audit to the next."""

FINDING_IDENTITY = ("rule_id", "cluster", "broker", "listener", "endpoint", "client_network", "subject")

INCIDENTS_SCHEMA = T.StructType([
    *[T.StructField(name, PROBES_SCHEMA[name].dataType, False) for name in SERIES_COLUMNS],
    T.StructField("start", T.TimestampType(), False),
    T.StructField("end", T.TimestampType(), True),
    T.StructField("open", T.BooleanType(), False),
    T.StructField("end_reason", T.StringType(), True),
    T.StructField("duration_s", T.DoubleType(), False),
    T.StructField("failed_probes", T.LongType(), False),
    T.StructField("kind", T.StringType(), False),
    T.StructField("first_error", T.StringType(), True),
    T.StructField("incident_key", T.StringType(), False),
])
"""One interval during which an endpoint was unreachable from one client, or reached with its TLS certificate or
SASL login refused (``kind`` ``tls_refused`` / ``sasl_refused``; the others: ``unresolvable``, ``unconnectable``,
``unknown``). ``end`` is the first probe that reached it
again (``end_reason`` :data:`RECOVERED`) or the first probe of the client's first run that no longer probed it
(:data:`NO_LONGER_ADVERTISED`), null while open; ``duration_s`` runs to ``end``, or to the last failed probe of an
open incident."""

RECOVERED = "recovered"
NO_LONGER_ADVERTISED = "no_longer_advertised"

INCIDENT_IDENTITY = (*SERIES_COLUMNS, "start")

