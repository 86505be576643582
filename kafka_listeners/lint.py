# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kafka-listeners-lint: check server.properties files against the listener rules Kafka applies at startup.

Exit status: 0 when every file is clean, 1 when any rule fired, 2 when a file could not be read or parsed
(unreadable input wins over findings, so a CI gate never passes on a file it did not check).
"""

from __future__ import annotations

import argparse
import json
import sys

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import RULES, check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import PropertiesError, parse_properties
from kafka_listeners.doctor import shown  # a file's name may hold escapes and line breaks: printed escaped

EXIT_CLEAN, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


def lint_file(path: str, kafka_version: str | None = None) -> list[dict]:
    """Return the findings for one file (``-``: standard input); raises OSError or PropertiesError when it cannot be
    read or parsed. Files and standard input are read alike: bytes, decoded as ISO-8859-1 as Kafka's
    ``Properties.load(InputStream)`` reads them, whatever the locale."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as handle:
            data = handle.read()
    return check_kafka_config(parse_properties(data.decode("latin-1")).to_dict(), kafka_version=kafka_version)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kafka-listeners-lint", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", metavar="FILE", help="server.properties files to check ('-' for stdin)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--list-rules", action="store_true", help="print the rule ids and what each checks")
    parser.add_argument("--kafka-version", metavar="VERSION",
                        help="quote the messages of this Apache Kafka release, e.g. 4.4.0 (default: 3.9; releases "
                             "from 4.0 word several of them differently, and 4.2+ accepts repeated process roles)")
    args = parser.parse_args(argv)
    if args.list_rules:
        for rule, summary in RULES.items():
            print("%s: %s" % (rule, summary))
        return EXIT_CLEAN
    if not args.files:
        parser.error("no FILE given")
    try:
        check_kafka_config({}, kafka_version=args.kafka_version)
    except ValueError as exc:
        parser.error(str(exc))
    status = EXIT_CLEAN
    report = []
    for path in args.files:
        try:
            findings = lint_file(path, args.kafka_version)
        except (OSError, PropertiesError) as exc:
            print(shown("%s: cannot check: %s" % (path, exc)), file=sys.stderr)
            report.append({"file": path, "error": str(exc), "findings": []})
            status = EXIT_UNREADABLE
            continue
        report.append({"file": path, "error": None, "findings": findings})
        if findings and status == EXIT_CLEAN:
            status = EXIT_FINDINGS
        if args.format == "text":
            for finding in findings:
                print(shown("%s: %s: %s" % (path, finding["rule"], finding["message"])))
    if args.format == "json":
        json.dump(report, sys.stdout, indent=2)
        print()
    return status


if __name__ == "__main__":
    sys.exit(main())
