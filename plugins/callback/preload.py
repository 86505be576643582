# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: preload
type: aggregate
short_description: Import the collection's filter and action plugins once on the controller, before any task runs
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Ansible runs every task on every host in a worker process it forks from C(ansible-playbook). A worker that
    uses one of this collection's filters or its action plugin imports it, and with it the collection's planner
    and rule checker, and Ansible's collection loader compiles each of those files from source on every import.
    That is about 60-90 ms of CPU in every worker that plans, checks or records, on every host and task.
  - This callback imports them once in C(ansible-playbook) itself when the playbook starts, so every worker is
    forked with them already imported. It changes nothing else (no output, no task, no variable).
  - On the project's lab a no-change run of the site playbook took 10.2 s without it and 7.6 s with it for three
    brokers, 28.3 s and 21.3 s for twelve (C(benchmarks/converge_bench.py)); see the "Large fleets" section of the
    quickstart.
  - A plugin file that cannot be imported is left to fail where a task uses it, with its own error; this callback
    only names it at verbosity 3 (C(-vvv)).
requirements:
  - Enabled in the configuration, as any callback that does not print the output (see the examples).
seealso:
  - ref: kafkaops.listeners quickstart <ansible_collections.kafkaops.listeners.docsite.quickstart>
    description: The "Large fleets" section, with the other settings for large runs.
"""

EXAMPLES = r"""
# ansible.cfg
# [defaults]
# callbacks_enabled = kafkaops.listeners.preload

# or for one run
# ANSIBLE_CALLBACKS_ENABLED=kafkaops.listeners.preload ansible-playbook kafkaops.listeners.site
"""

import importlib
import os

from ansible.plugins.callback import CallbackBase

#: the collection's plugin packages whose files run in Ansible's workers (modules run on the hosts instead)
PACKAGES = ("filter", "action")
#: the collection's plugins folder, this file's parent's parent
PLUGINS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def plugin_modules(plugins_dir):
    """The import names of the filter and action plugin files below ``plugins_dir``, in a stable order."""
    names = []
    for package in PACKAGES:
        folder = os.path.join(plugins_dir, package)
        if not os.path.isdir(folder):
            continue
        for entry in sorted(os.listdir(folder)):
            if entry.endswith(".py") and not entry.startswith("_"):
                names.append("ansible_collections.kafkaops.listeners.plugins.%s.%s" % (package, entry[:-3]))
    return names


class CallbackModule(CallbackBase):
    """Imports the collection's filter and action plugins in the controller's process when a playbook starts."""

    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "kafkaops.listeners.preload"
    CALLBACK_NEEDS_ENABLED = True

    def v2_playbook_on_start(self, playbook):
        for name in plugin_modules(PLUGINS_DIR):
            try:
                importlib.import_module(name)
            except Exception as exc:  # pylint: disable=broad-except
                # the task that uses it fails with the same error, where it means something
                self._display.vvv("kafkaops.listeners.preload: %s not imported: %s" % (name, exc))
