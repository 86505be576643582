# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: broker_start_files
short_description: Which of start-time self-healing's files a broker role run writes or removes
version_added: 0.4.0
author:
  - kafkaops.listeners maintainers (@kafkaops)
description:
  - Start-time self-healing (the broker role's C(broker_start_rediscover)) keeps three files on each broker, the
    pre-start program, the cluster's decision beside the properties file and the systemd drop-in that runs the
    program before Kafka starts. Given the checksums M(kafkaops.listeners.kafka_broker_facts) found for them and
    the texts this run would write, says which of them differ (and so are written), and whether a drop-in is left
    over with the feature off (and so is removed).
  - The broker role reads it to include its start-time tasks only when one of the files is to be written or
    removed, and to check, without become, that the login user may write them.
options:
  _input:
    description:
      - The SHA-1 checksum of each file as RV(kafkaops.listeners.kafka_broker_facts#module:checksums) returns them,
        by path; V(null) or no entry for a file that does not exist.
    type: dict
    required: true
  enabled:
    description: Whether start-time self-healing is on for this broker.
    type: bool
    required: true
  paths:
    description:
      - The files' paths, under the keys V(program), V(decision) and V(dropin). The drop-in may be V(null) (no
        Kafka unit), and is then neither written nor removed.
    type: dict
    required: true
  texts:
    description:
      - The files' content as this run writes them, under the same keys. Needed (all three, or V(decision) and
        V(dropin) with O(program_python)) only when O(enabled); the role passes none with the feature off, so that
        nothing of them is templated then.
    type: dict
    default: {}
  program_python:
    description:
      - Instead of the program's text, the interpreter it runs with (its C(#!) line). The filter then builds the
        text with P(kafkaops.listeners.prestart_program#filter) and compares its checksum itself, so that the
        program (hundreds of kB) never passes through a template. A text in O(texts) is used first.
    type: path
  restarts:
    description:
      - Whether the rollout restarts this broker in this run. Its decision is then stored just before its restart,
        with its keys, not with the other start-time files (RV(_value.decision) is false, and RV(_value.writes)
        still names it).
    type: bool
    default: false
seealso:
  - module: kafkaops.listeners.kafka_broker_facts
    description: Returns the checksums.
  - plugin: kafkaops.listeners.prestart_program
    plugin_type: filter
    description: The pre-start program's text.
"""

EXAMPLES = r"""
- name: Include the start-time tasks only when a file is to be written or removed
  ansible.builtin.include_tasks: start.yml
  when: >-
    (facts.checksums | kafkaops.listeners.broker_start_files(
       true, {'program': '/usr/local/libexec/kafka-prestart', 'decision': '/etc/kafka/server.properties.listeners.json',
              'dropin': '/etc/systemd/system/kafka.service.d/kafkaops-listeners.conf'},
       {'decision': decision_text, 'dropin': dropin_text}, program_python='/usr/bin/python3')).changes
"""

RETURN = r"""
_value:
  description: What the run does with each file.
  type: dict
  contains:
    program:
      description: The pre-start program is written (O(enabled) and its checksum differs).
      type: bool
    decision:
      description: The decision is written with the start-time files (it differs, and O(restarts) is false).
      type: bool
    dropin:
      description: The drop-in is written (O(enabled) and its checksum differs).
      type: bool
    dropin_unwanted:
      description: The drop-in is removed (O(enabled) is false and the file exists).
      type: bool
    changes:
      description: Any of the four above.
      type: bool
    writes:
      description:
        - The paths this run writes or removes, program, decision and drop-in in that order; the decision whenever
          it differs, also when the rollout stores it before the broker's restart.
      type: list
      elements: str
"""

import hashlib

from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.listeners.plugins.module_utils._prestart_bundle import program_text

FILES = ("program", "decision", "dropin")


def _differs(checksums, path, text):
    """Whether the file at ``path`` does not hold ``text`` (by SHA-1, as the hash filter and the module compute it)."""
    return checksums.get(path) != hashlib.sha1(text.encode("utf-8")).hexdigest()


def broker_start_files(checksums, enabled, paths, texts=None, restarts=False, program_python=None):
    """Return which start-time files differ from ``texts`` (``enabled``), or the drop-in left over (not ``enabled``);
    with ``program_python`` the program's text is the pre-start program for that interpreter."""
    if not isinstance(checksums, dict) or not isinstance(paths, dict):
        raise AnsibleFilterError("broker_start_files: expected mappings of checksums and paths, got %s and %s"
                                 % (type(checksums).__name__, type(paths).__name__))
    texts = dict(texts or {})
    if enabled and program_python is not None and "program" not in texts:
        try:
            texts["program"] = program_text(program_python)
        except ValueError as exc:
            raise AnsibleFilterError("broker_start_files: program_python: %s" % exc) from exc
    if enabled:
        missing = (["paths." + name for name in ("program", "decision") if not paths.get(name)]
                   + ["texts." + name for name in FILES if not isinstance(texts.get(name), str)])
        if missing:
            raise AnsibleFilterError("broker_start_files: with enabled true, %s must be given (paths: program and"
                                     " decision; texts: all three, or decision and dropin with program_python)"
                                     % ", ".join(missing))
    dropin = paths.get("dropin")
    differs = {name: bool(enabled) and paths.get(name) is not None and _differs(checksums, paths[name], texts[name])
               for name in FILES}
    unwanted = not enabled and dropin is not None and checksums.get(dropin) is not None
    result = {"program": differs["program"], "decision": differs["decision"] and not restarts,
              "dropin": differs["dropin"], "dropin_unwanted": unwanted}
    result["changes"] = any(result.values())
    result["writes"] = [paths[name] for name in FILES if differs[name]] + ([dropin] if unwanted else [])
    return result


class FilterModule:
    """The broker_start_files filter."""

    def filters(self):
        return {"broker_start_files": broker_start_files}
