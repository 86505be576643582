"""kafkaops_lab.kafka_real's pure parts: choosing the broker, the JVM command lines, Kafka's error lines (no root)."""

from __future__ import annotations

import pytest

from kafkaops_lab import kafka_real, scenario

# What Kafka 4.4.0 printed for a listener list with one name twice (a real run, shortened config dump).
LISTENERS = "[PLAINTEXT://h:19092, PLAINTEXT://h2:19094]"
REFUSED = "\n".join([
    "[2026-11-24 02:18:29,100] INFO Registered kafka:type=kafka.Log4jController MBean "
    "(kafka.utils.Log4jControllerRegistration$)",
    "\tadvertised.listeners = PLAINTEXT://h:19092,PLAINTEXT://h2:19094",
    "[2026-11-24 02:18:30,021] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)",
    f"java.lang.IllegalArgumentException: Error creating broker listeners from '{LISTENERS}': "
    f"Each listener must have a different name, listeners: {LISTENERS}",
    "\tat org.apache.kafka.server.config.AbstractKafkaConfig.listenerListToEndPoints(AbstractKafkaConfig.java:180)",
    "\tat kafka.Kafka.main(Kafka.scala)",
    f"Caused by: java.lang.IllegalArgumentException: Each listener must have a different name, listeners: {LISTENERS}",
    "\t... 8 more",
])


def test_the_choice_goes_flag_then_environment_then_scenario_then_standin(monkeypatch):
    default = kafka_real.versions()[0]
    monkeypatch.delenv(kafka_real.KIND_ENV, raising=False)
    assert kafka_real.choose(None, None) == ("standin", None)
    assert kafka_real.choose(None, "real") == ("real", default)
    monkeypatch.setenv(kafka_real.KIND_ENV, "standin")
    assert kafka_real.choose(None, "real") == ("standin", None)
    assert kafka_real.choose(f"real:{kafka_real.versions()[-1]}", None) == ("real", kafka_real.versions()[-1])


@pytest.mark.parametrize("value", ["kafka", "real:0.8.2", "Real", "standin:1"])
def test_an_unknown_choice_names_the_allowed_ones(value):
    with pytest.raises(kafka_real.KafkaChoiceError, match="standin|versions"):
        kafka_real.parse_kind(value)


def test_the_fetched_versions_are_a_4x_and_a_3_9_release():
    majors = [version.split(".")[:2] for version in kafka_real.versions()]
    assert majors[0][0] == "4" and ["3", "9"] in majors


def test_a_scenario_may_ask_for_real_kafka():
    chosen = scenario.from_mapping("x", {"provider": "aws", "kafka": "real"}, "x.json")
    assert chosen.kafka == "real"
    assert scenario.from_mapping("x", {"provider": "aws"}, "x.json").kafka is None


def test_startup_error_keeps_kafkas_lines_verbatim_without_stack_frames():
    text = kafka_real.startup_error(REFUSED)
    assert text.splitlines() == [REFUSED.splitlines()[2], REFUSED.splitlines()[3], REFUSED.splitlines()[6]]


def test_startup_error_without_an_error_line_keeps_the_tail():
    assert kafka_real.startup_error("a\nb\nc", limit=2) == "b\nc"


def test_log4j_backend_follows_the_jars(tmp_path):
    (tmp_path / "log4j-core-2.24.3.jar").touch()
    assert kafka_real.log4j_option(tmp_path).startswith("-Dlog4j2.configurationFile=")
    (tmp_path / "log4j-core-2.24.3.jar").unlink()
    (tmp_path / "reload4j-1.2.25.jar").touch()
    assert kafka_real.log4j_option(tmp_path) == f"-Dlog4j.configuration=file:{kafka_real.DIST_DIR / 'log4j.properties'}"
