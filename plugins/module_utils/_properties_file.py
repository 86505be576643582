# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Backend of the kafka_properties module: edit managed keys of a broker's configuration file on the managed node,
``server.properties`` or a container's environment file.

Private to kafkaops.listeners: no compatibility promise outside the collection.
"""

from __future__ import annotations

import os
import tempfile

from ansible_collections.kafkaops.listeners.plugins.module_utils import _env_file
from ansible_collections.kafkaops.listeners.plugins.module_utils._docker_env import env_properties
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import PropertiesError, parse_properties

# Kafka reads server.properties with Properties.load(InputStream): ISO-8859-1. Decoding bytes that way is also
# lossless for any file, so bytes we do not edit are written back exactly as they were.
ENCODING = "latin-1"


# The pending-restart marker's text (kafka_properties' pending_marker option)
MARKER_TEXT = ("kafkaops.listeners: %s holds (or is about to hold) settings the service has not been restarted on\n"
               "yet. Remove this file once it runs with them (the broker role does, after a healthy restart).\n")


class FileFormat:
    """How one kind of configuration file is decoded, parsed and turned into the properties Kafka sees;
    ``writable(key, value)`` raises ``errors`` for a value the format cannot hold."""

    def __init__(self, parse, errors, encoding, encoding_errors, properties, writable):
        self.parse, self.errors, self.encoding, self.encoding_errors = parse, errors, encoding, encoding_errors
        self.properties, self.writable = properties, writable

    def read(self, path: str) -> str:
        """The file's text (OSError when it cannot be read)."""
        with open(path, "rb") as handle:
            return handle.read().decode(self.encoding, self.encoding_errors)

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding, self.encoding_errors)


def _any_value(key: str, value: str) -> None:
    """A properties file holds any key and value (the writer escapes what needs it)."""


FORMATS = {
    "properties": FileFormat(parse_properties, PropertiesError, ENCODING, "strict", dict, _any_value),
    # a container's KAFKA_* environment: Kafka sees the properties its variables set
    "env": FileFormat(_env_file.parse_env_file, _env_file.EnvFileError, _env_file.ENCODING,
                      _env_file.ENCODING_ERRORS, env_properties, _env_file.format_env_value),
}


def property_value(key: str, value: object) -> str | None:
    """The text a value is written as (None: the key is removed); ValueError for anything but a scalar or null."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise ValueError("properties.%s: expected a string, number, boolean or null, got %s" % (key, type(value).__name__))


def managed_changes(properties: dict) -> dict[str, str | None]:
    """The requested keys with the text each is written as (None: removed); ValueError for a bad key or value."""
    changes = {}
    for key, value in (properties or {}).items():
        if not isinstance(key, str) or not key.strip() or key != key.strip():
            raise ValueError("properties: invalid key %r (keys are non-empty, without surrounding spaces)" % (key,))
        changes[key] = property_value(key, value)
    return changes


def change_outcome(old: dict, changes: dict, file_format: FileFormat, validate_listeners: bool = True,
                   kafka_version: str | None = None) -> dict:
    """What writing ``changes`` (from managed_changes) into a file of ``file_format`` whose keys are ``old`` does:
    the keys whose value changes, sorted, and the Kafka startup rules the properties it then sets break (none asked
    without ``validate_listeners``).

    The file's own text is not needed: each key keeps its last value, a set key takes the new one, a removed key
    goes. The kafka_properties module and the kafka_properties_change filter both answer with this.
    ValueError for a value the format cannot hold (the format's error, naming the key) or an unknown
    ``kafka_version``.
    """
    for key, value in changes.items():
        if value is not None:
            file_format.writable(key, value)
    new = {key: value for key, value in old.items() if key not in changes}
    new.update((key, value) for key, value in changes.items() if value is not None)
    return {
        "changed_keys": sorted(key for key in changes if old.get(key) != new.get(key)),
        "findings": (check_kafka_config(file_format.properties(new), kafka_version=kafka_version)
                     if validate_listeners else []),
    }


class PropertiesFileBackend:
    """Computes and applies the edit the module was asked for; ``module`` is the AnsibleModule."""

    def __init__(self, module):
        self.module = module
        self.path = module.params["path"]
        self.format = FORMATS[module.params.get("format") or "properties"]
        try:
            self.changes = managed_changes(module.params["properties"])
        except ValueError as exc:
            module.fail_json(msg=str(exc))
        self.exists = os.path.exists(self.path)
        self.before = ""
        self.after = ""
        self.changed_keys = []
        self.findings = []

    def compute(self) -> None:
        """Read the file and compute the edited text, the changed keys and the rule findings; writes nothing."""
        if os.path.isdir(self.path):
            self.module.fail_json(msg="path %s is a directory, not a configuration file" % self.path)
        if not self.exists and not self.module.params["create"]:
            self.module.fail_json(msg="path %s does not exist (set create=true to create it)" % self.path)
        if self.exists:
            try:
                self.before = self.format.read(self.path)
            except OSError as exc:
                self.module.fail_json(msg="cannot read %s: %s" % (self.path, exc))
        try:
            document = self.format.parse(self.before)
        except self.format.errors as exc:
            self.module.fail_json(msg="cannot parse %s: %s" % (self.path, exc))
        old = document.to_dict()
        try:
            document.apply(self.changes)
        except self.format.errors as exc:
            self.module.fail_json(msg="cannot write to %s: %s" % (self.path, exc))
        self.after = document.render()
        try:
            outcome = change_outcome(old, self.changes, self.format, self.module.params["validate_listeners"],
                                     self.module.params.get("kafka_version"))
        except ValueError as exc:
            self.module.fail_json(msg="option %s" % exc)
        self.changed_keys, self.findings = outcome["changed_keys"], outcome["findings"]

    @property
    def content_changed(self) -> bool:
        return self.after != self.before or not self.exists

    def write(self) -> str | None:
        """Atomically replace the file with the edited text; return the backup path, if one was made."""
        backup_file = None
        if self.exists and self.module.params["backup"]:
            backup_file = self.module.backup_local(self.path)
        directory = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(directory):
            self.module.fail_json(msg="cannot create %s: directory %s does not exist" % (self.path, directory))
        fd, tmp_path = tempfile.mkstemp(prefix=".kafka_properties.", dir=directory)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(self.format.encode(self.after))
        except OSError as exc:
            os.unlink(tmp_path)
            self.module.fail_json(msg="cannot write a temporary file next to %s: %s" % (self.path, exc))
        self.module.atomic_move(tmp_path, self.path, unsafe_writes=self.module.params["unsafe_writes"])
        return backup_file

    def write_marker(self, marker: str) -> None:
        """Create the pending-restart marker (before the write: a run that stops after the write leaves it)."""
        try:
            with open(marker, "x", encoding="utf-8") as handle:
                handle.write(MARKER_TEXT % self.path)
        except OSError as exc:
            self.module.fail_json(msg="cannot create the pending-restart marker %s: %s" % (marker, exc))

    def run(self) -> dict:
        """Do what the module promises and return its result (fails through the module on any error)."""
        self.compute()
        result = {"changed": False, "path": self.path, "changed_keys": self.changed_keys, "findings": self.findings,
                  "backup_file": None}
        if self.module._diff:
            result["diff"] = {"before": self.before, "after": self.after,
                              "before_header": self.path if self.exists else "/dev/null", "after_header": self.path}
        if self.findings:
            self.module.fail_json(
                msg="refusing to write %s: the result breaks Kafka's startup rules: %s" % (
                    self.path, "; ".join("%s: %s" % (f["rule"], f["message"]) for f in self.findings)),
                **result)
        marker = self.module.params.get("pending_marker")
        result["pending_marker_created"] = bool(marker) and not os.path.exists(marker)
        if result["pending_marker_created"]:
            result["changed"] = True
            if not self.module.check_mode:
                self.write_marker(marker)
        if self.content_changed:
            result["changed"] = True
            if not self.module.check_mode:
                result["backup_file"] = self.write()
        if os.path.exists(self.path):  # absent only in check mode, before a create
            file_args = self.module.load_file_common_arguments(self.module.params)
            result["changed"] = self.module.set_fs_attributes_if_different(file_args, result["changed"])
        return result
