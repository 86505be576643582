# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What every module test of this folder needs: a module's main() that ends, as on a managed node, in SystemExit.

exit_json and fail_json raise ``SystemExit`` whose ``code`` is a :class:`ModuleOutcome` instead of printing JSON,
so a test reads what the module returned (or why it failed) and the AnsibleModule it built.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest
from ansible.module_utils import basic


class ModuleOutcome(NamedTuple):
    """How main() ended: ``kind`` "exit" or "fail", the keyword arguments (with ``msg`` on a fail), the module."""

    kind: str
    result: dict
    module: Any


@pytest.fixture(autouse=True)
def module_exits(monkeypatch):
    """exit_json/fail_json raise SystemExit(ModuleOutcome(...)) instead of printing and exiting."""

    def exit_json(self, **kwargs):
        raise SystemExit(ModuleOutcome("exit", kwargs, self))

    def fail_json(self, msg, **kwargs):
        raise SystemExit(ModuleOutcome("fail", dict(kwargs, msg=msg), self))

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)
