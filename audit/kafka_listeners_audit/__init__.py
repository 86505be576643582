# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Fleet audit of Kafka listeners on PySpark: which client networks cannot use which advertised endpoints, which
brokers drifted from the plan, and where the classic failure (bootstrap works, the advertised name does not resolve
from the client) happens now.

Modules: ``schema`` (record and output schemas, rule catalogue), ``sources`` (reading records), ``evaluate``
(the collection's planner and rule checker per cluster), ``transforms`` / ``findings`` / ``incidents`` (pure
DataFrame -> DataFrame steps), ``pipeline`` (their composition), ``report`` (summary and HTML), ``cli`` (the command:
arguments, input and output checks, the run), ``session`` (the Spark session: runtime checks, settings, log level) and
``pyfiles`` (the code zip for executors). The generated fleet with a truth table that the tests and the benchmark
use is ``audit/synthetic_fleet.py``, beside the package and not shipped.
"""

__version__ = "0.1.0"
