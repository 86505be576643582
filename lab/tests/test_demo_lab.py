# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make demo`, the first command README.md gives, end to end: tools/demo as a new user runs it, on its default (real
Apache Kafka, whose lab carries a replicated topic: a cluster in service).

The demo reproduces the failure (the laptop reaches the bootstrap broker and is told names only the VPC resolves, its
consumer fails), runs the site playbook, shows with kcat that the laptop, on the bootstrap the verify role recorded
for its network, produces and consumes, and that the in-VPC client still reads on the bootstrap it used before; it
tears its lab down whatever happens. It went unchecked once and broke: the in-service layout moved the laptop to a
listener of its own while the demo still sent it to :9092. A few minutes (one real-Kafka lab, one site run).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from kafkaops_lab.pytest_plugin import LAB_NOT_FOUND, lab_command, require_root

pytestmark = pytest.mark.lab

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
DEMO_TIMEOUT = 1800  # hang guard only: lab up, two kcat failures with their timeouts, a site run with restarts


def _section(text: str, title: str) -> str:
    """The demo's output from the step whose title starts with `title` to the next step."""
    start = text.index("\n== " + title)
    end = text.find("\n== ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_make_demo_reproduces_the_failure_fixes_it_and_tears_its_lab_down(lab_kcat_required):
    require_root()
    proc = subprocess.run(["bash", str(ROOT / "tools" / "demo")], cwd=ROOT, capture_output=True, text=True,
                          timeout=DEMO_TIMEOUT, env={**os.environ}, stdin=subprocess.DEVNULL)
    out = ANSI.sub("", proc.stdout + proc.stderr)
    assert proc.returncode == 0, out[-6000:]
    prefix = re.search(r"^lab (demo[0-9a-f]+) \(aws-private-dns-only\): up$", out, re.M).group(1)

    before = _section(out, "I can connect to the broker, but the client still fails")
    assert "broker 1 at ip-198-18-0-11.us-west-2.compute.internal:9092" in before, before

    fixed = _section(out, "After the fix")
    assert re.search(r"broker 1 at ec2-198-19-0-11\.us-west-2\.compute\.amazonaws\.com:\d+", fixed), fixed
    assert "internal" not in fixed.split("$ echo from-the-laptop")[0], fixed  # no private name told to the laptop
    # the laptop read back the VPC client's message and its own (whole lines: the commands shown name them too)
    assert {"from-the-vpc", "from-the-laptop"} <= set(fixed.splitlines()), fixed

    vpc = _section(out, "The in-VPC client still works")
    assert "-b ip-198-18-0-11.us-west-2.compute.internal:9092" in vpc, vpc  # the bootstrap it used before the fix
    assert {"from-the-vpc", "from-the-laptop"} <= set(vpc.splitlines()), vpc

    assert "Tear the lab down" in out
    assert lab_command("status", "--prefix", prefix, check=False).returncode == LAB_NOT_FOUND
