# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A minimal Kafka client for the client's-eye view of a cluster: ApiVersions, Metadata, endpoint checks.

Private to kafkaops.listeners: no compatibility promise outside the collection.

What a Kafka client does before it fails with "Failed to resolve ...": connect to a bootstrap server, negotiate
API versions, ask Metadata, then connect to the host:port each partition leader advertises for the listener the
request came in on. This module does the first three steps over PLAINTEXT or SSL and, on request, resolves and
connects every advertised endpoint (through ``_resolver``), so the unreachable ones explain the failure.

Metadata answers are untrusted input: advertised hosts are validated with ``validate_host`` before they are
resolved, and an invalid one becomes an endpoint error. Standard library only (modules run on managed nodes).

Field layouts follow Kafka's message definitions (clients/src/main/resources/common/message/ApiVersions*.json,
Metadata*.json): ApiVersions v0-v3 (v3 flexible), Metadata v1-v12 (v9+ flexible).
"""

from __future__ import annotations

import contextlib
import re
import socket
import ssl
import threading
import time

from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_auth as ka
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_wire as kw
from ansible_collections.kafkaops.listeners.plugins.module_utils import _tls_check as tc
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import (
    HostError,
    is_loopback,
    validate_host,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import (
    HostPortError,
    parse_hostport,
    show_hostport,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import probe_names

API_METADATA = 3
API_API_VERSIONS = 18
API_NAMES = {API_METADATA: "Metadata", API_API_VERSIONS: "ApiVersions"}
API_NAMES.update(ka.API_NAMES)

#: Inclusive version ranges this client speaks.
METADATA_VERSIONS = (1, 12)
API_VERSIONS_VERSIONS = (0, 3)
#: First flexible version (compact types, tagged fields, request header v2) of each API.
_FIRST_FLEXIBLE = {API_METADATA: 9, API_API_VERSIONS: 3}
_FIRST_FLEXIBLE.update(ka.FIRST_FLEXIBLE)

CLIENT_SOFTWARE_NAME = "kafkaops-listeners"
CLIENT_SOFTWARE_VERSION = "0.1.0"
DEFAULT_CLIENT_ID = "kafkaops-listeners"

#: Largest response accepted; a bigger size prefix means the peer does not speak Kafka (or is broken).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024

ERROR_NONE = 0
ERROR_UNKNOWN_TOPIC_OR_PARTITION = 3
ERROR_UNSUPPORTED_VERSION = 35
ERROR_LISTENER_NOT_FOUND = 72

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
    31: "CLUSTER_AUTHORIZATION_FAILED",
    35: "UNSUPPORTED_VERSION",
    42: "INVALID_REQUEST",
    56: "KAFKA_STORAGE_ERROR",
    58: "SASL_AUTHENTICATION_FAILED",
    72: "LISTENER_NOT_FOUND",
    100: "UNKNOWN_TOPIC_ID",
}

# Kafka's legal topic names (org.apache.kafka.common.internals.Topic): at most 249 of these characters.
_TOPIC_NAME = re.compile(r"^[a-zA-Z0-9._-]{1,249}$")


class KafkaClientError(Exception):
    """Talking to a broker failed; the message says with whom and why."""


class KafkaConnectError(KafkaClientError):
    """The connection could not be opened: resolution, TCP connect or TLS handshake failed.

    ``tls_outcome`` says why TLS failed (``_tls_check.verification_outcome``), None when it did not get that far.
    """

    def __init__(self, message, tls_outcome=None):
        super().__init__(message)
        self.tls_outcome = tls_outcome


class KafkaAuthError(KafkaClientError):
    """SASL authentication was refused or could not run; the message carries the broker's reason, never a secret."""


class KafkaProtocolError(KafkaClientError):
    """The broker's answer was missing, malformed or an error; the message names the API and version."""


class NoBootstrapServerError(KafkaClientError):
    """No bootstrap server answered Metadata; ``failures`` is a list of (server, reason)."""

    def __init__(self, failures):
        self.failures = list(failures)
        super().__init__(
            "no bootstrap server answered Metadata: "
            + "; ".join("%s: %s" % (server, reason) for server, reason in self.failures)
        )


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


# ---------------------------------------------------------------------------------------------------- input checks


def parse_bootstrap(value):
    """Return (host, port) from ``host:port`` or ``[ipv6]:port``; raise KafkaClientError naming the bad value.

    The host is validated as a DNS name or IP literal (``validate_host``); the port must be 1 to 65535.
    """
    what = "bootstrap server"
    try:
        host, port = parse_hostport(value, what)
        return validate_host(host, "%s %r" % (what, value)), port
    except (HostPortError, HostError) as exc:
        raise KafkaClientError(str(exc)) from None


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


def make_ssl_context(ca_file=None, cert_file=None, key_file=None, key_password=None, verify=True):
    """An ``ssl.SSLContext`` for a Kafka SSL listener; a file that cannot be loaded raises KafkaClientError.

    With ``verify`` the broker certificate must chain to ``ca_file`` (or the system CAs when it is None) and match
    the host name, as Kafka clients do by default (``ssl.endpoint.identification.algorithm=https``). Without it,
    neither is checked. ``cert_file``/``key_file`` give a client certificate (``ssl.client.auth=required``); the
    key may be in ``cert_file``.
    """
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    if verify:
        if ca_file:
            try:
                context.load_verify_locations(cafile=ca_file)
            except (OSError, ssl.SSLError) as exc:
                raise KafkaClientError(
                    "ssl_ca_file %s cannot be loaded as PEM certificates: %s" % (ca_file, exc)
                ) from None
    else:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if cert_file:
        try:
            context.load_cert_chain(cert_file, keyfile=key_file or None, password=key_password or None)
        except (OSError, ssl.SSLError) as exc:
            what = "ssl_cert_file %s / ssl_key_file %s" % (cert_file, key_file) if key_file else (
                "ssl_cert_file %s" % cert_file)
            raise KafkaClientError("%s cannot be loaded as a PEM certificate and key: %s" % (what, exc)) from None
    elif key_file:
        raise KafkaClientError("ssl_key_file is set without ssl_cert_file")
    return context


# ---------------------------------------------------------------------------------------------------- codecs


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

    def read_broker(r):
        broker = {"node_id": r.int32(), "host": fields.string(), "port": r.int32(), "rack": fields.nullable_string()}
        fields.end_of_struct()
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


# ---------------------------------------------------------------------------------------------------- connection


def _describe_os_error(exc):
    # socket timeouts carry no strerror; their text is "timed out" on every supported Python
    return exc.strerror or str(exc) or type(exc).__name__


class KafkaConnection:
    """One connection to one broker, answering requests in order; every blocking step honours ``deadline``."""

    def __init__(self, sock, server, deadline, client_id, tls):
        self._sock = sock
        self.server = server
        self._deadline = deadline
        self._client_id = client_id
        self._tls = tls
        self._correlation_id = 0
        #: the broker's ApiVersions answer, when SASL needed it before any other request
        self.api_versions = None

    @classmethod
    def open(cls, host, port, deadline, client_id=DEFAULT_CLIENT_ID, ssl_context=None, server_hostname=None,
             sasl=None):
        """Resolve ``host`` (under the deadline), connect to its first address that accepts, then TLS if asked,
        then SASL with ``sasl`` (``_kafka_auth.SaslCredentials``) if given.

        ``server_hostname`` is the name the broker certificate must match (default: ``host``).
        """
        server = show_hostport(host, port)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise KafkaConnectError("no time left to connect")
        lookup = probe_names([host], timeout=remaining, total_timeout=remaining)["results"][0]
        if not lookup["resolvable"]:
            raise KafkaConnectError("%s does not resolve from this host: %s" % (host, lookup["error"]))
        sock = None
        failures = []
        address = None
        for address in lookup["addresses"]:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                failures.append("%s: no time left before the timeout" % address)
                break
            try:
                sock = socket.create_connection((address, port), timeout=remaining)
                break
            except OSError as exc:
                failures.append("%s: %s" % (show_hostport(address, port), _describe_os_error(exc)))
        if sock is None:
            raise KafkaConnectError("TCP connect failed (%s)" % "; ".join(failures))
        if ssl_context is not None:
            sock = cls._start_tls(sock, ssl_context, server_hostname or host, deadline, (address, port))
        connection = cls(sock, server, deadline, client_id, ssl_context is not None)
        if sasl is not None:
            connection.authenticate(sasl)
        return connection

    def authenticate(self, sasl):
        """SASL on this connection (after ApiVersions, which Kafka answers before authentication)."""
        self.api_versions = negotiate_api_versions(self)
        try:
            ka.authenticate(self, sasl, self.api_versions)
        except ka.SaslError as exc:
            self.close()
            raise KafkaAuthError("SASL authentication failed: %s" % exc) from None
        except KafkaClientError as exc:
            self.close()
            raise KafkaAuthError("SASL authentication failed: %s" % exc) from None

    @staticmethod
    def _start_tls(sock, ssl_context, server_hostname, deadline, peer):
        try:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            return ssl_context.wrap_socket(sock, server_hostname=server_hostname)
        except ssl.SSLCertVerificationError as exc:
            sock.close()
            outcome, reason = tc.verification_outcome(exc)
            info = tc.peer_certificate_info(peer, server_hostname, deadline)
            raise KafkaConnectError(
                "TLS certificate verification failed for %s" % tc.describe_outcome(outcome, reason, server_hostname,
                                                                                   info),
                tls_outcome=outcome) from None
        except ssl.SSLError as exc:
            sock.close()
            hint = " (is this a PLAINTEXT listener?)" if "WRONG_VERSION_NUMBER" in str(exc).upper() else ""
            raise KafkaConnectError("TLS handshake failed: %s%s" % (exc, hint),
                                    tls_outcome="handshake_failed") from None
        except OSError as exc:
            sock.close()
            raise KafkaConnectError(
                "TLS handshake failed: %s (the listener may be PLAINTEXT: it closes connections that start with a "
                "TLS handshake)" % _describe_os_error(exc), tls_outcome="handshake_failed"
            ) from None

    def close(self):
        """Close the connection (errors ignored: the peer may already have gone)."""
        with contextlib.suppress(OSError):
            self._sock.close()

    def request(self, api_key, version, body):
        """Send one request and return a Reader positioned at the start of the response body."""
        label = api_label(api_key, version)
        self._correlation_id += 1
        header = kw.encode_request_header(
            api_key, version, self._correlation_id, self._client_id, request_header_version(api_key, version)
        )
        try:
            self._settimeout()
            self._sock.sendall(kw.frame(header + body))
            size = self._frame_size(label, self._receive(kw.FRAME_SIZE_BYTES, label))
            reader = kw.Reader(self._receive(size, label))
            response_header = kw.decode_response_header(reader, response_header_version(api_key, version))
        except kw.WireError as exc:
            raise KafkaProtocolError("%s: malformed response header: %s" % (label, exc)) from None
        except OSError as exc:
            raise KafkaProtocolError("%s: %s" % (label, _describe_os_error(exc))) from None
        if response_header.correlation_id != self._correlation_id:
            raise KafkaProtocolError(
                "%s: the response carries correlation id %d, expected %d"
                % (label, response_header.correlation_id, self._correlation_id)
            )
        return reader

    def _settimeout(self):
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("timed out")
        self._sock.settimeout(remaining)

    def _receive(self, count, label):
        chunks = []
        missing = count
        while missing:
            self._settimeout()
            chunk = self._sock.recv(min(missing, 1 << 20))
            if not chunk:
                hint = "" if self._tls else " (if this listener uses TLS, set security_protocol to SSL)"
                raise KafkaProtocolError("%s: the broker closed the connection before answering%s" % (label, hint))
            chunks.append(chunk)
            missing -= len(chunk)
        return b"".join(chunks)

    def _frame_size(self, label, prefix):
        if prefix[:1] == b"\x15" and prefix[1:2] == b"\x03":
            raise KafkaProtocolError(
                "%s: the answer is a TLS alert, not a Kafka response: the listener uses TLS, set security_protocol "
                "to SSL" % label
            )
        size = int.from_bytes(prefix, "big", signed=True)
        if size < 4 or size > MAX_RESPONSE_BYTES:
            raise KafkaProtocolError(
                "%s: the answer does not look like a Kafka response (it announces %d bytes; first bytes %r): is "
                "this a Kafka listener?" % (label, size, prefix)
            )
        return size


# ---------------------------------------------------------------------------------------------------- Metadata


def negotiate_api_versions(connection):
    """Ask ApiVersions (v3, then the highest version the broker lists) and return {api_key: (min, max)}."""
    version = API_VERSIONS_VERSIONS[1]
    for _attempt in range(2):
        label = api_label(API_API_VERSIONS, version)
        reader = connection.request(API_API_VERSIONS, version, encode_api_versions_request(version))
        try:
            answer = decode_api_versions_response(reader, version)
        except kw.WireError as exc:
            raise KafkaProtocolError("%s: malformed response: %s" % (label, exc)) from None
        if answer["error_code"] == ERROR_NONE:
            return answer["api_versions"]
        if answer["error_code"] != ERROR_UNSUPPORTED_VERSION:
            raise KafkaProtocolError("%s: the broker answered %s" % (label, error_name(answer["error_code"])))
        # The error answer lists the ApiVersions versions the broker does support.
        version = choose_version(API_API_VERSIONS, API_VERSIONS_VERSIONS, answer["api_versions"])
    raise KafkaProtocolError("%s: the broker refused the version it had offered" % label)


def request_metadata(connection, topics=None, broker_versions=None):
    """Ask Metadata at the highest version both sides support; returns (version, decoded answer).

    Never lets the broker auto-create topics: with versions 1-3, which cannot say so, every topic is requested and
    the answer filtered to ``topics`` (a requested topic the answer lacks is reported UNKNOWN_TOPIC_OR_PARTITION).
    """
    if broker_versions is None:
        broker_versions = negotiate_api_versions(connection)
    version = choose_version(API_METADATA, METADATA_VERSIONS, broker_versions)
    label = api_label(API_METADATA, version)
    filter_locally = topics is not None and version < 4
    body = encode_metadata_request(version, None if filter_locally else topics, allow_auto_topic_creation=False)
    reader = connection.request(API_METADATA, version, body)
    try:
        answer = decode_metadata_response(reader, version)
    except kw.WireError as exc:
        raise KafkaProtocolError("%s: malformed response: %s" % (label, exc)) from None
    if filter_locally:
        by_name = {topic["name"]: topic for topic in answer["topics"]}
        answer["topics"] = [
            by_name.get(name) or {"error_code": ERROR_UNKNOWN_TOPIC_OR_PARTITION, "name": name, "topic_id": None,
                                  "is_internal": False, "partitions": []}
            for name in topics
        ]
    return version, answer


def fetch_metadata(bootstrap, timeout, topics=None, client_id=DEFAULT_CLIENT_ID, ssl_context=None,
                   server_hostname=None, sasl=None):
    """Try each bootstrap server in order until one answers Metadata; each may take up to ``timeout`` seconds.

    ``ssl_context`` (TLS) and ``sasl`` (``_kafka_auth.SaslCredentials``) give the listener's security protocol.

    ``bootstrap`` is a list of ``host:port`` strings (checked first: KafkaClientError names a bad one). Returns
    {"bootstrap_used", "bootstrap_errors": [{"server", "error"}] for the servers tried before it,
    "metadata_version", "metadata": decode_metadata_response(...)}. Raises NoBootstrapServerError listing every
    server and its reason when none answers.
    """
    if not isinstance(bootstrap, (list, tuple)) or not bootstrap:
        raise KafkaClientError("bootstrap must be a non-empty list of host:port, got %r" % (bootstrap,))
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise KafkaClientError("timeout must be a number of seconds greater than 0, got %r" % (timeout,))
    servers = [parse_bootstrap(value) for value in bootstrap]
    topics = validate_topics(topics)
    failures = []
    for host, port in servers:
        server = show_hostport(host, port)
        connection = None
        try:
            connection = KafkaConnection.open(host, port, time.monotonic() + timeout, client_id, ssl_context,
                                              server_hostname, sasl)
            version, answer = request_metadata(connection, topics, connection.api_versions)
        except KafkaClientError as exc:
            failures.append((server, str(exc)))
            continue
        finally:
            if connection is not None:
                connection.close()
        return {
            "bootstrap_used": server,
            "bootstrap_errors": [{"server": name, "error": reason} for name, reason in failures],
            "metadata_version": version,
            "metadata": answer,
        }
    raise NoBootstrapServerError(failures)


def summarize_metadata(metadata):
    """The module's view of a decoded answer: sorted brokers and topics, error names, under-replicated partitions."""
    brokers = sorted(
        ({"node_id": b["node_id"], "host": b["host"], "port": b["port"], "rack": b["rack"]}
         for b in metadata["brokers"]),
        key=lambda b: b["node_id"],
    )
    topics = []
    under_replicated = []
    for topic in sorted(metadata["topics"], key=lambda t: (t["name"] is None, t["name"] or "")):
        partitions = []
        for part in sorted(topic["partitions"], key=lambda p: p["partition"]):
            partitions.append({
                "partition": part["partition"],
                "leader": part["leader"],
                "replicas": list(part["replicas"]),
                "isr": list(part["isr"]),
                "offline_replicas": list(part["offline_replicas"]),
                "error": error_name(part["error_code"]),
            })
            if len(set(part["isr"])) < len(set(part["replicas"])):
                under_replicated.append({"topic": topic["name"], "partition": part["partition"]})
        topics.append({
            "name": topic["name"],
            "is_internal": topic["is_internal"],
            "error": error_name(topic["error_code"]),
            "partitions": partitions,
        })
    return {
        "cluster_id": metadata["cluster_id"],
        "controller_id": metadata["controller_id"],
        "brokers": brokers,
        "topics": topics,
        "under_replicated": under_replicated,
    }


# ---------------------------------------------------------------------------------------------------- endpoints


def check_endpoints(brokers, timeout, probe=probe_names):
    """Resolve every advertised endpoint from this host and try a TCP connect; one result per broker, in order.

    Hosts are validated first: an invalid host or port is reported in that endpoint's ``error`` (never raised).
    Names are resolved by ``probe`` (``_resolver.probe_names``: getaddrinfo under a deadline of ``timeout``
    seconds, connects until twice that), one call per advertised port, the calls running in parallel.
    Each result: {"node_id", "host", "port", "resolvable", "addresses", "connectable", "error"}.
    """
    endpoints = []
    by_port = {}
    for broker in brokers:
        endpoint = {"node_id": broker["node_id"], "host": broker["host"], "port": broker["port"],
                    "resolvable": False, "addresses": [], "connectable": False, "error": None}
        endpoints.append(endpoint)
        try:
            host = validate_host(broker["host"], "the Metadata answer (broker %d)" % broker["node_id"])
        except HostError as exc:
            endpoint["error"] = str(exc)
            continue
        if not 1 <= broker["port"] <= 65535:
            endpoint["error"] = "broker %d advertises port %d, which is not a TCP port" % (
                broker["node_id"], broker["port"])
            continue
        by_port.setdefault(broker["port"], []).append((endpoint, host))

    outcomes = {}

    def probe_port(port, names):
        try:
            outcomes[port] = probe(names, timeout=timeout, total_timeout=2 * timeout, port=port)
        except Exception as exc:  # a failed probe must still give its endpoints a result
            outcomes[port] = exc

    threads = []
    for port, members in by_port.items():
        names = []
        for _endpoint, host in members:
            if host.lower() not in [name.lower() for name in names]:
                names.append(host)
        thread = threading.Thread(target=probe_port, args=(port, names), daemon=True)
        thread.start()
        threads.append(thread)
    # probe_names returns within its total timeout; the extra seconds only guard against a hang in it
    guard = time.monotonic() + 2 * timeout + 5
    for thread in threads:
        thread.join(max(guard - time.monotonic(), 0))

    for port, members in by_port.items():
        outcome = outcomes.get(port)
        if outcome is None or isinstance(outcome, Exception):
            reason = "did not finish" if outcome is None else "failed: %s" % (outcome,)
            for endpoint, _host in members:
                endpoint["error"] = "the check %s" % reason
            continue
        results = {result["name"].lower(): result for result in outcome["results"]}
        for endpoint, host in members:
            result = results.get(host.lower())
            if result is None:
                endpoint["error"] = "the check returned no result for %s" % host
                continue
            endpoint["resolvable"] = bool(result["resolvable"])
            endpoint["addresses"] = list(result["addresses"])
            endpoint["connectable"] = bool(result["connectable"])
            endpoint["error"] = result["error"]
    return endpoints


def unreachable_endpoints(endpoints):
    """The endpoints a client on this host cannot use (not resolvable, not connectable, or invalid)."""
    return [endpoint for endpoint in endpoints if not (endpoint["resolvable"] and endpoint["connectable"])]


def endpoint_warnings(brokers, bootstrap_used):
    """Advertised endpoints that work from here but mislead other clients: loopback hosts, duplicates."""
    warnings = []
    bootstrap_host = parse_hostport(bootstrap_used, "bootstrap_used")[0]
    if not is_loopback(bootstrap_host):
        for broker in brokers:
            if isinstance(broker["host"], str) and is_loopback(broker["host"]):
                warnings.append(
                    "broker %d advertises %s, a loopback host, on a listener reached at %s: a client on another "
                    "machine connects to itself, not to the broker"
                    % (broker["node_id"], show_hostport(broker["host"], broker["port"]), bootstrap_used)
                )
    owners = {}
    for broker in brokers:
        key = (str(broker["host"]).lower(), broker["port"])
        owners.setdefault(key, []).append(broker["node_id"])
    for (host, port), nodes in sorted(owners.items(), key=lambda item: item[1]):
        if len(nodes) > 1:
            warnings.append(
                "brokers %s all advertise %s: clients cannot tell them apart"
                % (", ".join(str(node) for node in nodes), show_hostport(host, port))
            )
    return warnings


def listener_not_found(topics):
    """``topic/partition`` of partitions whose leader has no endpoint on the listener the request used."""
    return [
        "%s/%d" % (topic["name"], part["partition"])
        for topic in topics
        for part in topic["partitions"]
        if part["error"] == ERROR_NAMES[ERROR_LISTENER_NOT_FOUND]
    ]


def _usable_endpoint(endpoint):
    """True when the advertised host is a DNS name or IP literal and the port a TCP port (worth resolving)."""
    try:
        validate_host(endpoint["host"], "the Metadata answer")
    except HostError:
        return False
    return isinstance(endpoint["port"], int) and 1 <= endpoint["port"] <= 65535


def _names(values):
    return ", ".join(values)


def summary_line(bootstrap_used, brokers, endpoints=None):
    """One line in the seeds' terms: what a client on this host experiences after bootstrapping."""
    head = "bootstrap %s reachable" % bootstrap_used
    if not brokers:
        return head + ", but the Metadata answer lists no broker on this listener: clients have nowhere to connect"
    if endpoints is None:
        return "%s: %d broker(s) advertised on this listener (%s); endpoints not checked" % (
            head, len(brokers), _names(show_hostport(str(b["host"]), b["port"]) for b in brokers))
    failing = unreachable_endpoints(endpoints)
    if not failing:
        return "%s and all %d advertised endpoint(s) resolve and accept connections from this host" % (
            head, len(endpoints))
    unusable = [e for e in failing if not _usable_endpoint(e)]
    unresolved = [e for e in failing if not e["resolvable"] and _usable_endpoint(e)]
    refused = [e for e in failing if e["resolvable"] and not e["connectable"]]
    problems = []
    if unresolved:
        hosts = sorted({str(e["host"]) for e in unresolved})
        if len(hosts) == 1:
            problems.append("advertised host %s does not resolve from this host" % hosts[0])
        else:
            problems.append("advertised hosts %s do not resolve from this host" % _names(hosts))
    if refused:
        names = sorted({show_hostport(str(e["host"]), e["port"]) for e in refused})
        if len(names) == 1:
            problems.append("advertised endpoint %s resolves but does not accept connections from this host" % names[0])
        else:
            problems.append("advertised endpoints %s resolve but do not accept connections from this host"
                            % _names(names))
    for endpoint in unusable:
        problems.append("broker %d advertises an unusable endpoint (%s)" % (endpoint["node_id"], endpoint["error"]))
    failing_nodes = sorted({e["node_id"] for e in failing})
    if len(failing_nodes) == len(endpoints):
        consequence = "clients fail after the first connection"
    else:
        consequence = "clients fail on every partition led by broker%s %s" % (
            "" if len(failing_nodes) == 1 else "s", _names(str(node) for node in failing_nodes))
    return "%s, but %s: %s" % (head, "; ".join(problems), consequence)
