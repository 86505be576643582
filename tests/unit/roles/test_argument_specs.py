# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each role's meta/argument_specs.yml lists exactly its defaults, with the same default values."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.kafkaops.listeners.plugins.filter.broker_node_facts import STATIC_KEYS

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


def _broker_options():
    return yaml.safe_load((ROLES / "broker" / "meta" / "argument_specs.yml").read_text())["argument_specs"]["main"][
        "options"]


def test_broker_static_facts_spec_lists_the_keys_the_role_reads():
    assert tuple(_broker_options()["broker_static_facts"]["options"]) == STATIC_KEYS


def test_a_misspelt_static_fact_is_refused_by_the_role_validation_naming_it():
    # the validator ansible-core runs for a role's meta/argument_specs.yml before its first task
    result = ArgumentSpecValidator(_broker_options()).validate(
        {"broker_static_facts": {"private_hst": "10.0.0.5"}}, validate_role_argument_spec=True)
    assert len(result.error_messages) == 1
    assert "private_hst" in result.error_messages[0] and "broker_static_facts" in result.error_messages[0]


def test_the_broker_plan_entry_point_checks_every_option_of_main():
    # tasks_from: plan is validated against the plan entry point's spec only: an option missing there goes unchecked
    specs = yaml.safe_load((ROLES / "broker" / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    assert specs["plan"]["options"] == specs["main"]["options"]
