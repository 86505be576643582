# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Where a Kafka broker is installed: its server.properties and the systemd unit that starts it.

Found from files only (unit files and known paths), never by asking systemd: the broker role also runs where
systemd is not PID 1 (containers, the lab). The order, documented in the broker role's argument spec:

1. a value the caller gives wins;
2. else the systemd units whose ExecStart (after their drop-ins) starts a Kafka broker: ``kafka-server-start.sh``
   or ``kafka-server-start`` (Confluent's packages) or the ``kafka.Kafka`` main class, with a properties file as its
   first argument. The file a unit names is the truth, wherever it is; the unit's name is the service. With a given
   service, only that unit's file counts; with a given file, only the units naming it give the service; no unit
   naming the file, a ``kafka`` unit whose ExecStart is not read here (a wrapper script) is the service;
3. else the known layouts: ``/etc/kafka/server.properties`` (packages), ``/opt/kafka/config/server.properties``
   (Kafka's tarball, 4.x) and ``/opt/kafka/config/kraft/server.properties`` (3.x, KRaft), ``/opt/kafka`` a folder
   or a symlink to a release; the versioned ``/opt/kafka_*`` folders only when there is no ``/opt/kafka``.

Two candidates that are not the same file are never chosen between: the answer names both. Unit files and the
properties file's name are untrusted input: a value that uses a specifier or variable this code does not resolve,
or a relative path without WorkingDirectory, is named, not guessed.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shlex

# systemd's system unit search path, highest precedence first
UNIT_DIRS = ("/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system", "/usr/lib/systemd/system",
             "/lib/systemd/system")
START_SCRIPTS = ("kafka-server-start.sh", "kafka-server-start")
MAIN_CLASSES = ("kafka.Kafka",)
SHELLS = ("sh", "bash", "dash", "ksh", "zsh")
KNOWN_FILES = ("/etc/kafka/server.properties", "/opt/kafka/config/server.properties",
               "/opt/kafka/config/kraft/server.properties")
VERSIONED_FILES = ("/opt/kafka_*/config/server.properties", "/opt/kafka_*/config/kraft/server.properties")
DEFAULT_UNIT = "kafka"  # a unit of this name whose ExecStart is not read here (a wrapper script) is the service
MAX_UNIT_BYTES = 1 << 20  # a unit file is a few hundred bytes; more is not a unit file
MAX_UNITS = 10000
_EXEC_PREFIX = re.compile(r"^[-@:+!]+")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


class InstallError(ValueError):
    """The file or the unit cannot be told; the message names what was looked at and what to set."""


def _read_unit_file(path):
    with open(path, "rb") as handle:
        data = handle.read(MAX_UNIT_BYTES + 1)
    if len(data) > MAX_UNIT_BYTES:
        raise ValueError("larger than %d bytes" % MAX_UNIT_BYTES)
    return data.decode("utf-8", errors="replace")


def _service_lines(text):
    """(key, value) of the [Service] section of a unit file, in order (continuation lines joined)."""
    section, logical, lines = None, "", []
    for raw in text.splitlines():
        line = raw.strip()
        if not logical and (not line or line[0] in "#;"):
            continue
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        line, logical = logical + line, ""
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == "Service" and "=" in line:
            key, value = line.split("=", 1)
            lines.append((key.strip(), value.strip()))
    return lines


def _unit_files(root):
    """{unit name: (unit file, [drop-in files in the order systemd applies them])} of every non-template service
    unit, masked units and aliases left out."""
    units, masked = {}, set()
    for directory in UNIT_DIRS:
        for path in sorted(glob.glob(os.path.join(root + directory, "*.service"))):
            name = os.path.basename(path)[:-len(".service")]
            if "@" in name or name in units or name in masked:
                continue
            if len(units) >= MAX_UNITS:
                break
            real = os.path.realpath(path)
            if real == "/dev/null":
                masked.add(name)
                continue
            if real.endswith(".service") and os.path.basename(real) != name + ".service":
                continue  # an alias (Alias=): the unit is found under its own name
            units[name] = path
    result = {}
    for name, path in units.items():
        dropins = {}
        for directory in reversed(UNIT_DIRS):  # a drop-in of the same name in a higher directory replaces it
            for conf in glob.glob(os.path.join(root + directory, name + ".service.d", "*.conf")):
                dropins[os.path.basename(conf)] = conf
        result[name] = (path, [dropins[key] for key in sorted(dropins)])
    return result


def _expand(word, environment):
    """``word`` with ${NAME} and $NAME of the unit's Environment= replaced; ValueError naming what is left."""
    def value(match):
        name = match.group(1) or match.group(2)
        if name not in environment:
            raise ValueError("uses ${%s}, which no Environment= line of the unit sets" % name)
        return environment[name]
    if "%" in word:
        raise ValueError("uses a systemd specifier (%s)" % word)
    return _VARIABLE.sub(value, word)


def _properties_argument(words):
    """The properties file a command line starts Kafka with: (start program or None, file or None); the file is
    None when the line starts Kafka without one, the program None when it does not start Kafka at all."""
    for index, word in enumerate(words):
        base = os.path.basename(word)
        if base in SHELLS and "-c" in words[index + 1:]:
            script = words[words.index("-c", index + 1) + 1:][:1]
            lexer = shlex.shlex(script[0] if script else "", posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            try:
                return _properties_argument(list(lexer))
            except ValueError:
                return None, None
        if base in START_SCRIPTS or word in MAIN_CLASSES:
            rest = [arg for arg in words[index + 1:] if not arg.startswith("-")]
            return word, (rest[0] if rest else None)
    return None, None


def kafka_unit(name, unit_file, dropins):
    """What unit ``name`` starts: None when not a Kafka broker, else a dict with ``name``, ``unit_file``,
    ``program`` (the start script or main class), ``properties`` (the file, absolute) or ``problem`` (why the file
    cannot be told)."""
    command, environment, workdir = None, {}, None
    for path in [unit_file] + dropins:
        try:
            text = _read_unit_file(path)
        except (OSError, ValueError) as exc:
            return {"name": name, "unit_file": unit_file, "program": None, "properties": None,
                    "problem": "%s cannot be read (%s)" % (path, getattr(exc, "strerror", None) or exc)}
        for key, value in _service_lines(text):
            if key == "ExecStart":
                command = _EXEC_PREFIX.sub("", value) or None  # an empty assignment resets the list
            elif key == "Environment":
                with contextlib.suppress(ValueError):  # an unbalanced quote sets nothing
                    environment.update(part.split("=", 1) for part in shlex.split(value) if "=" in part)
            elif key == "WorkingDirectory":
                workdir = value.lstrip("-") or None
    if not command:
        return None
    try:
        program, properties = _properties_argument(shlex.split(command))
    except ValueError:
        return None
    if program is None:
        return None
    found = {"name": name, "unit_file": unit_file, "program": program, "properties": None, "problem": None}
    try:
        if properties is None:
            raise ValueError("passes no properties file")
        properties = _expand(properties, environment)
        if not os.path.isabs(properties):
            if not workdir or not os.path.isabs(_expand(workdir, environment)):
                raise ValueError("names %s relative to no WorkingDirectory" % properties)
            properties = os.path.join(_expand(workdir, environment), properties)
        found["program"] = _expand(program, environment)
        found["properties"] = os.path.normpath(properties)
    except ValueError as exc:
        found["problem"] = "its ExecStart %s" % exc
    return found


def kafka_units(root="/", unit_files=None):
    """Every service unit under ``root`` that starts a Kafka broker (see kafka_unit), by name."""
    unit_files = _unit_files(root.rstrip("/")) if unit_files is None else unit_files
    found = (kafka_unit(name, path, dropins) for name, (path, dropins) in sorted(unit_files.items()))
    return [unit for unit in found if unit]


def _same(root, first, second):
    return os.path.realpath(root + first) == os.path.realpath(root + second)


def known_layouts(root="/"):
    """The known layouts' properties files that exist under ``root``, one path per file (the first spelling)."""
    root = root.rstrip("/")
    candidates = list(KNOWN_FILES)
    if not os.path.lexists(root + "/opt/kafka"):
        candidates += sorted(path[len(root):] for pattern in VERSIONED_FILES for path in glob.glob(root + pattern))
    found = []
    for path in candidates:
        if os.path.isfile(root + path) and not any(_same(root, path, other) for other in found):
            found.append(path)
    return found


def _home(root, unit, properties):
    """The Kafka installation (the folder holding libs/) of the start program, else of the properties file."""
    places = []
    if unit and os.path.basename(os.path.dirname(unit["program"])) == "bin":
        places.append(os.path.dirname(os.path.dirname(unit["program"])))
    parts = properties.split("/")
    if "config" in parts:
        places.append("/".join(parts[:len(parts) - 1 - parts[::-1].index("config")]) or "/")
    return next((place for place in places if os.path.isdir(os.path.join(root + place, "libs"))), None)


def _describe(unit):
    where = unit["properties"] or "?"
    return "%s (%s: %s)" % (unit["name"], unit["unit_file"], unit["problem"] or "starts Kafka with " + where)


def find_install(properties_path=None, service_name=None, root="/"):
    """The broker's properties file and service, each given or found: a dict with ``properties_path``,
    ``service_name`` (None when no unit runs that file), ``kafka_home`` (None when unknown), ``source`` (how each
    was decided, for people) and ``looked_at``. InstallError when the properties file cannot be told."""
    root = root.rstrip("/")
    unit_files = _unit_files(root)
    units = kafka_units(root, unit_files)
    described = "; ".join(map(_describe, units)) or "none"
    looked_at = ["systemd units starting Kafka in %s: %s" % (", ".join(UNIT_DIRS), described)]
    source = {}
    chosen = None
    if properties_path:
        source["properties_path"] = "given"
    else:
        considered = [unit for unit in units if unit["name"] == service_name] if service_name else units
        broken = [unit for unit in considered if unit["problem"]]
        if broken:
            raise InstallError("cannot tell the broker's properties file: unit %s. Set broker_properties_path to the "
                               "server.properties Kafka reads." % "; unit ".join(map(_describe, broken)))
        files = []
        for unit in considered:
            if not any(_same(root, unit["properties"], other["properties"]) for other in files):
                files.append(unit)
        if len(files) > 1:
            raise InstallError("more than one systemd unit starts Kafka, with different properties files: %s. Set "
                               "broker_service_name to the broker's unit (its file is then the one it names), or "
                               "broker_properties_path and broker_service_name."
                               % "; ".join(map(_describe, files)))
        if files:
            chosen = files[0]
            properties_path = chosen["properties"]
            source["properties_path"] = "ExecStart of unit %s (%s)" % (chosen["name"], chosen["unit_file"])
        else:
            layouts = known_layouts(root or "/")
            looked_at.append("known layouts: %s%s; found: %s" % (
                ", ".join(KNOWN_FILES), "" if os.path.lexists(root + "/opt/kafka") else ", " + ", ".join(
                    VERSIONED_FILES), ", ".join(layouts) or "none"))
            if len(layouts) != 1:
                raise InstallError("%s %s. Set broker_properties_path to the server.properties Kafka reads%s." % (
                    "cannot tell the broker's properties file: several exist," if layouts else
                    "found no Kafka properties file:", "; ".join(looked_at),
                    " (Kafka 3.x ships config/server.properties for ZooKeeper mode and config/kraft/"
                    "server.properties for KRaft)" if layouts else ""))
            properties_path = layouts[0]
            source["properties_path"] = "known layout"
    if service_name:
        source["service_name"] = "given"
    else:
        naming = [unit for unit in units if unit["properties"] and _same(root, unit["properties"], properties_path)]
        if len(naming) > 1:
            raise InstallError("more than one systemd unit starts Kafka with %s: %s. Set broker_service_name to the "
                               "broker's unit." % (properties_path, ", ".join(unit["name"] for unit in naming)))
        if naming:
            chosen = chosen or naming[0]
            service_name = naming[0]["name"]
            source["service_name"] = "unit %s starts Kafka with %s" % (naming[0]["unit_file"], properties_path)
        elif DEFAULT_UNIT in unit_files and not any(unit["name"] == DEFAULT_UNIT for unit in units):
            service_name = DEFAULT_UNIT
            source["service_name"] = ("no unit names %s; %s is there and starts Kafka in a way not read here (%s)"
                                      % (properties_path, DEFAULT_UNIT, unit_files[DEFAULT_UNIT][0]))
        else:
            source["service_name"] = "none: no systemd unit starts Kafka with %s" % properties_path
    if chosen is None and service_name:
        chosen = next((unit for unit in units if unit["name"] == service_name and not unit["problem"]), None)
    return {
        "properties_path": properties_path,
        "service_name": service_name,
        "kafka_home": _home(root, chosen, properties_path),
        "source": source,
        "looked_at": looked_at,
    }
