# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Incidents: the intervals during which a client could not use an endpoint, from the probe history.

Built on :func:`kafka_listeners_audit.transforms.state_islands` (gaps and islands with window functions): every
island of unreachable probes is one incident; a probe that connected but whose TLS certificate or SASL login was
refused counts as unreachable (kind ``tls_refused`` / ``sasl_refused``). Nothing is collected to the driver.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kafka_listeners_audit.findings import stable_key
from kafka_listeners_audit.schema import (
    INCIDENT_IDENTITY,
    INCIDENTS_SCHEMA,
    NO_LONGER_ADVERTISED,
    RECOVERED,
    SERIES_COLUMNS,
)
from kafka_listeners_audit.transforms import Transform


def incidents_from_islands(islands: DataFrame) -> DataFrame:
    """One ``INCIDENTS_SCHEMA`` row per unreachable island.

    ``end`` is the first probe that reached the endpoint again (null: still open); ``duration_s`` runs from the
    first failed probe to ``end``, or to the last failed probe while open. An open incident stays open here even
    if the client no longer probes the endpoint: :func:`incidents_closed_when_unprobed` closes those.
    """
    down = islands.where(~F.col("reachable"))
    return _shaped(down, F.col("next_start"), F.when(F.col("next_start").isNotNull(), F.lit(RECOVERED)))


def incidents_closed_when_unprobed(current: DataFrame, runs: DataFrame) -> Transform:
    """Return :func:`incidents_from_islands` that also closes the incidents of endpoints no longer advertised.

    An endpoint that is no longer advertised to a client (the brokers were fixed and advertise other names) is no
    longer probed by it: its last island stays down for ever. Such an incident ends with the client's first run
    after its last failed probe (``end`` is that run's first probe, ``end_reason`` ``no_longer_advertised``), when
    the client's latest run in that cluster no longer probed the endpoint. ``current`` holds the series the latest
    runs probed (:func:`~kafka_listeners_audit.transforms.current_probes`); ``runs`` is
    :func:`~kafka_listeners_audit.transforms.run_spans` of the probes by cluster and client.
    """

    def transform(islands: DataFrame) -> DataFrame:
        down = islands.where(~F.col("reachable"))
        unprobed = (down.where(F.col("next_start").isNull())
                    .join(current.select(*SERIES_COLUMNS), list(SERIES_COLUMNS), "left_anti")
                    .select(*SERIES_COLUMNS, "start", "last_seen"))
        # the few incidents that may close this way, against the runs of their clients (one row per run)
        retired = (unprobed.join(runs.select("cluster", "client", "run_start"), ["cluster", "client"])
                   .where(F.col("run_start") > F.col("last_seen"))
                   .groupBy(*SERIES_COLUMNS, "start").agg(F.min("run_start").alias("_retired_at")))
        with_retired = down.join(F.broadcast(retired), [*SERIES_COLUMNS, "start"], "left")
        end = F.coalesce(F.col("next_start"), F.col("_retired_at"))
        reason = (F.when(F.col("next_start").isNotNull(), F.lit(RECOVERED))
                  .when(F.col("_retired_at").isNotNull(), F.lit(NO_LONGER_ADVERTISED)))
        return _shaped(with_retired, end, reason)

    return transform


def _shaped(down: DataFrame, end: F.Column, reason: F.Column) -> DataFrame:
    until = F.coalesce(end, F.col("last_seen"))
    shaped = down.select(
        *SERIES_COLUMNS,
        F.col("start"),
        end.alias("end"),
        end.isNull().alias("open"),
        reason.alias("end_reason"),
        ((F.unix_micros(until) - F.unix_micros("start")) / F.lit(1_000_000.0)).alias("duration_s"),
        F.col("probes").alias("failed_probes"),
        F.col("kind"),
        F.col("first_error"),
    )
    shaped = shaped.withColumn("incident_key", stable_key(INCIDENT_IDENTITY))
    # types as SQL names: a DataType costs the JVM some ten round trips each
    return shaped.select(*[F.col(field.name).cast(field.dataType.simpleString()) for field in INCIDENTS_SCHEMA.fields])


def incidents_order() -> list:
    """The incidents' order, as sort columns: open incidents first, then newest first; ties by series."""
    return [F.col("open").desc(), F.col("start").desc(), *[F.col(name) for name in SERIES_COLUMNS]]


def order_incidents(incidents: DataFrame) -> DataFrame:
    """``incidents`` in :func:`incidents_order`."""
    return incidents.orderBy(*incidents_order())
