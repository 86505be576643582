# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The kafka_broker_facts module run through main() with module args (no metadata service: provider none)."""

from __future__ import annotations

import functools
import hashlib
import os
import pwd
import socket

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_install
from ansible_collections.kafkaops.listeners.plugins.modules import kafka_broker_facts


def run(**args):
    """Run main() with these module args; return ("exit"|"fail", its keyword arguments)."""
    with patch_module_args(args), pytest.raises(SystemExit) as ended:  # see conftest.py
        kafka_broker_facts.main()
    return ended.value.code[:2]


def test_a_kraft_configuration_and_a_pending_restart(tmp_path):
    config = tmp_path / "server.properties"
    config.write_bytes(b"# fresh install\nprocess.roles = broker,controller\nnode.id=3\n"
                       b"listeners=PLAINTEXT://:9092,\\\n  CONTROLLER://:9093\n")
    (tmp_path / "server.properties.restart-pending").write_text("x")
    kind, result = run(path=str(config), pending_marker=str(config) + ".restart-pending", provider="none")
    assert kind == "exit" and result["changed"] is False
    assert result["exists"] is True and result["restart_pending"] is True
    assert result["node_id"] == "3" and result["process_roles"] == ["broker", "controller"]
    assert result["properties"]["listeners"] == "PLAINTEXT://:9092,CONTROLLER://:9093"
    assert result["entries"] == result["properties"]
    assert result["instance_metadata"]["provider"] == "none" and result["instance_metadata"]["private_dns"] is None


def test_checksums_are_the_ones_copy_compares_and_null_for_a_missing_file(tmp_path):
    config = tmp_path / "server.properties"
    config.write_text("node.id=1\n")
    program = tmp_path / "prestart"
    program.write_bytes(b"#!/usr/bin/python3\n\xc3\xa9\n")
    kind, result = run(path=str(config), provider="none", checksums=[str(program), str(tmp_path / "none.conf")])
    assert kind == "exit" and result["checksums"] == {
        str(program): hashlib.sha1(program.read_bytes()).hexdigest(), str(tmp_path / "none.conf"): None}
    assert run(path=str(config), provider="none")[1]["checksums"] == {}


def test_the_listener_properties_are_what_the_plan_compares_with_and_hold_no_secret(tmp_path):
    config = tmp_path / "server.properties"
    config.write_text("node.id=1\nprocess.roles=broker\nlisteners=INTERNAL://:19092\ninter.broker.listener.name=INTERNAL\n"
                      "listener.security.protocol.map=INTERNAL:SASL_SSL,CONTROLLER:SSL\nssl.keystore.password=s3cret\n"
                      "listener.name.internal.scram-sha-512.sasl.jaas.config=x password=\"s3cret\";\n"
                      "controller.listener.names=CONTROLLER\ncontroller.quorum.bootstrap.servers=c1:9093\n")
    kind, result = run(path=str(config), provider="none")
    assert kind == "exit"
    assert result["listener_properties"] == {
        "listeners": "INTERNAL://:19092", "inter.broker.listener.name": "INTERNAL",
        "listener.security.protocol.map": "INTERNAL:SASL_SSL,CONTROLLER:SSL",
        "controller.listener.names": "CONTROLLER", "controller.quorum.bootstrap.servers": "c1:9093"}
    assert "s3cret" not in repr(result["listener_properties"])


def test_a_zookeeper_mode_broker_has_its_broker_id_and_no_roles(tmp_path):
    config = tmp_path / "server.properties"
    config.write_text("broker.id=7\nzookeeper.connect=zk1:2181\n")
    kind, result = run(path=str(config), provider="none")
    assert (result["node_id"], result["process_roles"], result["restart_pending"]) == ("7", [], False)


def test_a_container_env_file_gives_the_properties_its_variables_set(tmp_path):
    env = tmp_path / "kafka.env"
    # read as Compose reads it: export, quotes and comments are not part of the values
    env.write_text("export KAFKA_NODE_ID=1\nKAFKA_PROCESS_ROLES='broker'\n"
                   'KAFKA_ADVERTISED_LISTENERS="PLAINTEXT://kafka:9092"  # the container network\n'
                   "KAFKA_LOG4J__ROOT=INFO\nCLUSTER_ID=abc\n")
    kind, result = run(path=str(env), format="env", provider="none")
    assert result["properties"] == {"node.id": "1", "process.roles": "broker",
                                    "advertised.listeners": "PLAINTEXT://kafka:9092"}
    # the variables as written, for working out an edit of the file
    assert result["entries"] == {"KAFKA_NODE_ID": "1", "KAFKA_PROCESS_ROLES": "broker", "CLUSTER_ID": "abc",
                                 "KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://kafka:9092", "KAFKA_LOG4J__ROOT": "INFO"}
    assert result["node_id"] == "1"


def test_a_missing_file_is_reported_not_raised_and_a_directory_is_named(tmp_path):
    kind, result = run(path=str(tmp_path / "nope.properties"), provider="none")
    assert kind == "exit" and result["exists"] is False and result["properties"] == result["entries"] == {}
    assert result["node_id"] is None and result["process_roles"] == []
    kind, result = run(path=str(tmp_path), provider="none")
    assert kind == "fail" and result["msg"].startswith("cannot read %s: " % tmp_path)


def test_a_metadata_service_that_does_not_answer_fails_the_module(tmp_path):
    config = tmp_path / "server.properties"
    config.write_text("node.id=1\n")
    with socket.socket() as closed:  # a loopback port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    kind, result = run(path=str(config), provider="gcp", endpoint="http://127.0.0.1:%d" % port, timeout=0.5,
                       total_timeout=2)
    assert kind == "fail" and "127.0.0.1:%d" % port in result["msg"]


def test_the_installed_release_is_read_from_the_broker_jar(tmp_path):
    config = tmp_path / "server.properties"
    config.write_text("node.id=1\n")
    libs = tmp_path / "kafka" / "libs"
    libs.mkdir(parents=True)
    for name in ("kafka-clients-4.4.0.jar", "kafka_2.13-4.4.0-test.jar", "kafka_2.13-4.4.0.jar", "zookeeper-3.8.4.jar"):
        (libs / name).write_text("")
    kind, result = run(path=str(config), provider="none", kafka_home=str(tmp_path / "kafka"))
    assert result["kafka_version"] == "4.4.0"
    kind, result = run(path=str(config), provider="none", kafka_home=str(tmp_path / "nowhere"))
    assert result["kafka_version"] is None
    assert run(path=str(config), provider="none")[1]["kafka_version"] is None


def test_a_fifo_among_the_checksums_is_refused_naming_it_instead_of_hanging(tmp_path):
    config = tmp_path / "server.properties"
    config.write_text("broker.id=1\n", encoding="ascii")
    fifo = tmp_path / "listeners.json"
    os.mkfifo(fifo)
    kind, result = run(path=str(config), provider="none", checksums=[str(fifo)])
    assert kind == "fail"
    assert result["msg"] == ("checksums: %r is not a regular file (a FIFO, device or directory); name the file "
                             "itself" % str(fifo))


def test_write_access_names_the_folder_that_keeps_a_file_from_being_written(tmp_path, monkeypatch):
    config = tmp_path / "kafka" / "server.properties"
    config.parent.mkdir()
    config.write_text("node.id=1\n")
    locked = str(tmp_path / "kafka")

    def access(path, mode):  # the tests run as root, for whom every folder is writable
        return os.path.normpath(path) != locked

    monkeypatch.setattr(kafka_broker_facts.os, "access", access)
    unmade = tmp_path / "systemd" / "kafka.service.d" / "kafkaops-listeners.conf"  # neither folder exists yet
    kind, result = run(path=str(config), provider="none",
                       write_access=[str(config), str(config) + ".restart-pending", str(unmade)])
    assert kind == "exit"
    assert result["write_denied"] == {str(config): locked, str(config) + ".restart-pending": locked}
    assert result["user"] == pwd.getpwuid(os.geteuid()).pw_name
    locked = str(tmp_path)  # now the nearest existing parent of the folders not made yet
    kind, result = run(path=str(config), provider="none", write_access=[str(unmade)])
    assert result["write_denied"] == {str(unmade): locked}
    assert run(path=str(config), provider="none")[1]["write_denied"] == {}


def test_the_partitions_are_the_replica_folders_of_every_log_directory(tmp_path):
    first, second, never = tmp_path / "data-1", tmp_path / "data-2", tmp_path / "not-yet"
    for folder, names in ((first, ["orders-0", "my.topic-name-12", "__consumer_offsets-3", "__cluster_metadata-0",
                                   "orders-1.6c2fd9c4e5a34b7c8f0a1b2c3d4e5f60-delete", "orders-0.4f1e-future"]),
                          (second, ["orders-1", "orders-0"])):
        for name in names:
            (folder / name).mkdir(parents=True)
    (first / "meta.properties").write_text("node.id=1\n")
    (first / "recovery-point-offset-checkpoint-7").write_text("0\n")  # a file, not a replica
    config = tmp_path / "server.properties"
    config.write_text("node.id=1\nlog.dirs=%s, %s,%s\nlog.dir=/nowhere\n" % (first, second, never))
    kind, result = run(path=str(config), provider="none")
    assert kind == "exit"
    assert result["partitions"] == ["__consumer_offsets-3", "my.topic-name-12", "orders-0", "orders-1"]
    # log.dir when log.dirs is not set; a container's directories are not on this host
    config.write_text("node.id=1\nlog.dir=%s\n" % second)
    assert run(path=str(config), provider="none")[1]["partitions"] == ["orders-0", "orders-1"]
    env = tmp_path / "kafka.env"
    env.write_text("KAFKA_NODE_ID=1\nKAFKA_LOG_DIRS=%s\n" % first)
    assert run(path=str(env), format="env", provider="none")[1]["partitions"] is None


def test_a_log_directory_that_cannot_be_listed_gives_no_partitions_and_says_why(tmp_path, monkeypatch):
    config = tmp_path / "server.properties"
    config.write_text("node.id=1\nlog.dirs=%s\n" % tmp_path)
    real = os.listdir

    def listdir(path):  # the tests run as root, who can list every folder
        if path == str(tmp_path):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(kafka_broker_facts.os, "listdir", listdir)
    warnings = []
    monkeypatch.setattr(kafka_broker_facts.AnsibleModule, "warn", lambda self, text: warnings.append(text))
    kind, result = run(path=str(config), provider="none")
    assert kind == "exit" and result["partitions"] is None
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("cannot list the log directory %s (log.dirs): Permission denied. " % tmp_path)
    assert "broker_listener_options.in_service: true" in warnings[0]


def test_names_given_to_resolve_are_answered_as_resolvability_answers_and_a_bad_one_only_warns(tmp_path, monkeypatch):
    config = tmp_path / "server.properties"
    config.write_text("node.id=1\n")
    assert run(path=str(config), provider="none")[1]["resolvability"] is None
    assert run(path=str(config), provider="none", resolve={"names": []})[1]["resolvability"] is None
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        kind, result = run(path=str(config), provider="none",
                           resolve={"names": ["127.0.0.1", "127.0.0.2"], "timeout": 1.0, "port": port})
    assert kind == "exit" and result["changed"] is False
    answers = {item["name"]: item for item in result["resolvability"]["results"]}
    # IP literals resolve to themselves (no lookup leaves the machine); only 127.0.0.1 listens on the port
    assert list(answers) == ["127.0.0.1", "127.0.0.2"]
    assert answers["127.0.0.1"]["resolvable"] is True and answers["127.0.0.1"]["connectable"] is True
    assert answers["127.0.0.2"]["resolvable"] is True and answers["127.0.0.2"]["connectable"] is False
    assert answers["127.0.0.2"]["error"]
    assert result["resolvability"]["all_connectable"] is False
    warnings = []
    monkeypatch.setattr(kafka_broker_facts.AnsibleModule, "warn", lambda self, text: warnings.append(text))
    kind, result = run(path=str(config), provider="none", resolve={"names": ["ok.example", "bad name"]})
    assert kind == "exit" and result["resolvability"] is None and result["properties"] == {"node.id": "1"}
    expected = "resolve: the names were not checked here (invalid host 'bad name' from names[1]"
    assert len(warnings) == 1 and warnings[0].startswith(expected), warnings


def test_the_self_check_is_made_in_the_same_call_with_its_secrets_kept_out_of_the_result(tmp_path, monkeypatch):
    config = tmp_path / "server.properties"
    config.write_text("node.id=1\n")
    assert run(path=str(config), provider="none")[1]["self_check"] is None
    given = []
    outcome = {"bootstrap": "p1.internal:19092", "listener": "INTERNAL", "security_protocol": "SASL_SSL",
               "passed": True, "summary": "bootstrap p1.internal:19092 reachable and all 3 advertised endpoint(s)"}
    monkeypatch.setattr(kafka_broker_facts, "check_ahead", lambda options: given.append(options) or outcome)
    kind, result = run(path=str(config), provider="none",
                       self_check={"bootstrap": "p1.internal:19092", "listener": "INTERNAL",
                                   "security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512",
                                   "sasl_username": "broker", "sasl_password": "hunter2-secret"})
    assert kind == "exit" and result["self_check"] == outcome
    assert given[0]["sasl_password"] == "hunter2-secret" and given[0]["timeout"] == 5.0
    assert "hunter2-secret" not in repr(result)
    # a key file needs its certificate, as kafka_metadata says
    kind, result = run(path=str(config), provider="none",
                       self_check={"bootstrap": "p1.internal:19092", "ssl_key_file": "/k.pem",
                                   "security_protocol": "SSL"})
    assert kind == "fail" and "ssl_cert_file" in result["msg"] and "self_check" in result["msg"], result


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A folder standing for the machine's root, where the module looks for the install."""
    found = functools.partial(_kafka_install.find_install, root=str(tmp_path))
    monkeypatch.setattr(kafka_broker_facts, "find_install", found)
    return tmp_path


ROLE_FILES = {"start_program": "/usr/local/sbin/kafka-listeners-prestart", "start_dropin_dir": None,
              "write_access": False}


def test_without_a_path_the_file_the_unit_names_is_found_read_and_the_role_files_placed_beside_it(machine):
    config = machine / "srv" / "server.properties"
    config.parent.mkdir()
    config.write_text("node.id=4\nprocess.roles=broker\n")
    (machine / "srv" / "server.properties.restart-pending").write_text("")
    unit = machine / "etc/systemd/system/broker.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=/usr/bin/kafka-server-start %s\n" % config)
    # the program's path under the test's root: the role's default, /usr/local/sbin/..., may exist on this machine
    program = str(machine / "usr/local/sbin/kafka-listeners-prestart")
    kind, result = run(provider="none", role_files=dict(ROLE_FILES, start_program=program))
    assert kind == "exit"
    # what kafka_install_facts returns, from the same code
    assert result["install"] == _kafka_install.find_install(root=str(machine))
    assert (result["install"]["properties_path"], result["install"]["service_name"]) == (str(config), "broker")
    assert (result["node_id"], result["restart_pending"]) == ("4", True)
    assert result["role_files"] == {
        "file": str(config), "pending_marker": str(config) + ".restart-pending",
        "start_decision": str(config) + ".listeners.json",
        "start_dropin": "/etc/systemd/system/broker.service.d/kafkaops-listeners.conf"}
    assert result["checksums"] == {program: None, str(config) + ".listeners.json": None,
                                   "/etc/systemd/system/broker.service.d/kafkaops-listeners.conf": None,
                                   str(config) + ".restart-pending": hashlib.sha1(b"").hexdigest()}
    assert result["write_denied"] == {}


def test_an_install_that_cannot_be_told_fails_with_kafka_install_facts_message(machine):
    kind, result = run(provider="none", service_name="kafka", role_files=ROLE_FILES)
    assert kind == "fail" and result["msg"].startswith("found no Kafka properties file: ")
    assert "Set broker_properties_path" in result["msg"]
    with pytest.raises(_kafka_install.InstallError) as same:
        _kafka_install.find_install(service_name="kafka", root=str(machine))
    assert result["msg"] == str(same.value)


def test_with_a_path_or_both_values_given_nothing_is_looked_for(machine, tmp_path):
    # a unit naming another file is there: it is not asked
    unit = machine / "etc/systemd/system/kafka.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=/usr/bin/kafka-server-start /etc/kafka/server.properties\n")
    env = tmp_path / "kafka.env"
    env.write_text("KAFKA_NODE_ID=2\n")
    kind, result = run(path=str(env), format="env", provider="none",
                       role_files=dict(ROLE_FILES, start_dropin_dir="/srv/dropins"))
    assert kind == "exit" and result["node_id"] == "2"
    assert result["install"] == {"properties_path": None, "service_name": None, "kafka_home": None,
                                 "source": {}, "looked_at": []}
    assert result["role_files"] == {"file": str(env), "pending_marker": str(env) + ".restart-pending",
                                    "start_decision": None, "start_dropin": "/srv/dropins/kafkaops-listeners.conf"}
    config = tmp_path / "server.properties"
    config.write_text("node.id=3\n")
    kind, result = run(properties_path=str(config), service_name="confluent-server", provider="none",
                       role_files=ROLE_FILES)
    assert result["node_id"] == "3" and result["install"]["source"] == {"properties_path": "given",
                                                                        "service_name": "given"}
    assert result["role_files"]["start_dropin"] == (
        "/etc/systemd/system/confluent-server.service.d/kafkaops-listeners.conf")
    assert run(provider="none", format="env")[1]["msg"] == "format is env but all of the following are missing: path"


def test_the_release_is_read_from_the_installation_found_else_for_the_role_from_opt_kafka(machine, monkeypatch):
    home = machine / "opt" / "kafka_2.13-3.9.1"
    (home / "config").mkdir(parents=True)
    (home / "libs").mkdir()
    (home / "libs" / "kafka_2.13-3.9.1.jar").write_text("")
    config = home / "config" / "server.properties"
    config.write_text("node.id=1\n")
    # a unit naming the file by its real path: the installation is read from the machine's root
    monkeypatch.setattr(kafka_broker_facts, "find_install", lambda **given: dict(
        _kafka_install.find_install(properties_path=str(config), service_name="kafka", root="/"),
        kafka_home=str(home)))
    kind, result = run(provider="none")
    assert result["kafka_version"] == "3.9.1" and result["role_files"] is None
    kind, result = run(provider="none", properties_path=str(config), service_name="kafka")  # nothing looked for
    assert result["kafka_version"] is None
    monkeypatch.setattr(kafka_broker_facts, "DEFAULT_KAFKA_HOME", str(home))
    kind, result = run(provider="none", properties_path=str(config), service_name="kafka", role_files=ROLE_FILES)
    assert result["kafka_version"] == "3.9.1"


def test_role_files_write_access_covers_the_files_the_role_writes(tmp_path, monkeypatch):
    config = tmp_path / "kafka" / "server.properties"
    config.parent.mkdir()
    config.write_text("node.id=1\n")
    locked = str(tmp_path / "kafka")
    monkeypatch.setattr(kafka_broker_facts.os, "access", lambda path, mode: os.path.normpath(path) != locked)
    kind, result = run(properties_path=str(config), service_name="kafka", provider="none",
                       role_files=dict(ROLE_FILES, start_program=str(tmp_path / "prestart"), write_access=True))
    assert result["write_denied"] == {str(config): locked, str(config) + ".restart-pending": locked,
                                      str(config) + ".listeners.json": locked}
    kind, result = run(properties_path=str(config), service_name="kafka", provider="none", role_files=ROLE_FILES)
    assert result["write_denied"] == {}
