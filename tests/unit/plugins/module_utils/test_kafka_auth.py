# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""SASL and TLS of kafka_metadata's client: SCRAM against the RFC test vectors, and whole exchanges (TLS outcomes,
SASL PLAIN / SCRAM / OAUTHBEARER) against fake brokers on 127.0.0.1 with certificates generated for the test.

The fake broker's SCRAM server side is written here from RFC 5802 (not shared with the client), and refuses with
the texts Kafka's SaslServerAuthenticator sends. Certificates come from ``cryptography`` (installed with
ansible-core; fixture ``pki`` in conftest.py). Nothing leaves loopback; no name other than IP literals is looked up.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import socket
import ssl
import threading
import time

import pytest
from broker_side import requests_of, response_frame, serve_each_connection

from ansible_collections.kafkaops.listeners.plugins.module_utils import _endpoint_security as es
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_auth as ka
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_connection as kconn
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_diagnosis as kd
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_protocol as kp
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_wire as kw
from ansible_collections.kafkaops.listeners.plugins.module_utils import _tls_check as tc

HANG_GUARD_S = 20  # only a guard against hangs; nothing here is a speed assertion
NOW = datetime.datetime.now(datetime.timezone.utc)  # noqa: UP017 - same code as the 3.8-compatible module_utils


# ---------------------------------------------------------------------------------------------------- SCRAM vectors


def test_scram_sha1_rfc5802_example():
    """RFC 5802 section 5: user "user", password "pencil", the RFC's nonces and salt."""
    client = ka.ScramClient("sha1", "user", "pencil", nonce="fyko+d2lbbFgONRv9qkxdawL")
    assert client.first_message() == "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL"
    final = client.final_message("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096")
    assert final == "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="
    client.verify_server_final("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")


def test_scram_sha256_rfc7677_example():
    """RFC 7677 section 3: the SCRAM-SHA-256 exchange for user "user", password "pencil"."""
    client = ka.ScramClient("sha256", "user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO")
    assert client.first_message() == "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    final = client.final_message(
        "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
    assert final == ("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                     "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
    client.verify_server_final("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")


def test_scram_refuses_a_wrong_server_signature_a_foreign_nonce_and_few_iterations():
    client = ka.ScramClient("sha256", "user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO")
    client.final_message("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
    with pytest.raises(ka.SaslError, match="server signature is wrong"):
        client.verify_server_final("v=" + base64.b64encode(b"x" * 32).decode())
    with pytest.raises(ka.SaslError, match="refused the SCRAM proof: invalid-proof"):
        client.verify_server_final("e=invalid-proof")
    other = ka.ScramClient("sha256", "user", "pencil", nonce="abc")
    with pytest.raises(ka.SaslError, match="does not extend the client's"):
        other.final_message("r=xyzdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
    with pytest.raises(ka.SaslError, match="fewer than Kafka's minimum 4096"):
        other.final_message("r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1")
    # a hostile broker's 20 million iterations would hash for minutes, far past any timeout
    started = time.monotonic()
    with pytest.raises(ka.SaslError, match="asks for 20000000 SCRAM iterations, more than Kafka's maximum 16384"):
        other.final_message("r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=20000000")
    assert time.monotonic() - started < 1
    with pytest.raises(ka.SaslError, match="malformed"):
        other.final_message("garbage")


def test_scram_user_names_are_escaped():
    client = ka.ScramClient("sha512", "a=b,c", "pw", nonce="n0")
    assert client.first_message() == "n,,n=a=3Db=2Cc,r=n0"


def test_credentials_never_show_the_secret():
    creds = ka.SaslCredentials("SCRAM-SHA-512", "alice", "s3cret-Pa55")
    assert "s3cret" not in repr(creds) and "s3cret" not in str(creds)
    with pytest.raises(ka.SaslError, match="needs sasl_username and sasl_password"):
        ka.SaslCredentials("PLAIN", "alice", None)
    with pytest.raises(ka.SaslError, match="needs sasl_oauthbearer_token"):
        ka.SaslCredentials("OAUTHBEARER")
    with pytest.raises(ka.SaslError, match="is not one of"):
        ka.SaslCredentials("GSSAPI", "a", "b")


# ---------------------------------------------------------------------------------------------------- certificates


def test_certificate_info_reads_names_and_dates(pki):
    with open(pki["wrong_name"]) as handle:
        (der,) = tc.pem_certificates(handle.read())
    info = tc.certificate_info(der)
    assert info["dns_names"] == ["ip-198-18-0-11.us-west-2.compute.internal"]
    assert info["ip_addresses"] == ["198.18.0.11"]
    assert info["common_name"] == "broker"
    assert info["not_before"] < NOW < info["not_after"]
    with pytest.raises(tc.CertificateError):
        tc.certificate_info(b"\x30\x03\x02\x01\x01")


@pytest.mark.parametrize("name", ["ca", "good", "wrong_name", "expired", "client"])
def test_both_certificate_readers_give_the_same_answers(pki, name):
    """cryptography where installed, the DER walker on managed nodes without it: the same certificates, the same
    names and dates."""
    with open(pki[name]) as handle:
        (der,) = tc.pem_certificates(handle.read())
    assert tc._read_with_cryptography(der) == tc._read_der(der)
    assert tc.certificate_info(der) == tc._read_der(der)
    for reader in (tc._read_with_cryptography, tc._read_der):
        with pytest.raises(tc.CertificateError):
            reader(der[:-1])


@pytest.mark.parametrize("pattern, host, expected", [
    ("broker.example.com", "BROKER.example.com.", True),
    ("*.example.com", "b1.example.com", True),
    ("*.example.com", "a.b1.example.com", False),
    ("*.example.com", "example.com", False),
    ("*.com", "example.com", False),
    ("b*.example.com", "b1.example.com", False),
])
def test_host_matching_follows_kafka_clients(pattern, host, expected):
    info = {"dns_names": [pattern], "ip_addresses": [], "common_name": None}
    assert tc.names_host(info, host) is expected


def test_ip_hosts_match_ip_names_only_and_cn_counts_only_without_dns_names():
    info = {"dns_names": [], "ip_addresses": ["10.0.0.1"], "common_name": "10.0.0.2"}
    assert tc.names_host(info, "10.0.0.1") and not tc.names_host(info, "10.0.0.2")
    assert tc.names_host({"dns_names": [], "ip_addresses": [], "common_name": "b1.example"}, "b1.example")
    assert not tc.names_host({"dns_names": ["b2.example"], "ip_addresses": [], "common_name": "b1.example"},
                             "b1.example")


# ---------------------------------------------------------------------------------------------------- fake broker


def _scram_keys(hash_name, password, salt, iterations):
    salted = hashlib.pbkdf2_hmac(hash_name, password.encode(), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", hash_name).digest()
    return hashlib.new(hash_name, client_key).digest(), hmac.new(salted, b"Server Key", hash_name).digest()


class ScramServer:
    """RFC 5802 server side, refusing the way Kafka's ScramSaslServer does."""

    def __init__(self, mechanism, users):
        self.mechanism = mechanism
        self.hash = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}[mechanism]
        self.users = users
        self.state = None

    def step(self, token):
        text = token.decode()
        if self.state is None:
            bare = text.split(",", 2)[2]
            fields = dict(part.split("=", 1) for part in bare.split(","))
            salt = b"kafkaops-salt"
            server_first = "r=%sSERVERNONCE,s=%s,i=4096" % (fields["r"], base64.b64encode(salt).decode())
            self.state = (fields["n"], bare, server_first, salt)
            return server_first.encode()
        user, bare, server_first, salt = self.state
        without_proof, _sep, proof = text.rpartition(",p=")
        password = self.users.get(user, "\0no such user")
        stored_key, server_key = _scram_keys(self.hash, password, salt, 4096)
        auth_message = ("%s,%s,%s" % (bare, server_first, without_proof)).encode()
        signature = hmac.new(stored_key, auth_message, self.hash).digest()
        client_key = bytes(a ^ b for a, b in zip(base64.b64decode(proof), signature, strict=True))
        if hashlib.new(self.hash, client_key).digest() != stored_key:
            raise PermissionError("Authentication failed during authentication due to invalid credentials with SASL "
                                  "mechanism %s" % self.mechanism)
        return ("v=" + base64.b64encode(hmac.new(server_key, auth_message, self.hash).digest()).decode()).encode()


def _api_versions_body():
    w = kw.Writer().int16(0).unsigned_varint(5)
    for key, low, high in ((3, 0, 12), (17, 0, 1), (18, 0, 3), (36, 0, 2)):
        w.int16(key).int16(low).int16(high).tagged_fields()
    return w.int32(0).tagged_fields().getvalue()


def _metadata_v12_body(port):
    w = kw.Writer().int32(0).unsigned_varint(2)
    w.int32(1).compact_string("127.0.0.1").int32(port).compact_nullable_string(None).tagged_fields()
    w.compact_nullable_string("fake-cluster").int32(1).unsigned_varint(1).tagged_fields()
    return w.getvalue()


class SecuredFakeBroker:
    """A loopback broker with optional TLS (``cert``, ``client_ca``) and SASL (``mechanisms``, ``users``, ``token``)."""

    def __init__(self, cert=None, client_ca=None, mechanisms=(), users=None, token=None):
        self.mechanisms = list(mechanisms)
        self.users = users or {}
        self.token = token
        self.tls = None
        if cert:
            self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls.load_cert_chain(cert)
            if client_ca:
                self.tls.load_verify_locations(client_ca)
                self.tls.verify_mode = ssl.CERT_REQUIRED
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(HANG_GUARD_S)
        self.port = self.server.getsockname()[1]
        self.address = "127.0.0.1:%d" % self.port
        threading.Thread(target=serve_each_connection, args=(self.server, self._connection), daemon=True).start()

    def _connection(self, conn):
        conn.settimeout(HANG_GUARD_S)
        try:
            if self.tls:
                conn = self.tls.wrap_socket(conn, server_side=True)
            self._requests(conn)
        except (OSError, ssl.SSLError, ConnectionError):
            pass
        finally:
            conn.close()

    def _requests(self, conn):
        authenticated = not self.mechanisms
        mechanism = None
        for header, reader in requests_of(conn, kp.request_header_version):
            api_key, version = header.api_key, header.api_version
            if api_key == kp.API_API_VERSIONS:
                body = _api_versions_body()
            elif api_key == ka.API_SASL_HANDSHAKE:
                wanted = reader.string()
                enabled = wanted in self.mechanisms
                mechanism = (ScramServer(wanted, self.users) if wanted.startswith("SCRAM") else wanted) if enabled \
                    else None
                body = kw.Writer().int16(0 if enabled else 33).array(self.mechanisms, lambda w, m: w.string(m)) \
                    .getvalue()
            elif api_key == ka.API_SASL_AUTHENTICATE:
                token = reader.compact_bytes() if version >= 2 else reader.bytes_()
                error, message, answer = 0, None, b""
                try:
                    answer = self._sasl_step(mechanism, bytes(token))
                    authenticated = answer is not None
                    answer = answer or b""
                except PermissionError as exc:
                    error, message = 58, str(exc)
                w = kw.Writer().int16(error)
                if version >= 2:
                    w.compact_nullable_string(message).compact_bytes(answer).int64(0).tagged_fields()
                else:
                    w.nullable_string(message).bytes_(answer)
                    if version >= 1:
                        w.int64(0)
                body = w.getvalue()
                if error:
                    conn.sendall(response_frame(header.correlation_id, 1 if version >= 2 else 0, body))
                    return
            elif api_key == kp.API_METADATA and authenticated:
                body = _metadata_v12_body(self.port)
            else:
                return  # Kafka closes a connection that skips authentication
            conn.sendall(response_frame(header.correlation_id, kp.response_header_version(api_key, version), body))

    def _sasl_step(self, mechanism, token):
        """The server's answer (bytes, or b"" when done); PermissionError with Kafka's text when refused."""
        if isinstance(mechanism, ScramServer):
            return mechanism.step(token)
        if mechanism == "PLAIN":
            _authz, user, password = token.decode().split("\0")
            if self.users.get(user) != password:
                raise PermissionError("Authentication failed: Invalid username or password")
            return b""
        if mechanism == "OAUTHBEARER":
            if token == b"\x01":
                raise PermissionError("Authentication failed: invalid_token")
            if token.decode() != "n,,\x01auth=Bearer %s\x01\x01" % self.token:
                return b'{"status":"invalid_token"}'
            return b""
        raise PermissionError("no mechanism")

    def close(self):
        self.server.close()


@pytest.fixture
def broker():
    started = []

    def start(**kwargs):
        fake = SecuredFakeBroker(**kwargs)
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.close()


USERS = {"alice": "alice-secret-1", "bob": "bob-secret-2"}


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_sasl_authenticates_with_the_right_password_and_names_kafkas_error_with_a_wrong_one(broker, mechanism):
    fake = broker(mechanisms=[mechanism], users=USERS)
    good = kconn.fetch_metadata([fake.address], 5, sasl=ka.SaslCredentials(mechanism, "alice", USERS["alice"]))
    assert good["metadata"]["cluster_id"] == "fake-cluster"
    with pytest.raises(kconn.NoBootstrapServerError) as refused:
        kconn.fetch_metadata([fake.address], 5, sasl=ka.SaslCredentials(mechanism, "alice", "wrong-password"))
    message = str(refused.value)
    assert "SASL authentication failed: %s SASL_AUTHENTICATION_FAILED: Authentication failed" % mechanism in message
    assert "wrong-password" not in message


def test_oauthbearer_sends_the_given_token(broker):
    fake = broker(mechanisms=["OAUTHBEARER"], token="eyJhbGciOiJub25lIn0.e30.")
    kconn.fetch_metadata([fake.address], 5, sasl=ka.SaslCredentials("OAUTHBEARER", token="eyJhbGciOiJub25lIn0.e30."))
    with pytest.raises(kconn.NoBootstrapServerError, match="invalid_token"):
        kconn.fetch_metadata([fake.address], 5, sasl=ka.SaslCredentials("OAUTHBEARER", token="not-the-token"))


def test_a_mechanism_the_listener_does_not_enable_is_named_with_the_enabled_ones(broker):
    fake = broker(mechanisms=["SCRAM-SHA-512"], users=USERS)
    enabled = r"does not enable SASL mechanism PLAIN \(enabled: SCRAM-SHA-512\)"
    with pytest.raises(kconn.NoBootstrapServerError, match=enabled):
        kconn.fetch_metadata([fake.address], 5, sasl=ka.SaslCredentials("PLAIN", "alice", USERS["alice"]))


def _context(ca, cert=None):
    return kconn.make_ssl_context(ca_file=ca, cert_file=cert)


def _checked(fake, timeout=5, ssl_context=None, sasl=None):
    """kafka_metadata's path: bootstrap, then every advertised endpoint resolved, connected, then TLS/SASL."""
    answer = kconn.fetch_metadata([fake.address], timeout, ssl_context=ssl_context, sasl=sasl)
    endpoints = kd.check_endpoints(kd.summarize_metadata(answer["metadata"])["brokers"], timeout)
    return es.check_endpoint_security(endpoints, timeout, ssl_context, sasl)


def test_tls_verified_and_authenticated_over_sasl_ssl(broker, pki):
    fake = broker(cert=pki["good"], mechanisms=["SCRAM-SHA-512"], users=USERS)
    (endpoint,) = _checked(fake, ssl_context=_context(pki["ca"]),
                           sasl=ka.SaslCredentials("SCRAM-SHA-512", "bob", USERS["bob"]))
    assert (endpoint["tls_verified"], endpoint["tls_outcome"], endpoint["authenticated"]) == (True, "verified", True)
    assert endpoint["security_error"] is None and es.insecure_endpoints([endpoint]) == []


def test_plaintext_endpoints_get_no_security_verdict(broker):
    fake = broker()
    (endpoint,) = _checked(fake)
    assert [endpoint[key] for key in es.SECURITY_KEYS] == [None, None, None, None]


@pytest.mark.parametrize("cert, ca, outcome, says", [
    ("good", "other_ca", "unknown_ca", "does not chain to the CA given (unknown CA)"),
    ("expired", "ca", "expired", "has expired"),
    ("wrong_name", "ca", "name_mismatch",
     "not among the certificate's names (IP address mismatch, certificate is not valid for '127.0.0.1'.); the "
     "certificate names ip-198-18-0-11.us-west-2.compute.internal, 198.18.0.11"),
])
def test_tls_outcomes_name_the_reason(broker, pki, cert, ca, outcome, says):
    fake = broker(cert=pki[cert])
    context = _context(pki[ca])
    with pytest.raises(kconn.NoBootstrapServerError) as failed:
        kconn.fetch_metadata([fake.address], 5, ssl_context=context)
    assert says in str(failed.value)
    # the same certificate found on an advertised endpoint after a bootstrap that verified (another broker)
    good = broker(cert=pki["good"])
    answer = kconn.fetch_metadata([good.address], 5, ssl_context=context if ca == "ca" else _context(pki["ca"]))
    endpoints = kd.check_endpoints([{"node_id": 2, "host": "127.0.0.1", "port": fake.port, "rack": None}], 5)
    (endpoint,) = es.check_endpoint_security(endpoints, 5, context)
    assert answer["metadata"]["brokers"]
    assert (endpoint["tls_verified"], endpoint["tls_outcome"]) == (False, outcome)
    assert says in endpoint["security_error"]
    assert says in es.summary_with_security("bootstrap x reachable", [endpoint])


def test_client_certificate_is_optional_and_sent_when_given(broker, pki):
    fake = broker(cert=pki["good"], client_ca=pki["ca"])
    kconn.fetch_metadata([fake.address], 5, ssl_context=_context(pki["ca"], pki["client"]))
    with pytest.raises(kconn.NoBootstrapServerError):
        kconn.fetch_metadata([fake.address], 5, ssl_context=_context(pki["ca"]))


def test_a_refused_password_on_an_advertised_endpoint_is_reported_per_endpoint(broker, pki):
    fake = broker(cert=pki["good"], mechanisms=["PLAIN"], users=USERS)
    endpoints = kd.check_endpoints([{"node_id": 1, "host": "127.0.0.1", "port": fake.port, "rack": None}], 5)
    (endpoint,) = es.check_endpoint_security(endpoints, 5, _context(pki["ca"]),
                                             ka.SaslCredentials("PLAIN", "alice", "nope-wrong"))
    assert (endpoint["tls_verified"], endpoint["authenticated"]) == (True, False)
    assert "Invalid username or password" in endpoint["security_error"]
    assert "nope-wrong" not in endpoint["security_error"]
