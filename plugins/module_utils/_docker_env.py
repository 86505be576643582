# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Kafka properties as the KAFKA_* environment of the Apache and Confluent container images, both ways.

Private to kafkaops.listeners: no compatibility promise outside the collection.

The images' entrypoints turn ``KAFKA_FOO_BAR=x`` into ``foo.bar=x``; a property name with ``_`` is spelled ``__``
and one with ``-`` ``___``. The one home of that naming: the to_docker_env filter, the broker facts module and the
lab use it.
"""

from __future__ import annotations

import re

PREFIX = "KAFKA_"
# only names whose property has no '_' or '-': the Apache and Confluent images decode doubled underscores
# differently, and no listener, role or id key has one
_SIMPLE = re.compile(r"^KAFKA_[A-Z0-9]+(_[A-Z0-9]+)*$")


def env_name(key: str) -> str:
    """Return the environment variable that sets the property ``key``."""
    # escape existing '_' first so the '_' that stand for '.' stay distinguishable, as the images decode
    return PREFIX + key.replace("_", "__").replace("-", "___").replace(".", "_").upper()


def env_properties(env: dict) -> dict:
    """Return the properties a KAFKA_* environment sets (names with doubled underscores left out, see _SIMPLE)."""
    return {name[len(PREFIX):].lower().replace("_", "."): value for name, value in env.items() if _SIMPLE.match(name)}
