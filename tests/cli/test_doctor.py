# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`kafka-listeners doctor`, run as users run it (the installed executable in the venv) against the lab's Kafka
stand-in on 127.0.0.1; the --command-config mapping and the diagnosis wording also in-process.

Only loopback addresses are advertised here, so no name is ever looked up; the unresolvable private names of a
cloud are the lab suite's part (lab/tests/test_doctor_lab.py).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    ClientSecurityError,
    parse_jaas,
    properties_to_options,
)
from kafka_listeners import doctor
from kafkaops_lab.paths import REPO_ROOT, STANDIN_MODULE

KAFKA_LISTENERS = Path(sys.executable).parent / "kafka-listeners"
HOSTILE_BROKER = REPO_ROOT / "tests" / "unit" / "plugins" / "module_utils" / "hostile_broker.py"
HANG_GUARD_S = 30  # only a guard against hangs; nothing here is a speed assertion
SECRET = "s3cr3t-never-printed"


def run_doctor(*args):
    assert KAFKA_LISTENERS.exists(), "%s is missing: run `make venv` (pip install -e .)" % KAFKA_LISTENERS
    return subprocess.run([str(KAFKA_LISTENERS), "doctor", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def standin(tmp_path):
    """Start the lab's stand-in broker 1 on 127.0.0.1 advertising ``advertised`` (host:port); returns the
    bootstrap address. Stopped when the test ends."""
    processes = []

    def start(advertised: str | None = None) -> str:
        port = free_port()
        config = tmp_path / "server.properties"
        config.write_text("broker.id=1\nlisteners=PLAINTEXT://127.0.0.1:%d\nadvertised.listeners=PLAINTEXT://%s\n"
                          % (port, advertised or "127.0.0.1:%d" % port), encoding="ascii")
        state = tmp_path / "state"
        process = subprocess.Popen([sys.executable, "-m", STANDIN_MODULE, "--config", str(config),
                                    "--state-dir", str(state), "--log", str(tmp_path / "events.log")],
                                   cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        processes.append(process)
        deadline = time.monotonic() + HANG_GUARD_S
        while not (state / "brokers" / "1.json").exists():
            assert process.poll() is None, process.stderr.read().decode()
            assert time.monotonic() < deadline, "hang guard: the stand-in did not register"
            time.sleep(0.05)
        return "127.0.0.1:%d" % port

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=HANG_GUARD_S)


# ------------------------------------------------------------------------------------------------ the command


def test_help_names_every_exit_code():
    result = run_doctor("--help")
    assert result.returncode == 0
    for line in doctor.EXIT_CODES.splitlines()[1:]:
        assert line in result.stdout
    top = subprocess.run([str(KAFKA_LISTENERS), "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert "doctor" in top.stdout


@pytest.mark.parametrize(("args", "message"), [
    ((), "the following arguments are required: BOOTSTRAP"),
    (("broker-1",), "broker-1"),
    (("127.0.0.1:9092", "--timeout", "0"), "--timeout must be a number of seconds greater than 0 and at most 3600"),
    (("127.0.0.1:9092", "--timeout", "inf"), "at most 3600, not inf"),
    (("127.0.0.1:9092", "--timeout", "nan"), "at most 3600, not nan"),
    # float() reads an Arabic-Indic one as 1.0
    (("127.0.0.1:9092", "--timeout", "\u0661"), "argument --timeout: '\\u0661' is not a number of seconds written in "
                                                "ASCII digits"),
    (("127.0.0.1:9092", "--timeout", "soon"), "argument --timeout: 'soon' is not a number of seconds"),
    # a port in other digits than ASCII ones (Arabic-Indic 9092)
    (("127.0.0.1:\u0669\u0660\u0669\u0662",), "is not of the form host:port"),
    ((" , ",), "BOOTSTRAP names no server"),
])
def test_bad_usage_exits_2(args, message):
    result = run_doctor(*args)
    assert result.returncode == 2, result
    assert message in result.stderr


def test_bootstrap_that_does_not_answer_exits_3_naming_it():
    server = "127.0.0.1:%d" % free_port()
    result = run_doctor(server, "--json")
    assert result.returncode == 3, result
    report = json.loads(result.stdout)
    assert (report["outcome"], report["exit_code"]) == ("bootstrap_failed", 3)
    assert [failure["server"] for failure in report["bootstrap_errors"]] == [server]
    assert report["diagnosis"][0].startswith("bootstrap server %s did not answer Metadata (TCP connect failed" % server)


def test_every_endpoint_usable_exits_0(standin):
    bootstrap = standin()
    result = run_doctor(bootstrap)
    assert result.returncode == 0, result
    assert result.stdout.splitlines()[1] == "  broker 1  %s  ok    resolves to 127.0.0.1, connects" % bootstrap
    report = json.loads(run_doctor(bootstrap, "--json").stdout)
    assert (report["outcome"], report["exit_code"], report["diagnosis"]) == ("usable", 0, [])
    assert [(e["node_id"], e["resolvable"], e["connectable"]) for e in report["endpoints"]] == [(1, True, True)]


def test_an_advertised_endpoint_that_refuses_connections_exits_1_with_the_fix(standin):
    advertised = "127.0.0.1:%d" % free_port()
    bootstrap = standin(advertised)
    result = run_doctor(bootstrap)
    assert result.returncode == 1, result
    assert ("  - advertised.listeners of broker 1 names %s on the PLAINTEXT listener reached at %s, which resolves "
            "here to 127.0.0.1 but does not accept connections" % (advertised, bootstrap)) in result.stdout
    assert "open port %s to this network" % advertised.rsplit(":", 1)[1] in result.stdout


def test_secrets_are_printed_neither_in_text_nor_in_json(standin, tmp_path):
    bootstrap = standin()  # the stand-in speaks no SASL: the login fails and its error is reported
    config = tmp_path / "client.properties"
    config.write_text('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config='
                      'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" '
                      'password="%s";\n' % SECRET, encoding="ascii")
    for extra in ((), ("--json",)):
        result = run_doctor(bootstrap, "--command-config", str(config), *extra)
        assert result.returncode == 3, result
        assert "SASL" in result.stdout
        assert SECRET not in result.stdout + result.stderr


@pytest.mark.parametrize(("lines", "key"), [
    (["security.protocol=SSL", "ssl.truststore.location=/etc/kafka/truststore.jks"], "ssl.truststore.type is JKS"),
    (["security.protocol=SSL", "ssl.endpoint.identification.algorithm="], "ssl.endpoint.identification.algorithm"),
    (["security.protocol=SSL", "ssl.cipher.suites=TLS_AES_128_GCM_SHA256"], "ssl.cipher.suites"),
    (["security.protocol=SASL_SSL"], "sasl.mechanism is not set"),
    (["security.protocol=SASL_SSL", "sasl.mechanism=OAUTHBEARER"], "sasl.mechanism OAUTHBEARER"),
    (["security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-512",
      'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="a" '
      'password="%s";' % SECRET], "sasl.jaas.config names"),
    (["security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN"], "sasl.jaas.config"),
    (["security.protocol=TLS"], "security.protocol TLS"),
])
def test_a_command_config_it_cannot_honour_exits_2_naming_the_key(tmp_path, lines, key):
    config = tmp_path / "client.properties"
    config.write_text("\n".join(lines) + "\n", encoding="ascii")
    result = run_doctor("127.0.0.1:9", "--command-config", str(config))
    assert result.returncode == 2, result
    assert "--command-config %s: " % config in result.stderr
    assert key in result.stderr
    assert SECRET not in result.stderr


def test_a_missing_command_config_exits_2(tmp_path):
    result = run_doctor("127.0.0.1:9", "--command-config", str(tmp_path / "absent.properties"))
    assert result.returncode == 2
    assert "cannot be read: No such file or directory" in result.stderr


# ------------------------------------------------------------------------------------------ in-process pieces


def test_java_client_properties_map_onto_kafka_metadata_options():
    props = {
        "bootstrap.servers": "ignored:9092", "acks": "all",
        "security.protocol": "sasl_ssl", "ssl.truststore.type": "PEM", "ssl.truststore.location": "/etc/ca.pem",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required\n'
                            '  username="kafka\\"ops" password=bare-word;',
    }
    assert properties_to_options(props) == {
        "security_protocol": "SASL_SSL", "ssl_ca_file": "/etc/ca.pem", "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_username": 'kafka"ops', "sasl_password": "bare-word",
    }


def test_librdkafka_keys_and_keys_of_an_unused_protocol():
    assert properties_to_options({"security.protocol": "SSL", "ssl.ca.location": "/ca.pem",
                                  "ssl.certificate.location": "/c.pem", "ssl.key.location": "/k.pem"}) == {
        "security_protocol": "SSL", "ssl_ca_file": "/ca.pem", "ssl_cert_file": "/c.pem", "ssl_key_file": "/k.pem"}
    # as in Kafka's clients, ssl.* and sasl.* settings of a protocol not in use change nothing
    assert properties_to_options({"ssl.cipher.suites": "X", "sasl.mechanism": "GSSAPI"}) == {
        "security_protocol": "PLAINTEXT"}


def test_jaas_with_two_login_modules_is_refused():
    with pytest.raises(ClientSecurityError, match="more than one login module"):
        parse_jaas('a.B required username="u" password="p"; c.D required;')


def endpoint(host, resolvable=False, connectable=False, addresses=(), error="Name or service not known", **extra):
    return {"node_id": 2, "host": host, "port": 9092, "resolvable": resolvable, "addresses": list(addresses),
            "connectable": connectable, "error": error, "tls_verified": None, "tls_outcome": None,
            "authenticated": None, "security_error": None, **extra}


def test_an_unresolvable_private_name_is_named_with_where_it_resolves_and_the_fix():
    sentence = doctor.endpoint_diagnosis(endpoint("ip-10-0-0-12.ec2.internal"), "ec2-3-4-5-6.compute.example:9092",
                                         "PLAINTEXT")
    assert sentence == (
        "advertised.listeners of broker 2 names ip-10-0-0-12.ec2.internal:9092 on the PLAINTEXT listener reached at "
        "ec2-3-4-5-6.compute.example:9092, which does not resolve here (Name or service not known), while the "
        "bootstrap name ec2-3-4-5-6.compute.example does; a name under .internal is a cloud's private name, which "
        "resolves only inside the network that issued it: advertise a name this network resolves, or add a listener "
        "for this network")


def test_tls_and_sasl_failures_get_their_own_fix():
    mismatch = endpoint("b2.example", True, True, ["10.0.0.2"], None, tls_verified=False,
                        tls_outcome="name_mismatch", security_error="the host is not among the certificate's names")
    assert "add b2.example to the certificate's subject alternative names" in doctor.endpoint_diagnosis(
        mismatch, "b1.example:9092", "SSL")
    refused = endpoint("b2.example", True, True, ["10.0.0.2"], None, authenticated=False,
                       security_error="SASL authentication failed: Authentication failed")
    assert "check the user and password" in doctor.endpoint_diagnosis(refused, "b1.example:9092", "SASL_SSL")
    assert doctor.endpoint_diagnosis(endpoint("b2.example", True, True, ["10.0.0.2"], None), "b1:9092", "SSL") is None


def test_an_invalid_advertised_host_is_reported_as_such():
    bad = endpoint("bad host", error="the Metadata answer (broker 2): 'bad host' is not a DNS name or IP literal")
    assert doctor.endpoint_diagnosis(bad, "b1:9092", "PLAINTEXT").startswith(
        "broker 2 advertises an unusable endpoint on the PLAINTEXT listener reached at b1:9092")
    assert doctor.endpoint_state(bad).startswith("FAIL  the Metadata answer (broker 2)")


def test_a_bootstrap_failure_gets_the_fix_for_its_cause():
    refused, login, certificate = doctor.bootstrap_diagnosis([
        ("b1:9092", "TCP connect failed (10.0.0.1:9092: Connection refused)"),
        ("b2:9092", "SASL authentication failed: SCRAM-SHA-512 SASL_AUTHENTICATION_FAILED: invalid credentials"),
        ("b3:9092", "TLS certificate verification failed for b3: the certificate is not signed by a trusted CA"),
    ], "SASL_SSL")
    assert refused.endswith("check the host and port, that this network reaches them, and that security.protocol "
                            "(SASL_SSL) matches that listener")
    assert login.endswith("check the user and password in sasl.jaas.config, and that the listener enables "
                          "sasl.mechanism")
    assert "set ssl.truststore.location (ssl.truststore.type=PEM)" in certificate


# What a hostile broker puts in its answer reaches the doctor's report as strings: hosts, errors, cluster id


def hostile_report(bootstrap, timeout, ssl_context, sasl, topics):
    """inspect_cluster's result for a broker that advertises terminal escapes and a forged line, and echoes the SASL
    password in its error text."""
    forged = "evil\n  broker 9  ok.example.com:9092  ok    resolves to 198.18.0.9, connects"
    endpoints = [
        {"node_id": 1, "host": forged, "port": 9092, "resolvable": False, "addresses": [], "connectable": False,
         "error": "invalid host %r" % forged},
        {"node_id": 2, "host": "b2\x1b]0;pwned\x07\x1b[2J", "port": 9092, "resolvable": True,
         "addresses": ["198.18.0.2"], "connectable": True, "error": None, "tls_verified": None,
         "authenticated": False, "security_error": "SASL authentication failed: bad password %s\u202e" % SECRET},
    ]
    return {"cluster_id": "c\r\x1b[1A", "bootstrap_used": bootstrap[0], "brokers": endpoints, "endpoints": endpoints,
            "topics": [], "under_replicated": [],
            "warnings": ["w" * 5000], "summary": "summary \u2028 forged"}


def test_a_hostile_answer_is_escaped_bounded_and_redacted(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(doctor, "inspect_cluster", hostile_report)
    config = tmp_path / "client.properties"
    config.write_text('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config='
                      'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" '
                      'password="%s";\n' % SECRET, encoding="ascii")
    from kafka_listeners import cli

    assert cli.main(["doctor", "127.0.0.1:9092", "--command-config", str(config)]) == 1
    out = capsys.readouterr().out
    assert SECRET not in out and "bad password [redacted]" in out
    assert not any(ord(char) < 32 and char != "\n" or 0x7F <= ord(char) < 0xA0 or char in "\u2028\u202e"
                   for char in out)
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in out and "\\u202e" in out and "summary \\u2028 forged" in out
    # the forged "ok" line is part of broker 1's line, not a line of its own
    assert not any(line.startswith("  broker 9") for line in out.splitlines())
    assert all(len(line) <= doctor.MAX_LINE + 40 for line in out.splitlines())
    assert "... (3009 more characters)" in out

    assert cli.main(["doctor", "127.0.0.1:9092", "--command-config", str(config), "--json"]) == 1
    out = capsys.readouterr().out
    assert SECRET not in out and json.loads(out)["endpoints"][1]["security_error"].endswith("[redacted]\u202e")


# ---------------------------------------------------------------------------------------- a hostile broker, for real


@pytest.fixture
def hostile(tmp_path):
    """Start tests/unit/plugins/module_utils/hostile_broker.py with ``args`` on 127.0.0.1; returns its address."""
    processes = []

    def start(*args: str) -> str:
        process = subprocess.Popen([sys.executable, str(HOSTILE_BROKER), *args], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        processes.append(process)
        port = process.stdout.readline().strip()
        assert port.isdigit(), process.stderr.read()
        return "127.0.0.1:%s" % port

    yield start
    for process in processes:
        process.kill()
        process.wait(timeout=HANG_GUARD_S)


def printable(out: str) -> bool:
    """No character a terminal acts on but the line ends."""
    return not any(ord(char) < 32 and char != "\n" or 0x7F <= ord(char) < 0xA0 or char in "\u2028\u202e"
                   for char in out)


def test_forged_lines_and_escapes_in_a_real_answer_are_printed_escaped(hostile):
    result = run_doctor(hostile("forged"), "--timeout", "2")
    assert result.returncode == 1, result
    assert printable(result.stdout) and printable(result.stderr)
    assert "cluster c\\x0d\\x1b[1A," in result.stdout
    assert "b3\\x1b]0;pwned\\x07\\x1b[2J" in result.stdout
    assert not any(line.startswith("  broker 9") for line in result.stdout.splitlines())


def test_a_sasl_error_echoing_the_password_is_redacted_and_escaped(hostile, tmp_path):
    config = tmp_path / "client.properties"
    config.write_text('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config='
                      'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" '
                      'password="%s";\n' % SECRET, encoding="ascii")
    for extra in ((), ("--json",)):
        result = run_doctor(hostile("echo"), "--timeout", "2", "--command-config", str(config), *extra)
        assert result.returncode == 3, result
        assert SECRET not in result.stdout + result.stderr
        assert "with password [redacted]" in result.stdout
        assert printable(result.stdout)


def test_a_broker_list_past_the_bound_exits_3_naming_the_bound(hostile):
    result = run_doctor(hostile("flood", "--brokers", "10001"), "--timeout", "2")
    assert result.returncode == 3, result
    assert "lists more than 10000 brokers" in result.stdout


def test_a_broker_list_at_the_bound_prints_a_bounded_report(hostile):
    result = run_doctor(hostile("flood", "--brokers", "10000"), "--timeout", "1")
    assert result.returncode == 1, result
    lines = result.stdout.splitlines()
    assert sum(line.startswith("  broker ") for line in lines) == 10000
    assert all(len(line) <= doctor.MAX_LINE + 40 for line in lines)


@pytest.mark.parametrize(("behaviour", "config"), [
    ("drip", ""),
    ("sasl-drip", 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.'
                  'security.plain.PlainLoginModule required username="alice" password="%s";\n' % SECRET),
    ("tls-drip", "security.protocol=SSL\n"),
])
def test_an_answer_dripped_a_byte_at_a_time_exits_3_at_the_timeout(hostile, tmp_path, behaviour, config):
    # the whole dripped answer takes 200 s, past run_doctor's 120 s guard: only a doctor that keeps --timeout returns
    args = []
    if config:
        (tmp_path / "client.properties").write_text(config, encoding="ascii")
        args = ["--command-config", str(tmp_path / "client.properties")]
    result = run_doctor(hostile(behaviour, "--drip", "0.5"), "--timeout", "1", *args)
    assert result.returncode == 3, result
    assert "timed out" in result.stdout
