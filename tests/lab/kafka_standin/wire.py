"""Import the collection's stdlib-only Kafka wire primitives (``plugins/module_utils/_kafka_wire.py``)."""

from __future__ import annotations

try:
    from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_wire as kafka_wire
except ImportError as exc:  # pragma: no cover - depends on how the interpreter was set up
    raise SystemExit(
        "kafka-standin: cannot import ansible_collections.kafkaops.listeners "
        f"({exc}); run it with the project virtualenv (.venv/bin/python), which has the collection on its path"
    ) from exc

__all__ = ["kafka_wire"]
