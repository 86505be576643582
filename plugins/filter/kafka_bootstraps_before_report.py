# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: kafka_bootstraps_before_report
short_description: How each bootstrap a client network used before the run answers now, as the verify role reports it
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Reads the answers M(kafkaops.listeners.kafka_metadata) gave on the bootstraps of
    P(kafkaops.listeners.kafka_bootstraps_before#filter) (a looped task's C(results), each with its C(item)) and
    words them as a client on that network would report them.
  - A bootstrap none of whose servers resolves from this host (a stale public name) is C(unresolvable). No client
    could use it before the run either (the run changes no DNS), so it is reported and not counted as failing.
positional: _input, before
options:
  _input:
    description: The registered C(results) of the metadata requests, one per bootstrap not planned.
    type: list
    elements: dict
    required: true
  before:
    description: The bootstraps P(kafkaops.listeners.kafka_bootstraps_before#filter) listed (for the planned one).
    type: list
    elements: dict
    default: []
seealso:
  - plugin: kafkaops.listeners.kafka_bootstraps_before
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Every bootstrap this network's clients used before the run must still work
  ansible.builtin.assert:
    that: report.failures | length == 0
    fail_msg: "{{ report.failures | join(' | ') }}"
  vars:
    report: "{{ answers.results | kafkaops.listeners.kafka_bootstraps_before_report(before) }}"
"""

RETURN = r"""
_value:
  description: The report.
  type: dict
  contains:
    failures:
      description: One line per bootstrap that fails now (and resolves), or hands out an endpoint that fails.
      type: list
      elements: str
    unresolvable:
      description: The results (of O(_input)) of the bootstraps none of whose servers resolves from this host.
      type: list
      elements: dict
    outcomes:
      description: One line per bootstrap, the planned one first, saying how it answers now.
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError

_UNRESOLVED = "does not resolve from this host"
_NOT_COUNTED = (" (not counted: these names resolve nowhere from this network, so no client used them before this run"
                " either; the run changes no DNS)")


def _bad_endpoints(result):
    return list(result.get("unreachable_endpoints") or []) + list(result.get("insecure_endpoints") or [])


def _answer(result):
    """kafka_metadata's summary, else its message."""
    return result["summary"] if "summary" in result else result.get("msg", "no answer")


def _endpoint_failure(endpoint):
    """One endpoint that failed, as a client's log says it."""
    why = ("Failed to resolve " if not endpoint.get("resolvable")
           else "Failed to connect to " if not endpoint.get("connectable") else "TLS/SASL refused by ")
    error = endpoint.get("error") or endpoint.get("security_error")
    return "%s'%s:%s'%s" % (why, endpoint.get("host"), endpoint.get("port"), " (%s)" % error if error else "")


def bootstraps_before_report(results, before=None):
    """``{'failures', 'unresolvable', 'outcomes'}`` of the answers on the bootstraps used before the run."""
    results = list(results or [])
    if any(not isinstance(result, dict) or not isinstance(result.get("item"), dict) for result in results):
        raise AnsibleFilterError("kafka_bootstraps_before_report: expected the results of a task looped over "
                                 "kafka_bootstraps_before's entries (each with its item), got %r" % (results,))
    unresolvable = [result for result in results if result.get("failed")
                    and str(result.get("msg", "")).count(_UNRESOLVED) >= len(result["item"]["bootstrap"])]
    failures = []
    for result in results:
        ends = [_endpoint_failure(endpoint) for endpoint in _bad_endpoints(result)]
        if (result.get("failed") and result not in unresolvable) or ends:
            item = result["item"]
            failures.append("%s (%s, listener %s): %s%s" % (
                ",".join(item["bootstrap"]), item["source"], item.get("listener") or "?", _answer(result),
                ": " + "; ".join(ends) if ends else ""))
    outcomes = ["%s (%s) is the planned bootstrap, checked above" % (",".join(entry["bootstrap"]), entry["source"])
                for entry in before or [] if entry.get("planned")]
    outcomes += ["%s (%s): %s%s" % (",".join(result["item"]["bootstrap"]), result["item"]["source"], _answer(result),
                                    _NOT_COUNTED if result in unresolvable else "") for result in results]
    return {"failures": failures, "unresolvable": unresolvable, "outcomes": outcomes}


class FilterModule:
    """The kafka_bootstraps_before_report filter."""

    def filters(self):
        return {"kafka_bootstraps_before_report": bootstraps_before_report}
