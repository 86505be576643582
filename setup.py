# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Build step of the command-line tools' distribution (the rest is in pyproject.toml).

The tools import the collection's module_utils by their collection name, which resolves in a checkout (`make venv`
links the collection). A built wheel must not plant a partial ``ansible_collections/`` tree in site-packages, where
Ansible would list it as a collection: it carries the module_utils as ``kafka_listeners._module_utils`` instead, and
this step rewrites every import of them (and the audit's path of them in its code zip) to that name. An editable
install is left as it is. The version is the collection's, from galaxy.yml.
"""

import re
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

COLLECTION_NAME = "ansible_collections.kafkaops.listeners.plugins.module_utils"
TOOLS_NAME = "kafka_listeners._module_utils"
RENAMES = ((COLLECTION_NAME, TOOLS_NAME), (COLLECTION_NAME.replace(".", "/"), TOOLS_NAME.replace(".", "/")))
HERE = Path(__file__).resolve().parent


class BuildWithToolsNames(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for path in Path(self.build_lib).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            renamed = text
            for old, new in RENAMES:
                renamed = renamed.replace(old, new)
            if renamed != text:
                path.write_text(renamed, encoding="utf-8")


version = re.search(r"^version: *(\S+)$", (HERE / "galaxy.yml").read_text(encoding="utf-8"), re.M)[1]
setup(version=version, cmdclass={"build_py": BuildWithToolsNames})
