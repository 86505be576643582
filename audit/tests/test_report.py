# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The HTML report and the stdout summary, from plain rows (no Spark)."""

import re

from frame_assertions import utc

from kafka_listeners_audit.report import (
    client_network_summary,
    cluster_summary,
    cluster_summary_html,
    heatmap_html,
    render_report,
    summary_lines,
    timeline_svg,
)

STATS = {"clusters": 1, "brokers": 2, "probes": 10, "as_of": utc("2026-01-05 01:00:00")}
FINDING = {"rule_id": "KL001", "rule": "advertised-unresolvable-from-client", "severity": "critical",
           "cluster": "kafka-a", "broker": "b1", "client_network": "internet",
           "message": "b1.example.com:9092 <script>alert(1)</script> does not resolve"}
CELLS = [
    {"cluster": "kafka-a", "broker": "b1", "client_network": "internet", "probes": 2, "reachable": 0,
     "rules": ["KL001"], "endpoint_networks": ["internet-nlb (load_balancer)"]},
    {"cluster": "kafka-a", "broker": "b1", "client_network": "vpc", "probes": 1, "reachable": 1, "rules": [],
     "endpoint_networks": ["vpc (private)"]},
    # records written before endpoint networks: none to show
    {"cluster": "kafka-a", "broker": "b2", "client_network": "vpc", "probes": 1, "reachable": 1, "rules": [],
     "endpoint_networks": []},
]
INCIDENT = {"cluster": "kafka-a", "broker": "b1", "listener": "EXTERNAL", "advertised_host": "b1.example.com",
            "advertised_port": 9092, "client_network": "internet", "client": "laptop",
            "start": utc("2026-01-05 00:30:00"), "end": None, "open": True, "duration_s": 1800.0,
            "failed_probes": 6, "kind": "unresolvable", "first_error": "Failed to resolve"}


def test_report_is_self_contained_and_escapes_record_text():
    page = render_report(STATS, [FINDING], CELLS, [INCIDENT], {"total": 1, "open": 1})
    assert page.startswith("<!DOCTYPE html>")
    assert 'id="heatmap"' in page and 'id="timeline"' in page and 'id="findings"' in page
    # record text is escaped: the page's one script is its own (sorting and filtering)
    assert page.count("<script>") == 1 and "&lt;script&gt;alert(1)" in page
    assert "alert(" not in page[page.index("<script>"):]
    # nothing to fetch: no external stylesheet, script, image or font
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page


FLEET_CELLS = [*CELLS,
               {"cluster": "kafka-b", "broker": "b1", "client_network": "internet", "probes": 3, "reachable": 3,
                "rules": [], "endpoint_networks": ["internet (public_dns)"]},
               {"cluster": "kafka-c", "broker": "b1", "client_network": "vpc", "probes": 2, "reachable": 1,
                "rules": ["KL002"]}]
FLEET_BROKERS = [("kafka-a", "b1"), ("kafka-a", "b2"), ("kafka-b", "b1"), ("kafka-b", "b2"), ("kafka-c", "b1")]
KL002 = {**FINDING, "rule_id": "KL002", "severity": "error", "cluster": "kafka-c", "client_network": "vpc",
         "message": "b1 resolves but does not connect"}


def test_cluster_summary_gives_each_cluster_and_network_its_worst_state_worst_cluster_first():
    rows = cluster_summary(FLEET_CELLS, [KL002, FINDING], FLEET_BROKERS)
    assert [(row["cluster"], row["findings"], row["severity"], row["brokers"]) for row in rows] == [
        ("kafka-a", 1, "critical", 2), ("kafka-c", 1, "error", 1), ("kafka-b", 0, None, 2)]
    assert rows[0]["networks"] == {
        "internet": {"state": "unreachable", "probes": 2, "reachable": 0, "failing": 1,
                     "endpoint_networks": ["internet-nlb (load_balancer)"]},
        "vpc": {"state": "reachable", "probes": 2, "reachable": 2, "failing": 0,
                "endpoint_networks": ["vpc (private)"]}}
    assert rows[1]["networks"]["vpc"]["state"] == "degraded"
    assert rows[2]["networks"] == {"internet": {"state": "reachable", "probes": 3, "reachable": 3, "failing": 0,
                                                "endpoint_networks": ["internet (public_dns)"]}}


def test_cluster_summary_table_marks_networks_without_probes_and_counts_left_out_clusters():
    table = cluster_summary_html(cluster_summary(FLEET_CELLS, [KL002, FINDING], FLEET_BROKERS), max_rows=2)
    cells = re.findall(r'<td class="cell[^"]*"[^>]*>([^<]*)</td>', table)
    assert cells == ["unreachable 0/2", "reachable 2/2", "&mdash;", "degraded 1/2"]
    assert "1 more clusters not shown" in table


def test_fleet_report_opens_on_the_clusters_then_lists_brokers_of_clusters_with_findings_only():
    page = render_report({**STATS, "clusters": 3, "brokers": 5}, [FINDING, KL002], FLEET_CELLS, [],
                         {"total": 0, "open": 0}, brokers=FLEET_BROKERS)
    assert page.index('id="clusters"') < page.index('id="heatmap"') < page.index('id="findings"')
    summary = page[page.index('id="clusters"'):page.index('id="heatmap"')]
    brokers = page[page.index('id="heatmap"'):page.index('id="timeline"')]
    assert "<td>kafka-b</td>" in summary and "<td>kafka-b</td>" not in brokers
    assert brokers.count("<td>kafka-a</td>") == 2 and brokers.count("<td>kafka-c</td>") == 1
    assert "1 clusters without findings are only in the table above" in page


def test_heatmap_rows_with_failures_come_first_and_missing_cells_are_marked():
    table = heatmap_html(list(reversed(CELLS)), max_rows=10)
    assert table.index("<td>b1</td>") < table.index("<td>b2</td>")
    cells = re.findall(r'<td class="cell[^"]*"[^>]*>([^<]*)</td>', table)
    assert cells == ["0/2", "1/1", "&mdash;", "1/1"]  # b1: internet, vpc; b2: internet (none), vpc
    assert "hsl(0," in table and "hsl(120," in table


def test_heatmap_shows_brokers_nobody_probed_first():
    table = heatmap_html(CELLS, max_rows=10, brokers=[("kafka-a", "b1"), ("kafka-a", "b3")])
    assert table.index("<td>b3</td>") < table.index("<td>b1</td>") < table.index("<td>b2</td>")
    assert table.count("&mdash;") == 3  # b3 in both networks, b2 from the internet


def test_heatmap_row_limit_says_how_many_were_left_out_and_folds_brokers_every_probe_reached():
    failing = {**CELLS[0], "broker": "b3"}
    table = heatmap_html([*CELLS, failing], max_rows=1)
    assert "1 more brokers not shown" in table
    top, folded = table.split("<details>")
    assert "<td>b2</td>" not in top and "<td>b2</td>" in folded
    assert folded.startswith("<summary>1 brokers every current probe reached</summary>")


def test_timeline_draws_open_incidents_hatched_to_as_of():
    svg = timeline_svg([INCIDENT, {**INCIDENT, "client": "laptop-2", "end": utc("2026-01-05 00:45:00"),
                                   "open": False, "kind": "unconnectable", "start": utc("2026-01-05 00:00:00")}],
                       STATS["as_of"])
    bars = re.findall(r'<rect class="bar" x="([\d.]+)" y="\d+" width="([\d.]+)" height="\d+" fill="([^"]+)"', svg)
    assert [fill for _x, _w, fill in bars] == ["url(#open)", "#dd6b20"]
    (x_open, w_open, _), (x_closed, w_closed, _) = [(float(x), float(w), f) for x, w, f in bars]
    left = float(re.search(r'<line x1="([\d.]+)"', svg).group(1))  # the plot starts after the labels
    assert abs((x_open + w_open) - (left + 640)) < 0.5  # the open bar reaches as_of, the right edge
    assert abs(x_closed - left) < 0.5 and abs(w_closed - 640 * 45 / 60) < 0.5


def test_timeline_without_incidents_says_so():
    assert "No incidents" in timeline_svg([], STATS["as_of"])


def test_summary_counts_and_lists_findings():
    lines = summary_lines(STATS, [FINDING], {"total": 1, "open": 1}, ["out/report.html"])
    assert lines[1] == "findings: 1 (critical 1, error 0, warning 0, info 0)"
    assert lines[2].split() == ["KL001", "advertised-unresolvable-from-client", "1"]
    assert lines[3] == "incidents: 1 (1 open)"
    assert lines[4].startswith("critical KL001 b1.example.com:9092")
    assert lines[-1] == "written: out/report.html"


def _heads(table):
    return re.findall(r"<th>(.*?)</th>", table)


def test_client_network_columns_name_the_endpoint_networks_their_clients_probed():
    assert _heads(heatmap_html(CELLS, max_rows=10).split("<details>")[0]) == [
        "cluster", "broker", 'internet<br><span class="via">via internet-nlb (load_balancer)</span>',
        'vpc<br><span class="via">via vpc (private)</span>']
    table = cluster_summary_html(cluster_summary(FLEET_CELLS, [KL002, FINDING], FLEET_BROKERS), max_rows=10)
    assert _heads(table)[3:] == [
        'internet<br><span class="via">via internet (public_dns), internet-nlb (load_balancer)</span>',
        'vpc<br><span class="via">via vpc (private)</span>']  # kafka-c's cell has none (older records)
    assert 'title="kafka-a/b1 from internet via internet-nlb (load_balancer): 0 of 2 probes reached; KL001"' in (
        heatmap_html(CELLS, max_rows=10))


def test_client_network_summary_counts_probes_and_endpoint_networks_per_client_network():
    assert client_network_summary(FLEET_CELLS) == {
        "internet": {"endpoint_networks": ["internet (public_dns)", "internet-nlb (load_balancer)"], "probes": 5,
                     "reachable": 3},
        "vpc": {"endpoint_networks": ["vpc (private)"], "probes": 4, "reachable": 3}}


def test_one_line_per_problem_and_each_rule_explained_with_its_docs_link():
    shared = {**FINDING, "rule_id": "KL004", "rule": "duplicate-endpoint", "severity": "error",
              "message": "b.example.com:9092 is advertised on listener EXTERNAL by 2 brokers of kafka-a: b1, b2"}
    findings = [FINDING, shared, {**shared, "broker": "b2"}]
    page = render_report(STATS, findings, CELLS, [], {"total": 0, "open": 0}, docs_url="https://docs.example.com")
    table = page[page.index('id="findings"'):page.index("</table>", page.index('id="findings"'))]
    assert table.count("<tr>") == 3  # the head, KL001, KL004 once for both brokers
    assert "<td>b1, b2</td>" in table and table.count("by 2 brokers") == 1
    assert '<a href="#rule-KL004">KL004</a>' in table
    rules = page[page.index('<dl class="rules">'):]
    assert re.findall(r'<dt id="rule-(KL\d+)">', rules) == ["KL001", "KL004"]
    assert ('<a href="https://docs.example.com/docsite/audit-findings.html#kl004-duplicate-endpoint">more in the '
            'docs</a>') in rules
    assert "What to change: Give every broker its own advertised host" in rules
    lines = summary_lines(STATS, findings, {"total": 0, "open": 0}, [])
    assert sum("by 2 brokers" in line for line in lines) == 1
    # without the docsite's address, the report says where the page is and how to link it
    assert "give --docs-url" in render_report(STATS, findings, CELLS, [], {"total": 0, "open": 0})


def test_timeline_labels_are_whole():
    long = {**INCIDENT, "cluster": "c012-" + "x" * 40, "client_network": "vpc", "client": "c012-vpc-client-7"}
    svg = timeline_svg([long], STATS["as_of"])
    label = "%s/b1 EXTERNAL b1.example.com:9092 \u2190 vpc/c012-vpc-client-7" % long["cluster"]
    assert ">%s</text>" % label in svg
    x = float(re.search(r'<rect class="bar" x="([\d.]+)"', svg).group(1))
    assert x >= 7 * len(label)  # the bars start after the whole label
