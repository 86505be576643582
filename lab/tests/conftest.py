"""The order in which the pooled run (`make lab-suites`: two xdist workers, one file per work unit) hands out files.

pytest-xdist's `--dist loadfile` by default hands out the files with the most tests first, which puts the
single-test real-Kafka and Molecule files, each minutes of JVM clusters and playbook runs, at the very end: one
worker then runs them alone while the other has nothing left. The Makefile passes `--no-loadscope-reorder`, so the
files go out in the order collected here: those that start JVM clusters or run whole playbooks against several labs
first (longest first is what keeps two workers busy to the end), then the rest with the most tests first, as before.
"""

from __future__ import annotations

from fnmatch import fnmatch

import pytest

# Files that take minutes each (real Kafka or ZooKeeper on the JVM, Molecule, many playbook runs); the first
# pattern a file matches sets its place
LONG_FILES = (
    "test_molecule*.py",
    "test_*real_kafka*.py",
    "test_kafka_real.py",
    "test_zookeeper_lab.py",
    "test_four_networks_lab.py",
    "test_site_playbook.py",
    "test_secured_listeners.py",
)


def _rank(name: str) -> int:
    return next((index for index, pattern in enumerate(LONG_FILES) if fnmatch(name, pattern)), len(LONG_FILES))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    counts: dict[str, int] = {}
    for item in items:
        counts[item.path.name] = counts.get(item.path.name, 0) + 1
    # sorted() is stable: the tests of one file keep their order, and equal files keep the collection's
    items[:] = sorted(items, key=lambda item: (_rank(item.path.name), -counts[item.path.name], item.path.name))
