# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The Kafka client of kafka_metadata: codecs against hand-built bytes, connection behaviour against fake brokers.

Byte fixtures are laid out by hand from Kafka's message definitions (ApiVersionsRequest/Response.json,
MetadataRequest/Response.json). Fake brokers listen on 127.0.0.1 only; no name is ever looked up (endpoint checks
get a fake probe).
"""

from __future__ import annotations

import re
import socket
import ssl
import threading
import time
import uuid

import pytest
from broker_side import frame_size, read_request, response_frame

from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_connection as kconn
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_diagnosis as kd
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_protocol as kp
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_wire as kw

HANG_GUARD_S = 20  # only a guard against hangs; nothing here is a speed assertion


def h(text: str) -> bytes:
    """Bytes from hex written with spaces for readability."""
    return bytes.fromhex(text.replace(" ", "").replace("\n", ""))


# ---------------------------------------------------------------------------------------------------- ApiVersions


def test_api_versions_request_bodies():
    assert kp.encode_api_versions_request(0) == b""
    assert kp.encode_api_versions_request(2) == b""
    # v3: ClientSoftwareName, ClientSoftwareVersion as compact strings (length + 1), then empty tagged fields
    assert kp.encode_api_versions_request(3, "kc", "1") == h("03 6b63  02 31  00")
    with pytest.raises(kp.KafkaClientError, match="ApiVersions v4 is not supported"):
        kp.encode_api_versions_request(4)


def test_api_versions_request_v3_uses_header_v2_and_its_response_header_v0():
    assert kp.request_header_version(kp.API_API_VERSIONS, 3) == 2
    assert kp.request_header_version(kp.API_API_VERSIONS, 2) == 1
    assert kp.response_header_version(kp.API_API_VERSIONS, 3) == 0
    header = kw.encode_request_header(18, 3, 7, "c", kp.request_header_version(18, 3))
    assert header == h("0012 0003 00000007 0001 63 00")


def test_api_versions_response_v0_and_v1():
    v0 = h("0000  00000002  0003 0000 0007  0012 0000 0002")
    assert kp.decode_api_versions_response(kw.Reader(v0), 0) == {
        "error_code": 0,
        "api_versions": {3: (0, 7), 18: (0, 2)},
        "throttle_time_ms": 0,
    }
    v1 = h("0000  00000001  0003 0001 0008  00000064")
    answer = kp.decode_api_versions_response(kw.Reader(v1), 1)
    assert answer["api_versions"] == {3: (1, 8)}
    assert answer["throttle_time_ms"] == 100


def test_api_versions_response_v3_skips_tagged_fields():
    body = h(
        "0000"  # error
        " 03"  # compact array: 2 entries
        " 0003 0000 000c 00"  # Metadata 0-12, no tags
        " 0012 0000 0004 01 07 01 ff"  # ApiVersions 0-4, one unknown tag (7, 1 byte)
        " 00000000"  # throttle
        " 01 03 01 00"  # body tags: ZkMigrationReady (tag 3) = false
    )
    answer = kp.decode_api_versions_response(kw.Reader(body), 3)
    assert answer == {"error_code": 0, "api_versions": {3: (0, 12), 18: (0, 4)}, "throttle_time_ms": 0}


def test_unsupported_version_answer_is_decoded_in_the_v0_layout():
    # A broker that does not know ApiVersions v3 answers UNSUPPORTED_VERSION (35) in v0, listing what it supports.
    body = h("0023  00000001  0012 0000 0002")
    answer = kp.decode_api_versions_response(kw.Reader(body), 3)
    assert answer["error_code"] == kp.ERROR_UNSUPPORTED_VERSION
    assert answer["api_versions"] == {18: (0, 2)}


def test_api_versions_trailing_bytes_are_an_error():
    with pytest.raises(kw.WireError, match="1 unexpected bytes"):
        kp.decode_api_versions_response(kw.Reader(h("0000 00000000 ff")), 0)


# ---------------------------------------------------------------------------------------------------- Metadata request

ZERO_UUID = "00" * 16


@pytest.mark.parametrize(
    ("version", "topics", "expected"),
    [
        (1, None, "ffffffff"),
        (1, ["t"], "00000001 0001 74"),
        (3, [], "00000000"),
        (4, ["t"], "00000001 0001 74  00"),
        (7, None, "ffffffff  00"),
        (8, ["t"], "00000001 0001 74  00  00  00"),
        (9, None, "00  00 00 00  00"),
        (9, ["t"], "02 02 74 00  00  00  00  00"),
        (10, ["t"], f"02 {ZERO_UUID} 02 74 00  00  00  00  00"),
        (11, ["t"], f"02 {ZERO_UUID} 02 74 00  00  00  00"),
        (12, ["t", "uv"], f"03 {ZERO_UUID} 02 74 00 {ZERO_UUID} 03 7576 00  00  00  00"),
    ],
)
def test_metadata_request_bytes(version, topics, expected):
    # v1-3: nullable topic array; v4+: AllowAutoTopicCreation; v8-10: IncludeClusterAuthorizedOperations;
    # v8+: IncludeTopicAuthorizedOperations; v9+: compact + tags; v10+: TopicId before a nullable name.
    assert kp.encode_metadata_request(version, topics).hex() == h(expected).hex()


def test_metadata_request_can_allow_auto_creation_and_refuses_unknown_versions():
    assert kp.encode_metadata_request(4, ["t"], allow_auto_topic_creation=True)[-1:] == b"\x01"
    for version in (0, 13):
        with pytest.raises(kp.KafkaClientError, match="Metadata v%d is not supported" % version):
            kp.encode_metadata_request(version)


def test_metadata_header_versions_follow_flexibility():
    assert [kp.request_header_version(kp.API_METADATA, v) for v in (8, 9, 12)] == [1, 2, 2]
    assert [kp.response_header_version(kp.API_METADATA, v) for v in (8, 9, 12)] == [0, 1, 1]


# ---------------------------------------------------------------------------------------------------- Metadata response

METADATA_V1 = h(
    "00000001"  # brokers: 1
    " 00000001 0001 68 00002384 ffff"  # node 1, host "h", port 9092, rack null
    " 00000001"  # controller id
    " 00000001"  # topics: 1
    " 0000 0001 74 00"  # no error, "t", not internal
    " 00000001"  # partitions: 1
    " 0000 00000000 00000001"  # no error, partition 0, leader 1
    " 00000001 00000001"  # replicas [1]
    " 00000001 00000001"  # isr [1]
)

METADATA_V8 = h(
    "00000000"  # throttle
    " 00000002"  # brokers: 2
    " 00000001 0002 6831 00002384 0002 7261"  # node 1, "h1", 9092, rack "ra"
    " 00000002 0002 6832 00002385 ffff"  # node 2, "h2", 9093, rack null
    " 0003 636964"  # cluster id "cid"
    " 00000002"  # controller id
    " 00000001"  # topics: 1
    " 0000 0001 74 00"  # no error, "t", not internal
    " 00000002"  # partitions: 2
    " 0000 00000000 00000001 00000007"  # p0: leader 1, epoch 7
    " 00000002 00000001 00000002"  # replicas [1, 2]
    " 00000001 00000001"  # isr [1]
    " 00000000"  # offline []
    " 0005 00000001 ffffffff ffffffff"  # p1: LEADER_NOT_AVAILABLE, leader -1, epoch -1
    " 00000001 00000002"  # replicas [2]
    " 00000000"  # isr []
    " 00000001 00000002"  # offline [2]
    " 80000000"  # topic authorized operations
    " 80000000"  # cluster authorized operations
)

TOPIC_ID = uuid.UUID("01020304-0506-0708-090a-0b0c0d0e0f10")

METADATA_V12 = h(
    "00000000"  # throttle
    " 02"  # brokers: 1 (compact)
    " 00000001 02 68 00002384 00"  # node 1, "h", 9092, rack null
    " 01 05 02 abcd"  # broker tags: unknown tag 5, 2 bytes
    " 02 61"  # cluster id "a"
    " 00000001"  # controller id
    " 02"  # topics: 1
    " 0000 02 74" + TOPIC_ID.hex + " 01"  # no error, "t", topic id, internal
    + " 02"  # partitions: 1
    " 0000 00000000 00000001 00000005"  # p0: leader 1, epoch 5
    " 02 00000001  02 00000001  01"  # replicas [1], isr [1], offline []
    " 00"  # partition tags
    " 80000000"  # topic authorized operations
    " 00"  # topic tags
    " 00"  # response tags
)


def test_metadata_response_v1():
    answer = kp.decode_metadata_response(kw.Reader(METADATA_V1), 1)
    assert answer == {
        "throttle_time_ms": 0,
        "brokers": [{"node_id": 1, "host": "h", "port": 9092, "rack": None}],
        "cluster_id": None,
        "controller_id": 1,
        "topics": [
            {
                "error_code": 0,
                "name": "t",
                "topic_id": None,
                "is_internal": False,
                "partitions": [
                    {"error_code": 0, "partition": 0, "leader": 1, "leader_epoch": -1, "replicas": [1], "isr": [1],
                     "offline_replicas": []},
                ],
            }
        ],
    }


def test_metadata_response_v8():
    answer = kp.decode_metadata_response(kw.Reader(METADATA_V8), 8)
    assert answer["brokers"] == [
        {"node_id": 1, "host": "h1", "port": 9092, "rack": "ra"},
        {"node_id": 2, "host": "h2", "port": 9093, "rack": None},
    ]
    assert (answer["cluster_id"], answer["controller_id"]) == ("cid", 2)
    p0, p1 = answer["topics"][0]["partitions"]
    assert (p0["leader"], p0["leader_epoch"], p0["replicas"], p0["isr"]) == (1, 7, [1, 2], [1])
    assert (p1["error_code"], p1["leader"], p1["isr"], p1["offline_replicas"]) == (5, -1, [], [2])


def test_metadata_response_v12_with_topic_id_and_unknown_tags():
    answer = kp.decode_metadata_response(kw.Reader(METADATA_V12), 12)
    assert answer["brokers"] == [{"node_id": 1, "host": "h", "port": 9092, "rack": None}]
    assert answer["cluster_id"] == "a"
    topic = answer["topics"][0]
    assert (topic["name"], topic["topic_id"], topic["is_internal"]) == ("t", str(TOPIC_ID), True)
    assert topic["partitions"][0]["leader_epoch"] == 5


def test_every_truncation_of_a_response_is_a_wire_error():
    for cut in range(len(METADATA_V12)):
        with pytest.raises(kw.WireError):
            kp.decode_metadata_response(kw.Reader(METADATA_V12[:cut]), 12)


def test_an_answer_listing_more_brokers_than_the_bound_is_refused_before_it_is_held(monkeypatch):
    monkeypatch.setattr(kp, "MAX_BROKERS", 3)
    broker = h("00000001 0001 68 00002384 ffff")
    many = h("00000004") + broker * 4 + h("00000001 00000000")
    with pytest.raises(kw.WireError, match="the answer lists more than 3 brokers, more than any cluster this client"):
        kp.decode_metadata_response(kw.Reader(many), 1)
    three = h("00000003") + broker * 3 + h("00000001 00000000")
    assert len(kp.decode_metadata_response(kw.Reader(three), 1)["brokers"]) == 3


def test_a_response_read_at_the_wrong_version_is_rejected():
    # v8 bytes read as v7 leave the authorized-operations fields behind; read as v9 they are not compact.
    with pytest.raises(kw.WireError, match="unexpected bytes"):
        kp.decode_metadata_response(kw.Reader(METADATA_V8), 7)
    with pytest.raises(kw.WireError):
        kp.decode_metadata_response(kw.Reader(METADATA_V8), 9)


def spec_metadata_response(version: int) -> bytes:
    """A Metadata response of ``version`` written field by field from MetadataResponse.json's version ranges."""
    flexible = version >= 9
    w = kw.Writer()

    def string(value):
        w.compact_string(value) if flexible else w.string(value)

    def nullable_string(value):
        w.compact_nullable_string(value) if flexible else w.nullable_string(value)

    def count(n):
        w.unsigned_varint(n + 1) if flexible else w.int32(n)

    def tags():
        if flexible:
            w.tagged_fields()

    def int32s(values):
        count(len(values))
        for value in values:
            w.int32(value)

    if version >= 3:
        w.int32(25)  # ThrottleTimeMs 3+
    count(1)
    w.int32(4)
    string("broker-4.example")
    w.int32(19092)
    nullable_string("rack-a")  # Rack 1+
    tags()
    if version >= 2:
        nullable_string("cluster-x")  # ClusterId 2+
    w.int32(4)  # ControllerId 1+
    count(1)
    w.int16(0)
    nullable_string("orders") if version >= 12 else string("orders")  # Name nullable 12+
    if version >= 10:
        w.uuid(TOPIC_ID)  # TopicId 10+
    w.boolean(False)  # IsInternal 1+
    count(1)
    w.int16(0)
    w.int32(3)
    w.int32(4)
    if version >= 7:
        w.int32(9)  # LeaderEpoch 7+
    int32s([4, 5])
    int32s([4])
    if version >= 5:
        int32s([5])  # OfflineReplicas 5+
    tags()
    if version >= 8:
        w.int32(-(2**31))  # TopicAuthorizedOperations 8+
    tags()
    if 8 <= version <= 10:
        w.int32(-(2**31))  # ClusterAuthorizedOperations 8-10
    tags()
    return w.getvalue()


@pytest.mark.parametrize("version", range(1, 13))
def test_metadata_response_fields_per_version(version):
    answer = kp.decode_metadata_response(kw.Reader(spec_metadata_response(version)), version)
    assert answer["throttle_time_ms"] == (25 if version >= 3 else 0)
    assert answer["brokers"] == [{"node_id": 4, "host": "broker-4.example", "port": 19092, "rack": "rack-a"}]
    assert answer["cluster_id"] == ("cluster-x" if version >= 2 else None)
    partition = answer["topics"][0]["partitions"][0]
    assert answer["topics"][0]["topic_id"] == (str(TOPIC_ID) if version >= 10 else None)
    assert partition["leader_epoch"] == (9 if version >= 7 else -1)
    assert partition["offline_replicas"] == ([5] if version >= 5 else [])
    assert (partition["partition"], partition["leader"], partition["replicas"], partition["isr"]) == (3, 4, [4, 5], [4])


# ---------------------------------------------------------------------------------------------------- negotiation


def test_choose_version_picks_the_highest_common_one():
    assert kp.choose_version(kp.API_METADATA, (1, 12), {3: (0, 13)}) == 12
    assert kp.choose_version(kp.API_METADATA, (1, 12), {3: (1, 8)}) == 8
    with pytest.raises(kp.KafkaProtocolError, match="broker supports v13-v14, this client v1-v12"):
        kp.choose_version(kp.API_METADATA, (1, 12), {3: (13, 14)})
    with pytest.raises(kp.KafkaProtocolError, match="does not offer Metadata.*controller listener"):
        kp.choose_version(kp.API_METADATA, (1, 12), {18: (0, 3)})


# ---------------------------------------------------------------------------------------------------- input checks


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("broker-1.example.com:9092", ("broker-1.example.com", 9092)),
        (" 10.0.0.5:19092 ", ("10.0.0.5", 19092)),
        ("[::1]:9093", ("::1", 9093)),
        ("Broker.Example.:9092", ("Broker.Example", 9092)),
    ],
)
def test_parse_bootstrap_accepts_host_port(value, expected):
    assert kconn.parse_bootstrap(value) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("broker-1", "not of the form host:port"),
        ("::1:9092", "not of the form host:port"),
        ("broker:0", "port 0 is not between 1 and 65535"),
        ("broker:70000", "port 70000 is not between 1 and 65535"),
        ("bad host:9092", "contains whitespace"),
        ("evil\nadvertised.listeners=x:9092", "contains a newline"),
        (9092, "is not a string"),
    ],
)
def test_parse_bootstrap_names_the_bad_value(value, message):
    with pytest.raises(kp.KafkaClientError, match=message):
        kconn.parse_bootstrap(value)


def test_validate_topics():
    assert kp.validate_topics(None) is None
    assert kp.validate_topics(["a", "b.c_d-1", "a"]) == ["a", "b.c_d-1"]
    for bad in ("", "..", "with space", "x" * 250, "t/1"):
        with pytest.raises(kp.KafkaClientError, match=r"topics\[1\]: .* is not a legal Kafka topic name"):
            kp.validate_topics(["ok", bad])


def test_ssl_context_names_the_file_it_cannot_load(tmp_path):
    missing = tmp_path / "missing.pem"
    with pytest.raises(kp.KafkaClientError, match="ssl_ca_file .*missing.pem cannot be loaded"):
        kconn.make_ssl_context(ca_file=str(missing))
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(kp.KafkaClientError, match="ssl_cert_file .*junk.pem cannot be loaded"):
        kconn.make_ssl_context(cert_file=str(junk))
    with pytest.raises(kp.KafkaClientError, match="ssl_key_file is set without ssl_cert_file"):
        kconn.make_ssl_context(key_file=str(junk))
    relaxed = kconn.make_ssl_context(verify=False)
    assert (relaxed.verify_mode, relaxed.check_hostname) == (ssl.CERT_NONE, False)
    strict = kconn.make_ssl_context()
    assert (strict.verify_mode, strict.check_hostname) == (ssl.CERT_REQUIRED, True)


# ---------------------------------------------------------------------------------------------------- fake brokers


def _header_version(api_key, version):
    """The request header version a broker expects: 2 from the API's first flexible version, else (and for APIs the
    client does not know) 1."""
    return 2 if version >= kp._FIRST_FLEXIBLE.get(api_key, 99) else 1


class FakeBroker:
    """A loopback TCP server answering Kafka requests with ``respond(api_key, version, body) -> action``.

    Actions: ``("body", bytes)`` answers with the right response header; ``("raw", bytes)`` sends bytes as they are
    and closes; ``("close", None)`` closes; ``("silent", None)`` reads on without answering.
    """

    def __init__(self, respond):
        self.respond = respond
        self.requests = []  # (api_key, version, header_version, client_id, body)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(HANG_GUARD_S)
        self.port = self.server.getsockname()[1]
        self.address = "127.0.0.1:%d" % self.port
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _read(self, conn, count):
        data = b""
        while len(data) < count:
            chunk = conn.recv(count - len(data))
            if not chunk:
                raise ConnectionError("client went away")
            data += chunk
        return data

    def _serve(self):
        try:
            while True:
                conn, _peer = self.server.accept()
                conn.settimeout(HANG_GUARD_S)
                with conn:
                    self._handle(conn)
        except OSError:
            pass  # server closed, or a client went away

    def _handle(self, conn):
        while True:
            payload = self._read(conn, frame_size(self._read(conn, 4)))
            header, reader = read_request(payload, _header_version)
            api_key, version = header.api_key, header.api_version
            body = reader.raw(reader.remaining)
            self.requests.append((api_key, version, _header_version(api_key, version), header.client_id, body))
            action, data = self.respond(api_key, version, body)
            if action == "close":
                return
            if action == "raw":
                conn.sendall(data)
                return
            if action == "silent":
                continue
            conn.sendall(response_frame(header.correlation_id, kp.response_header_version(api_key, version), data))

    def close(self):
        self.server.close()


@pytest.fixture
def fake_broker():
    started = []

    def start(respond):
        broker = FakeBroker(respond)
        started.append(broker)
        return broker

    yield start
    for broker in started:
        broker.close()


def api_versions_v3_body(metadata_range=(0, 12)):
    w = kw.Writer().int16(0).unsigned_varint(3)
    w.int16(3).int16(metadata_range[0]).int16(metadata_range[1]).tagged_fields()
    w.int16(18).int16(0).int16(3).tagged_fields()
    return w.int32(0).tagged_fields().getvalue()


def standard_broker(metadata_range=(0, 12), metadata_body=None):
    """Responder of a healthy broker: ApiVersions v3, then Metadata (spec fixture of the requested version)."""

    def respond(api_key, version, body):
        if api_key == kp.API_API_VERSIONS:
            return "body", api_versions_v3_body(metadata_range)
        return "body", metadata_body if metadata_body is not None else spec_metadata_response(version)

    return respond


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_fetch_metadata_uses_the_highest_common_versions(fake_broker):
    broker = fake_broker(standard_broker())
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, client_id="unit-test")
    assert result["bootstrap_used"] == broker.address
    assert result["metadata_version"] == 12
    assert result["metadata"]["brokers"][0]["host"] == "broker-4.example"
    (api1, v1, hv1, client1, body1), (api2, v2, hv2, _client2, body2) = broker.requests
    assert (api1, v1, hv1, client1) == (18, 3, 2, "unit-test")
    assert body1 == kp.encode_api_versions_request(3)
    assert (api2, v2, hv2) == (3, 12, 2)
    assert body2 == kp.encode_metadata_request(12, None)


def test_fetch_metadata_settles_on_the_brokers_maximum(fake_broker):
    broker = fake_broker(standard_broker(metadata_range=(1, 8)))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, topics=["orders"])
    assert result["metadata_version"] == 8
    assert broker.requests[1][1:3] == (8, 1)
    # auto-creation is refused in the request
    assert broker.requests[1][4] == kp.encode_metadata_request(8, ["orders"], allow_auto_topic_creation=False)


def test_unsupported_api_versions_version_is_retried_at_the_version_the_broker_lists(fake_broker):
    def respond(api_key, version, body):
        if api_key == kp.API_API_VERSIONS and version == 3:
            return "body", h("0023  00000001  0012 0000 0002")
        if api_key == kp.API_API_VERSIONS:
            return "body", h("0000  00000002  0003 0000 0005  0012 0000 0002  00000000")
        return "body", spec_metadata_response(version)

    broker = fake_broker(respond)
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S)
    assert [request[:2] for request in broker.requests] == [(18, 3), (18, 2), (3, 5)]
    assert result["metadata_version"] == 5


def test_old_metadata_versions_ask_for_all_topics_so_nothing_is_auto_created(fake_broker):
    broker = fake_broker(standard_broker(metadata_range=(0, 3)))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, topics=["orders", "missing"])
    assert broker.requests[1][4] == kp.encode_metadata_request(3, None)
    names = [(t["name"], t["error_code"]) for t in result["metadata"]["topics"]]
    assert names == [("orders", 0), ("missing", kp.ERROR_UNKNOWN_TOPIC_OR_PARTITION)]


def test_a_controller_listener_is_named(fake_broker):
    def respond(api_key, version, body):
        return "body", kw.Writer().int16(0).unsigned_varint(2).int16(18).int16(0).int16(3).tagged_fields().int32(
            0).tagged_fields().getvalue()

    broker = fake_broker(respond)
    with pytest.raises(kconn.NoBootstrapServerError, match="does not offer Metadata.*controller listener"):
        kconn.fetch_metadata([broker.address], HANG_GUARD_S)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (("raw", b"HTTP/1.1 400 Bad Request\r\n\r\n"), r"ApiVersions v3: the answer does not look like a Kafka"),
        (("raw", h("15 0303 0002 0232")), r"ApiVersions v3: the answer is a TLS alert.*set security_protocol to SSL"),
        (("close", None), r"ApiVersions v3: the broker closed the connection before answering"),
    ],
)
def test_answers_that_are_not_kafka_name_the_api_and_version(fake_broker, action, message):
    broker = fake_broker(lambda api_key, version, body: action)
    with pytest.raises(kconn.NoBootstrapServerError, match=message) as raised:
        kconn.fetch_metadata([broker.address], HANG_GUARD_S)
    assert raised.value.failures[0][0] == broker.address


def test_malformed_metadata_names_the_api_and_version(fake_broker):
    broker = fake_broker(standard_broker(metadata_body=METADATA_V8))  # v8 bytes where v12 is expected
    with pytest.raises(kconn.NoBootstrapServerError, match=r"Metadata v12: malformed response"):
        kconn.fetch_metadata([broker.address], HANG_GUARD_S)


def test_a_wrong_correlation_id_is_refused(fake_broker):
    def respond(api_key, version, body):
        return "raw", response_frame(999, 0, api_versions_v3_body())

    broker = fake_broker(respond)
    with pytest.raises(kconn.NoBootstrapServerError, match="ApiVersions v3: the response carries correlation id 999"):
        kconn.fetch_metadata([broker.address], HANG_GUARD_S)


def test_a_broker_that_never_answers_times_out(fake_broker):
    broker = fake_broker(lambda api_key, version, body: ("silent", None))
    with pytest.raises(kconn.NoBootstrapServerError, match="ApiVersions v3: timed out"):
        kconn.fetch_metadata([broker.address], 0.5)


def test_the_next_bootstrap_server_is_tried_and_failures_are_kept(fake_broker):
    dead = "127.0.0.1:%d" % closed_port()
    broker = fake_broker(standard_broker())
    result = kconn.fetch_metadata([dead, broker.address], HANG_GUARD_S)
    assert result["bootstrap_used"] == broker.address
    assert result["bootstrap_errors"][0]["server"] == dead
    assert "TCP connect failed" in result["bootstrap_errors"][0]["error"]


def test_no_bootstrap_server_lists_each_one_with_its_error():
    first, second = "127.0.0.1:%d" % closed_port(), "[::1]:%d" % closed_port()
    with pytest.raises(kconn.NoBootstrapServerError) as raised:
        kconn.fetch_metadata([first, second], HANG_GUARD_S)
    assert [server for server, _reason in raised.value.failures] == [first, second]
    assert str(raised.value).startswith("no bootstrap server answered Metadata: %s: TCP connect failed" % first)


def test_fetch_metadata_checks_its_arguments():
    with pytest.raises(kp.KafkaClientError, match="bootstrap must be a non-empty list"):
        kconn.fetch_metadata([], 5)
    with pytest.raises(kp.KafkaClientError, match="timeout must be a number of seconds greater than 0"):
        kconn.fetch_metadata(["127.0.0.1:9092"], 0)
    with pytest.raises(kp.KafkaClientError, match="not of the form host:port"):
        kconn.fetch_metadata(["127.0.0.1"], 5)


# ---------------------------------------------------------------------------------------------------- module view


def test_summarize_metadata_sorts_names_errors_and_finds_under_replicated_partitions():
    view = kd.summarize_metadata(kp.decode_metadata_response(kw.Reader(METADATA_V8), 8))
    assert [b["node_id"] for b in view["brokers"]] == [1, 2]
    topic = view["topics"][0]
    assert [p["error"] for p in topic["partitions"]] == [None, "LEADER_NOT_AVAILABLE"]
    assert view["under_replicated"] == [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 1}]
    assert kp.error_name(0) is None
    assert kp.error_name(72) == "LISTENER_NOT_FOUND"
    assert kp.error_name(12345) == "error code 12345"


class FakeProbe:
    """Stands in for ``_resolver.probe_names``: answers from a table, records its calls, resolves nothing."""

    def __init__(self, table):
        self.table = table  # lower-case name -> (addresses or None, connectable, error)
        self.calls = []
        self.lock = threading.Lock()

    def __call__(self, names, timeout, total_timeout, port):
        with self.lock:
            self.calls.append((sorted(names), timeout, total_timeout, port))
        results = []
        for name in names:
            addresses, connectable, error = self.table[name.lower()]
            results.append({"name": name, "resolvable": addresses is not None, "addresses": addresses or [],
                            "connectable": connectable, "error": error})
        return {"results": results}


UNRESOLVABLE = "ip-172-31-18-160.us-west-2.compute.internal"


def test_check_endpoints_probes_a_few_ports_at_once_and_stays_within_its_bound():
    # a hostile answer: 2,000 brokers, each on a port of its own, each probe slow
    running, most, lock = [0], [0], threading.Lock()

    def slow_probe(names, timeout, total_timeout, port):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.2)
        with lock:
            running[0] -= 1
        return {"results": [{"name": name, "resolvable": True, "addresses": ["198.18.0.1"], "connectable": True,
                             "error": None} for name in names]}

    brokers = [{"node_id": n, "host": "b%d.example" % n, "port": 10000 + n} for n in range(2000)]
    started = time.monotonic()
    endpoints = kd.check_endpoints(brokers, 0.5, probe=slow_probe)
    assert time.monotonic() - started < 2 * 0.5 + 5 + 1
    assert most[0] <= kd.PROBE_THREADS
    assert len(endpoints) == 2000
    checked = [e for e in endpoints if e["connectable"]]
    assert checked and all(e["error"] == "the check did not finish" for e in endpoints if not e["connectable"])


def test_check_endpoints_reports_every_broker_and_never_resolves_invalid_hosts():
    brokers = [
        {"node_id": 1, "host": UNRESOLVABLE, "port": 9092},
        {"node_id": 2, "host": "b2.example", "port": 9092},
        {"node_id": 3, "host": "B2.Example", "port": 9093},
        {"node_id": 4, "host": "evil\nadvertised.listeners=x", "port": 9092},
        {"node_id": 5, "host": "b5.example", "port": 0},
    ]
    probe = FakeProbe({
        UNRESOLVABLE: (None, False, "Name or service not known"),
        "b2.example": (["10.0.0.2"], True, None),
    })
    endpoints = kd.check_endpoints(brokers, 1.5, probe=probe)

    # one probe per port (run in parallel); names differing only in case are probed once per port
    assert sorted(probe.calls, key=lambda call: call[3]) == [
        (sorted([UNRESOLVABLE, "b2.example"]), 1.5, 3.0, 9092),
        (["B2.Example"], 1.5, 3.0, 9093),
    ]
    assert [e["node_id"] for e in endpoints] == [1, 2, 3, 4, 5]
    one, two, three, four, five = endpoints
    assert (one["resolvable"], one["connectable"], one["error"]) == (False, False, "Name or service not known")
    assert (two["resolvable"], two["addresses"], two["connectable"], two["error"]) == (True, ["10.0.0.2"], True, None)
    assert three["connectable"] is True
    assert four["resolvable"] is False and "contains a newline" in four["error"]
    assert five["error"] == "broker 5 advertises port 0, which is not a TCP port"
    assert [e["node_id"] for e in kd.unreachable_endpoints(endpoints)] == [1, 4, 5]


def test_a_failing_probe_still_gives_every_endpoint_a_result():
    def broken(names, timeout, total_timeout, port):
        raise RuntimeError("resolver exploded")

    (endpoint,) = kd.check_endpoints([{"node_id": 1, "host": "b1.example", "port": 9092}], 1, probe=broken)
    assert endpoint["error"] == "the check failed: resolver exploded"
    assert kd.unreachable_endpoints([endpoint]) == [endpoint]


def endpoint(node_id, host, port=9092, resolvable=True, connectable=True, error=None):
    return {"node_id": node_id, "host": host, "port": port, "resolvable": resolvable,
            "addresses": ["10.0.0.%d" % node_id] if resolvable else [], "connectable": connectable, "error": error}


def test_summary_says_the_advertised_host_does_not_resolve():
    brokers = [{"node_id": 1, "host": UNRESOLVABLE, "port": 9092}]
    unresolved = [endpoint(1, UNRESOLVABLE, resolvable=False, connectable=False, error="Name or service not known")]
    assert kd.summary_line("ec2.example:9092", brokers, unresolved) == (
        "bootstrap ec2.example:9092 reachable, but advertised host %s does not resolve from this host: "
        "clients fail after the first connection" % UNRESOLVABLE
    )


def test_summary_names_the_brokers_whose_partitions_fail_when_only_some_endpoints_do():
    brokers = [{"node_id": n, "host": "b%d.example" % n, "port": 9092} for n in (1, 2, 3)]
    endpoints = [
        endpoint(1, "b1.example"),
        endpoint(2, "b2.example", connectable=False, error="Connection refused"),
        endpoint(3, "b3.example", resolvable=False, connectable=False, error="timed out after 5.0 s"),
    ]
    line = kd.summary_line("b1.example:9092", brokers, endpoints)
    assert "advertised host b3.example does not resolve from this host" in line
    assert "advertised endpoint b2.example:9092 resolves but does not accept connections from this host" in line
    assert line.endswith("clients fail on every partition led by brokers 2, 3")


def test_summary_when_everything_works_nothing_is_checked_or_no_broker_is_listed():
    brokers = [{"node_id": 1, "host": "b1.example", "port": 9092}]
    assert kd.summary_line("b1.example:9092", brokers, [endpoint(1, "b1.example")]) == (
        "bootstrap b1.example:9092 reachable and all 1 advertised endpoint(s) resolve and accept connections from "
        "this host"
    )
    assert "endpoints not checked" in kd.summary_line("b1.example:9092", brokers)
    assert "lists no broker on this listener" in kd.summary_line("b1.example:9092", [], [])


def test_summary_reports_an_invalid_advertised_host():
    brokers = [{"node_id": 7, "host": "a b", "port": 9092}]
    (checked,) = kd.check_endpoints(brokers, 1, probe=FakeProbe({}))
    line = kd.summary_line("10.0.0.1:9092", brokers, [checked])
    assert "broker 7 advertises an unusable endpoint (invalid host 'a b'" in line
    assert line.endswith("clients fail after the first connection")


@pytest.mark.parametrize(("host", "klass"), [
    ("169.254.10.1", "a link-local host (the address 169.254.10.1)"), ("fe80::1", "a link-local host"),
    ("0.0.0.0", "an unspecified host (the address 0.0.0.0)"), ("::", "an unspecified host"),
    ("224.0.0.1", "a multicast host"), ("255.255.255.255", "a broadcast host"),
])
def test_endpoint_warnings_flag_hosts_no_other_client_can_use(host, klass):
    warnings = kd.endpoint_warnings([{"node_id": 1, "host": host, "port": 9092}], "kafka.example.com:9092")
    assert len(warnings) == 1 and warnings[0].startswith("broker 1 advertises ") and klass in warnings[0]


def test_endpoint_warnings_flag_loopback_and_duplicate_endpoints():
    brokers = [
        {"node_id": 1, "host": "localhost", "port": 9092},
        {"node_id": 2, "host": "b.example", "port": 9092},
        {"node_id": 3, "host": "B.example", "port": 9092},
    ]
    warnings = kd.endpoint_warnings(brokers, "10.0.0.1:9092")
    assert warnings[0].startswith("broker 1 advertises localhost:9092, a loopback host")
    assert warnings[1] == "brokers 2, 3 all advertise b.example:9092: clients cannot tell them apart"
    # Reached over loopback, a loopback advertisement is what this client needs.
    assert kd.endpoint_warnings(brokers[:1], "127.0.0.1:9092") == []
    assert kd.endpoint_warnings(brokers[:1], "[::1]:9092") == []


def test_listener_not_found_partitions_are_listed():
    topics = [{"name": "t", "partitions": [{"partition": 0, "error": None},
                                           {"partition": 1, "error": "LISTENER_NOT_FOUND"}]}]
    assert kd.listener_not_found(topics) == ["t/1"]


# ------------------------------------------------------------------------------------------------ DescribeConfigs

# DescribeConfigsRequest.json v1: resources [type int8, name string, keys nullable [string]], include synonyms bool
DESCRIBE_CONFIGS_V1_REQUEST = h(
    "00000001"  # resources: 1
    " 02 0006 6f7264657273"  # TOPIC, "orders"
    " 00000001 0013 6d696e2e696e73796e632e7265706c69636173"  # keys: ["min.insync.replicas"]
    " 00"  # include synonyms: false
)
# DescribeConfigsResponse.json v1: throttle, results [error, message, type, name, configs [name, value, read only,
# source, sensitive, synonyms [name, value, source]]]
DESCRIBE_CONFIGS_V1_RESPONSE = h(
    "00000000"  # throttle
    " 00000002"  # results: 2
    " 0000 ffff 02 0006 6f7264657273"  # no error, null message, TOPIC, "orders"
    " 00000001 0013 6d696e2e696e73796e632e7265706c69636173 0001 32 00 01 00"  # min.insync.replicas="2", dynamic topic
    " 00000001 0013 6d696e2e696e73796e632e7265706c69636173 0001 31 04"  # synonym: the static broker value "1"
    " 001d 0005 64656e6965 02 0006 736563726574"  # TOPIC_AUTHORIZATION_FAILED "denie", TOPIC, "secret"
    " 00000000"  # configs: none
)


def test_describe_configs_request_and_response_bytes():
    assert kp.encode_describe_configs_request(1, ["orders"], ["min.insync.replicas"]) == DESCRIBE_CONFIGS_V1_REQUEST
    assert kp.encode_describe_configs_request(2, ["orders"], ["min.insync.replicas"]) == DESCRIBE_CONFIGS_V1_REQUEST
    answer = kp.decode_describe_configs_response(kw.Reader(DESCRIBE_CONFIGS_V1_RESPONSE), 1)
    assert answer["results"] == [
        {"error_code": 0, "error_message": None, "resource_type": 2, "resource_name": "orders",
         "configs": {"min.insync.replicas": "2"}},
        {"error_code": 29, "error_message": "denie", "resource_type": 2, "resource_name": "secret", "configs": {}},
    ]
    with pytest.raises(kconn.KafkaClientError, match="DescribeConfigs v0 is not supported"):
        kp.encode_describe_configs_request(0, ["orders"], ["min.insync.replicas"])
    for cut in range(len(DESCRIBE_CONFIGS_V1_RESPONSE)):
        with pytest.raises(kw.WireError):
            kp.decode_describe_configs_response(kw.Reader(DESCRIBE_CONFIGS_V1_RESPONSE[:cut]), 1)


def describing_broker(min_insync="1", error_code=0):
    """A broker offering DescribeConfigs v1-v4 that answers ``min_insync`` (or ``error_code``) for every topic."""

    def respond(api_key, version, body):
        if api_key == kp.API_API_VERSIONS:
            w = kw.Writer().int16(0).unsigned_varint(4)
            for key, low, high in ((3, 0, 12), (18, 0, 3), (32, 1, 4)):
                w.int16(key).int16(low).int16(high).tagged_fields()
            return "body", w.int32(0).tagged_fields().getvalue()
        if api_key == kp.API_METADATA:
            return "body", spec_metadata_response(version)
        reader = kw.Reader(body)
        topics = reader.array(lambda r: (r.int8(), r.string(), r.nullable_array(lambda r2: r2.string())))
        w = kw.Writer().int32(0).int32(len(topics))
        for _type, name, _keys in topics:
            w.int16(error_code).nullable_string(None).int8(2).string(name)
            if error_code:
                w.int32(0)
            else:
                w.int32(1).string("min.insync.replicas").nullable_string(min_insync)
                w.boolean(False).int8(1).boolean(False).int32(0)
        return "body", w.getvalue()

    return respond


def test_fetch_metadata_asks_topic_configs_on_the_same_server(fake_broker):
    broker = fake_broker(describing_broker(min_insync="2"))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, topic_config_keys=["min.insync.replicas"])
    assert result["topic_configs"] == {"orders": {"min.insync.replicas": "2"}}
    assert [request[:2] for request in broker.requests] == [(18, 3), (3, 12), (32, 2)]


def test_a_refused_describe_configs_is_reported_not_retried_elsewhere(fake_broker):
    broker = fake_broker(describing_broker(error_code=29))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, topic_config_keys=["min.insync.replicas"])
    assert "topic_configs" not in result
    assert result["topic_configs_error"] == "DescribeConfigs v2: the broker refused orders (TOPIC_AUTHORIZATION_FAILED)"


def test_a_broker_without_describe_configs_is_named(fake_broker):
    broker = fake_broker(standard_broker())
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, topic_config_keys=["min.insync.replicas"])
    assert "DescribeConfigs" in result["topic_configs_error"]


# ------------------------------------------------------------------------------------------------- DescribeQuorum

# DescribeQuorumRequest.json v0-v2 (flexible): topics [name compact string, partitions [index int32, tags], tags], tags
DESCRIBE_QUORUM_REQUEST = h(
    "02"  # topics: 1
    " 13 5f5f636c75737465725f6d65746164617461"  # "__cluster_metadata"
    " 02 00000000 00"  # partitions: [0], its tagged fields
    " 00 00"  # the topic's tagged fields, the request's
)
# DescribeQuorumResponse.json v1: error, topics [name, partitions [index, error, leader, epoch, high watermark,
# voters [id, log end offset, last fetch, last caught up, tags], observers [...], tags], tags], tags
DESCRIBE_QUORUM_V1_RESPONSE = h(
    "0000"  # no error
    " 02 13 5f5f636c75737465725f6d65746164617461"  # topics: 1, "__cluster_metadata"
    " 02 00000000 0000 00000bb9 00000007 0000000000000064"  # partitions: 1; 0, no error, leader 3001, epoch 7, HW 100
    " 04"  # voters: 3
    " 00000bb9 0000000000000064 ffffffffffffffff 00000000000186a0 00"  # 3001 the leader: LEO 100, caught up at 100000
    " 00000bba 0000000000000063 00000000000186a0 000000000001869f 00"  # 3002: LEO 99, 1 ms behind
    " 00000bbb 0000000000000046 0000000000013880 0000000000013880 00"  # 3003: LEO 70, caught up at 80000: 20 s behind
    " 02 00000001 0000000000000064 00000000000186a0 00000000000186a0 00"  # observers: broker 1
    " 00 00 00"  # the partition's, the topic's and the response's tagged fields
)
# v2 adds the error messages, the replicas' directory ids and the quorum's nodes with their listeners
DESCRIBE_QUORUM_V2_RESPONSE = h(
    "0000 00"  # no error, null message
    " 02 13 5f5f636c75737465725f6d65746164617461"
    " 02 00000000 0000 00 00000bb9 00000007 0000000000000064"  # the partition, its null message
    " 02 00000bb9 0123456789abcdef0123456789abcdef 0000000000000064 ffffffffffffffff 00000000000186a0 00"
    " 01"  # observers: none
    " 00 00"
    " 02 00000bb9 02 0b 434f4e54524f4c4c4552 09 31302e302e302e31 2384 00 00"  # node 3001: CONTROLLER 10.0.0.1:9092
    " 00"
)


def test_describe_quorum_request_and_response_bytes():
    for version in (0, 1, 2):
        assert kp.encode_describe_quorum_request(version) == DESCRIBE_QUORUM_REQUEST
    answer = kp.decode_describe_quorum_response(kw.Reader(DESCRIBE_QUORUM_V1_RESPONSE), 1)
    partition = answer["topics"][0]["partitions"][0]
    assert (answer["error_code"], answer["error_message"], answer["nodes"]) == (0, None, [])
    assert (partition["leader_id"], partition["leader_epoch"], partition["high_watermark"]) == (3001, 7, 100)
    assert partition["voters"][2] == {"replica_id": 3003, "log_end_offset": 70, "last_fetch_timestamp": 80000,
                                      "last_caught_up_timestamp": 80000}
    assert [o["replica_id"] for o in partition["observers"]] == [1]
    v2 = kp.decode_describe_quorum_response(kw.Reader(DESCRIBE_QUORUM_V2_RESPONSE), 2)
    assert v2["nodes"] == [{"node_id": 3001, "listeners": [{"name": "CONTROLLER", "host": "10.0.0.1", "port": 9092}]}]
    assert v2["topics"][0]["partitions"][0]["voters"][0]["last_caught_up_timestamp"] == 100000
    with pytest.raises(kconn.KafkaClientError, match="DescribeQuorum v3 is not supported"):
        kp.encode_describe_quorum_request(3)
    for body, version in ((DESCRIBE_QUORUM_V1_RESPONSE, 1), (DESCRIBE_QUORUM_V2_RESPONSE, 2)):
        for cut in range(len(body)):
            with pytest.raises(kw.WireError):
                kp.decode_describe_quorum_response(kw.Reader(body[:cut]), version)
        with pytest.raises(kw.WireError, match="1 unexpected bytes"):
            kp.decode_describe_quorum_response(kw.Reader(body + b"\x00"), version)


def test_a_describe_quorum_answer_flooded_with_replicas_is_refused():
    replica = kw.Writer().int32(1).int64(0).int64(0).int64(0).tagged_fields().getvalue()
    flood = (kw.Writer().int16(0).compact_array(["__cluster_metadata"], lambda w, name: w.compact_string(name)
             .compact_array([0], lambda w2, _p: w2.int32(0).int16(0).int32(1).int32(1).int64(0)
                            .unsigned_varint(kp.MAX_BROKERS + 2).raw(replica * (kp.MAX_BROKERS + 1))))
             .getvalue())
    with pytest.raises(kw.WireError, match="more than 10000 replicas"):
        kp.decode_describe_quorum_response(kw.Reader(flood), 1)


def quorum_broker(body=None, quorum_range=(0, 2), error_code=0, voters=((3001, 100, 100000), (3002, 99, 99999))):
    """A broker offering DescribeQuorum ``quorum_range`` that answers ``body``, or one built from ``voters``
    ((id, log end offset, last caught-up time), the first the leader) with ``error_code`` on the partition."""

    def respond(api_key, version, _body):
        if api_key == kp.API_API_VERSIONS:
            w = kw.Writer().int16(0).unsigned_varint(4)
            for key, low, high in ((3, 0, 12), (18, 0, 3), (55,) + tuple(quorum_range)):
                w.int16(key).int16(low).int16(high).tagged_fields()
            return "body", w.int32(0).tagged_fields().getvalue()
        if api_key == kp.API_METADATA:
            return "body", spec_metadata_response(version)
        if body is not None:
            return "body", body

        def replica(w, entry):
            w.int32(entry[0])
            if version >= 2:
                w.uuid(None)
            w.int64(entry[1])
            if version >= 1:
                w.int64(-1).int64(entry[2])
            w.tagged_fields()

        def partition(w, _index):
            w.int32(0).int16(error_code)
            if version >= 2:
                w.compact_nullable_string(None)
            w.int32(voters[0][0] if voters else -1).int32(1).int64(100)
            w.compact_array(list(voters), replica).compact_array([], replica).tagged_fields()

        w = kw.Writer().int16(0)
        if version >= 2:
            w.compact_nullable_string(None)
        w.compact_array(["__cluster_metadata"], lambda w2, name: w2.compact_string(name)
                        .compact_array([0], partition).tagged_fields())
        if version >= 2:
            w.compact_array([], None)
        return "body", w.tagged_fields().getvalue()

    return respond


@pytest.mark.parametrize("quorum_range, version", [((0, 2), 2), ((0, 1), 1), ((0, 0), 0)])
def test_fetch_metadata_asks_the_quorum_at_the_highest_common_version(fake_broker, quorum_range, version):
    broker = fake_broker(quorum_broker(quorum_range=quorum_range))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, quorum=True)
    assert [request[:2] for request in broker.requests] == [(18, 3), (3, 12), (55, version)]
    quorum = result["quorum"]
    assert (quorum["version"], quorum["leader_id"], [v["replica_id"] for v in quorum["voters"]]) == (
        version, 3001, [3001, 3002])
    assert quorum["voters"][1]["last_caught_up_timestamp"] == (99999 if version else -1)


@pytest.mark.parametrize("respond, message", [
    (quorum_broker(body=h("001f 01 00")),
     "DescribeQuorum v2: malformed response"),  # v2 needs the error message: the layout does not match
    (quorum_broker(quorum_range=(0, 1), body=h("001f 01 00")),
     "DescribeQuorum v1: the cluster refused: CLUSTER_AUTHORIZATION_FAILED"),
    (quorum_broker(error_code=6), "the cluster answered NOT_LEADER_OR_FOLLOWER for __cluster_metadata-0"),
    (quorum_broker(voters=()), r"the answer lists the voters \[\]: not a quorum"),
    (quorum_broker(voters=((3001, 1, 1), (3001, 1, 1))), r"the voters \[3001, 3001\]: not a quorum"),
    (quorum_broker(voters=((-5, 1, 1),)), r"the voters \[-5\]: not a quorum"),
    (quorum_broker(quorum_range=(0, 1), body=h("0000 01 00")), "describes no __cluster_metadata-0"),
    (standard_broker(), "the broker does not offer DescribeQuorum"),
])
def test_a_refused_or_odd_quorum_answer_is_named(fake_broker, respond, message):
    broker = fake_broker(respond)
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, quorum=True)
    assert "quorum" not in result and re.search(message, result["quorum_error"]), result["quorum_error"]


def test_a_leader_that_is_not_a_voter_is_named(fake_broker):
    body = h("0000 02 13 5f5f636c75737465725f6d65746164617461 02 00000000 0000 00000009 00000001 0000000000000000"
             " 02 00000001 0000000000000000 00 01 00 00 00")
    broker = fake_broker(quorum_broker(quorum_range=(0, 0), body=body))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, quorum=True)
    assert result["quorum_error"] == "DescribeQuorum v0: the answer names leader 9, not one of the voters [1]"


# --------------------------------------------------------------------------------------------------- ElectLeaders

# ElectLeadersRequest.json: election type int8 (v1+), topic partitions nullable [topic, partition ids [int32]],
# timeout int32; flexible (compact, tagged fields) from v2
ELECT_LEADERS_REQUESTS = {
    0: h("00000001 0006 6f7264657273 00000002 00000000 00000002 00007530"),  # [orders: 0, 2], 30000 ms
    1: h("00 00000001 0006 6f7264657273 00000002 00000000 00000002 00007530"),  # PREFERRED first
    2: h("00 02 07 6f7264657273 03 00000000 00000002 00 00007530 00"),
}
# ElectLeadersResponse.json: throttle, error (v1+), results [topic, partitions [id, error, message nullable]]
ELECT_LEADERS_RESPONSES = {
    0: h("00000000 00000001 0006 6f7264657273 00000002 00000000 0000 ffff 00000002 0054 ffff"),
    1: h("00000000 0000 00000001 0006 6f7264657273 00000002 00000000 0000 ffff 00000002 0054 ffff"),
    2: h("00000000 0000 02 07 6f7264657273 03 00000000 0000 00 00 00000002 0054 00 00 00 00"),
}


@pytest.mark.parametrize("version", [0, 1, 2])
def test_elect_leaders_request_and_response_bytes(version):
    assert kp.encode_elect_leaders_request(version, [("orders", [0, 2])], 30000) == ELECT_LEADERS_REQUESTS[version]
    body = ELECT_LEADERS_RESPONSES[version]
    answer = kp.decode_elect_leaders_response(kw.Reader(body), version)
    assert answer == {"throttle_time_ms": 0, "error_code": 0, "results": [{"topic": "orders", "partitions": [
        {"partition": 0, "error_code": 0, "error_message": None},
        {"partition": 2, "error_code": 84, "error_message": None}]}]}
    for cut in range(len(body)):
        with pytest.raises(kw.WireError):
            kp.decode_elect_leaders_response(kw.Reader(body[:cut]), version)
    with pytest.raises(kw.WireError, match="1 unexpected bytes"):
        kp.decode_elect_leaders_response(kw.Reader(body + b"\x00"), version)
    with pytest.raises(kconn.KafkaClientError, match="ElectLeaders v3 is not supported"):
        kp.encode_elect_leaders_request(3, [("orders", [0])], 1000)


def metadata_v1_body(partitions):
    """Metadata v1: brokers 1-3, topic "orders" with ``partitions`` [(index, leader, replicas, isr)]."""
    w = kw.Writer().int32(3)
    for node in (1, 2, 3):
        w.int32(node).string("b%d.example" % node).int32(9092).nullable_string(None)
    w.int32(1).int32(1).int16(0).string("orders").boolean(False).int32(len(partitions))
    for index, leader, replicas, isr in partitions:
        w.int16(0).int32(index).int32(leader)
        w.array(list(replicas), lambda w2, v: w2.int32(v)).array(list(isr), lambda w2, v: w2.int32(v))
    return w.getvalue()


def electing_broker(partitions, top_error=0, partition_error=None, offer=(0, 1)):
    """A broker offering Metadata v1 and ElectLeaders ``offer`` (None: not at all; it answers v1, the highest classic
    version: the bytes of v2 are checked above), whose topic holds ``partitions``; it answers each asked partition
    with ``partition_error`` (None: elected) or the request with ``top_error``."""

    def respond(api_key, version, body):
        if api_key == kp.API_API_VERSIONS:
            apis = [(3, 1, 1), (18, 0, 3)] + ([(43,) + tuple(offer)] if offer else [])
            w = kw.Writer().int16(0).unsigned_varint(len(apis) + 1)
            for key, low, high in apis:
                w.int16(key).int16(low).int16(high).tagged_fields()
            return "body", w.int32(0).tagged_fields().getvalue()
        if api_key == kp.API_METADATA:
            return "body", metadata_v1_body(partitions)
        reader = kw.Reader(body)
        reader.int8()  # election type (v1)
        asked = reader.nullable_array(lambda r: (r.string(), r.array(lambda r2: r2.int32())))
        w = kw.Writer().int32(0).int16(top_error)
        w.array(asked, lambda w2, item: w2.string(item[0]).array(item[1], lambda w3, index: w3.int32(index).int16(
            partition_error or 0).nullable_string("no" if partition_error else None)))
        return "body", w.getvalue()

    return respond


# node 2 is the preferred replica of orders-0 and orders-2; node 1 leads both after node 2's restart. orders-1 is
# led by its preferred replica; orders-3's preferred replica 2 is not in its ISR yet (an election would fail)
MOVED = [(0, 1, [2, 1, 3], [1, 3, 2]), (1, 3, [3, 2, 1], [3, 2, 1]), (2, 1, [2, 3, 1], [1, 2]), (3, 1, [2, 1], [1])]


def test_the_preferred_leaders_a_restart_moved_away_are_elected_on_the_same_server(fake_broker):
    broker = fake_broker(electing_broker(MOVED))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, elect_preferred_of=2)
    assert result["election"] == {"asked": ["orders-0", "orders-2"], "elected": ["orders-0", "orders-2"],
                                  "not_needed": [], "not_elected": []}
    assert [request[:2] for request in broker.requests] == [(18, 3), (3, 1), (43, 1)]
    assert "election_error" not in result


def test_nothing_is_asked_when_the_node_leads_what_it_prefers_or_in_a_dry_run(fake_broker):
    broker = fake_broker(electing_broker(MOVED))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, elect_preferred_of=3)
    assert result["election"] == {"asked": [], "elected": [], "not_needed": [], "not_elected": []}
    other = fake_broker(electing_broker(MOVED))  # a fake broker serves one connection
    dry = kconn.fetch_metadata([other.address], HANG_GUARD_S, elect_preferred_of=2, dry_run=True)
    assert dry["election"]["asked"] == ["orders-0", "orders-2"] and dry["election"]["elected"] == []
    assert [request[0] for request in broker.requests + other.requests] == [18, 3, 18, 3]


@pytest.mark.parametrize("respond, expected", [
    (dict(top_error=31), "ElectLeaders v1: the cluster refused: CLUSTER_AUTHORIZATION_FAILED"),
    (dict(offer=None), "the broker does not offer ElectLeaders in its ApiVersions answer"),
])
def test_a_refused_or_unknown_election_is_reported_not_raised(fake_broker, respond, expected):
    broker = fake_broker(electing_broker(MOVED, **respond))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, elect_preferred_of=2)
    assert result["election_error"] == expected
    assert result["election"]["asked"] == ["orders-0", "orders-2"] and result["election"]["elected"] == []


def test_each_partition_the_cluster_did_not_elect_is_named_with_its_error(fake_broker):
    broker = fake_broker(electing_broker(MOVED, partition_error=80))
    result = kconn.fetch_metadata([broker.address], HANG_GUARD_S, elect_preferred_of=2)
    assert result["election"]["not_elected"] == [
        {"partition": "orders-0", "error": "PREFERRED_LEADER_NOT_AVAILABLE: no"},
        {"partition": "orders-2", "error": "PREFERRED_LEADER_NOT_AVAILABLE: no"}]
