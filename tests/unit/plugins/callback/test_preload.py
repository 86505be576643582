# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The preload callback: what it imports in ansible-playbook's own process, and what it does when it cannot."""

from __future__ import annotations

import os
import sys
from unittest.mock import MagicMock

from ansible_collections.kafkaops.listeners.plugins.callback import preload

COLLECTION = "ansible_collections.kafkaops.listeners.plugins."


def _forget_collection_plugins(monkeypatch):
    """Take the collection's filters, action plugins and module_utils out of sys.modules for this test, and off
    their packages: ``from package import module`` reads the package's attribute first, so a module imported again
    here must not stay there after the test (a later test would patch that copy while the code it runs uses the
    one in sys.modules)."""
    names = [name for name in sys.modules
             if name.startswith((COLLECTION + "filter.", COLLECTION + "action.", COLLECTION + "module_utils."))]
    for name in names:
        package, _dot, module = name.rpartition(".")
        monkeypatch.delattr(sys.modules[package], module, raising=False)
    for name in names:
        monkeypatch.delitem(sys.modules, name)


def _files(package):
    folder = os.path.join(preload.PLUGINS_DIR, package)
    return sorted(entry[:-3] for entry in os.listdir(folder) if entry.endswith(".py") and entry != "__init__.py")


def test_every_filter_and_action_plugin_and_the_planner_are_imported_when_the_playbook_starts(monkeypatch):
    _forget_collection_plugins(monkeypatch)
    assert COLLECTION + "filter.listener_plan" not in sys.modules
    callback = preload.CallbackModule()
    callback._display = MagicMock()

    callback.v2_playbook_on_start(MagicMock())

    expected = [COLLECTION + "filter." + name for name in _files("filter")]
    expected += [COLLECTION + "action." + name for name in _files("action")]
    assert len(expected) > 20
    assert [name for name in expected if name not in sys.modules] == []
    # what makes it pay: the planner the filters import comes along, compiled once here
    assert COLLECTION + "module_utils._listener_plan" in sys.modules
    callback._display.vvv.assert_not_called()


def test_a_file_that_cannot_be_imported_is_named_at_verbosity_3_and_the_run_goes_on(monkeypatch, tmp_path):
    # a file the installed collection does not have, so its import name cannot be imported
    (tmp_path / "filter").mkdir()
    (tmp_path / "filter" / "no_such_plugin_here.py").write_text("")
    monkeypatch.setattr(preload, "PLUGINS_DIR", str(tmp_path))
    callback = preload.CallbackModule()
    callback._display = MagicMock()

    callback.v2_playbook_on_start(MagicMock())

    assert preload.plugin_modules(str(tmp_path)) == [COLLECTION + "filter.no_such_plugin_here"]
    (message,), _kwargs = callback._display.vvv.call_args
    assert message.startswith("kafkaops.listeners.preload: " + COLLECTION + "filter.no_such_plugin_here not imported: ")


def test_the_plugin_folders_are_listed_in_a_stable_order_without_private_files(tmp_path):
    for package, names in (("action", ["b.py", "a.py"]), ("filter", ["z.py", "_x.py", "y.pyc", "c.py"])):
        (tmp_path / package).mkdir()
        for name in names:
            (tmp_path / package / name).write_text("")
    (tmp_path / "modules").mkdir()
    (tmp_path / "modules" / "m.py").write_text("")

    assert preload.plugin_modules(str(tmp_path)) == [
        COLLECTION + "filter.c", COLLECTION + "filter.z", COLLECTION + "action.a", COLLECTION + "action.b"]
    assert preload.plugin_modules(str(tmp_path / "missing")) == []
