# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: listener_plan_options
short_description: The listener planner's options, checked and with every default filled in
version_added: 0.2.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Checks planning options as P(kafkaops.listeners.listener_plan#filter) does and returns them with every default
    filled in, so that tasks before the plan (for example the port the connectivity check uses, C(single_port))
    read the planner's values instead of restating its defaults, and a bad option fails before anything else runs.
options:
  _input:
    description:
      - Planning options (see P(kafkaops.listeners.listener_plan#filter)); keyword arguments are merged over it.
    type: dict
    required: true
seealso:
  - plugin: kafkaops.listeners.listener_plan
    plugin_type: filter
"""

EXAMPLES = r"""
- name: The port a single-listener layout would advertise, as the planner sees it
  ansible.builtin.debug:
    msg: "{{ (broker_listener_options | kafkaops.listeners.listener_plan_options(mode='auto')).single_port }}"
"""

RETURN = r"""
_value:
  description: Every planning option, with its default where the input does not set it.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import PlanError, plan_options


def listener_plan_options(options, **kwargs):
    """The planner's options with defaults (see the plugin documentation)."""
    merged = dict(options or {})
    merged.update(kwargs)
    try:
        return plan_options(merged)
    except PlanError as exc:
        raise AnsibleFilterError("listener_plan_options: %s" % exc) from exc


class FilterModule:
    """The listener_plan_options filter."""

    def filters(self):
        return {"listener_plan_options": listener_plan_options}
