"""The lab's Kafka stand-in broker: a test double that speaks the Kafka wire protocol, never shipped.

Run it as ``python -m tests.lab.kafka_standin --config server.properties --state-dir DIR`` from the collection
root, or as ``python tests/lab/kafka_standin --config ...``. See tests/lab/README.md ("Kafka stand-in").
"""
