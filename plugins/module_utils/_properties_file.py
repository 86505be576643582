# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Backend of the kafka_properties module: edit managed keys of a broker's configuration file on the managed node,
``server.properties`` or a container's environment file.

Private to kafkaops.listeners: no compatibility promise outside the collection.
"""

from __future__ import annotations

import contextlib
import os
import tempfile

from ansible_collections.kafkaops.listeners.plugins.module_utils import _config_file, _env_file
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

    def read(self, path: str) -> str | None:
        """The file's text, None when it does not exist (OSError when it cannot be read or is not a regular file)."""
        data = _config_file.read_regular(path)
        return None if data is None else self.decode(data)

    def decode(self, data: bytes) -> str:
        return data.decode(self.encoding, self.encoding_errors)

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


def refusal(path: str, findings: list) -> str:
    """The error that refuses to write ``path`` whose result breaks the startup rules in ``findings`` (the module's,
    and the kafka_properties_change filter's where the broker role works the change out on the controller)."""
    return "refusing to write %s: the result breaks Kafka's startup rules: %s" % (
        path, "; ".join("%s: %s" % (finding["rule"], finding["message"]) for finding in findings))


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
    """Computes and applies the edit the module was asked for; ``module`` is the AnsibleModule.

    The file is handled by :mod:`._config_file`: a link is followed (``target`` is the file changed), anything but a
    regular file is refused, the read-edit-replace holds the lock the broker's pre-start program takes too, and a
    backup is complete or absent. Every check a write would make is made in check mode too."""

    def __init__(self, module):
        self.module = module
        self.path = module.params["path"]
        self.target = _config_file.target_path(self.path)
        self.format = FORMATS[module.params.get("format") or "properties"]
        try:
            self.changes = managed_changes(module.params["properties"])
        except ValueError as exc:
            module.fail_json(msg=str(exc))
        self.exists = False
        self.raw = b""
        self.before = ""
        self.after = ""
        self.changed_keys = []
        self.findings = []

    def fail(self, msg: str, **result):
        self.module.fail_json(msg=msg if self.target == self.path else "%s (a link to %s)" % (msg, self.target),
                              **result)

    def compute(self) -> None:
        """Read the file and compute the edited text, the changed keys and the rule findings; writes nothing."""
        try:
            raw = _config_file.read_regular(self.target)
        except OSError as exc:
            self.fail(str(exc))
        self.exists = raw is not None
        if not self.exists and not self.module.params["create"]:
            self.fail("path %s does not exist (set create=true to create it)" % self.path)
        self.raw = raw or b""
        self.before = self.format.decode(self.raw)
        try:
            document = self.format.parse(self.before)
        except self.format.errors as exc:
            self.fail("cannot parse %s: %s" % (self.path, exc))
        old = document.to_dict()
        try:
            document.apply(self.changes)
        except self.format.errors as exc:
            self.fail("cannot write to %s: %s" % (self.path, exc))
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

    def check_writable(self) -> None:
        """Fail as the write would: its directory missing or not writable (an existing file that is writable itself
        is enough with unsafe_writes and no backup)."""
        try:
            _config_file.check_writable_directory(self.target)
        except OSError as exc:
            in_place = (self.module.params["unsafe_writes"] and not self.module.params["backup"] and self.exists
                        and os.access(self.target, os.W_OK))
            if not in_place:
                self.fail(str(exc))

    def write(self) -> str | None:
        """Atomically replace the file with the edited text; return the backup path, if one was made."""
        backup_file = None
        if self.exists and self.module.params["backup"]:
            try:
                backup_file = _config_file.write_backup(self.target, self.raw)
            except OSError as exc:
                self.fail(str(exc))
        directory = os.path.dirname(self.target)
        fd, tmp_path = tempfile.mkstemp(prefix=".kafka_properties.", dir=directory)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(self.format.encode(self.after))
        except OSError as exc:
            os.unlink(tmp_path)
            self.fail("cannot write a temporary file next to %s: %s" % (self.path, exc))
        self.module.atomic_move(tmp_path, self.target, unsafe_writes=self.module.params["unsafe_writes"])
        return backup_file

    def write_marker(self, marker: str) -> None:
        """Create the pending-restart marker (before the write: a run that stops after the write leaves it)."""
        try:
            with open(marker, "x", encoding="utf-8") as handle:
                handle.write(MARKER_TEXT % self.path)
        except OSError as exc:
            self.module.fail_json(msg="cannot create the pending-restart marker %s: %s" % (marker, exc))

    def lock(self):
        """The writers' lock on the file, for the whole read-edit-replace (none needed where the file's directory is
        missing: the run fails before it writes)."""
        if not os.path.isdir(os.path.dirname(self.target)):
            return contextlib.nullcontext()
        return _config_file.locked(self.target)

    def run(self) -> dict:
        """Do what the module promises and return its result (fails through the module on any error)."""
        try:
            with self.lock():
                return self._run_locked()
        except _config_file.ConfigFileError as exc:
            self.fail(str(exc))

    def _run_locked(self) -> dict:
        self.compute()
        result = {"changed": False, "path": self.path, "target": self.target, "changed_keys": self.changed_keys,
                  "findings": self.findings, "backup_file": None}
        if self.module._diff:
            result["diff"] = {"before": self.before, "after": self.after,
                              "before_header": self.path if self.exists else "/dev/null", "after_header": self.path}
        if self.findings:
            self.fail(refusal(self.path, self.findings), **result)
        marker = self.module.params.get("pending_marker")
        result["pending_marker_created"] = bool(marker) and not os.path.exists(marker)
        if result["pending_marker_created"]:
            result["changed"] = True
            if not os.path.isdir(os.path.dirname(os.path.abspath(marker))):
                self.module.fail_json(msg="cannot create the pending-restart marker %s: directory %s does not exist"
                                      % (marker, os.path.dirname(os.path.abspath(marker))))
            if not self.module.check_mode:
                self.write_marker(marker)
        if self.content_changed:
            result["changed"] = True
            self.check_writable()
            if not self.module.check_mode:
                result["backup_file"] = self.write()
        if os.path.exists(self.target):  # absent only in check mode, before a create
            file_args = self.module.load_file_common_arguments(self.module.params, path=self.target)
            result["changed"] = self.module.set_fs_attributes_if_different(file_args, result["changed"])
        return result
