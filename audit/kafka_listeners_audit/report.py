# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The audit's human outputs: the stdout summary and one self-contained HTML report.

The report needs nothing but a browser: CSS, SVG and a few lines of script (sorting and filtering the tables) are
inline, and nothing is fetched; the only links go to the rules' sections of the collection's docsite, when its
address is given. Its inputs are small, already-aggregated rows (findings, heatmap cells, the newest incidents) as
plain dicts.
"""

from __future__ import annotations

import html
from collections import Counter
from datetime import UTC, datetime

from kafka_listeners_audit.rules import DOCS_PAGE, RULES, SEVERITIES, docs_link
from kafka_listeners_audit.schema import NO_LONGER_ADVERTISED

_SEVERITY_COLOURS = {"info": "#5b7083", "warning": "#b7791f", "error": "#c53030", "critical": "#742a2a"}
_KIND_COLOURS = {"unresolvable": "#c53030", "unconnectable": "#dd6b20", "tls_refused": "#b7791f",
                 "sasl_refused": "#6b46c1", "unknown": "#718096"}
_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1a202c;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #e2e8f0}
.meta{color:#4a5568}.counts span{display:inline-block;margin:6px 8px 0 0;padding:3px 10px;border-radius:12px;
color:#fff;font-weight:600}table{border-collapse:collapse;margin-top:6px}
th,td{border:1px solid #e2e8f0;padding:3px 7px;text-align:left;vertical-align:top}th{background:#f7fafc}
table.heat td.cell{text-align:center;min-width:70px;color:#fff;font-weight:600}
table.heat td.none{background:#edf2f7;color:#a0aec0}td.msg{max-width:720px}
.sev{color:#fff;border-radius:3px;padding:0 5px;font-size:12px}.note{color:#718096;font-size:12px}
th .via{font-weight:400;font-size:11px;color:#4a5568}
svg text{font:11px system-ui,sans-serif;fill:#2d3748}
table.sortable th{cursor:pointer}input.filter{margin:4px 0;padding:2px 6px;width:320px}
dl.rules dt{font-weight:600;margin-top:8px}dl.rules dd{margin:2px 0 0 18px}details{margin-top:8px}
"""

_SCRIPT = """
// click a column head to sort its table (again: the other way); type in a box to keep the rows holding the text
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('thead th').forEach(function (head, column) {
    head.addEventListener('click', function () {
      var body = table.tBodies[0], rows = Array.from(body.rows), up = head.dataset.order !== 'up';
      var key = function (row) { var t = row.cells[column].textContent.trim(), n = parseFloat(t);
                                 return isNaN(n) ? t.toLowerCase() : n; };
      rows.sort(function (a, b) { var x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1); });
      rows.forEach(function (row) { body.appendChild(row); });
      head.dataset.order = up ? 'up' : 'down';
    });
  });
});
document.querySelectorAll('input.filter').forEach(function (box) {
  box.addEventListener('input', function () {
    var text = box.value.toLowerCase();
    Array.from(document.getElementById(box.dataset.table).tBodies[0].rows).forEach(function (row) {
      row.hidden = text !== '' && row.textContent.toLowerCase().indexOf(text) < 0;
    });
  });
});
"""


def _e(value) -> str:
    return html.escape("" if value is None else str(value))


def _fmt_time(value) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        # PySpark hands timestamps over as naive local time; astimezone() reads a naive value as local time
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    return str(value)


def severity_counts(findings: list) -> dict:
    """``{severity: count}`` for every severity, most severe first."""
    counts = Counter(item["severity"] for item in findings)
    return {severity: counts.get(severity, 0) for severity in reversed(SEVERITIES)}


def summary_lines(stats: dict, findings: list, incident_stats: dict, written: list, limit: int = 40) -> list:
    """The stdout summary: totals, counts per severity and rule, the first ``limit`` lines of
    :func:`finding_lines`, files written."""
    lines = ["kafka-listeners-audit: %(clusters)d clusters, %(brokers)d brokers in the latest runs; "
             "%(probes)d probe records, newest %(as_of)s" % {**stats, "as_of": _fmt_time(stats["as_of"])}]
    counts = severity_counts(findings)
    lines.append("findings: %d (%s)" % (len(findings), ", ".join("%s %d" % item for item in counts.items())))
    for rule_id, count in sorted(Counter(item["rule_id"] for item in findings).items()):
        lines.append("  %s %-38s %d" % (rule_id, RULES[rule_id].name, count))
    lines.append("incidents: %(total)d (%(open)d open)" % incident_stats)
    problems = finding_lines(findings)
    for item in problems[:limit]:
        lines.append("%-8s %s %s" % (item["severity"], item["rule_id"], item["message"]))
    if len(problems) > limit:
        lines.append("... and %d more (see the report)" % (len(problems) - limit))
    lines += ["written: %s" % path for path in written]
    return lines


def _heat_colour(ratio: float) -> str:
    # red (nothing reachable) through amber to green (everything reachable)
    return "hsl(%d,65%%,%d%%)" % (round(120 * ratio), 42 if ratio < 1 else 36)


def client_network_summary(cells: list) -> dict:
    """Per client network, over the heatmap ``cells``: the endpoint networks its clients probed (with their routes,
    as :func:`heatmap_cells` labels them), the current probes and how many reached the endpoint."""
    networks: dict = {}
    for cell in cells:
        net = networks.setdefault(cell["client_network"], {"endpoint_networks": set(), "probes": 0, "reachable": 0})
        net["endpoint_networks"].update(cell.get("endpoint_networks") or [])
        net["probes"] += cell["probes"]
        net["reachable"] += cell["reachable"]
    return {name: dict(net, endpoint_networks=sorted(net["endpoint_networks"]))
            for name, net in sorted(networks.items())}


def _network_headers(networks: list, via: dict) -> list:
    """Column heads of a client network table: each client network, with the endpoint networks its clients probed
    (``via``: client network to their labels)."""
    return ['<th>%s%s</th>' % (_e(network), '<br><span class="via">via %s</span>' % _e(", ".join(via[network]))
                               if via.get(network) else "") for network in networks]


def _filter_box(table_id: str, what: str) -> str:
    return '<input class="filter" type="search" data-table="%s" placeholder="filter the %s">' % (table_id, _e(what))


def heatmap_html(cells: list, max_rows: int, brokers=()) -> str:
    """Reachability heatmap: one row per cluster/broker, one column per client network; a cell shows how many of
    the current probes from that network reached the broker's endpoints. ``brokers`` ((cluster, broker) pairs)
    adds rows for brokers no client probed now (a broker down is missing from Metadata). Brokers nobody probed
    come first, then those with failures; brokers every current probe reached are folded away below them."""
    networks = sorted({cell["client_network"] for cell in cells})
    rows: dict = {tuple(key): {} for key in brokers}
    for cell in cells:
        rows.setdefault((cell["cluster"], cell["broker"]), {})[cell["client_network"]] = cell

    def worst(key):
        ratios = [c["reachable"] / c["probes"] for c in rows[key].values() if c["probes"]]
        return (min(ratios) if ratios else -1.0, key)

    ordered = sorted(rows, key=worst)
    failing = [key for key in ordered if worst(key)[0] < 1]
    green = [key for key in ordered if worst(key)[0] >= 1]
    heads = ["<th>cluster</th><th>broker</th>", *_network_headers(networks, {
        name: net["endpoint_networks"] for name, net in client_network_summary(cells).items()})]

    def table(table_id: str, keys: list) -> list:
        out = ['<table class="heat sortable" id="%s"><thead><tr>%s</tr></thead><tbody>' % (table_id, "".join(heads))]
        for key in keys[:max_rows]:
            out.append("<tr><td>%s</td><td>%s</td>" % (_e(key[0]), _e(key[1])))
            for network in networks:
                cell = rows[key].get(network)
                if cell is None or not cell["probes"]:
                    out.append('<td class="cell none">&mdash;</td>')
                    continue
                ratio = cell["reachable"] / cell["probes"]
                rules = ", ".join(cell.get("rules") or [])
                via = ", ".join(cell.get("endpoint_networks") or [])
                tip = "%s/%s from %s%s: %d of %d probes reached%s" % (
                    key[0], key[1], network, " via " + via if via else "", cell["reachable"], cell["probes"],
                    "; " + rules if rules else "")
                out.append('<td class="cell" style="background:%s" title="%s">%d/%d</td>'
                           % (_heat_colour(ratio), _e(tip), cell["reachable"], cell["probes"]))
            out.append("</tr>")
        out.append("</tbody></table>")
        if len(keys) > max_rows:
            out.append('<p class="note">%d more brokers not shown.</p>' % (len(keys) - max_rows))
        return out

    out = [_filter_box("heatmap", "brokers"), *table("heatmap", failing)]
    if green:
        out += ["<details><summary>%d brokers every current probe reached</summary>" % len(green),
                *table("heatmap-reachable", green), "</details>"]
    return "".join(out)


_STATE_COLOURS = {"unreachable": "hsl(0,65%,42%)", "degraded": "hsl(35,80%,42%)", "reachable": "hsl(120,65%,36%)"}


def cluster_summary(cells: list, findings: list, brokers=()) -> list:
    """One row per cluster, worst first: ``cluster``, ``brokers``, ``findings`` (count), ``severity`` (the worst
    finding's, or None) and ``networks``: per client network, the ``state`` of the cluster's worst broker from
    there (``unreachable``: a broker none of whose current probes reached it; ``degraded``: some did not;
    ``reachable``), ``probes``, ``reachable``, ``failing`` (brokers with a probe that did not reach them) and
    ``endpoint_networks`` (the endpoint networks probed from there, as the cells label them)."""
    clusters: dict = {}
    for cluster, broker in brokers:
        clusters.setdefault(cluster, {"brokers": set(), "networks": {}})["brokers"].add(broker)
    for cell in cells:
        entry = clusters.setdefault(cell["cluster"], {"brokers": set(), "networks": {}})
        entry["brokers"].add(cell["broker"])
        net = entry["networks"].setdefault(cell["client_network"], {"probes": 0, "reachable": 0, "failing": 0,
                                                                    "worst": 1.0, "endpoint_networks": set()})
        net["endpoint_networks"].update(cell.get("endpoint_networks") or [])
        net["probes"] += cell["probes"]
        net["reachable"] += cell["reachable"]
        if cell["probes"]:
            ratio = cell["reachable"] / cell["probes"]
            net["worst"] = min(net["worst"], ratio)
            net["failing"] += ratio < 1
    by_cluster: dict = {}
    for item in findings:
        by_cluster.setdefault(item["cluster"], []).append(SEVERITIES.index(item["severity"]))
    rows = []
    for cluster in set(clusters) | set(by_cluster):
        entry = clusters.get(cluster, {"brokers": set(), "networks": {}})
        networks = {name: {"state": "unreachable" if net["worst"] == 0 else "degraded" if net["worst"] < 1
                           else "reachable", **{key: net[key] for key in ("probes", "reachable", "failing")},
                           "endpoint_networks": sorted(net["endpoint_networks"])}
                    for name, net in entry["networks"].items()}
        ranks = by_cluster.get(cluster, [])
        rows.append({"cluster": cluster, "brokers": len(entry["brokers"]), "findings": len(ranks),
                     "severity": SEVERITIES[max(ranks)] if ranks else None, "networks": networks})
    worst_state = {"unreachable": 0, "degraded": 1, "reachable": 2}
    return sorted(rows, key=lambda row: (-(SEVERITIES.index(row["severity"]) + 1 if row["severity"] else 0),
                                         min([worst_state[n["state"]] for n in row["networks"].values()] or [2]),
                                         row["cluster"]))


def cluster_summary_html(rows: list, max_rows: int) -> str:
    """The fleet at a glance: :func:`cluster_summary` rows as a cluster x client network table."""
    networks = sorted({name for row in rows for name in row["networks"]})
    via: dict = {}
    for row in rows:
        for name, net in row["networks"].items():
            via.setdefault(name, set()).update(net["endpoint_networks"])
    out = [_filter_box("clusters", "clusters"),
           '<table class="heat sortable" id="clusters"><thead><tr><th>cluster</th><th>brokers</th><th>findings</th>']
    out += _network_headers(networks, {name: sorted(labels) for name, labels in via.items()})
    out.append("</tr></thead><tbody>")
    for row in rows[:max_rows]:
        severity = row["severity"]
        badge = ('<span class="sev" style="background:%s">%s</span> %d' % (
            _SEVERITY_COLOURS[severity], _e(severity), row["findings"]) if severity else "0")
        out.append("<tr><td>%s</td><td>%d</td><td>%s</td>" % (_e(row["cluster"]), row["brokers"], badge))
        for network in networks:
            net = row["networks"].get(network)
            if net is None or not net["probes"]:
                out.append('<td class="cell none">&mdash;</td>')
                continue
            tip = "%s from %s: %d of %d probes reached; %d brokers with failed probes" % (
                row["cluster"], network, net["reachable"], net["probes"], net["failing"])
            out.append('<td class="cell" style="background:%s" title="%s">%s %d/%d</td>' % (
                _STATE_COLOURS[net["state"]], _e(tip), net["state"], net["reachable"], net["probes"]))
        out.append("</tr>")
    out.append("</tbody></table>")
    if len(rows) > max_rows:
        out.append('<p class="note">%d more clusters not shown (fewer findings, everything reachable).</p>'
                   % (len(rows) - max_rows))
    return "".join(out)


def _seconds(value) -> float:
    return value.timestamp()  # naive values are local time, as PySpark returns them


def timeline_svg(incidents: list, as_of, max_lanes: int = 40) -> str:
    """Incident timeline: one lane per endpoint x client, a bar per incident from start to end (open incidents
    run to ``as_of``, hatched)."""
    if not incidents or as_of is None:
        return '<p class="note" id="timeline">No incidents in the probe history.</p>'
    lanes: dict = {}
    for item in incidents:
        key = (item["cluster"], item["broker"], item["listener"], item["advertised_host"], item["advertised_port"],
               item["client_network"], item["client"])
        if key in lanes or len(lanes) < max_lanes:
            lanes.setdefault(key, []).append(item)
    shown = [item for items in lanes.values() for item in items]
    left = min(_seconds(item["start"]) for item in shown)
    right = max([_seconds(as_of)] + [_seconds(item["end"]) for item in shown if item["end"] is not None])
    span = max(right - left, 1.0)
    labels = {key: "%s/%s %s %s:%s \u2190 %s/%s" % key for key in lanes}
    # the whole label, never cut: the plot starts after the longest (11 px text is at most about 7 px a character)
    label_w, plot_w, lane_h, top = max(420, 7 * max(len(label) for label in labels.values()) + 12), 640, 18, 24
    height = top + lane_h * len(lanes) + 26
    out = ['<svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" '
           'aria-label="incident timeline">' % (label_w + plot_w + 20, height),
           '<defs><pattern id="open" width="6" height="6" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><rect width="3" height="6" fill="#c53030"/></pattern></defs>']
    for tick in range(5):
        x = label_w + plot_w * tick / 4
        moment = datetime.fromtimestamp(left + span * tick / 4, tz=UTC)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e2e8f0"/>' % (x, top - 4, x, height))
        anchor = ("start", "middle", "middle", "middle", "end")[tick]  # the outer labels stay inside the image
        out.append('<text x="%.1f" y="12" text-anchor="%s">%s</text>' % (x, anchor, moment.strftime("%m-%d %H:%M")))
    for lane, (key, items) in enumerate(lanes.items()):
        y = top + lane * lane_h
        out.append('<text x="4" y="%d">%s</text>' % (y + 12, _e(labels[key])))
        for item in items:
            start = _seconds(item["start"])
            end = _seconds(item["end"]) if item["end"] is not None else _seconds(as_of)
            x = label_w + plot_w * (start - left) / span
            width = max(plot_w * (end - start) / span, 2.0)
            fill = "url(#open)" if item["end"] is None else _KIND_COLOURS.get(item["kind"], "#718096")
            ended = _fmt_time(item["end"]) or "now (open)"
            if item.get("end_reason") == NO_LONGER_ADVERTISED:
                ended += ", when it was no longer advertised"
            tip = "%s from %s to %s (%s, %d failed probes)%s" % (
                item["kind"], _fmt_time(item["start"]), ended,
                "%.0f s" % item["duration_s"], item["failed_probes"],
                ": " + item["first_error"] if item.get("first_error") else "")
            out.append('<rect class="bar" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="#742a2a" '
                       'stroke-width="0.5"><title>%s</title></rect>' % (x, y + 2, width, lane_h - 5, fill, _e(tip)))
    legend_y = height - 6
    out.append('<rect x="4" y="%d" width="10" height="9" fill="%s"/><text x="18" y="%d">closed, unresolvable</text>'
               % (legend_y - 8, _KIND_COLOURS["unresolvable"], legend_y))
    out.append('<rect x="160" y="%d" width="10" height="9" fill="%s"/><text x="174" y="%d">closed, unconnectable'
               '</text>' % (legend_y - 8, _KIND_COLOURS["unconnectable"], legend_y))
    out.append('<rect x="330" y="%d" width="10" height="9" fill="url(#open)"/><text x="344" y="%d">open (to the newest '
               'probe)</text>' % (legend_y - 8, legend_y))
    out.append("</svg>")
    return "".join(out)


def finding_lines(findings: list) -> list:
    """One line per problem: findings of one rule, cluster and message (KL004 reports each broker that shares an
    endpoint, with the same message) become one, with ``brokers`` listing them; order kept."""
    lines: dict = {}
    for item in findings:
        line = lines.setdefault((item["rule_id"], item["cluster"], item["message"]), {**item, "brokers": []})
        if item.get("broker") and item["broker"] not in line["brokers"]:
            line["brokers"].append(item["broker"])
    return list(lines.values())


def _rule_ref(rule_id: str) -> str:
    return '<a href="#rule-%s">%s</a> %s' % (_e(rule_id), _e(rule_id), _e(RULES[rule_id].name))


def findings_table(findings: list, max_rows: int) -> str:
    """The findings, most severe first, one line per problem (:func:`finding_lines`); each rule links to its
    explanation below the table."""
    if not findings:
        return "<p>No findings.</p>"
    lines = finding_lines(findings)
    out = [_filter_box("findings", "findings"),
           '<table class="sortable" id="findings"><thead><tr><th>severity</th><th>rule</th><th>cluster</th>'
           "<th>broker</th><th>network</th><th>message</th></tr></thead><tbody>"]
    for item in lines[:max_rows]:
        out.append('<tr><td><span class="sev" style="background:%s">%s</span></td><td>%s</td><td>%s</td>'
                   '<td>%s</td><td>%s</td><td class="msg">%s</td></tr>' % (
                       _SEVERITY_COLOURS[item["severity"]], _e(item["severity"]), _rule_ref(item["rule_id"]),
                       _e(item["cluster"]), _e(", ".join(item["brokers"])), _e(item["client_network"]),
                       _e(item["message"])))
    out.append("</tbody></table>")
    if len(lines) > max_rows:
        out.append('<p class="note">%d more in findings.json / findings.parquet.</p>' % (len(lines) - max_rows))
    return "".join(out)


def rules_html(findings: list, docs_url: str | None) -> str:
    """What each rule found means, what to change and with which option, for the rules with findings; each links
    to its section of the docsite at ``docs_url`` (its root), when given."""
    out = ['<dl class="rules">']
    for rule_id in sorted({item["rule_id"] for item in findings}):
        rule = RULES[rule_id]
        more = (' <a href="%s">more in the docs</a>' % _e(docs_link(rule_id, docs_url))) if docs_url else ""
        out.append('<dt id="rule-%s">%s %s (%s)%s</dt><dd>%s</dd><dd>What to change: %s</dd><dd>Option: %s</dd>' % (
            _e(rule_id), _e(rule_id), _e(rule.name), _e(rule.severity), more, _e(rule.summary), _e(rule.change),
            _e(rule.option)))
    out.append("</dl>")
    if not docs_url:
        out.append('<p class="note">Each rule has a section on the collection\'s docsite page %s (make docs builds '
                   "it); give --docs-url with the address where your team publishes it to link them.</p>"
                   % _e(DOCS_PAGE))
    return "".join(out)


def render_report(stats: dict, findings: list, cells: list, incidents: list, incident_stats: dict,
                  max_rows: int = 300, brokers=(), docs_url: str | None = None) -> str:
    """The whole HTML report as one string; ``brokers`` as for :func:`heatmap_html`, ``docs_url`` as for
    :func:`rules_html`."""
    counts = severity_counts(findings)
    badges = "".join('<span style="background:%s">%s %d</span>' % (_SEVERITY_COLOURS[sev], sev, count)
                     for sev, count in counts.items())
    # a big fleet's report opens on its clusters; brokers are listed only for the clusters with findings
    flagged = {item["cluster"] for item in findings}
    broker_cells = [cell for cell in cells if cell["cluster"] in flagged]
    quiet = len(({cluster for cluster, _broker in brokers} | {cell["cluster"] for cell in cells}) - flagged)
    return "".join([
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<title>Kafka listeners fleet audit</title><style>%s</style></head><body>" % _CSS,
        "<h1>Kafka listeners fleet audit</h1>",
        '<p class="meta">%d clusters, %d brokers (latest runs); %d probe records; newest probe %s.</p>' % (
            stats["clusters"], stats["brokers"], stats["probes"], _e(_fmt_time(stats["as_of"]))),
        '<div class="counts">%s</div>' % badges,
        "<h2>Clusters</h2>",
        '<p class="note">Per cluster and client network, from each client\'s latest run: the state of the worst '
        "broker (unreachable: none of its probes reached it; degraded: some did not) and probes that resolved and "
        "connected / probes. Clusters with the most severe findings first.</p>",
        cluster_summary_html(cluster_summary(cells, findings, brokers), max_rows),
        "<h2>Brokers of the clusters with findings</h2>",
        '<p class="note">Each client\'s latest run: probes that resolved and connected / probes (&mdash;: no probe '
        "from that network now). Hover a cell for the rules it triggered.%s</p>" % (
            " %d clusters without findings are only in the table above." % quiet if quiet else ""),
        heatmap_html(broker_cells, max_rows, [key for key in brokers if key[0] in flagged]),
        "<h2>Incidents</h2>",
        '<p class="note">%d incidents, %d open; the newest %d shown (hatched: still open).</p>' % (
            incident_stats["total"], incident_stats["open"], len(incidents)),
        timeline_svg(incidents, stats["as_of"]),
        "<h2>Findings</h2>",
        findings_table(findings, max_rows),
        "<h2>What the rules mean and what to change</h2>" if findings else "",
        rules_html(findings, docs_url) if findings else "",
        "<script>%s</script>" % _SCRIPT,
        "</body></html>\n",
    ])
