"""The lab's Kafka stand-in broker: a test double that speaks the Kafka wire protocol, never shipped.

Run it as ``python -m kafkaops_lab.kafka_standin --config server.properties --state-dir DIR`` (the venv's
install of this repository puts lab/ on the path), or as ``python lab/kafkaops_lab/kafka_standin --config ...``.
See lab/README.md ("Kafka stand-in").
"""
