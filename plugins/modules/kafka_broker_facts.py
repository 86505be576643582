#!/usr/bin/python
# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: kafka_broker_facts
short_description: What a Kafka broker host runs with, and its names from the instance metadata service, in one call
version_added: 0.2.0
description:
  - Reads the broker's configuration (C(server.properties), or in a container the C(KAFKA_*) environment file the
    Apache and Confluent images turn into it) and returns its properties, node id and process roles; says whether
    an earlier run left a restart unfinished (its marker file is there); and, unless O(provider=none), asks the
    cloud's instance metadata service for the host's names as M(kafkaops.listeners.instance_metadata) does.
  - Without O(path), it first finds the broker's C(server.properties) and the systemd unit that starts Kafka, each
    unless given (O(properties_path), O(service_name)), as M(kafkaops.listeners.kafka_install_facts) finds them and
    with the same failures, naming what it looked at and the variables to set; RV(install) says what it found.
  - The broker role's first step on each host. One module call instead of one per question keeps a run that
    changes nothing short.
  - A configuration file that does not exist is not an error here (RV(exists) is V(false)); the caller says what
    to set. One that cannot be read or parsed is.
author:
  - kafkaops.listeners maintainers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.listeners.attributes
  - kafkaops.listeners.attributes.READ_ONLY
  - kafkaops.listeners.instance_metadata
attributes:
  platform:
    support: full
    platforms: posix
options:
  path:
    description:
      - The broker's configuration file, C(server.properties) read as Kafka reads it (ISO-8859-1) or an environment
        file read as Docker Compose reads it (UTF-8), when known (required with O(format=env)).
      - Not given, the file read is the broker's C(server.properties), O(properties_path) or the one found.
    type: path
  properties_path:
    description:
      - The broker's C(server.properties), when known (V(null) when not).
      - Without O(path), when this or O(service_name) is not given, the one not given is found as
        M(kafkaops.listeners.kafka_install_facts) finds it (the systemd units starting Kafka, else the known
        layouts), and the installation with it (RV(install)). A file that cannot be told fails the module, naming
        what was looked at and the broker role's variables to set.
      - With O(path), nothing is looked for; the value only places O(role_files)' start-time decision.
    type: path
    version_added: 0.4.0
  service_name:
    description:
      - The broker's systemd service (without C(.service)), when known (V(null) when not); see O(properties_path).
    type: str
    version_added: 0.4.0
  format:
    description:
      - V(properties) for C(server.properties); V(env) for a container's environment file (Compose C(env_file)
        syntax, as M(kafkaops.listeners.kafka_properties) writes it), whose C(KAFKA_*) variables are returned as
        the property names they set (C(KAFKA_NODE_ID) is C(node.id); names with doubled underscores are left out,
        as no listener, role or id key has one).
    type: str
    choices: [properties, env]
    default: properties
  kafka_home:
    description:
      - A Kafka installation (the directory holding C(libs/)); RV(kafka_version) is read from the name of its
        C(libs/kafka_2.NN-X.Y.Z.jar).
      - Not given, the installation found with the properties file (RV(install.kafka_home)), else with O(role_files)
        C(/opt/kafka).
    type: path
  pending_marker:
    description:
      - A file whose presence means an earlier run wrote the configuration but the broker was not restarted
        healthy on it; RV(restart_pending) says whether it exists.
      - Not with O(role_files), whose pending mark (RV(role_files.pending_marker)) RV(restart_pending) then reports.
    type: path
  role_files:
    description:
      - Work out the broker role's files from the configuration file read, the properties file and the service
        (given or found) and return them in RV(role_files), as the role takes them; RV(checksums) then also holds
        theirs and O(role_files.start_program)'s, and RV(restart_pending) says whether the role's pending mark
        exists.
    type: dict
    version_added: 0.4.0
    suboptions:
      start_program:
        description: The start-time self-healing program (the role's C(broker_start_program)).
        type: path
      start_dropin_dir:
        description:
          - The folder of the start-time drop-in (the role's C(broker_start_dropin_dir)); V(null) is the service's
            C(/etc/systemd/system/<service>.service.d), and no drop-in without a service.
        type: path
      write_access:
        description:
          - Whether RV(write_denied) also covers the configuration file, the pending mark, the start-time program,
            decision and drop-in (a role run without privilege escalation, where the login user writes them).
        type: bool
        default: false
  checksums:
    description:
      - Files whose SHA-1 checksums to return in RV(checksums), so that a caller writes them only when their content
        differs, without a call per file (O(role_files) adds the broker role's own).
      - A path that is not a regular file (a FIFO, a device, a directory) fails the module, naming it.
    type: list
    elements: path
    default: []
  write_access:
    description:
      - Files the caller means to create or replace (as M(kafkaops.listeners.kafka_properties) and
        M(ansible.builtin.copy) do, with a temporary file in the same folder renamed over the file). RV(write_denied)
        names those whose folder the user the module runs as cannot write, so that a caller without privilege
        escalation stops before writing anything, naming the file.
    type: list
    elements: path
    default: []
    version_added: 0.4.0
  resolve:
    description:
      - Names to resolve from this host in the same call, as M(kafkaops.listeners.resolvability) resolves them
        (the system resolver, each name under O(resolve.timeout), with O(resolve.port) a TCP connect check);
        RV(resolvability) holds the answers.
      - The broker role passes the names its broker resolved in the newest verify run recorded
        (P(kafkaops.listeners.broker_recorded_checks#filter)). When the names the plan needs are among them, the run
        makes no M(kafkaops.listeners.resolvability) call of its own.
      - The check is a head start, not a requirement. A value that is not a host name, or any other problem with
        it, gives a warning and RV(resolvability) V(null), never a failure.
    type: dict
    version_added: 0.4.0
    suboptions:
      names:
        description: Host names (or IP literals) to resolve; empty resolves nothing.
        type: list
        elements: str
        default: []
      timeout:
        description:
          - Seconds each name may take to resolve, as M(kafkaops.listeners.resolvability)'s
            O(kafkaops.listeners.resolvability#module:timeout).
        type: float
        default: 2.0
      port:
        description: TCP port to connect to on the addresses of every name; without it no connection is attempted.
        type: int
  self_check:
    description:
      - In the same call, the check the broker role's self check makes (M(kafkaops.listeners.kafka_metadata) with
        O(kafkaops.listeners.kafka_metadata#module:check_endpoints) and
        O(kafkaops.listeners.kafka_metadata#module:fail_on_endpoint_errors)) - metadata from O(self_check.bootstrap),
        then every advertised endpoint resolved, connected and, on TLS or SASL, verified and authenticated from this
        host - answered in RV(self_check) instead of failing.
      - The broker role passes the inter-broker endpoint its broker advertised in the newest verify run recorded
        (P(kafkaops.listeners.broker_recorded_checks#filter)), with that listener's client settings. When nothing
        restarts in the run and the plan checks the same endpoint with the same protocol, the role makes no
        M(kafkaops.listeners.kafka_metadata) call of its own after the plan.
      - A head start, not a requirement. A host no other machine could use (loopback, link-local such as the
        metadata service, ...), as the bootstrap server or advertised, is not connected to, and any problem makes
        RV(self_check.passed) false with the reason; the module does not fail for it.
      - The security suboptions are those of M(kafkaops.listeners.kafka_metadata); passwords and tokens are
        C(no_log).
    type: dict
    version_added: 0.4.0
    suboptions:
      bootstrap:
        description: The endpoint to ask, as C(host:port) (IPv6 literals in brackets).
        type: str
        required: true
      listener:
        description: The listener's name, returned as given in RV(self_check.listener).
        type: str
      timeout:
        description: Connection timeout of each request, in seconds.
        type: float
        default: 5.0
      security_protocol:
        description: The listener's security protocol.
        type: str
        choices: [PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL]
        default: PLAINTEXT
      ssl_ca_file:
        description: CA bundle the certificates are verified against (the system's by default).
        type: path
      ssl_cert_file:
        description: Client certificate, for a listener that requires one.
        type: path
      ssl_key_file:
        description: The client certificate's key, when not in O(self_check.ssl_cert_file).
        type: path
      ssl_key_password:
        description: Password of O(self_check.ssl_key_file).
        type: str
      sasl_mechanism:
        description: The SASL mechanism.
        type: str
        choices: [PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER]
      sasl_username:
        description: The SASL user name.
        type: str
      sasl_password:
        description: The SASL password.
        type: str
      sasl_oauthbearer_token:
        description: The token, for C(OAUTHBEARER).
        type: str
seealso:
  - module: kafkaops.listeners.kafka_install_facts
  - module: kafkaops.listeners.instance_metadata
"""

EXAMPLES = r"""
- name: Find the broker's server.properties and unit, read it and ask the cloud for its names
  kafkaops.listeners.kafka_broker_facts:
  register: broker

- name: Read the broker's configuration and ask the cloud for its names
  kafkaops.listeners.kafka_broker_facts:
    path: /etc/kafka/server.properties
    pending_marker: /etc/kafka/server.properties.restart-pending
  register: broker

- name: The same for static names (no metadata service is asked)
  kafkaops.listeners.kafka_broker_facts:
    path: /etc/kafka/server.properties
    provider: none
"""

RETURN = r"""
exists:
  description: Whether the configuration file exists. When it does not, the other values are empty.
  returned: always
  type: bool
  sample: true
properties:
  description: The file's properties (for O(format=env), the properties its C(KAFKA_*) variables set).
  returned: always
  type: dict
  sample: {"node.id": "1", "process.roles": "broker,controller", "listeners": "PLAINTEXT://:9092"}
listener_properties:
  description:
    - The keys of RV(properties) that say which listeners the broker runs now and how its controllers are reached
      (C(listeners), C(advertised.listeners), C(listener.security.protocol.map), C(inter.broker.listener.name),
      C(security.inter.broker.protocol),
      C(controller.listener.names), C(controller.quorum.voters), C(controller.quorum.bootstrap.servers)), for
      P(kafkaops.listeners.listener_plan#filter)'s C(current_properties). None of them holds a secret.
  returned: always
  type: dict
  sample: {"listeners": "PLAINTEXT://:9092", "inter.broker.listener.name": "PLAINTEXT"}
entries:
  description:
    - The file's keys and values as written, for working out what an edit of the file would change without reading
      it again (M(kafkaops.listeners.kafka_properties) edits it; the
      P(kafkaops.listeners.kafka_properties_change#filter) filter says what that edit changes).
    - For O(format=properties) the same as RV(properties); for O(format=env) the environment variables.
  returned: always
  type: dict
  sample: {"KAFKA_NODE_ID": "1", "KAFKA_PROCESS_ROLES": "broker,controller"}
node_id:
  description: C(node.id), else C(broker.id), as written (a string), or V(null) when neither is set.
  returned: always
  type: str
  sample: "1"
process_roles:
  description: The C(process.roles) list (empty for ZooKeeper mode).
  returned: always
  type: list
  elements: str
  sample: [broker, controller]
kafka_version:
  description:
    - The release of the C(kafka_2.NN-X.Y.Z.jar) under O(kafka_home); V(null) without such a jar or O(kafka_home).
  returned: always
  type: str
  sample: 4.4.0
restart_pending:
  description: Whether O(pending_marker) exists.
  returned: always
  type: bool
  sample: false
checksums:
  description:
    - The SHA-1 checksum of each file of O(checksums) (and of O(role_files)), as the path was given; V(null) when it
      does not exist.
  returned: always
  type: dict
  sample: {"/usr/local/sbin/kafka-listeners-prestart": "0d4c7e1b9e3f5a2c6b8d0f1e3a5c7b9d1f3e5a7c", "/etc/x.conf": null}
user:
  description: The name of the user the module ran as (the login user, or the become user).
  returned: always
  type: str
  sample: admin
  version_added: 0.4.0
write_denied:
  description:
    - For each file of O(write_access) that the user the module ran as cannot create or replace, the folder that
      keeps it from doing so (the file's folder, or its nearest existing parent when that folder does not exist
      yet). Empty when every one can be written.
  returned: always
  type: dict
  sample: {"/etc/kafka/server.properties": "/etc/kafka"}
  version_added: 0.4.0
partitions:
  description:
    - The partitions the broker keeps a replica of now, as C(topic-N), sorted; they are the partition directories of
      its log directories (C(log.dirs), else C(log.dir), else Kafka's default C(/tmp/kafka-logs)), KRaft's own
      metadata log left out. A log directory that does not exist adds none (the broker never wrote data there).
    - V(null) for O(format=env) (the directories are inside the container) and when a log directory cannot be listed
      (a warning says which and why).
    - The listener plan counts a cluster whose partitions have replicas on several brokers as in service even when it
      advertises nothing explicitly (P(kafkaops.listeners.listener_plan#filter)).
  returned: always
  type: list
  elements: str
  sample: [orders-0, orders-1, __consumer_offsets-7]
  version_added: 0.4.0
install:
  description:
    - The broker's properties file, its service and its installation, as M(kafkaops.listeners.kafka_install_facts)
      returns them.
    - When nothing was looked for (O(path) given, or both O(properties_path) and O(service_name)), the values given,
      C(kafka_home) V(null), C(source) V(given) for each value given and C(looked_at) empty.
  returned: always
  type: dict
  version_added: 0.4.0
  contains:
    properties_path:
      description: RV(kafkaops.listeners.kafka_install_facts#module:properties_path).
      type: str
      sample: /opt/kafka/config/kraft/server.properties
    service_name:
      description: RV(kafkaops.listeners.kafka_install_facts#module:service_name).
      type: str
      sample: kafka
    kafka_home:
      description:
        - RV(kafkaops.listeners.kafka_install_facts#module:kafka_home); V(null) also when nothing was looked for.
      type: str
      sample: /opt/kafka
    source:
      description: RV(kafkaops.listeners.kafka_install_facts#module:source).
      type: dict
      sample: {"properties_path": "ExecStart of unit kafka (/etc/systemd/system/kafka.service)"}
    looked_at:
      description: RV(kafkaops.listeners.kafka_install_facts#module:looked_at).
      type: list
      elements: str
role_files:
  description:
    - With O(role_files), the broker role's files; V(null) without.
  returned: always
  type: dict
  version_added: 0.4.0
  contains:
    file:
      description: The configuration file read (O(path), else the properties file).
      type: str
      sample: /etc/kafka/server.properties
    pending_marker:
      description: The mark beside it while a restart on a written configuration is still to happen.
      type: str
      sample: /etc/kafka/server.properties.restart-pending
    start_decision:
      description: The start-time decision beside the properties file; V(null) without one.
      type: str
      sample: /etc/kafka/server.properties.listeners.json
    start_dropin:
      description:
        - The start-time drop-in, in O(role_files.start_dropin_dir), else in the service's drop-in folder;
          V(null) with neither.
      type: str
      sample: /etc/systemd/system/kafka.service.d/kafkaops-listeners.conf
resolvability:
  description:
    - With O(resolve.names), the answers as M(kafkaops.listeners.resolvability) returns them (C(results),
      C(all_resolvable), C(all_connectable), C(stale)); V(null) without names, or when they could not be checked
      (a warning says why).
  returned: always
  type: dict
  version_added: 0.4.0
  sample:
    results:
      - {name: ec2-198-19-0-11.us-west-2.compute.amazonaws.com, resolvable: true, addresses: [198.18.0.11],
         connectable: true, error: null, elapsed_ms: 3, matches_expected: null}
    all_resolvable: true
    all_connectable: true
    stale: []
self_check:
  description:
    - With O(self_check), its outcome; V(null) without it.
  returned: always
  type: dict
  version_added: 0.4.0
  contains:
    bootstrap:
      description: O(self_check.bootstrap).
      type: str
    listener:
      description: O(self_check.listener).
      type: str
    security_protocol:
      description: O(self_check.security_protocol).
      type: str
    passed:
      description:
        - Whether the check passed without a warning, where the self check of the broker role would have passed.
      type: bool
    summary:
      description: The outcome in one line, or why the check could not be made.
      type: str
  sample:
    bootstrap: ip-198-18-0-11.us-west-2.compute.internal:19092
    listener: INTERNAL
    security_protocol: PLAINTEXT
    passed: true
    summary: >-
      bootstrap ip-198-18-0-11.us-west-2.compute.internal:19092 reachable and all 3 advertised endpoint(s) resolve
      and accept connections from this host
instance_metadata:
  description: The metadata service's answer as M(kafkaops.listeners.instance_metadata) returns it.
  returned: always
  type: dict
  sample:
    provider: aws
    private_dns: ip-198-18-0-11.us-west-2.compute.internal
    private_ip: 198.18.0.11
    public_dns: ec2-198-19-0-11.us-west-2.compute.amazonaws.com
    public_ip: 198.19.0.11
"""

import hashlib
import os
import pwd
import re
import stat

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kafkaops.listeners.plugins.module_utils._broker_files import DEFAULT_KAFKA_HOME, role_files
from ansible_collections.kafkaops.listeners.plugins.module_utils._client_check import (
    SECURITY_ARGUMENT_SPEC,
    SECURITY_REQUIRED_BY,
    check_ahead,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import SASL_OPTIONS, SSL_OPTIONS
from ansible_collections.kafkaops.listeners.plugins.module_utils._endpoints import running_listener_properties
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import HostError
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_install import InstallError, find_install
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import (
    METADATA_ARGUMENT_SPEC,
    MetadataError,
    lookup_instance_metadata,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties_file import FORMATS
from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import (
    DEFAULT_TIMEOUT,
    ResolverError,
    probe_names,
)


def read_entries(path: str, file_format: str) -> dict | None:
    """The keys and values of the file at ``path`` as written (None when it does not exist); OSError (a file that
    is not a regular file included), or the format's parse error (a ValueError), otherwise."""
    kind = FORMATS[file_format]
    text = kind.read(path)
    return None if text is None else kind.parse(text).to_dict()


_KAFKA_JAR = re.compile(r"^kafka_2\.[0-9]+-([0-9]+\.[0-9]+\.[0-9]+)\.jar$")


def installed_release(kafka_home: str | None) -> str | None:
    """The release of the broker jar in ``kafka_home``/libs (the lowest if several), None when there is none."""
    try:
        names = os.listdir(os.path.join(kafka_home, "libs")) if kafka_home else []
    except OSError:
        return None
    releases = sorted(match.group(1) for match in map(_KAFKA_JAR.match, names) if match)
    return releases[0] if releases else None


def file_checksum(path: str) -> str | None:
    """SHA-1 of the file at ``path`` (what Ansible's copy compares), None when it does not exist; ValueError naming
    the path when it is not a regular file (a FIFO would block the read forever)."""
    digest = hashlib.sha1()  # noqa: S324 - a content checksum, as copy's, not a security use
    try:
        # O_NONBLOCK: opening a FIFO for reading would wait for a writer; a regular file reads as usual
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise ValueError("checksums: %r is not a regular file (a FIFO, device or directory); name the file "
                             "itself" % path)
        for block in iter(lambda: handle.read(65536), b""):
            digest.update(block)
    return digest.hexdigest()


def denied_folder(path: str) -> str | None:
    """The folder that keeps this process from creating or replacing ``path`` by rename (a temporary file beside it),
    None when nothing does: the file's folder, or the nearest existing parent of a folder not made yet."""
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(folder) and folder != os.path.dirname(folder):
        folder = os.path.dirname(folder)
    return None if os.access(folder, os.W_OK | os.X_OK) else folder


#: a partition's directory in a log directory: the topic (Kafka's legal characters) and the partition number
PARTITION_DIR = re.compile(r"^[A-Za-z0-9._-]+-[0-9]+$")
#: KRaft's own metadata log, which every KRaft node keeps: not data
METADATA_LOG = "__cluster_metadata-0"


def hosted_partitions(properties: dict) -> tuple:
    """(partitions, problem): the ``topic-N`` directories of the broker's log directories, sorted, or (None, why)
    when one cannot be listed."""
    value = properties.get("log.dirs") or properties.get("log.dir") or "/tmp/kafka-logs"
    found = set()
    for folder in (item.strip() for item in value.split(",") if item.strip()):
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return None, "cannot list the log directory %s (%s): %s" % (folder, "log.dirs" if properties.get(
                "log.dirs") else "log.dir", exc.strerror or exc)
        found.update(name for name in names if name != METADATA_LOG and PARTITION_DIR.match(name)
                     and os.path.isdir(os.path.join(folder, name)))
    return sorted(found), None


def locate(params: dict) -> tuple:
    """(the configuration file to read, the install as kafka_install_facts returns it): without ``path``, what of
    the properties file and the service is not given is found; InstallError when the file cannot be told."""
    given = {"properties_path": params["properties_path"], "service_name": params["service_name"]}
    if params["path"] or all(given.values()):
        install = dict(given, kafka_home=None, looked_at=[],
                       source={key: "given" for key, value in given.items() if value})
    else:
        install = find_install(**given)
    return params["path"] or install["properties_path"], install


def broker_role_files(options: dict | None, path: str, install: dict) -> tuple:
    """(the broker role's files or None, the files to checksum, the files to check write access to) for
    ``role_files`` options."""
    if options is None:
        return None, [], []
    files = role_files(path, install["properties_path"], install["service_name"], options["start_dropin_dir"])
    checksums = [options["start_program"], files["start_decision"], files["start_dropin"], files["pending_marker"]]
    writes = [path, files["pending_marker"], options["start_program"], files["start_decision"], files["start_dropin"]]
    return files, [item for item in checksums if item], [item for item in writes if item and options["write_access"]]


def user_name() -> str:
    """The name of the user this process runs as (its uid as text when no name is known)."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return str(os.geteuid())


def resolve_ahead(options: dict | None) -> tuple:
    """(the resolvability answers for ``resolve`` options, or None; a warning or None): a head start for the
    caller, so a problem with the names is a warning, not a failure."""
    if not options or not options["names"]:
        return None, None
    try:
        return probe_names(options["names"], timeout=options["timeout"], port=options["port"]), None
    except (HostError, ResolverError) as exc:
        return None, "resolve: the names were not checked here (%s); the caller resolves them itself" % exc


def main():
    module = AnsibleModule(
        argument_spec=dict(METADATA_ARGUMENT_SPEC,
                           path={"type": "path"},
                           format={"type": "str", "default": "properties", "choices": ["properties", "env"]},
                           properties_path={"type": "path"},
                           service_name={"type": "str"},
                           pending_marker={"type": "path"},
                           role_files={"type": "dict", "options": {
                               "start_program": {"type": "path"},
                               "start_dropin_dir": {"type": "path"},
                               "write_access": {"type": "bool", "default": False}}},
                           checksums={"type": "list", "elements": "path", "default": []},
                           write_access={"type": "list", "elements": "path", "default": []},
                           kafka_home={"type": "path"},
                           resolve={"type": "dict", "options": {
                               "names": {"type": "list", "elements": "str", "default": []},
                               "timeout": {"type": "float", "default": DEFAULT_TIMEOUT},
                               "port": {"type": "int"}}},
                           self_check={"type": "dict", "required_by": SECURITY_REQUIRED_BY, "options": dict(
                               {key: SECURITY_ARGUMENT_SPEC[key]
                                for key in ("security_protocol",) + SSL_OPTIONS + SASL_OPTIONS},
                               bootstrap={"type": "str", "required": True},
                               listener={"type": "str"},
                               timeout={"type": "float", "default": 5.0})}),
        mutually_exclusive=[("pending_marker", "role_files")],
        required_if=[("format", "env", ["path"])],
        supports_check_mode=True,
    )
    try:
        path, install = locate(module.params)
    except InstallError as exc:
        module.fail_json(msg=str(exc))
    files, role_checksums, role_writes = broker_role_files(module.params["role_files"], path, install)
    try:
        entries = read_entries(path, module.params["format"])
    except (OSError, ValueError) as exc:
        module.fail_json(msg="cannot read %s: %s" % (path, getattr(exc, "strerror", None) or exc))
    try:
        metadata, warnings = lookup_instance_metadata(module.params)
    except MetadataError as exc:
        module.fail_json(msg=str(exc))
    resolvability, problem = resolve_ahead(module.params["resolve"])
    self_check = check_ahead(module.params["self_check"]) if module.params["self_check"] else None
    for warning in warnings + ([problem] if problem else []):
        module.warn(warning)
    exists = entries is not None
    entries = entries if exists else {}
    properties = FORMATS[module.params["format"]].properties(entries)
    roles = [role.strip() for role in properties.get("process.roles", "").split(",") if role.strip()]
    marker = files["pending_marker"] if files else module.params["pending_marker"]
    kafka_home = module.params["kafka_home"] or install["kafka_home"] or (DEFAULT_KAFKA_HOME if files else None)
    try:
        checksums = {item: file_checksum(item) for item in module.params["checksums"] + role_checksums}
    except (OSError, ValueError) as exc:
        module.fail_json(msg=str(exc))
    partitions = None
    if exists and module.params["format"] == "properties":
        partitions, problem = hosted_partitions(properties)
        if problem:
            module.warn("%s. Whether the cluster holds replicated data is not known from this broker: if it does and "
                        "advertises nothing explicitly, set the broker role's broker_listener_options.in_service: true "
                        "(or run with become) so that it is planned as a cluster in service" % problem)
    module.exit_json(
        changed=False,
        exists=exists,
        properties=properties,
        listener_properties=running_listener_properties(properties),
        entries=entries,
        node_id=properties.get("node.id", properties.get("broker.id")),
        process_roles=roles,
        restart_pending=bool(marker) and os.path.exists(marker),
        kafka_version=installed_release(kafka_home),
        checksums=checksums,
        user=user_name(),
        write_denied={item: folder for item, folder in
                      ((item, denied_folder(item)) for item in module.params["write_access"] + role_writes) if folder},
        install=install,
        role_files=files,
        partitions=partitions,
        instance_metadata=metadata,
        resolvability=resolvability,
        self_check=self_check,
    )


if __name__ == "__main__":
    main()
