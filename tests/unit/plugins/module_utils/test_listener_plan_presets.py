# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The layouts single, dual and docker keep the plans they gave before client networks became first-class.

fixtures/preset_plans.json holds, for every lab scenario (modes auto, single and dual, or docker, under five option
sets) and a seeded sample of other clusters, the planner's inputs and the digest of the plan it gave (or its refusal),
recorded from the planner before the change; the scenarios' default plans are kept whole, so a failure shows them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import PlanError, plan_listeners

RECORDED = json.loads((Path(__file__).parent / "fixtures" / "preset_plans.json").read_text(encoding="utf-8"))


def _digest(plan):
    return hashlib.sha256(json.dumps(plan, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


@pytest.mark.parametrize("case", RECORDED["cases"], ids=[case["case"] for case in RECORDED["cases"]])
def test_the_plan_is_byte_for_byte_what_it_was(case):
    brokers = RECORDED["brokers"][case["brokers"]]
    if "error" in case:
        with pytest.raises(PlanError) as refused:
            plan_listeners(brokers, case["options"])
        assert str(refused.value) == case["error"]
        return
    plan = json.loads(json.dumps(plan_listeners(brokers, case["options"])))
    # added after the recording: whether the cluster was planned as one in service (none of these inputs is)
    assert plan.pop("in_service") is False
    # added after the recording too: what each client network could bootstrap on before (nothing is advertised)
    assert plan.pop("bootstrap_before") == {}
    if "plan" in case:
        assert plan == case["plan"]
    assert _digest(plan) == case["sha256"], json.dumps(plan, indent=1, sort_keys=True)
