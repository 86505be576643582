# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kafka-listeners: the collection's command for machines without Ansible; each subcommand is its own module."""

from __future__ import annotations

import argparse
import sys

from kafka_listeners import doctor

SUBCOMMANDS = (doctor,)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kafka-listeners", description=__doc__.split(":", 1)[1].split(";")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(commands)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
