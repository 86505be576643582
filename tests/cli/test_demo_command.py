# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make demo` prints exactly the playbook command it runs: copying the printed line reproduces the run."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "tools" / "demo"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _functions(*names: str) -> str:
    """The named one-line shell functions of tools/demo, as the demo defines them."""
    lines = DEMO.read_text().splitlines()
    return "\n".join(next(line for line in lines if line.startswith(name + "() {")) for name in names)


def test_the_printed_line_is_the_command_run():
    argv = ["printf", "%s|", "-i", "/tmp/lab dir/inventory.yml", "-e", "@lab/site-vars.yml", "-e",
            "verify_records_dir=/tmp/x'y", "--diff"]
    script = _functions("show", "run_shown") + "\nrun_shown " + shlex.join(argv)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout
    printed, ran = ANSI.sub("", out).split("\n", 1)
    assert printed.startswith("$ ")
    assert shlex.split(printed[2:]) == argv  # the printed line, run by a shell, is the same argv
    assert ran == "|".join(argv[2:]) + "|"  # and that argv is what ran


def test_the_demo_runs_its_playbook_through_run_shown():
    playbook_lines = [line for line in DEMO.read_text().splitlines() if "ansible-playbook" in line]
    assert playbook_lines and all(line.startswith("run_shown ") for line in playbook_lines), playbook_lines
