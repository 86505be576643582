# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Fixtures of the metadata client tests: a link-local guard (autouse) and the emulator on 127.0.0.1."""

from __future__ import annotations

import copy
import socket

import metadata_lab  # registered by ../conftest.py (pytest loads it first)
import pytest


@pytest.fixture(autouse=True)
def no_link_local(monkeypatch):
    """Make every connect to 169.254.0.0/16 (and AWS's IPv6 IMDS) raise: no test can reach a real metadata service."""
    monkeypatch.setattr(socket.socket, "connect", metadata_lab.guarded(socket.socket.connect))
    monkeypatch.setattr(socket.socket, "connect_ex", metadata_lab.guarded(socket.socket.connect_ex))


@pytest.fixture(scope="session")
def emulator_process(tmp_path_factory):
    """The emulator subprocess, shared by the session (it re-reads its files on every request)."""
    if not metadata_lab.EMULATOR.is_file():
        pytest.skip(metadata_lab.EMULATOR_MISSING)
    emulator = metadata_lab.Emulator(tmp_path_factory.mktemp("imds"))
    yield emulator
    emulator.stop()


@pytest.fixture()
def imds(emulator_process):
    """The emulator, reset to no fault; call ``imds.serve(values)`` to pick what it serves."""
    emulator_process.fault(None)
    yield emulator_process
    emulator_process.fault(None)


@pytest.fixture()
def values():
    """A deep copy of the per-provider values, safe to modify in a test."""
    return copy.deepcopy(metadata_lab.VALUES)
