# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""SASL for the collection's Kafka client: PLAIN, SCRAM-SHA-256/512 and OAUTHBEARER (a given token).

Private to kafkaops.listeners: no compatibility promise outside the collection.

Modules run on managed nodes, so this is standard library only: SCRAM (RFC 5802, RFC 7677) needs nothing beyond
``hashlib.pbkdf2_hmac``, ``hmac`` and ``base64``. On the wire, Kafka wraps the SASL tokens in two APIs
(clients/src/main/resources/common/message/SaslHandshake*.json, SaslAuthenticate*.json): SaslHandshake v1 names
the mechanism (the answer lists the ones the listener enables), then one SaslAuthenticate per token.

Credentials never appear in a message, an exception or a ``repr``: :class:`SaslCredentials` hides them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_wire as kw

API_SASL_HANDSHAKE = 17
API_SASL_AUTHENTICATE = 36
SASL_HANDSHAKE_VERSION = 1
SASL_AUTHENTICATE_VERSIONS = (0, 2)
#: First flexible version of each API (SaslHandshake has none).
FIRST_FLEXIBLE = {API_SASL_HANDSHAKE: 99, API_SASL_AUTHENTICATE: 2}
API_NAMES = {API_SASL_HANDSHAKE: "SaslHandshake", API_SASL_AUTHENTICATE: "SaslAuthenticate"}

MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")
_SCRAM_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
#: Kafka's ScramMechanism minimum; a server asking fewer is not a Kafka broker (or downgrades the exchange).
SCRAM_MIN_ITERATIONS = 4096
# Kafka's ScramMechanism refuses more too; a broker asking for millions makes the client hash for minutes
SCRAM_MAX_ITERATIONS = 16384

ERROR_UNSUPPORTED_SASL_MECHANISM = 33
ERROR_ILLEGAL_SASL_STATE = 34
ERROR_SASL_AUTHENTICATION_FAILED = 58


class SaslError(Exception):
    """Authentication failed or could not run; the message says why (never with a secret in it)."""


class SaslCredentials:
    """What a client authenticates with; ``repr`` and ``str`` never show the password or token."""

    def __init__(self, mechanism, username=None, password=None, token=None):
        mechanism = str(mechanism or "").upper()
        if mechanism not in MECHANISMS:
            raise SaslError("sasl_mechanism %r is not one of %s" % (mechanism, ", ".join(MECHANISMS)))
        if mechanism == "OAUTHBEARER":
            if not token:
                raise SaslError("sasl_mechanism OAUTHBEARER needs sasl_oauthbearer_token")
        elif not username or password is None:
            raise SaslError("sasl_mechanism %s needs sasl_username and sasl_password" % mechanism)
        self.mechanism = mechanism
        self.username = username
        self._password = password
        self._token = token

    def __repr__(self):
        return "SaslCredentials(mechanism=%r, username=%r)" % (self.mechanism, self.username)

    __str__ = __repr__


# ---------------------------------------------------------------------------------------------------- SCRAM


def _b64(data):
    return base64.b64encode(data).decode("ascii")


def scram_escape(name):
    """A SCRAM ``saslname``: ``=`` as ``=3D`` and ``,`` as ``=2C`` (RFC 5802 section 5.1)."""
    return name.replace("=", "=3D").replace(",", "=2C")


def _attributes(message, what):
    """``{letter: value}`` of a SCRAM message ``a=...,b=...``; SaslError naming ``what`` when malformed."""
    values = {}
    for part in message.split(","):
        if len(part) < 2 or part[1] != "=":
            raise SaslError("the broker's SCRAM %s is malformed: %r" % (what, message))
        values.setdefault(part[0], part[2:])
    return values


class ScramClient:
    """The client side of one SCRAM exchange (RFC 5802) with ``hash_name`` ``sha256``, ``sha512`` (or ``sha1``).

    Kafka applies no SASLprep to user names and passwords (ScramFormatter.normalize is UTF-8 encoding only), so
    neither does this client. Use :meth:`first_message`, :meth:`final_message` with the server's first message,
    then :meth:`verify_server_final` with its last one, which proves the server knew the password too.
    """

    def __init__(self, hash_name, username, password, nonce=None):
        self._hash = hash_name
        self._digest_size = hashlib.new(hash_name).digest_size
        self._username = username
        self._password = password
        self._nonce = nonce or secrets.token_urlsafe(24)
        self._first_bare = "n=%s,r=%s" % (scram_escape(username), self._nonce)
        self._server_signature = None

    def _hmac(self, key, data):
        return hmac.new(key, data, self._hash).digest()

    def first_message(self):
        """``n,,n=<user>,r=<nonce>``: no channel binding, no authorization identity."""
        return "n,," + self._first_bare

    def final_message(self, server_first):
        """The client-final message (with the proof) answering ``server_first`` (``r=...,s=...,i=...``)."""
        values = _attributes(server_first, "first message")
        if "e" in values:
            raise SaslError("the broker refused the SCRAM exchange: %s" % values["e"])
        if not {"r", "s", "i"} <= set(values):
            raise SaslError("the broker's SCRAM first message lacks r=, s= or i=: %r" % server_first)
        nonce = values["r"]
        if not nonce.startswith(self._nonce) or len(nonce) == len(self._nonce):
            raise SaslError("the broker's SCRAM nonce does not extend the client's: the answer is not for this "
                            "exchange")
        try:
            salt = base64.b64decode(values["s"], validate=True)
            iterations = int(values["i"])
        except ValueError:
            raise SaslError("the broker's SCRAM salt or iteration count is malformed: %r" % server_first) from None
        if iterations < SCRAM_MIN_ITERATIONS and self._hash != "sha1":
            raise SaslError("the broker asks for %d SCRAM iterations, fewer than Kafka's minimum %d"
                            % (iterations, SCRAM_MIN_ITERATIONS))
        if iterations > SCRAM_MAX_ITERATIONS:
            raise SaslError("the broker asks for %d SCRAM iterations, more than Kafka's maximum %d"
                            % (iterations, SCRAM_MAX_ITERATIONS))
        salted = hashlib.pbkdf2_hmac(self._hash, self._password.encode("utf-8"), salt, iterations)
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = "c=biws,r=%s" % nonce  # biws = base64("n,,")
        auth_message = ("%s,%s,%s" % (self._first_bare, server_first, without_proof)).encode("utf-8")
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature))  # noqa: B905 - equal digest sizes; strict= is 3.10+
        self._server_signature = self._hmac(self._hmac(salted, b"Server Key"), auth_message)
        return "%s,p=%s" % (without_proof, _b64(proof))

    def verify_server_final(self, server_final):
        """Check the server's signature (``v=...``); SaslError on ``e=...`` or a wrong signature."""
        values = _attributes(server_final, "final message")
        if "e" in values:
            raise SaslError("the broker refused the SCRAM proof: %s" % values["e"])
        if self._server_signature is None or "v" not in values:
            raise SaslError("the broker's SCRAM final message has no server signature")
        try:
            signature = base64.b64decode(values["v"], validate=True)
        except ValueError:
            raise SaslError("the broker's SCRAM server signature is not base64") from None
        if not hmac.compare_digest(signature, self._server_signature):
            raise SaslError("the broker's SCRAM server signature is wrong: it does not know this user's credentials "
                            "(is it the broker you meant?)")


# ---------------------------------------------------------------------------------------------------- wire


def encode_sasl_handshake_request(mechanism):
    """SaslHandshake v0/v1 body: the mechanism name."""
    return kw.Writer().string(mechanism).getvalue()


def decode_sasl_handshake_response(reader):
    """(error_code, [enabled mechanisms]) of a SaslHandshake v0/v1 answer."""
    error_code = reader.int16()
    mechanisms = reader.array(lambda r: r.string())
    return error_code, list(mechanisms or [])


def encode_sasl_authenticate_request(version, token):
    """SaslAuthenticate body carrying ``token`` (bytes); v2 is flexible."""
    writer = kw.Writer()
    if version >= 2:
        writer.compact_bytes(token).tagged_fields()
    else:
        writer.bytes_(token)
    return writer.getvalue()


def decode_sasl_authenticate_response(reader, version):
    """{"error_code", "error_message", "auth_bytes", "session_lifetime_ms"} of a SaslAuthenticate answer."""
    flexible = version >= 2
    error_code = reader.int16()
    error_message = reader.compact_nullable_string() if flexible else reader.nullable_string()
    auth_bytes = reader.compact_bytes() if flexible else reader.bytes_()
    lifetime = reader.int64() if version >= 1 else 0
    if flexible:
        reader.tagged_fields()
    return {"error_code": error_code, "error_message": error_message, "auth_bytes": bytes(auth_bytes or b""),
            "session_lifetime_ms": lifetime}


# ---------------------------------------------------------------------------------------------------- exchange


def _mechanism_tokens(credentials):
    """A generator that yields each token to send and receives each server answer (bytes) in turn."""
    mechanism = credentials.mechanism
    if mechanism == "PLAIN":
        yield b"\0" + credentials.username.encode("utf-8") + b"\0" + credentials._password.encode("utf-8")
        return
    if mechanism == "OAUTHBEARER":
        answer = yield ("n,,\x01auth=Bearer %s\x01\x01" % credentials._token).encode("utf-8")
        if answer:
            # the broker's error challenge (JSON); RFC 7628 asks the client to end the exchange with a lone ^A,
            # after which the broker reports the failure
            yield b"\x01"
        return
    client = ScramClient(_SCRAM_HASHES[mechanism], credentials.username, credentials._password)
    server_first = yield client.first_message().encode("utf-8")
    server_final = yield client.final_message(server_first.decode("utf-8", "replace")).encode("utf-8")
    client.verify_server_final(server_final.decode("utf-8", "replace"))


def authenticate(connection, credentials, broker_versions):
    """Run SaslHandshake v1 and SaslAuthenticate over ``connection`` (a ``_kafka_connection.KafkaConnection``).

    ``broker_versions`` is the broker's ApiVersions answer ({api_key: (min, max)}). Raises SaslError with the
    broker's own error message when it refuses (Kafka's wording, for example ``Authentication failed during
    authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256``).
    """
    if API_SASL_AUTHENTICATE not in broker_versions or API_SASL_HANDSHAKE not in broker_versions:
        raise SaslError("the broker offers no SASL APIs on this listener: is it a SASL listener?")
    reader = connection.request(API_SASL_HANDSHAKE, SASL_HANDSHAKE_VERSION,
                                encode_sasl_handshake_request(credentials.mechanism))
    try:
        error_code, enabled = decode_sasl_handshake_response(reader)
    except kw.WireError as exc:
        raise SaslError("SaslHandshake v1: malformed response: %s" % exc) from None
    if error_code == ERROR_UNSUPPORTED_SASL_MECHANISM:
        raise SaslError("the listener does not enable SASL mechanism %s (enabled: %s)"
                        % (credentials.mechanism, ", ".join(enabled) or "none"))
    if error_code:
        raise SaslError("SaslHandshake v1: the broker answered error code %d" % error_code)
    low, high = broker_versions[API_SASL_AUTHENTICATE]
    version = min(high, SASL_AUTHENTICATE_VERSIONS[1])
    if version < max(low, SASL_AUTHENTICATE_VERSIONS[0]):
        raise SaslError("no common SaslAuthenticate version: the broker supports v%d-v%d" % (low, high))
    tokens = _mechanism_tokens(credentials)
    answer = None
    while True:
        try:
            token = tokens.send(answer) if answer is not None else next(tokens)
        except StopIteration:
            return
        reader = connection.request(API_SASL_AUTHENTICATE, version, encode_sasl_authenticate_request(version, token))
        try:
            result = decode_sasl_authenticate_response(reader, version)
        except kw.WireError as exc:
            raise SaslError("SaslAuthenticate v%d: malformed response: %s" % (version, exc)) from None
        if result["error_code"]:
            names = {ERROR_SASL_AUTHENTICATION_FAILED: "SASL_AUTHENTICATION_FAILED",
                     ERROR_ILLEGAL_SASL_STATE: "ILLEGAL_SASL_STATE"}
            raise SaslError("%s %s: %s" % (
                credentials.mechanism, names.get(result["error_code"], "error code %d" % result["error_code"]),
                result["error_message"] or "(no message)"))
        answer = result["auth_bytes"]
