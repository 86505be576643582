# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""spark-submit entry point of the fleet audit: ``spark-submit [options] audit/spark_submit_entry.py <cli args>``.

Takes the same arguments as ``kafka-listeners-audit`` (see docs/audit.md); the master comes from spark-submit.
The package is imported from beside this file when it is not installed, so a checkout runs as it is.
"""

import os
import sys

try:
    import kafka_listeners_audit  # noqa: F401  (installed, or shipped with --py-files)
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kafka_listeners_audit.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
