# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Fixtures of the metadata client tests: a link-local guard (autouse) and the emulator on 127.0.0.1 (both from
metadata_lab, which the module tests share), and the per-provider values."""

from __future__ import annotations

import copy

import metadata_lab  # registered by ../conftest.py (pytest loads it first)
import pytest

# the link-local guard (autouse) and the emulator, shared with the module tests
no_link_local, emulator_process, imds = metadata_lab.no_link_local, metadata_lab.emulator_process, metadata_lab.imds
hostile_server = metadata_lab.hostile_server


@pytest.fixture()
def values():
    """A deep copy of the per-provider values, safe to modify in a test."""
    return copy.deepcopy(metadata_lab.VALUES)
