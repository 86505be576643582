# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The broker role's files: where the role keeps what it writes beside a broker's configuration file and its
systemd unit, and where it reads the Kafka release when the installation is not known.

Private to kafkaops.listeners: no compatibility promise outside the collection.

The one place these paths are derived: kafka_broker_facts returns them to the role (which reads them from its
result instead of deriving them again) and the pre-start program finds its decision with :func:`decision_path`.
"""

from __future__ import annotations

#: beside the configuration file while a restart on a written configuration is still to happen
PENDING_SUFFIX = ".restart-pending"
#: beside server.properties: the cluster's decision the pre-start program re-plans this node from
DECISION_SUFFIX = ".listeners.json"
#: the start-time drop-in, in the unit's drop-in folder
DROPIN_NAME = "kafkaops-listeners.conf"
#: where a unit's drop-in folder is made when the role is not given one
DROPIN_UNIT_DIR = "/etc/systemd/system"
#: the Kafka installation the release is read from when none is set or found (Kafka's tarball's usual place)
DEFAULT_KAFKA_HOME = "/opt/kafka"


def pending_marker(config_file: str) -> str:
    """The mark an unfinished restart leaves beside ``config_file`` (server.properties or a container's env file)."""
    return config_file + PENDING_SUFFIX


def decision_path(properties_path: str) -> str:
    """Where the role stores the start-time decision for ``properties_path``."""
    return properties_path + DECISION_SUFFIX


def start_dropin(dropin_dir: str | None, service_name: str | None) -> str | None:
    """The start-time drop-in: in ``dropin_dir``, else in the drop-in folder of unit ``service_name``; None with
    neither (the role then stops where one is needed)."""
    if not dropin_dir and not service_name:
        return None
    return (dropin_dir or "%s/%s.service.d" % (DROPIN_UNIT_DIR, service_name)) + "/" + DROPIN_NAME


def role_files(config_file: str, properties_path: str | None, service_name: str | None,
               dropin_dir: str | None) -> dict:
    """The role's files for a broker whose configuration is ``config_file`` (server.properties, or in a container
    the env file), whose server.properties (None when unknown) and unit (None when none) are given: ``file``,
    ``pending_marker``, ``start_decision`` (None without a properties file) and ``start_dropin`` (see
    :func:`start_dropin`)."""
    return {
        "file": config_file,
        "pending_marker": pending_marker(config_file),
        "start_decision": decision_path(properties_path) if properties_path else None,
        "start_dropin": start_dropin(dropin_dir, service_name),
    }
