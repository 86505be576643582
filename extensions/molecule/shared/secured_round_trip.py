#!/usr/bin/env python3
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Round trip on a secured listener with confluent-kafka, run on a lab client node by verify_secured.yml.

Usage: secured_round_trip.py BOOTSTRAP TOPIC, with the client's librdkafka settings (security protocol, CA,
SASL mechanism, user name and password) as a JSON object in the environment variable KAFKA_CLIENT_CONFIG, never
on the command line. Creates TOPIC with one partition on every broker the cluster lists (min.insync.replicas 2),
so that the brokers replicate over their inter-broker listener, produces one message with acks=all and reads the
partition back. Prints one JSON line (what it did, every error the client reported); exits 1 when the message did
not come back.
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

TIMEOUT = 30.0


def round_trip(bootstrap: str, topic: str) -> dict:
    report: dict = {"topic": topic, "brokers": 0, "delivered": False, "read_back": False, "errors": []}
    config = {**json.loads(os.environ["KAFKA_CLIENT_CONFIG"]), "bootstrap.servers": bootstrap,
              "error_cb": lambda err: report["errors"].append(err.str())}
    admin = AdminClient(config)
    report["brokers"] = len(admin.list_topics(timeout=TIMEOUT).brokers)
    replicas = NewTopic(topic, num_partitions=1, replication_factor=report["brokers"],
                        config={"min.insync.replicas": str(min(2, report["brokers"]))})
    admin.create_topics([replicas])[topic].result(timeout=TIMEOUT)
    value = uuid.uuid4().hex
    producer = Producer({**config, "acks": "all", "message.timeout.ms": int(TIMEOUT * 1000)})
    producer.produce(topic, value.encode(), on_delivery=lambda err, _msg: report.update(delivered=err is None))
    producer.flush(TIMEOUT + 5)
    consumer = Consumer({**config, "group.id": f"verify-{value}", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    message = consumer.poll(TIMEOUT)
    report["read_back"] = message is not None and message.error() is None and message.value() == value.encode()
    consumer.close()
    return report


def main(argv: list[str]) -> int:
    bootstrap, topic = argv
    try:
        report = round_trip(bootstrap, topic)
    except Exception as exc:  # noqa: BLE001 - reported with the client's errors, whatever the client raised
        report = {"topic": topic, "failed": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(report))
    return 0 if report.get("delivered") and report.get("read_back") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
