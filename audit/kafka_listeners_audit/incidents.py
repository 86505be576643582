# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Incidents: the intervals during which an endpoint was unreachable from a client, from the probe history.

Built on :func:`kafka_listeners_audit.transforms.state_islands` (gaps and islands with window functions): every
island of unreachable probes is one incident. Nothing is collected to the driver.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kafka_listeners_audit.findings import stable_key
from kafka_listeners_audit.schema import INCIDENT_IDENTITY, INCIDENTS_SCHEMA, SERIES_COLUMNS


def incidents_from_islands(islands: DataFrame) -> DataFrame:
    """One ``INCIDENTS_SCHEMA`` row per unreachable island.

    ``end`` is the first probe that reached the endpoint again (null: still open); ``duration_s`` runs from the
    first failed probe to ``end``, or to the last failed probe while open.
    """
    down = islands.where(~F.col("reachable"))
    until = F.coalesce(F.col("next_start"), F.col("last_seen"))
    shaped = down.select(
        *SERIES_COLUMNS,
        F.col("start"),
        F.col("next_start").alias("end"),
        F.col("next_start").isNull().alias("open"),
        ((F.unix_micros(until) - F.unix_micros("start")) / F.lit(1_000_000.0)).alias("duration_s"),
        F.col("probes").alias("failed_probes"),
        F.col("kind"),
        F.col("first_error"),
    )
    shaped = shaped.withColumn("incident_key", stable_key(INCIDENT_IDENTITY))
    return shaped.select(*[F.col(field.name).cast(field.dataType) for field in INCIDENTS_SCHEMA.fields])


def order_incidents(incidents: DataFrame) -> DataFrame:
    """Open incidents first, then newest first; ties by series."""
    return incidents.orderBy(F.col("open").desc(), F.col("start").desc(), *SERIES_COLUMNS)
