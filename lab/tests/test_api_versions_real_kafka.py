"""The stand-in's ApiVersions answer held to real Apache Kafka's, for every release the lab runs.

kcat (librdkafka), confluent-kafka and kafka-python open each connection with ApiVersions and then use the
highest version both sides support. A stand-in that advertised a version real Kafka does not serve would let a
client take a path it never takes against Kafka. So for each API the stand-in serves, on its client listener and
on its controller listener, its version range must lie within the real broker's range for that listener.

Both run the same combined KRaft node configuration in one private network namespace (loopback only): real Kafka
on 127.0.0.1, the stand-in on 127.0.0.2. Each is asked with the collection's own client (ApiVersions v3, as kcat
asks), from inside that namespace.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from kafkaops_lab import kafka_real
from kafkaops_lab.paths import STANDIN_MODULE

pytestmark = pytest.mark.lab

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120
CLIENT_PORT, CONTROLLER_PORT = 9092, 9093
# Run inside the namespace: the ApiVersions table of each HOST:PORT argument, as JSON {endpoint: {key: [min, max]}}.
ASK = """
import json, sys, time
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_connection as kconn
answers = {}
for endpoint in sys.argv[1:]:
    host, port = endpoint.rsplit(":", 1)
    connection = kconn.KafkaConnection.open(host, int(port), time.monotonic() + 20)
    try:
        answers[endpoint] = {key: list(span) for key, span in kconn.negotiate_api_versions(connection).items()}
    finally:
        connection.close()
print(json.dumps(answers))
"""


def node_properties(host: str, work: Path) -> dict[str, str]:
    return {
        "process.roles": "broker,controller", "node.id": "1",
        "listeners": f"PLAINTEXT://{host}:{CLIENT_PORT},CONTROLLER://{host}:{CONTROLLER_PORT}",
        "advertised.listeners": f"PLAINTEXT://{host}:{CLIENT_PORT}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "controller.quorum.voters": f"1@{host}:{CONTROLLER_PORT}",
        "log.dirs": str(work / "data"), "offsets.topic.replication.factor": "1",
    }


def write_properties(path: Path, props: dict[str, str]) -> Path:
    path.write_text("".join(f"{key}={value}\n" for key, value in props.items()), encoding="utf-8")
    return path


def ask(netns: list[str], endpoints: list[str], deadline: float) -> dict:
    """Every endpoint's ApiVersions table, retried until each answers or `deadline` passes."""
    last = ""
    while time.monotonic() < deadline:
        proc = subprocess.run(netns + [sys.executable, "-c", ASK, *endpoints], capture_output=True, text=True,
                              timeout=60, cwd=REPO_ROOT)
        if proc.returncode == 0:
            return {endpoint: {int(key): tuple(span) for key, span in table.items()}
                    for endpoint, table in json.loads(proc.stdout).items()}
        last = proc.stderr.strip().splitlines()[-1:] or proc.stdout
        time.sleep(2)
    pytest.fail(f"no ApiVersions answer from {endpoints}: {last}")


@pytest.fixture(scope="module")
def answers(lab_session_cli, tmp_path_factory) -> dict:
    """{version: {"real": {listener: table}, "standin": {listener: table}}} for each release of the lab."""
    if shutil.which("java") is None:
        pytest.fail("java is not installed (tools/install-system-deps installs it)")
    found = {}
    for version in kafka_real.versions():
        work = tmp_path_factory.mktemp(f"api-versions-{version}")
        home = kafka_real.ensure_release(version)
        holder = subprocess.Popen(["unshare", "--net", "--", "sh", "-c", "ip link set lo up && exec sleep 3600"])
        netns = ["nsenter", f"--target={holder.pid}", "--net", "--"]
        processes = []
        try:
            real = write_properties(work / "real.properties", node_properties("127.0.0.1", work))
            formatted = subprocess.run(kafka_real.format_command(home, "q1bR6G2nT5u9fXKmCbEd2w", str(real)),
                                       capture_output=True, text=True, timeout=120)
            assert formatted.returncode == 0, kafka_real.startup_error(formatted.stdout + formatted.stderr)
            standin = write_properties(work / "standin.properties", node_properties("127.0.0.2", work / "standin"))
            with (work / "real.log").open("ab") as real_log, (work / "standin.log").open("ab") as standin_log:
                processes.append(subprocess.Popen(netns + kafka_real.broker_command(home, str(real)),
                                                  stdout=real_log, stderr=subprocess.STDOUT, cwd=work))
                processes.append(subprocess.Popen(
                    netns + [sys.executable, "-m", STANDIN_MODULE, "--config", str(standin),
                             "--state-dir", str(work / f"state-{uuid.uuid4().hex[:6]}")],
                    stdout=standin_log, stderr=subprocess.STDOUT, cwd=REPO_ROOT))
            tables = ask(netns, [f"{host}:{port}" for host in ("127.0.0.1", "127.0.0.2")
                                 for port in (CLIENT_PORT, CONTROLLER_PORT)], time.monotonic() + START_TIMEOUT)
            found[version] = {
                kind: {"client": tables[f"{host}:{CLIENT_PORT}"], "controller": tables[f"{host}:{CONTROLLER_PORT}"]}
                for kind, host in (("real", "127.0.0.1"), ("standin", "127.0.0.2"))}
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                try:
                    process.wait(60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            holder.kill()
            holder.wait()
    return found


@pytest.mark.parametrize("listener", ["client", "controller"])
@pytest.mark.parametrize("version", kafka_real.versions())
def test_the_standin_claims_no_version_real_kafka_does_not_serve(answers, version, listener):
    real = answers[version]["real"][listener]
    standin = answers[version]["standin"][listener]
    assert standin, "the stand-in answered ApiVersions with an empty table"
    beyond = {key: (span, real.get(key)) for key, span in standin.items()
              if key not in real or span[0] < real[key][0] or span[1] > real[key][1]}
    assert not beyond, (f"Kafka {version}, {listener} listener: the stand-in's (min, max) per API key against real "
                        f"Kafka's: {beyond}")
