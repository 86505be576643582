"""Request and response layouts of the APIs the stand-in serves, per version.

Field order and version ranges follow Kafka's message definitions
(clients/src/main/resources/common/message/<Api>{Request,Response}.json). Only the versions listed in
``SUPPORTED_VERSIONS`` are laid out here; they are all non-flexible except ApiVersions v3 and DescribeQuorum
(flexible from v0).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import wire as kw

PRODUCE = 0
FETCH = 1
LIST_OFFSETS = 2
METADATA = 3
API_VERSIONS = 18
INIT_PRODUCER_ID = 22
DESCRIBE_CONFIGS = 32
DESCRIBE_QUORUM = 55

API_NAMES = {
    PRODUCE: "Produce",
    FETCH: "Fetch",
    LIST_OFFSETS: "ListOffsets",
    METADATA: "Metadata",
    API_VERSIONS: "ApiVersions",
    INIT_PRODUCER_ID: "InitProducerId",
    DESCRIBE_CONFIGS: "DescribeConfigs",
    DESCRIBE_QUORUM: "DescribeQuorum",
}

# What the stand-in implements (and so advertises): api key -> (min, max).
SUPPORTED_VERSIONS = {
    PRODUCE: (3, 8),
    FETCH: (4, 11),
    LIST_OFFSETS: (1, 5),
    METADATA: (1, 8),
    API_VERSIONS: (0, 3),
    INIT_PRODUCER_ID: (0, 1),
    DESCRIBE_CONFIGS: (1, 2),
    DESCRIBE_QUORUM: (0, 1),  # v2 (Kafka 3.9+) adds directory ids and the quorum's nodes: not modelled
}
# A controller listener serves no client API: its ApiVersions answer lists ApiVersions alone.
CONTROLLER_SUPPORTED_VERSIONS = {API_VERSIONS: SUPPORTED_VERSIONS[API_VERSIONS]}

# First flexible version of each API (request header v2 / response header v1 from there on).
_FIRST_FLEXIBLE = {PRODUCE: 9, FETCH: 12, LIST_OFFSETS: 6, METADATA: 9, API_VERSIONS: 3, INIT_PRODUCER_ID: 2,
                   DESCRIBE_CONFIGS: 4, DESCRIBE_QUORUM: 0}

# Error codes (org.apache.kafka.common.protocol.Errors).
NONE = 0
OFFSET_OUT_OF_RANGE = 1
CORRUPT_MESSAGE = 2
UNKNOWN_TOPIC_OR_PARTITION = 3
LEADER_NOT_AVAILABLE = 5
NOT_LEADER_OR_FOLLOWER = 6
COORDINATOR_NOT_AVAILABLE = 15
INVALID_TOPIC_EXCEPTION = 17
UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42
INVALID_REPLICATION_FACTOR = 38
UNSUPPORTED_FOR_MESSAGE_FORMAT = 43
FETCH_SESSION_ID_NOT_FOUND = 70
LISTENER_NOT_FOUND = 72

# Metadata v8 "authorized operations" value meaning "not requested / unknown".
AUTHORIZED_OPERATIONS_OMITTED = -(1 << 31)


def api_label(api_key: int, version: int) -> str:
    """Human name of an API call, e.g. ``Metadata v4`` (unknown keys as ``api#<key> v<version>``)."""
    return f"{API_NAMES.get(api_key, f'api#{api_key}')} v{version}"


def is_flexible(api_key: int, version: int) -> bool:
    """True when this API version uses the compact/tagged-field encoding."""
    first = _FIRST_FLEXIBLE.get(api_key)
    return first is not None and version >= first


def request_header_version(api_key: int, version: int) -> int:
    """Request header version a client uses for this API version."""
    return 2 if is_flexible(api_key, version) else 1


def response_header_version(api_key: int, version: int) -> int:
    """Response header version for this API version (ApiVersions always answers with header v0)."""
    if api_key == API_VERSIONS:
        return 0
    return 1 if is_flexible(api_key, version) else 0


# ---------------------------------------------------------------------------------------------------------------
# ApiVersions (key 18)


def decode_api_versions_request(reader: kw.Reader, version: int) -> dict:
    """v0-2 have an empty body; v3 carries the client software name and version."""
    if version >= 3:
        name = reader.compact_string()
        software_version = reader.compact_string()
        reader.tagged_fields()
        return {"client_software_name": name, "client_software_version": software_version}
    return {}


def encode_api_versions_response(version: int, error_code: int, api_versions: dict[int, tuple[int, int]]) -> bytes:
    """ApiVersions response body; an UNSUPPORTED_VERSION answer must be given with ``version=0``."""
    out = kw.Writer().int16(error_code)
    entries = sorted(api_versions.items())
    if version >= 3:

        def write_flexible(w, item):
            w.int16(item[0]).int16(item[1][0]).int16(item[1][1]).tagged_fields()

        out.compact_array(entries, write_flexible)
    else:
        out.array(entries, lambda w, item: w.int16(item[0]).int16(item[1][0]).int16(item[1][1]))
    if version >= 1:
        out.int32(0)  # throttle_time_ms
    if version >= 3:
        out.tagged_fields()
    return out.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# Metadata (key 3), v1-8


@dataclass
class MetadataRequest:
    """Topics requested (None = all topics) and whether the client allows auto-creation."""

    topics: list[str] | None
    allow_auto_topic_creation: bool


def decode_metadata_request(reader: kw.Reader, version: int) -> MetadataRequest:
    """Metadata request v1-8 (v1+: a null topic array means all topics; v4 adds AllowAutoTopicCreation)."""
    topics = reader.nullable_array(lambda r: r.string())
    allow = True
    if version >= 4:
        allow = reader.boolean()
    if version >= 8:
        reader.boolean()  # include_cluster_authorized_operations
        reader.boolean()  # include_topic_authorized_operations
    return MetadataRequest(topics, allow)


@dataclass
class BrokerEntry:
    """One broker in a Metadata answer."""

    node_id: int
    host: str
    port: int
    rack: str | None


@dataclass
class PartitionEntry:
    """One partition in a Metadata answer."""

    error_code: int
    index: int
    leader_id: int
    leader_epoch: int
    replicas: list[int]
    isr: list[int]
    offline: list[int]


@dataclass
class TopicEntry:
    """One topic in a Metadata answer."""

    error_code: int
    name: str
    partitions: list[PartitionEntry]
    is_internal: bool = False


def encode_metadata_response(
    version: int,
    brokers: list[BrokerEntry],
    cluster_id: str | None,
    controller_id: int,
    topics: list[TopicEntry],
) -> bytes:
    """Metadata response v1-8."""
    out = kw.Writer()
    if version >= 3:
        out.int32(0)  # throttle_time_ms

    def write_broker(w, broker):
        w.int32(broker.node_id).string(broker.host).int32(broker.port).nullable_string(broker.rack)

    out.array(brokers, write_broker)
    if version >= 2:
        out.nullable_string(cluster_id)
    out.int32(controller_id)

    def write_int32(w, value):
        w.int32(value)

    def write_partition(w, part):
        w.int16(part.error_code).int32(part.index).int32(part.leader_id)
        if version >= 7:
            w.int32(part.leader_epoch)
        w.array(part.replicas, write_int32).array(part.isr, write_int32)
        if version >= 5:
            w.array(part.offline, write_int32)

    def write_topic(w, topic):
        w.int16(topic.error_code).string(topic.name).boolean(topic.is_internal)
        w.array(topic.partitions, write_partition)
        if version >= 8:
            w.int32(AUTHORIZED_OPERATIONS_OMITTED)

    out.array(topics, write_topic)
    if version >= 8:
        out.int32(AUTHORIZED_OPERATIONS_OMITTED)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# Produce (key 0), v3-8


@dataclass
class ProduceRequest:
    """Acks, timeout and ``{topic: [(partition, records bytes or None)]}`` in request order."""

    transactional_id: str | None
    acks: int
    timeout_ms: int
    topics: list[tuple[str, list[tuple[int, bytes | None]]]]


def decode_produce_request(reader: kw.Reader, version: int) -> ProduceRequest:
    """Produce request v3-8 (all share one layout)."""
    transactional_id = reader.nullable_string()
    acks = reader.int16()
    timeout_ms = reader.int32()

    def read_partition(r):
        return r.int32(), r.nullable_bytes()

    topics = reader.array(lambda r: (r.string(), r.array(read_partition)))
    return ProduceRequest(transactional_id, acks, timeout_ms, topics)


@dataclass
class ProducePartitionResult:
    """Outcome of appending one partition's records."""

    index: int
    error_code: int
    base_offset: int
    log_start_offset: int


def encode_produce_response(version: int, results: list[tuple[str, list[ProducePartitionResult]]]) -> bytes:
    """Produce response v3-8."""
    out = kw.Writer()

    def write_partition(w, res):
        w.int32(res.index).int16(res.error_code).int64(res.base_offset)
        w.int64(-1)  # log_append_time_ms: -1 = topics use CreateTime
        if version >= 5:
            w.int64(res.log_start_offset)
        if version >= 8:
            w.array([], lambda _w, _item: None)  # record_errors
            w.nullable_string(None)  # error_message

    out.array(results, lambda w, topic: w.string(topic[0]).array(topic[1], write_partition))
    out.int32(0)  # throttle_time_ms
    return out.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# ListOffsets (key 2), v1-5


@dataclass
class ListOffsetsRequest:
    """``{topic: [(partition, timestamp)]}`` in request order (-2 earliest, -1 latest)."""

    replica_id: int
    isolation_level: int
    topics: list[tuple[str, list[tuple[int, int]]]]


def decode_list_offsets_request(reader: kw.Reader, version: int) -> ListOffsetsRequest:
    """ListOffsets request v1-5 (v2 adds IsolationLevel, v4 adds CurrentLeaderEpoch)."""
    replica_id = reader.int32()
    isolation = reader.int8() if version >= 2 else 0

    def read_partition(r):
        index = r.int32()
        if version >= 4:
            r.int32()  # current_leader_epoch
        return index, r.int64()

    topics = reader.array(lambda r: (r.string(), r.array(read_partition)))
    return ListOffsetsRequest(replica_id, isolation, topics)


@dataclass
class ListOffsetsPartitionResult:
    """Offset found for one partition (or the error)."""

    index: int
    error_code: int
    timestamp: int
    offset: int


def encode_list_offsets_response(version: int, results: list[tuple[str, list[ListOffsetsPartitionResult]]]) -> bytes:
    """ListOffsets response v1-5."""
    out = kw.Writer()
    if version >= 2:
        out.int32(0)  # throttle_time_ms

    def write_partition(w, res):
        w.int32(res.index).int16(res.error_code).int64(res.timestamp).int64(res.offset)
        if version >= 4:
            w.int32(-1)  # leader_epoch: the stand-in does not track epochs

    out.array(results, lambda w, topic: w.string(topic[0]).array(topic[1], write_partition))
    return out.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# Fetch (key 1), v4-11


@dataclass
class FetchPartitionRequest:
    """One partition to read: where from and how many bytes at most."""

    index: int
    fetch_offset: int
    max_bytes: int


@dataclass
class FetchRequest:
    """A consumer's fetch: wait/size limits, session fields and partitions in request order."""

    replica_id: int
    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    isolation_level: int
    session_id: int
    session_epoch: int
    topics: list[tuple[str, list[FetchPartitionRequest]]]


def decode_fetch_request(reader: kw.Reader, version: int) -> FetchRequest:
    """Fetch request v4-11 (v5 LogStartOffset, v7 sessions + forgotten topics, v9 leader epoch, v11 rack)."""
    replica_id = reader.int32()
    max_wait_ms = reader.int32()
    min_bytes = reader.int32()
    max_bytes = reader.int32()
    isolation = reader.int8()
    session_id, session_epoch = 0, -1
    if version >= 7:
        session_id = reader.int32()
        session_epoch = reader.int32()

    def read_partition(r):
        index = r.int32()
        if version >= 9:
            r.int32()  # current_leader_epoch
        fetch_offset = r.int64()
        if version >= 5:
            r.int64()  # log_start_offset (followers only)
        return FetchPartitionRequest(index, fetch_offset, r.int32())

    topics = reader.array(lambda r: (r.string(), r.array(read_partition)))
    if version >= 7:
        reader.array(lambda r: (r.string(), r.array(lambda r2: r2.int32())))  # forgotten topics
    if version >= 11:
        reader.string()  # rack_id
    return FetchRequest(replica_id, max_wait_ms, min_bytes, max_bytes, isolation, session_id, session_epoch, topics)


@dataclass
class FetchPartitionResult:
    """Data (whole record batches, concatenated) or error for one partition."""

    index: int
    error_code: int
    high_watermark: int
    log_start_offset: int
    records: bytes | None


def encode_fetch_response(
    version: int, error_code: int, session_id: int, results: list[tuple[str, list[FetchPartitionResult]]]
) -> bytes:
    """Fetch response v4-11."""
    out = kw.Writer().int32(0)  # throttle_time_ms
    if version >= 7:
        out.int16(error_code).int32(session_id)

    def write_partition(w, res):
        w.int32(res.index).int16(res.error_code).int64(res.high_watermark)
        w.int64(res.high_watermark)  # last_stable_offset: no open transactions here
        if version >= 5:
            w.int64(res.log_start_offset)
        w.nullable_array(None, None)  # aborted_transactions
        if version >= 11:
            w.int32(-1)  # preferred_read_replica
        w.nullable_bytes(res.records)

    out.array(results, lambda w, topic: w.string(topic[0]).array(topic[1], write_partition))
    return out.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# InitProducerId (key 22), v0-1


def decode_init_producer_id_request(reader: kw.Reader, version: int) -> tuple[str | None, int]:
    """(transactional_id, transaction_timeout_ms) of InitProducerId v0-1."""
    return reader.nullable_string(), reader.int32()


def encode_init_producer_id_response(version: int, error_code: int, producer_id: int, producer_epoch: int) -> bytes:
    """InitProducerId response v0-1."""
    return kw.Writer().int32(0).int16(error_code).int64(producer_id).int16(producer_epoch).getvalue()


# ---------------------------------------------------------------------------------------------------------------
# DescribeConfigs (key 32), v1-2 (the same layout)

RESOURCE_TOPIC = 2


def decode_describe_configs_request(reader: kw.Reader, version: int) -> list[tuple[int, str, list[str] | None]]:
    """[(resource type, resource name, configuration keys or None for all)] of DescribeConfigs v1-2."""
    resources = reader.array(lambda r: (r.int8(), r.string(), r.nullable_array(lambda r2: r2.string())))
    reader.boolean()  # include synonyms (the stand-in has none)
    return resources


def encode_describe_configs_response(version: int, results: list[tuple[int, int, str, dict[str, str]]]) -> bytes:
    """DescribeConfigs response v1-2 from [(error code, resource type, resource name, {key: value})]; every value
    is reported as a static broker setting (source 4) or Kafka's default (source 5), never sensitive, no synonyms."""
    out = kw.Writer().int32(0)

    def write_config(w, item):
        name, (value, source) = item
        w.string(name).nullable_string(value).boolean(False).int8(source).boolean(False).array([], None)

    def write_result(w, result):
        error_code, resource_type, name, configs = result
        w.int16(error_code).nullable_string(None).int8(resource_type).string(name)
        w.array(sorted(configs.items()), write_config)

    out.array(results, write_result)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# DescribeQuorum (key 55), v0-1 (flexible; v1 adds the fetch and caught-up times)

CLUSTER_METADATA_TOPIC = "__cluster_metadata"


def decode_describe_quorum_request(reader: kw.Reader, version: int) -> list[tuple[str, list[int]]]:
    """[(topic name, [partition index])] of DescribeQuorum v0-1."""

    def read_partition(r):
        index = r.int32()
        r.tagged_fields()
        return index

    def read_topic(r):
        topic = (r.compact_string(), r.compact_array(read_partition))
        r.tagged_fields()
        return topic

    topics = reader.compact_array(read_topic)
    reader.tagged_fields()
    return topics


@dataclass
class ReplicaState:
    replica_id: int
    log_end_offset: int
    last_fetch_timestamp: int = -1
    last_caught_up_timestamp: int = -1


def encode_describe_quorum_response(
    version: int, error_code: int, leader_id: int, leader_epoch: int, high_watermark: int,
    voters: list[ReplicaState], observers: list[ReplicaState],
) -> bytes:
    """DescribeQuorum response v0-1 for partition 0 of the metadata log (``error_code`` on the partition)."""

    def write_replica(w, replica):
        w.int32(replica.replica_id).int64(replica.log_end_offset)
        if version >= 1:
            w.int64(replica.last_fetch_timestamp).int64(replica.last_caught_up_timestamp)
        w.tagged_fields()

    def write_partition(w, _index):
        w.int32(0).int16(error_code).int32(leader_id).int32(leader_epoch).int64(high_watermark)
        w.compact_array(voters, write_replica).compact_array(observers, write_replica).tagged_fields()

    def write_topic(w, name):
        w.compact_string(name).compact_array([0], write_partition).tagged_fields()

    return kw.Writer().int16(NONE).compact_array([CLUSTER_METADATA_TOPIC], write_topic).tagged_fields().getvalue()
