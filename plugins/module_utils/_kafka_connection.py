# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The client's connection to a broker: bootstrap parsing, TCP under a deadline, TLS, SASL, and the
ApiVersions/Metadata exchange of a client before it fails with "Failed to resolve ...".

Private to kafkaops.listeners: no compatibility promise outside the collection. Standard library only (modules run
on managed nodes).
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import time

from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_auth as ka
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_wire as kw
from ansible_collections.kafkaops.listeners.plugins.module_utils import _tls_check as tc
from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import (
    HostPortError,
    parse_hostport,
    show_hostport,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import (
    API_API_VERSIONS,
    API_DESCRIBE_CONFIGS,
    API_DESCRIBE_QUORUM,
    API_ELECT_LEADERS,
    API_METADATA,
    API_VERSIONS_VERSIONS,
    CLUSTER_METADATA_TOPIC,
    DESCRIBE_CONFIGS_VERSIONS,
    DESCRIBE_QUORUM_VERSIONS,
    ELECT_LEADERS_VERSIONS,
    ERROR_ELECTION_NOT_NEEDED,
    ERROR_NONE,
    ERROR_UNKNOWN_TOPIC_OR_PARTITION,
    ERROR_UNSUPPORTED_VERSION,
    METADATA_VERSIONS,
    KafkaClientError,
    KafkaProtocolError,
    api_label,
    choose_version,
    decode_api_versions_response,
    decode_describe_configs_response,
    decode_describe_quorum_response,
    decode_elect_leaders_response,
    decode_metadata_response,
    encode_api_versions_request,
    encode_describe_configs_request,
    encode_describe_quorum_request,
    encode_elect_leaders_request,
    encode_metadata_request,
    error_name,
    request_header_version,
    response_header_version,
    validate_topics,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._resolver import probe_names
from ansible_collections.kafkaops.listeners.plugins.module_utils._restart_gate import preferred_elsewhere

DEFAULT_CLIENT_ID = "kafkaops-listeners"

#: Largest response accepted; a bigger size prefix means the peer does not speak Kafka (or is broken).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024


class KafkaConnectError(KafkaClientError):
    """The connection could not be opened: resolution, TCP connect or TLS handshake failed.

    ``tls_outcome`` says why TLS failed (``_tls_check.verification_outcome``), None when it did not get that far.
    """

    def __init__(self, message, tls_outcome=None):
        super().__init__(message)
        self.tls_outcome = tls_outcome


class KafkaAuthError(KafkaClientError):
    """SASL authentication was refused or could not run; the message carries the broker's reason, never a secret."""


class NoBootstrapServerError(KafkaClientError):
    """No bootstrap server answered Metadata; ``failures`` is a list of (server, reason)."""

    def __init__(self, failures):
        self.failures = list(failures)
        super().__init__(
            "no bootstrap server answered Metadata: "
            + "; ".join("%s: %s" % (server, reason) for server, reason in self.failures)
        )


def parse_bootstrap(value):
    """Return (host, port) from ``host:port`` or ``[ipv6]:port``; raise KafkaClientError naming the bad value.

    The host is validated as a DNS name or IP literal (``validate_host``); the port must be 1 to 65535.
    """
    try:
        return parse_hostport(value, "bootstrap server")
    except HostPortError as exc:
        raise KafkaClientError(str(exc)) from None


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


# ------------------------------------------------------------------------------------------------------------ Metadata


def _exchange(connection, api_key, version, body, decode):
    """Send one request and decode its answer with ``decode(reader, version)``; a malformed answer raises
    KafkaProtocolError naming the API and version."""
    reader = connection.request(api_key, version, body)
    try:
        return decode(reader, version)
    except kw.WireError as exc:
        raise KafkaProtocolError("%s: malformed response: %s" % (api_label(api_key, version), exc)) from None


def negotiate_api_versions(connection):
    """Ask ApiVersions (v3, then the highest version the broker lists) and return {api_key: (min, max)}."""
    version = API_VERSIONS_VERSIONS[1]
    for _attempt in range(2):
        label = api_label(API_API_VERSIONS, version)
        answer = _exchange(connection, API_API_VERSIONS, version, encode_api_versions_request(version),
                           decode_api_versions_response)
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


def _refusal(error_code, error_message):
    """``TOPIC_AUTHORIZATION_FAILED: <Kafka's message>``, or the error's name alone without a message."""
    return "%s%s" % (error_name(error_code), ": " + error_message if error_message else "")


def _ask(connection, api_key, client_range, broker_versions, encode, decode):
    """One request at the highest version both sides support: (``DescribeConfigs v2``-style label, decoded answer
    with its "version"); a malformed answer raises KafkaProtocolError naming the API and version."""
    version = choose_version(api_key, client_range, broker_versions)
    answer = _exchange(connection, api_key, version, encode(version), decode)
    answer["version"] = version
    return api_label(api_key, version), answer


def request_topic_configs(connection, topics, keys, broker_versions):
    """Ask DescribeConfigs for ``keys`` of each topic in ``topics``: {topic: {key: value}} on success, or a
    KafkaProtocolError naming each refused topic with Kafka's error (for example TOPIC_AUTHORIZATION_FAILED)."""
    if not topics:
        return {}
    label, answer = _ask(connection, API_DESCRIBE_CONFIGS, DESCRIBE_CONFIGS_VERSIONS, broker_versions,
                         lambda version: encode_describe_configs_request(version, topics, keys),
                         decode_describe_configs_response)
    refused = ["%s (%s)" % (result["resource_name"], _refusal(result["error_code"], result["error_message"]))
               for result in answer["results"] if result["error_code"] != ERROR_NONE]
    if refused:
        raise KafkaProtocolError("%s: the broker refused %s" % (label, ", ".join(sorted(refused))))
    return {result["resource_name"]: result["configs"] for result in answer["results"]}


def request_quorum(connection, broker_versions):
    """Ask DescribeQuorum for the KRaft metadata log (a broker forwards it to the active controller, which answers);
    returns {"version", "leader_id", "leader_epoch", "high_watermark", "voters", "observers"}, each voter and observer
    as decode_describe_quorum_response gives it. A refusal (CLUSTER_AUTHORIZATION_FAILED: no right to describe the
    cluster) or an answer that does not hold together raises KafkaProtocolError naming it."""
    label, answer = _ask(connection, API_DESCRIBE_QUORUM, DESCRIBE_QUORUM_VERSIONS, broker_versions,
                         encode_describe_quorum_request, decode_describe_quorum_response)
    version = answer["version"]
    if answer["error_code"] != ERROR_NONE:
        raise KafkaProtocolError("%s: the cluster refused: %s" % (label, _refusal(answer["error_code"],
                                                                                  answer["error_message"])))
    found = [partition for topic in answer["topics"] if topic["name"] == CLUSTER_METADATA_TOPIC
             for partition in topic["partitions"] if partition["partition"] == 0]
    if len(found) != 1:
        raise KafkaProtocolError("%s: the answer describes %s %s-0, not once" % (
            label, "no" if not found else "%d times" % len(found), CLUSTER_METADATA_TOPIC))
    partition = found[0]
    if partition["error_code"] != ERROR_NONE:
        raise KafkaProtocolError("%s: the cluster answered %s for %s-0" % (
            label, _refusal(partition["error_code"], partition["error_message"]), CLUSTER_METADATA_TOPIC))
    ids = [replica["replica_id"] for replica in partition["voters"]]
    if not ids or min(ids) < 0 or len(set(ids)) != len(ids):
        raise KafkaProtocolError("%s: the answer lists the voters %s: not a quorum (node ids must be distinct and "
                                 "not negative)" % (label, ids))
    if partition["leader_id"] != -1 and partition["leader_id"] not in ids:
        raise KafkaProtocolError("%s: the answer names leader %d, not one of the voters %s"
                                 % (label, partition["leader_id"], ids))
    return {"version": version, "leader_id": partition["leader_id"], "leader_epoch": partition["leader_epoch"],
            "high_watermark": partition["high_watermark"], "voters": partition["voters"],
            "observers": partition["observers"]}


def request_preferred_election(connection, partitions, broker_versions, timeout_ms):
    """Ask ElectLeaders to make the preferred replica leader of ``partitions`` ([(topic, [partition, ...])]):
    {"elected": ["topic-N", ...], "not_needed": [...], "not_elected": [{"partition", "error"}]}, each sorted.
    A refusal of the whole request (CLUSTER_AUTHORIZATION_FAILED: no right to alter the cluster) raises
    KafkaProtocolError naming it."""
    label, answer = _ask(connection, API_ELECT_LEADERS, ELECT_LEADERS_VERSIONS, broker_versions,
                         lambda version: encode_elect_leaders_request(version, partitions, timeout_ms),
                         decode_elect_leaders_response)
    if answer["error_code"] != ERROR_NONE:
        raise KafkaProtocolError("%s: the cluster refused: %s" % (label, _refusal(answer["error_code"], None)))
    outcome = {"elected": [], "not_needed": [], "not_elected": []}
    for topic in answer["results"]:
        for partition in topic["partitions"]:
            name = "%s-%d" % (topic["topic"], partition["partition"])
            if partition["error_code"] == ERROR_NONE:
                outcome["elected"].append(name)
            elif partition["error_code"] == ERROR_ELECTION_NOT_NEEDED:
                outcome["not_needed"].append(name)
            else:
                refusal = _refusal(partition["error_code"], partition["error_message"])
                outcome["not_elected"].append({"partition": name, "error": refusal})
    for key in ("elected", "not_needed"):
        outcome[key].sort()
    outcome["not_elected"].sort(key=lambda item: item["partition"])
    return outcome


def fetch_metadata(bootstrap, timeout, topics=None, client_id=DEFAULT_CLIENT_ID, ssl_context=None,
                   server_hostname=None, sasl=None, topic_config_keys=None, quorum=False, elect_preferred_of=None,
                   dry_run=False):
    """Try each bootstrap server in order until one answers Metadata; each may take up to ``timeout`` seconds.

    ``ssl_context`` (TLS) and ``sasl`` (``_kafka_auth.SaslCredentials``) give the listener's security protocol.

    ``bootstrap`` is a list of ``host:port`` strings (checked first: KafkaClientError names a bad one). Returns
    {"bootstrap_used", "bootstrap_errors": [{"server", "error"}] for the servers tried before it,
    "metadata_version", "metadata": decode_metadata_response(...)}. Raises NoBootstrapServerError listing every
    server and its reason when none answers. With ``topic_config_keys``, the same server is then asked those
    configuration keys of every topic in the answer: "topic_configs" is {topic: {key: value}}, or
    "topic_configs_error" says why the broker did not tell them (a refusal is not a reason to try the next server).
    With ``quorum``, the same server is asked DescribeQuorum too: "quorum" is request_quorum's answer, or
    "quorum_error" says why there is none. With ``elect_preferred_of`` (a node id), the same server is then asked to
    elect the preferred leader of the partitions _restart_gate.preferred_elsewhere finds for that node (unless
    ``dry_run``): "election" is {"asked": ["topic-N", ...], "elected", "not_needed", "not_elected"} (request_preferred_
    election's lists, empty when nothing was asked), and "election_error" says why the cluster did not elect.
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
            if connection.api_versions is None:  # asked once per connection (SASL asked it already)
                connection.api_versions = negotiate_api_versions(connection)
            version, answer = request_metadata(connection, topics, connection.api_versions)
            result = {
                "bootstrap_used": server,
                "bootstrap_errors": [{"server": name, "error": reason} for name, reason in failures],
                "metadata_version": version,
                "metadata": answer,
            }
            if topic_config_keys:
                names = [topic["name"] for topic in answer["topics"] if topic["error_code"] == ERROR_NONE]
                try:
                    result["topic_configs"] = request_topic_configs(connection, names, topic_config_keys,
                                                                    connection.api_versions)
                except KafkaClientError as exc:
                    result["topic_configs_error"] = str(exc)
            if quorum:
                try:
                    result["quorum"] = request_quorum(connection, connection.api_versions)
                except KafkaClientError as exc:
                    result["quorum_error"] = str(exc)
            if elect_preferred_of is not None:
                wanted = preferred_elsewhere(answer, elect_preferred_of)
                result["election"] = {"asked": ["%s-%d" % (topic, index) for topic, ids in wanted for index in ids],
                                      "elected": [], "not_needed": [], "not_elected": []}
                if wanted and not dry_run:
                    try:
                        outcome = request_preferred_election(connection, wanted, connection.api_versions,
                                                             int(timeout * 1000))
                        result["election"].update(outcome)
                    except KafkaClientError as exc:
                        result["election_error"] = str(exc)
        except KafkaClientError as exc:
            failures.append((server, str(exc)))
            continue
        finally:
            if connection is not None:
                connection.close()
        return result
    raise NoBootstrapServerError(failures)
