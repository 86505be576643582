# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Rows and times for the audit tests' own checks of single values; whole DataFrames are compared with chispa's
assert_df_equality."""

from datetime import UTC, datetime


def _plain(value):
    if hasattr(value, "asDict"):
        return {key: _plain(item) for key, item in value.asDict().items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, datetime):
        return value.astimezone(UTC)  # PySpark returns naive local time
    return value


def rows(df, order_by=None):
    """The rows of ``df`` as plain dicts (nested rows too), sorted by ``order_by`` columns when given."""
    if order_by:
        df = df.orderBy(*order_by)
    return [_plain(row) for row in df.collect()]


def utc(text):
    """An aware UTC datetime from ``YYYY-MM-DD HH:MM:SS``."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
