# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each role's meta/argument_specs.yml lists exactly its defaults, with the same default values."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROLES = Path(__file__).resolve().parents[3] / "roles"
ROLE_NAMES = sorted(path.name for path in ROLES.iterdir() if (path / "defaults" / "main.yml").exists())


def test_there_are_roles_to_check():
    assert "broker" in ROLE_NAMES


@pytest.mark.parametrize("role", ROLE_NAMES)
def test_argument_specs_match_defaults(role):
    defaults = yaml.safe_load((ROLES / role / "defaults" / "main.yml").read_text()) or {}
    specs = yaml.safe_load((ROLES / role / "meta" / "argument_specs.yml").read_text())
    options = specs["argument_specs"]["main"]["options"]
    assert sorted(options) == sorted(defaults)
    for name, spec in options.items():
        assert name.startswith(role + "_"), "%s: public variables carry the role's prefix" % name
        assert spec.get("default") == defaults[name], "%s: default differs from defaults/main.yml" % name
        assert spec.get("description"), "%s: no description" % name
