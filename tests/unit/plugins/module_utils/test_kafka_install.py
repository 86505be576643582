# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Finding a broker's properties file and unit in the shapes Kafka's tarball and the packages leave (a folder stands
for the machine's root)."""

from __future__ import annotations

import os

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_install import (
    InstallError,
    find_install,
    kafka_units,
)

# The units of Confluent's packages and of cp-ansible, as they ship
CONFLUENT_SERVER = """[Unit]
Description=Apache Kafka - broker
Documentation=http://docs.confluent.io/
After=network.target confluent-zookeeper.target

[Service]
Type=simple
User=cp-kafka
Group=confluent
ExecStart=/usr/bin/kafka-server-start /etc/kafka/server.properties
LimitNOFILE=1000000
TimeoutStopSec=180
Restart=no

[Install]
WantedBy=multi-user.target
"""
CP_ANSIBLE_OVERRIDE = """[Service]
Environment="KAFKA_HEAP_OPTS=-Xmx6g -Xms6g"
ExecStart=
ExecStart=/usr/bin/kafka-server-start /etc/kafka/conf-b2/server.properties
"""


def write(root, path, text=""):
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return target


def unit(exec_start, extra=""):
    return "[Unit]\nDescription=Kafka\n\n[Service]\nType=simple\nUser=kafka\n%s%s\n\n[Install]\n" \
           "WantedBy=multi-user.target\n" % (extra, "ExecStart=" + exec_start if exec_start is not None else "")


def tarball(root, folder, release, link=False):
    """Kafka's tarball unpacked in /opt/<folder> (libs/ and the release's shipped files), /opt/kafka a relative
    symlink to it with ``link``."""
    home = root / "opt" / folder
    (home / "libs").mkdir(parents=True)
    (home / "libs" / ("kafka_2.13-%s.jar" % release)).write_text("")
    write(home, "bin/kafka-server-start.sh", "#!/bin/bash\n")
    write(home, "config/server.properties", "process.roles=broker,controller\n")
    if release.startswith("3."):
        write(home, "config/server.properties", "broker.id=0\nzookeeper.connect=localhost:2181\n")
        write(home, "config/kraft/server.properties", "process.roles=broker,controller\n")
    if link:
        os.symlink(folder, str(root / "opt" / "kafka"))
    return home


def test_a_unit_the_operator_wrote_names_the_file_of_kafka_4_in_a_versioned_tarball_behind_opt_kafka(tmp_path):
    tarball(tmp_path, "kafka_2.13-4.4.0", "4.4.0", link=True)
    write(tmp_path, "/etc/systemd/system/kafka.service",
          unit("/opt/kafka/bin/kafka-server-start.sh /opt/kafka/config/server.properties"))
    found = find_install(root=str(tmp_path))
    assert found["properties_path"] == "/opt/kafka/config/server.properties"
    assert found["service_name"] == "kafka"
    assert found["kafka_home"] == "/opt/kafka"
    assert found["source"]["properties_path"] == "ExecStart of unit kafka (%s/etc/systemd/system/kafka.service)" \
        % tmp_path


def test_kafka_3_9_kraft_file_through_environment_and_a_drop_in_that_replaces_execstart(tmp_path):
    # the unit as first written starts the ZooKeeper-mode sample; the drop-in moves it to the KRaft file
    tarball(tmp_path, "kafka_2.13-3.9.2", "3.9.2")
    write(tmp_path, "/etc/systemd/system/kafka-broker.service",
          unit("${KAFKA_HOME}/bin/kafka-server-start.sh ${KAFKA_HOME}/config/server.properties",
               "Environment=KAFKA_HOME=/opt/kafka_2.13-3.9.2 \"KAFKA_HEAP_OPTS=-Xmx1g -Xms1g\"\n"))
    write(tmp_path, "/etc/systemd/system/kafka-broker.service.d/10-kraft.conf",
          "[Service]\nExecStart=\nExecStart=${KAFKA_HOME}/bin/kafka-server-start.sh "
          "${KAFKA_HOME}/config/kraft/server.properties\n")
    found = find_install(root=str(tmp_path))
    assert found["properties_path"] == "/opt/kafka_2.13-3.9.2/config/kraft/server.properties"
    assert found["service_name"] == "kafka-broker"
    assert found["kafka_home"] == "/opt/kafka_2.13-3.9.2"


@pytest.mark.parametrize("exec_start, expected", [
    ("/bin/sh -c 'exec /opt/kafka/bin/kafka-server-start.sh -daemon /opt/kafka/config/server.properties "
     ">> /var/log/kafka.out 2>&1'", "/opt/kafka/config/server.properties"),
    ("/usr/bin/java -Xmx1g -cp '/opt/kafka/libs/*' kafka.Kafka /srv/kafka/broker.properties --override a=b",
     "/srv/kafka/broker.properties"),
    ("-/usr/bin/env KAFKA_HEAP_OPTS=-Xmx1g bin/kafka-server-start.sh config/server.properties",
     "/opt/kafka/config/server.properties"),
])
def test_the_file_is_read_from_the_start_command_in_its_usual_spellings(tmp_path, exec_start, expected):
    write(tmp_path, "/etc/systemd/system/kafka.service", unit(exec_start, "WorkingDirectory=/opt/kafka\n"))
    assert find_install(root=str(tmp_path))["properties_path"] == expected


def test_confluent_package_unit_in_lib_and_the_cp_ansible_override_in_etc(tmp_path):
    write(tmp_path, "/lib/systemd/system/confluent-server.service", CONFLUENT_SERVER)
    write(tmp_path, "/etc/kafka/server.properties", "node.id=1\n")
    found = find_install(root=str(tmp_path))
    assert (found["properties_path"], found["service_name"]) == ("/etc/kafka/server.properties", "confluent-server")
    assert found["kafka_home"] is None  # /usr/bin/kafka-server-start: no libs/ beside it
    write(tmp_path, "/etc/systemd/system/confluent-server.service.d/override.conf", CP_ANSIBLE_OVERRIDE)
    assert find_install(root=str(tmp_path))["properties_path"] == "/etc/kafka/conf-b2/server.properties"


def test_units_that_do_not_start_a_broker_are_not_candidates(tmp_path):
    write(tmp_path, "/etc/systemd/system/zookeeper.service",
          unit("/opt/kafka/bin/zookeeper-server-start.sh /opt/kafka/config/zookeeper.properties"))
    write(tmp_path, "/etc/systemd/system/kafka-connect.service",
          unit("/opt/kafka/bin/connect-distributed.sh /opt/kafka/config/connect-distributed.properties"))
    write(tmp_path, "/etc/systemd/system/kafka@.service", unit("/opt/kafka/bin/kafka-server-start.sh /etc/%i.conf"))
    write(tmp_path, "/etc/systemd/system/nothing.service", unit(None))
    assert kafka_units(str(tmp_path)) == []


def test_a_masked_unit_an_alias_and_a_unit_overridden_in_etc_count_once(tmp_path):
    write(tmp_path, "/lib/systemd/system/confluent-server.service", CONFLUENT_SERVER)
    write(tmp_path, "/lib/systemd/system/confluent-kafka.service", CONFLUENT_SERVER)
    (tmp_path / "etc/systemd/system").mkdir(parents=True)
    os.symlink("/dev/null", str(tmp_path / "etc/systemd/system/confluent-kafka.service"))  # masked
    os.symlink("confluent-server.service", str(tmp_path / "lib/systemd/system/kafka.service"))
    write(tmp_path, "/etc/systemd/system/confluent-server.service", CONFLUENT_SERVER.replace(
        "/etc/kafka/server.properties", "/etc/kafka/broker.properties"))
    assert [(found["name"], found["properties"]) for found in kafka_units(str(tmp_path))] == [
        ("confluent-server", "/etc/kafka/broker.properties")]


def test_two_units_with_different_files_fail_naming_both_and_the_variables(tmp_path):
    write(tmp_path, "/etc/systemd/system/confluent-server.service", CONFLUENT_SERVER)
    write(tmp_path, "/etc/systemd/system/confluent-kcontroller.service",
          CONFLUENT_SERVER.replace("/etc/kafka/server.properties", "/etc/controller/server.properties"))
    with pytest.raises(InstallError) as failed:
        find_install(root=str(tmp_path))
    message = str(failed.value)
    assert message.startswith("more than one systemd unit starts Kafka, with different properties files: "
                              "confluent-kcontroller (")
    assert "starts Kafka with /etc/controller/server.properties" in message
    assert "starts Kafka with /etc/kafka/server.properties" in message
    assert "Set broker_service_name" in message and "broker_properties_path" in message
    # the service named: its file
    found = find_install(service_name="confluent-server", root=str(tmp_path))
    assert found["properties_path"] == "/etc/kafka/server.properties"
    assert found["source"] == {"properties_path": "ExecStart of unit confluent-server (%s/etc/systemd/system/"
                                                  "confluent-server.service)" % tmp_path, "service_name": "given"}
    # the file named: the unit naming it
    assert find_install("/etc/controller/server.properties", root=str(tmp_path))["service_name"] == \
        "confluent-kcontroller"


def test_two_units_naming_the_same_file_through_a_symlink_leave_the_service_to_the_operator(tmp_path):
    tarball(tmp_path, "kafka_2.13-4.4.0", "4.4.0", link=True)
    write(tmp_path, "/etc/systemd/system/kafka.service",
          unit("/opt/kafka/bin/kafka-server-start.sh /opt/kafka/config/server.properties"))
    write(tmp_path, "/etc/systemd/system/kafka-old.service",
          unit("/opt/kafka_2.13-4.4.0/bin/kafka-server-start.sh /opt/kafka_2.13-4.4.0/config/server.properties"))
    with pytest.raises(InstallError, match=r"^more than one systemd unit starts Kafka with "
                                           r"/opt/kafka(_2\.13-4\.4\.0)?/config/server.properties: kafka, kafka-old\. "
                                           r"Set broker_service_name"):
        find_install(root=str(tmp_path))
    assert find_install(service_name="kafka", root=str(tmp_path))["properties_path"] == \
        "/opt/kafka/config/server.properties"


@pytest.mark.parametrize("exec_start, extra, problem", [
    ("${KAFKA_HOME}/bin/kafka-server-start.sh ${KAFKA_HOME}/config/server.properties",
     "EnvironmentFile=/etc/kafka.env\n",
     "its ExecStart uses ${KAFKA_HOME}, which no Environment= line of the unit sets"),
    ("/opt/kafka/bin/kafka-server-start.sh /etc/kafka/%i.properties", "", "uses a systemd specifier"),
    ("/opt/kafka/bin/kafka-server-start.sh", "", "its ExecStart passes no properties file"),
    ("/opt/kafka/bin/kafka-server-start.sh config/server.properties", "",
     "names config/server.properties relative to no WorkingDirectory"),
])
def test_a_unit_starting_kafka_with_a_file_that_cannot_be_told_is_named_never_passed_over(tmp_path, exec_start,
                                                                                          extra, problem):
    write(tmp_path, "/etc/kafka/server.properties", "node.id=1\n")  # a known layout that must not be guessed
    write(tmp_path, "/etc/systemd/system/kafka.service", unit(exec_start, extra))
    with pytest.raises(InstallError) as failed:
        find_install(root=str(tmp_path))
    assert str(failed.value).startswith("cannot tell the broker's properties file: unit kafka (")
    assert problem in str(failed.value)
    assert str(failed.value).endswith("Set broker_properties_path to the server.properties Kafka reads.")
    # the file given: the unit still gives nothing to guess, and the service stays unknown
    found = find_install("/etc/kafka/server.properties", root=str(tmp_path))
    assert found["service_name"] is None
    assert found["source"]["service_name"] == "none: no systemd unit starts Kafka with /etc/kafka/server.properties"


def test_without_units_the_known_layouts_kafka_4_tarball_and_a_package(tmp_path):
    tarball(tmp_path, "kafka_2.13-4.4.0", "4.4.0")
    found = find_install(root=str(tmp_path))
    assert found["properties_path"] == "/opt/kafka_2.13-4.4.0/config/server.properties"
    assert found["service_name"] is None and found["kafka_home"] == "/opt/kafka_2.13-4.4.0"
    assert found["source"] == {"properties_path": "known layout", "service_name": "none: no systemd unit starts "
                               "Kafka with /opt/kafka_2.13-4.4.0/config/server.properties"}
    # /opt/kafka (here a symlink to the same release) hides the versioned folders: older releases beside it
    tarball(tmp_path, "kafka_2.13-3.9.2", "3.9.2")
    os.symlink("kafka_2.13-4.4.0", str(tmp_path / "opt" / "kafka"))
    assert find_install(root=str(tmp_path))["properties_path"] == "/opt/kafka/config/server.properties"
    package = tmp_path / "package"
    write(package, "/etc/kafka/server.properties", "node.id=1\n")
    assert find_install(root=str(package))["properties_path"] == "/etc/kafka/server.properties"


def test_kafka_3_tarball_without_a_unit_ships_two_files_and_is_not_guessed(tmp_path):
    tarball(tmp_path, "kafka", "3.9.2")
    with pytest.raises(InstallError) as failed:
        find_install(root=str(tmp_path))
    message = str(failed.value)
    assert message.startswith("cannot tell the broker's properties file: several exist, systemd units starting Kafka")
    assert "found: /opt/kafka/config/server.properties, /opt/kafka/config/kraft/server.properties." in message
    assert "Kafka 3.x ships config/server.properties for ZooKeeper mode" in message
    assert "Set broker_properties_path" in message


def test_nothing_found_names_every_place_looked_at(tmp_path):
    with pytest.raises(InstallError) as failed:
        find_install(root=str(tmp_path))
    message = str(failed.value)
    assert message.startswith("found no Kafka properties file: systemd units starting Kafka in /etc/systemd/system, ")
    assert "known layouts: /etc/kafka/server.properties, /opt/kafka/config/server.properties, " \
           "/opt/kafka/config/kraft/server.properties, /opt/kafka_*/config/server.properties, " \
           "/opt/kafka_*/config/kraft/server.properties; found: none." in message
    assert message.endswith("Set broker_properties_path to the server.properties Kafka reads.")


def test_hostile_unit_files_are_read_within_bounds_and_never_guessed_from(tmp_path):
    write(tmp_path, "/etc/kafka/server.properties", "node.id=1\n")
    huge = write(tmp_path, "/etc/systemd/system/kafka.service", "[Service]\nExecStart=/opt/kafka/bin/"
                 "kafka-server-start.sh /x\n" + "#" * (1 << 20))
    with pytest.raises(InstallError, match=r"larger than 1048576 bytes"):
        find_install(root=str(tmp_path))
    huge.write_bytes(b"[Service]\nExecStart=/opt/kafka/bin/kafka-server-start.sh '/etc/kafka/unclosed \xff\n")
    assert kafka_units(str(tmp_path)) == []  # no command line: not a unit that starts Kafka
    huge.write_bytes(b"[Service]\nExecStart=/opt/kafka/bin/kafka-server-start.sh /etc/k\xe9fka/server.properties\n")
    assert kafka_units(str(tmp_path))[0]["properties"] == "/etc/k\ufffdfka/server.properties"


def test_a_kafka_unit_starting_a_wrapper_script_is_the_service_of_the_known_layout(tmp_path):
    write(tmp_path, "/etc/kafka/server.properties", "node.id=1\n")
    write(tmp_path, "/etc/systemd/system/kafka.service", unit("/usr/local/bin/start-kafka --env prod"))
    found = find_install(root=str(tmp_path))
    assert (found["properties_path"], found["service_name"]) == ("/etc/kafka/server.properties", "kafka")
    assert found["source"]["service_name"].startswith("no unit names /etc/kafka/server.properties; kafka is there")
    # a kafka unit that starts Kafka with another file is not this file's service
    write(tmp_path, "/etc/systemd/system/kafka.service", unit("/usr/bin/kafka-server-start /srv/other.properties"))
    assert find_install("/etc/kafka/server.properties", root=str(tmp_path))["service_name"] is None
