# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Strict DataFrame comparison for the audit tests (the role chispa's assert_df_equality plays)."""

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


def assert_df_equality(actual, expected, order_by=None, ignore_nullable=True):
    """Fail unless ``actual`` and ``expected`` have the same column names and types (in order) and the same rows.

    Rows are compared in ``order_by`` order, or as collected when it is None. Nullability is ignored by default:
    Spark relaxes it freely (a JSON read, a union), and the tests pin values, not flags.
    """
    def shape(df):
        return [(field.name, field.dataType.simpleString()) + (() if ignore_nullable else (field.nullable,))
                for field in df.schema.fields]

    assert shape(actual) == shape(expected), "schemas differ:\nactual   %s\nexpected %s" % (
        shape(actual), shape(expected))
    actual_rows, expected_rows = rows(actual, order_by), rows(expected, order_by)
    assert actual_rows == expected_rows, "rows differ:\nactual:\n  %s\nexpected:\n  %s" % (
        "\n  ".join(map(repr, actual_rows)), "\n  ".join(map(repr, expected_rows)))


def utc(text):
    """An aware UTC datetime from ``YYYY-MM-DD HH:MM:SS``."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
