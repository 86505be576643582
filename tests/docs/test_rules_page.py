"""The docsite's table of Kafka's startup rules is what the rule checker says now (tools/rules-page --check)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_the_rules_page_is_generated_from_the_checker():
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "rules-page"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr + "\nrun: .venv/bin/python tools/rules-page"


def test_the_check_fails_on_a_stale_page(tmp_path, monkeypatch):
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("rules_page", str(REPO_ROOT / "tools" / "rules-page"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("rules_page", loader))
    loader.exec_module(module)
    stale = tmp_path / "kafka-rules.rst"
    stale.write_text(module.render().replace("requirement failed: ", "", 1), encoding="utf-8")
    monkeypatch.setattr(module, "PAGE", stale)
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(sys, "argv", ["rules-page", "--check"])
    assert module.main() == 1
