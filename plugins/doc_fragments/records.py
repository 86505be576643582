# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    """The options every filter that builds the fleet audit's records takes: which run, when, which cluster."""

    DOCUMENTATION = r"""
options:
  run_id:
    description: The run's identifier.
    type: str
    required: true
  observed_at:
    description: When the run looked (ISO 8601, UTC).
    type: str
    required: true
  cluster:
    description: The cluster's name.
    type: str
    required: true
"""
