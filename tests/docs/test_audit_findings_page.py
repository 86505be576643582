"""The docsite's page of the audit's rules is what the rule catalogue says now, and the report's rule links land on
its sections (tools/audit-findings-page)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from docutils import nodes
from docutils.core import publish_doctree

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "audit"))

from kafka_listeners_audit.report import render_report  # noqa: E402
from kafka_listeners_audit.rules import DOCS_PAGE, RULES  # noqa: E402

PAGE = REPO_ROOT / "docs" / "docsite" / "rst" / "audit-findings.rst"


def test_the_audit_findings_page_is_generated_from_the_rule_catalogue():
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "audit-findings-page"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr + "\nrun: .venv/bin/python tools/audit-findings-page"


def test_every_rule_link_of_the_report_lands_on_its_section_of_the_page():
    # docutils gives a section the id Sphinx writes into the HTML page
    tree = publish_doctree(PAGE.read_text(encoding="utf-8"), settings_overrides={"report_level": 5})
    ids = {node_id: node for node in tree.findall(nodes.Element) for node_id in node["ids"]}
    findings = [{"rule_id": rule_id, "rule": rule.name, "severity": rule.severity, "cluster": "kafka-a",
                 "broker": "b1", "client_network": "vpc", "message": "m"} for rule_id, rule in RULES.items()]
    page = render_report({"clusters": 1, "brokers": 1, "probes": 1, "as_of": None}, findings, [], [],
                         {"total": 0, "open": 0}, docs_url="https://docs.example.com/kafkaops/")
    links = re.findall(r'<dt id="rule-(KL\d+)">.*?<a href="https://docs\.example\.com/kafkaops/([^"#]+)#([^"]+)">',
                       page)
    assert [rule_id for rule_id, _page, _anchor in links] == sorted(RULES)
    for rule_id, page_path, anchor in links:
        assert page_path == DOCS_PAGE
        assert anchor in ids, "%s links to #%s, which the page does not have" % (rule_id, anchor)
        assert ids[anchor].tagname == "section" and ids[anchor][0].astext().startswith(rule_id)
