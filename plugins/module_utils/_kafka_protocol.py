# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What the client says to a broker and how it reads the answers: API keys, versions, error codes, and the
ApiVersions and Metadata request/response codecs.

Private to kafkaops.listeners: no compatibility promise outside the collection. Standard library only (modules run
on managed nodes).

Field layouts follow Kafka's message definitions (clients/src/main/resources/common/message/ApiVersions*.json,
Metadata*.json, DescribeConfigs*.json, DescribeQuorum*.json): ApiVersions v0-v3 (v3 flexible), Metadata v1-v12
(v9+ flexible), DescribeConfigs v1-v2 (the same layout; every Kafka from 0.11 to 4.x speaks one of them),
DescribeQuorum v0-v2 (flexible from v0; v1 adds the voters' fetch and caught-up times, v2 their directory ids, the
quorum's nodes and error messages).
"""

from __future__ import annotations

import re

from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_auth as ka
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_wire as kw

API_METADATA = 3
API_API_VERSIONS = 18
API_DESCRIBE_CONFIGS = 32
API_ELECT_LEADERS = 43
API_DESCRIBE_QUORUM = 55
API_NAMES = {API_METADATA: "Metadata", API_API_VERSIONS: "ApiVersions", API_DESCRIBE_CONFIGS: "DescribeConfigs",
             API_ELECT_LEADERS: "ElectLeaders", API_DESCRIBE_QUORUM: "DescribeQuorum"}
API_NAMES.update(ka.API_NAMES)

#: Inclusive version ranges this client speaks.
METADATA_VERSIONS = (1, 12)
API_VERSIONS_VERSIONS = (0, 3)
DESCRIBE_CONFIGS_VERSIONS = (1, 2)
DESCRIBE_QUORUM_VERSIONS = (0, 2)
ELECT_LEADERS_VERSIONS = (0, 2)
#: First flexible version (compact types, tagged fields, request header v2) of each API.
_FIRST_FLEXIBLE = {API_METADATA: 9, API_API_VERSIONS: 3, API_DESCRIBE_CONFIGS: 4, API_ELECT_LEADERS: 2,
                   API_DESCRIBE_QUORUM: 0}
_FIRST_FLEXIBLE.update(ka.FIRST_FLEXIBLE)

CLIENT_SOFTWARE_NAME = "kafkaops-listeners"
CLIENT_SOFTWARE_VERSION = "0.1.0"

ERROR_NONE = 0
ERROR_UNKNOWN_TOPIC_OR_PARTITION = 3
ERROR_UNSUPPORTED_VERSION = 35
ERROR_LISTENER_NOT_FOUND = 72
#: ElectLeaders' answer for a partition whose preferred replica leads already (not a failure)
ERROR_ELECTION_NOT_NEEDED = 84

#: Kafka error codes (org.apache.kafka.common.protocol.Errors) a Metadata or ApiVersions answer may carry.
ERROR_NAMES = {
    -1: "UNKNOWN_SERVER_ERROR",
    1: "OFFSET_OUT_OF_RANGE",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER",
    7: "REQUEST_TIMED_OUT",
    8: "BROKER_NOT_AVAILABLE",
    9: "REPLICA_NOT_AVAILABLE",
    17: "INVALID_TOPIC_EXCEPTION",
    19: "NOT_ENOUGH_REPLICAS",
    29: "TOPIC_AUTHORIZATION_FAILED",
    30: "GROUP_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    35: "UNSUPPORTED_VERSION",
    41: "NOT_CONTROLLER",
    42: "INVALID_REQUEST",
    56: "KAFKA_STORAGE_ERROR",
    58: "SASL_AUTHENTICATION_FAILED",
    72: "LISTENER_NOT_FOUND",
    80: "PREFERRED_LEADER_NOT_AVAILABLE",
    83: "ELIGIBLE_LEADERS_NOT_AVAILABLE",
    84: "ELECTION_NOT_NEEDED",
    100: "UNKNOWN_TOPIC_ID",
}

# Kafka's legal topic names (org.apache.kafka.common.internals.Topic): at most 249 of these characters.
_TOPIC_NAME = re.compile(r"^[a-zA-Z0-9._-]{1,249}$")


class KafkaClientError(Exception):
    """Talking to a broker failed; the message says with whom and why."""


class KafkaProtocolError(KafkaClientError):
    """The broker's answer was missing, malformed or an error; the message names the API and version."""


def error_name(code):
    """Kafka's name for an error code (None for 0), or ``error code N`` for codes this client does not list."""
    if code == ERROR_NONE:
        return None
    return ERROR_NAMES.get(code, "error code %d" % code)


def api_label(api_key, version):
    """``Metadata v12``-style label used in every protocol error message."""
    return "%s v%d" % (API_NAMES.get(api_key, "API %d" % api_key), version)


def is_flexible(api_key, version):
    """True when ``version`` of the API uses compact types and tagged fields."""
    return version >= _FIRST_FLEXIBLE[api_key]


def request_header_version(api_key, version):
    """Request header v2 for flexible versions, v1 otherwise."""
    return 2 if is_flexible(api_key, version) else 1


def response_header_version(api_key, version):
    """Response header v1 for flexible versions, except ApiVersions, whose response header is always v0.

    (A broker must be able to answer an ApiVersions request of a version it does not know, so that answer's
    header cannot depend on the version.)
    """
    if api_key == API_API_VERSIONS:
        return 0
    return 1 if is_flexible(api_key, version) else 0


def validate_topics(topics):
    """Return ``topics`` (None or a list) with every name checked against Kafka's topic-name rules."""
    if topics is None:
        return None
    if not isinstance(topics, (list, tuple)):
        raise KafkaClientError("topics must be a list of topic names, got %r" % (topics,))
    checked = []
    for index, name in enumerate(topics):
        if not isinstance(name, str) or not _TOPIC_NAME.match(name) or name in (".", ".."):
            raise KafkaClientError(
                "topics[%d]: %r is not a legal Kafka topic name (1 to 249 of letters, digits, '.', '_', '-'; "
                "not '.' or '..')" % (index, name)
            )
        if name not in checked:
            checked.append(name)
    return checked


# -------------------------------------------------------------------------------------------------------------- codecs


class _Fields:
    """Reads or writes one message body in its classic or flexible (compact) encoding."""

    def __init__(self, flexible, reader=None, writer=None):
        self.flexible = flexible
        self.reader = reader
        self.writer = writer

    # reading
    def string(self):
        return self.reader.compact_string() if self.flexible else self.reader.string()

    def nullable_string(self):
        return self.reader.compact_nullable_string() if self.flexible else self.reader.nullable_string()

    def array(self, read_item):
        return self.reader.compact_array(read_item) if self.flexible else self.reader.array(read_item)

    def int32_array(self):
        return self.array(lambda r: r.int32())

    def end_of_struct(self):
        """Skip the tagged fields that close every flexible struct (none are used by this client)."""
        if self.flexible:
            self.reader.tagged_fields()

    # writing
    def write_string(self, value):
        if self.flexible:
            self.writer.compact_string(value)
        else:
            self.writer.string(value)

    def write_nullable_array(self, items, write_item):
        if self.flexible:
            self.writer.compact_nullable_array(items, write_item)
        else:
            self.writer.nullable_array(items, write_item)

    def write_end_of_struct(self):
        if self.flexible:
            self.writer.tagged_fields()


def encode_api_versions_request(version, software_name=CLIENT_SOFTWARE_NAME, software_version=CLIENT_SOFTWARE_VERSION):
    """Body of an ApiVersions request: empty for v0-v2; v3 carries the client software name and version."""
    if not API_VERSIONS_VERSIONS[0] <= version <= API_VERSIONS_VERSIONS[1]:
        raise KafkaClientError("ApiVersions v%d is not supported by this client" % version)
    if version < 3:
        return b""
    return kw.Writer().compact_string(software_name).compact_string(software_version).tagged_fields().getvalue()


def decode_api_versions_response(reader, version):
    """Decode an ApiVersions response body; returns {"error_code", "api_versions": {key: (min, max)}, ...}.

    A broker that does not support the requested version answers UNSUPPORTED_VERSION in the v0 layout (listing the
    ApiVersions versions it does support), so that error code switches the rest of the decoding to v0.
    """
    error_code = reader.int16()
    layout = 0 if error_code == ERROR_UNSUPPORTED_VERSION else version
    fields = _Fields(is_flexible(API_API_VERSIONS, layout), reader=reader)

    def read_entry(r):
        entry = (r.int16(), r.int16(), r.int16())
        fields.end_of_struct()
        return entry

    entries = fields.array(read_entry)
    throttle_time_ms = reader.int32() if layout >= 1 else 0
    fields.end_of_struct()
    _expect_end(reader)
    return {
        "error_code": error_code,
        "api_versions": {key: (low, high) for key, low, high in entries},
        "throttle_time_ms": throttle_time_ms,
    }


def encode_metadata_request(version, topics=None, allow_auto_topic_creation=False):
    """Body of a Metadata request of ``version`` (1-12); ``topics`` None asks for every topic.

    Authorized operations are never requested. Versions 1-3 have no auto-creation flag (brokers then create
    requested topics when ``auto.create.topics.enable`` is on), so callers that must not create topics ask those
    versions for every topic instead.
    """
    if not METADATA_VERSIONS[0] <= version <= METADATA_VERSIONS[1]:
        raise KafkaClientError("Metadata v%d is not supported by this client" % version)
    writer = kw.Writer()
    fields = _Fields(is_flexible(API_METADATA, version), writer=writer)

    def write_topic(w, name):
        if version >= 10:
            w.uuid(None)  # topic id: zero UUID = look the topic up by name
            w.compact_nullable_string(name)
        else:
            fields.write_string(name)
        fields.write_end_of_struct()

    fields.write_nullable_array(None if topics is None else list(topics), write_topic)
    if version >= 4:
        writer.boolean(allow_auto_topic_creation)
    if 8 <= version <= 10:
        writer.boolean(False)  # include cluster authorized operations
    if version >= 8:
        writer.boolean(False)  # include topic authorized operations
    fields.write_end_of_struct()
    return writer.getvalue()


# the most brokers a Metadata answer may list: a hostile one listing 500,000 took 800 MB to hold and hours to check
MAX_BROKERS = 10000


def decode_metadata_response(reader, version):
    """Decode a Metadata response body of ``version`` (1-12) into plain dicts and lists.

    Returns {"throttle_time_ms", "brokers": [{"node_id", "host", "port", "rack"}], "cluster_id", "controller_id",
    "topics": [{"error_code", "name", "topic_id", "is_internal", "partitions": [{"error_code", "partition",
    "leader", "leader_epoch", "replicas", "isr", "offline_replicas"}]}]}; fields a version lacks get Kafka's
    defaults (None, -1, []). Trailing bytes are an error: they mean the layout does not match the version.
    """
    flexible = is_flexible(API_METADATA, version)
    fields = _Fields(flexible, reader=reader)
    throttle_time_ms = reader.int32() if version >= 3 else 0

    brokers_read = []

    def read_broker(r):
        if len(brokers_read) == MAX_BROKERS:
            raise kw.WireError("the answer lists more than %d brokers, more than any cluster this client checks: "
                               "not decoded further" % MAX_BROKERS)
        broker = {"node_id": r.int32(), "host": fields.string(), "port": r.int32(), "rack": fields.nullable_string()}
        fields.end_of_struct()
        brokers_read.append(broker)
        return broker

    brokers = fields.array(read_broker)
    cluster_id = fields.nullable_string() if version >= 2 else None
    controller_id = reader.int32()

    def read_partition(r):
        partition = {"error_code": r.int16(), "partition": r.int32(), "leader": r.int32()}
        partition["leader_epoch"] = r.int32() if version >= 7 else -1
        partition["replicas"] = fields.int32_array()
        partition["isr"] = fields.int32_array()
        partition["offline_replicas"] = fields.int32_array() if version >= 5 else []
        fields.end_of_struct()
        return partition

    def read_topic(r):
        topic = {"error_code": r.int16()}
        topic["name"] = fields.nullable_string() if version >= 12 else fields.string()
        topic_id = r.uuid() if version >= 10 else None
        topic["topic_id"] = str(topic_id) if topic_id is not None and topic_id.int else None
        topic["is_internal"] = r.boolean()
        topic["partitions"] = fields.array(read_partition)
        if version >= 8:
            r.int32()  # topic authorized operations (never requested)
        fields.end_of_struct()
        return topic

    topics = fields.array(read_topic)
    if 8 <= version <= 10:
        reader.int32()  # cluster authorized operations (never requested)
    fields.end_of_struct()
    _expect_end(reader)
    return {
        "throttle_time_ms": throttle_time_ms,
        "brokers": brokers,
        "cluster_id": cluster_id,
        "controller_id": controller_id,
        "topics": topics,
    }


#: DescribeConfigs resource type of a topic (org.apache.kafka.common.config.ConfigResource.Type)
RESOURCE_TOPIC = 2


def encode_describe_configs_request(version, topics, keys):
    """Body of a DescribeConfigs request (v1-v2) for the configuration ``keys`` of each topic in ``topics``."""
    if not DESCRIBE_CONFIGS_VERSIONS[0] <= version <= DESCRIBE_CONFIGS_VERSIONS[1]:
        raise KafkaClientError("DescribeConfigs v%d is not supported by this client" % version)
    writer = kw.Writer()

    def write_resource(w, name):
        w.int8(RESOURCE_TOPIC).string(name)
        w.nullable_array(list(keys), lambda w2, key: w2.string(key))

    writer.array(list(topics), write_resource)
    writer.boolean(False)  # include synonyms
    return writer.getvalue()


def decode_describe_configs_response(reader, version):
    """Decode a DescribeConfigs response body (v1-v2).

    Returns {"throttle_time_ms", "results": [{"error_code", "error_message", "resource_type", "resource_name",
    "configs": {name: value}}]}; a value is None when Kafka withholds it (a sensitive key).
    """
    throttle_time_ms = reader.int32()

    def read_synonym(r):
        r.string()
        r.nullable_string()
        r.int8()

    def read_config(r):
        name, value = r.string(), r.nullable_string()
        r.boolean()  # read only
        r.int8()  # config source
        r.boolean()  # is sensitive
        r.array(read_synonym)
        return name, value

    def read_result(r):
        result = {"error_code": r.int16(), "error_message": r.nullable_string(), "resource_type": r.int8(),
                  "resource_name": r.string()}
        result["configs"] = dict(r.array(read_config))
        return result

    results = reader.array(read_result)
    _expect_end(reader)
    return {"throttle_time_ms": throttle_time_ms, "results": results}


#: The KRaft metadata log: the one topic partition DescribeQuorum describes
CLUSTER_METADATA_TOPIC = "__cluster_metadata"


def encode_describe_quorum_request(version):
    """Body of a DescribeQuorum request (v0-v2, one layout) for partition 0 of the KRaft metadata log."""
    if not DESCRIBE_QUORUM_VERSIONS[0] <= version <= DESCRIBE_QUORUM_VERSIONS[1]:
        raise KafkaClientError("DescribeQuorum v%d is not supported by this client" % version)

    def write_partition(w, index):
        w.int32(index).tagged_fields()

    def write_topic(w, name):
        w.compact_string(name).compact_array([0], write_partition).tagged_fields()

    return kw.Writer().compact_array([CLUSTER_METADATA_TOPIC], write_topic).tagged_fields().getvalue()


def decode_describe_quorum_response(reader, version):
    """Decode a DescribeQuorum response body (v0-v2).

    Returns {"error_code", "error_message", "topics": [{"name", "partitions": [{"partition", "error_code",
    "error_message", "leader_id", "leader_epoch", "high_watermark", "voters", "observers"}]}], "nodes": [{"node_id",
    "listeners": [{"name", "host", "port"}]}]}; each voter or observer is {"replica_id", "log_end_offset",
    "last_fetch_timestamp", "last_caught_up_timestamp"} (the timestamps -1 before v1, as Kafka defaults them).
    At most MAX_BROKERS replicas and nodes in all: more is no cluster this client checks.
    """
    if not DESCRIBE_QUORUM_VERSIONS[0] <= version <= DESCRIBE_QUORUM_VERSIONS[1]:
        raise KafkaClientError("DescribeQuorum v%d is not supported by this client" % version)
    counted = [0]

    def count(what):
        counted[0] += 1
        if counted[0] > MAX_BROKERS:
            raise kw.WireError("the answer lists more than %d %s, more than any quorum this client checks: not "
                               "decoded further" % (MAX_BROKERS, what))

    def read_replica(r):
        count("replicas")
        replica = {"replica_id": r.int32()}
        if version >= 2:
            r.uuid()  # replica directory id
        replica["log_end_offset"] = r.int64()
        replica["last_fetch_timestamp"] = r.int64() if version >= 1 else -1
        replica["last_caught_up_timestamp"] = r.int64() if version >= 1 else -1
        r.tagged_fields()
        return replica

    def read_partition(r):
        partition = {"partition": r.int32(), "error_code": r.int16()}
        partition["error_message"] = r.compact_nullable_string() if version >= 2 else None
        partition.update(leader_id=r.int32(), leader_epoch=r.int32(), high_watermark=r.int64(),
                         voters=r.compact_array(read_replica), observers=r.compact_array(read_replica))
        r.tagged_fields()
        return partition

    def read_topic(r):
        topic = {"name": r.compact_string(), "partitions": r.compact_array(read_partition)}
        r.tagged_fields()
        return topic

    def read_listener(r):
        listener = {"name": r.compact_string(), "host": r.compact_string(), "port": r.uint16()}
        r.tagged_fields()
        return listener

    def read_node(r):
        count("nodes")
        node = {"node_id": r.int32(), "listeners": r.compact_array(read_listener)}
        r.tagged_fields()
        return node

    error_code = reader.int16()
    error_message = reader.compact_nullable_string() if version >= 2 else None
    topics = reader.compact_array(read_topic)
    nodes = reader.compact_array(read_node) if version >= 2 else []
    reader.tagged_fields()
    _expect_end(reader)
    return {"error_code": error_code, "error_message": error_message, "topics": topics, "nodes": nodes}


#: ElectLeaders' election type (v1+) that makes each partition's preferred replica (the first of its replicas) leader
ELECTION_PREFERRED = 0


def encode_elect_leaders_request(version, partitions, timeout_ms):
    """Body of an ElectLeaders request (v0-v2) electing the preferred leader of ``partitions`` ([(topic, [partition,
    ...]), ...]), the controller waiting up to ``timeout_ms`` for the elections. v0 has no election type (it is
    always the preferred replica)."""
    if not ELECT_LEADERS_VERSIONS[0] <= version <= ELECT_LEADERS_VERSIONS[1]:
        raise KafkaClientError("ElectLeaders v%d is not supported by this client" % version)
    flexible = is_flexible(API_ELECT_LEADERS, version)
    writer = kw.Writer()
    fields = _Fields(flexible, writer=writer)
    if version >= 1:
        writer.int8(ELECTION_PREFERRED)

    def write_topic(w, item):
        topic, ids = item
        fields.write_string(topic)
        if flexible:
            w.compact_array(list(ids), lambda w2, index: w2.int32(index))
        else:
            w.array(list(ids), lambda w2, index: w2.int32(index))
        fields.write_end_of_struct()

    fields.write_nullable_array(list(partitions), write_topic)
    writer.int32(timeout_ms)
    fields.write_end_of_struct()
    return writer.getvalue()


def decode_elect_leaders_response(reader, version):
    """Decode an ElectLeaders response body (v0-v2).

    Returns {"throttle_time_ms", "error_code" (0 before v1, which has none), "results": [{"topic", "partitions":
    [{"partition", "error_code", "error_message"}]}]}.
    """
    if not ELECT_LEADERS_VERSIONS[0] <= version <= ELECT_LEADERS_VERSIONS[1]:
        raise KafkaClientError("ElectLeaders v%d is not supported by this client" % version)
    fields = _Fields(is_flexible(API_ELECT_LEADERS, version), reader=reader)
    throttle_time_ms = reader.int32()
    error_code = reader.int16() if version >= 1 else ERROR_NONE

    def read_partition(r):
        partition = {"partition": r.int32(), "error_code": r.int16(), "error_message": fields.nullable_string()}
        fields.end_of_struct()
        return partition

    def read_topic(r):
        topic = {"topic": fields.string(), "partitions": fields.array(read_partition)}
        fields.end_of_struct()
        return topic

    results = fields.array(read_topic)
    fields.end_of_struct()
    _expect_end(reader)
    return {"throttle_time_ms": throttle_time_ms, "error_code": error_code, "results": results}


def _expect_end(reader):
    if not reader.at_end():
        raise kw.WireError("%d unexpected bytes after the end of the body" % reader.remaining)


def choose_version(api_key, client_range, broker_versions):
    """Highest version of ``api_key`` both sides support; KafkaProtocolError when the ranges do not overlap."""
    name = API_NAMES[api_key]
    if api_key not in broker_versions:
        hint = ""
        if api_key == API_METADATA:
            hint = " (a controller listener serves only ApiVersions: bootstrap through a broker listener)"
        raise KafkaProtocolError("the broker does not offer %s in its ApiVersions answer%s" % (name, hint))
    low, high = broker_versions[api_key]
    best = min(high, client_range[1])
    if best < max(low, client_range[0]):
        raise KafkaProtocolError(
            "no common %s version: the broker supports v%d-v%d, this client v%d-v%d"
            % (name, low, high, client_range[0], client_range[1])
        )
    return best
