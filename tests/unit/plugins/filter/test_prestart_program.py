# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The prestart_program filter returns the program module_utils/_prestart_bundle.py builds (tested there) and names
bad input."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.filter.prestart_program import prestart_program
from ansible_collections.kafkaops.listeners.plugins.module_utils._prestart_bundle import program_text


def test_the_filter_returns_the_built_program():
    assert prestart_program("/usr/bin/python3") == program_text("/usr/bin/python3")


@pytest.mark.parametrize("interpreter", ["python3", "/usr/bin/python 3", None, ["/usr/bin/python3"]])
def test_the_filter_refuses_anything_but_an_absolute_interpreter_path(interpreter):
    with pytest.raises(AnsibleFilterError, match="prestart_program: expected the absolute path of a Python "
                                                 "interpreter, got"):
        prestart_program(interpreter)
