# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Names and strings quoted for the audit's SQL text: a query written as text is analysed in one round trip to the
JVM, where one built from column functions takes one or more per function, operator and literal."""

from __future__ import annotations


def sql_name(name: str) -> str:
    """``name`` as a SQL identifier (backquoted)."""
    return "`%s`" % name.replace("`", "``")


def sql_string(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'%s'" % text.replace("\\", "\\\\").replace("'", "\\'")
