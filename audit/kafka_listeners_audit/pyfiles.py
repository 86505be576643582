# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The code zip executors need: this package and the collection's module_utils, for ``--py-files``/``addPyFile``.

The pandas UDFs call the collection's planner and rule checker on the executors, so those must import
``ansible_collections.kafkaops.listeners.plugins.module_utils`` and ``kafka_listeners_audit``. On a cluster whose
executors run the project's virtualenv that already works; anywhere else ship this zip. The collection levels are
namespace packages (as in the collection itself), so a copy installed on the executors is not shadowed.
"""

from __future__ import annotations

import os
import zipfile

import kafka_listeners_audit
from ansible_collections.kafkaops.listeners.plugins.module_utils import _listener_plan

_MODULE_UTILS_ARCNAME = "ansible_collections/kafkaops/listeners/plugins/module_utils"


def _python_files(root: str):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(name for name in dirs if name != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                yield path, os.path.relpath(path, root)


def shippable() -> bool:
    """True when this package and the module_utils are plain folders here (not already imported from a zip given
    to ``--py-files``, which Spark then ships itself)."""
    return os.path.isdir(os.path.dirname(kafka_listeners_audit.__file__)) and os.path.isdir(
        os.path.dirname(_listener_plan.__file__))


def build_code_zip(path: str) -> str:
    """Write the zip to ``path`` (its folder must exist) and return ``path``.

    Contents: ``kafka_listeners_audit/*.py`` and ``ansible_collections/kafkaops/listeners/plugins/module_utils/``
    (every ``.py``, sub-packages included), taken from where this process imports them.
    """
    if not shippable():
        raise ValueError("the audit code is imported from a zip (%s), not from folders: ship that zip instead"
                         % kafka_listeners_audit.__file__)
    package_dir = os.path.dirname(kafka_listeners_audit.__file__)
    module_utils_dir = os.path.dirname(_listener_plan.__file__)
    members = [(source, "kafka_listeners_audit/" + relative.replace(os.sep, "/"))
               for source, relative in _python_files(package_dir)]
    members += [(source, _MODULE_UTILS_ARCNAME + "/" + relative.replace(os.sep, "/"))
                for source, relative in _python_files(module_utils_dir)]
    # zipimport finds a namespace package (no __init__.py) only through an explicit directory entry
    folders = sorted({name[:index + 1] for _source, name in members for index, char in enumerate(name) if char == "/"})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for folder in folders:
            archive.writestr(zipfile.ZipInfo(folder), b"")
        for source, name in members:
            archive.write(source, name)
    return path
