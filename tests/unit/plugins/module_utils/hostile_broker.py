# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A hostile Kafka broker on 127.0.0.1, for the tests of the metadata client and of ``kafka-listeners doctor``.

It speaks the protocol well enough to be believed (ApiVersions v3, Metadata v2, SaslHandshake v1, SaslAuthenticate
v1) and answers what an attacker controls. Behaviours:

* ``forged``: Metadata lists itself, a host holding a line break that forges a clean "ok" line, a host of terminal
  escapes (retitle, clear screen), and a cluster id of escapes;
* ``flood``: Metadata lists ``brokers`` brokers, all on 127.0.0.1 (nothing is contacted outside loopback), each on
  a port of its own where nothing listens;
* ``echo``: SASL PLAIN refused with an error text that echoes the password it was sent, with escapes;
* ``drip``: the ApiVersions answer, ``sasl-drip``: the SaslHandshake answer, ``tls-drip``: a TLS server hello, each
  sent one byte every ``drip`` seconds, far longer in all than any timeout the tests give.

In-process: ``HostileBroker(behaviour, ...)`` (``address``, ``close()``). As a script (the doctor tests run it
beside the installed command): ``python hostile_broker.py BEHAVIOUR [--brokers N] [--drip S]`` prints its port,
then serves until it is killed.
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys
import threading
import time

from broker_side import requests_of, response_frame, serve_each_connection

from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_protocol as kp
from ansible_collections.kafkaops.listeners.plugins.module_utils import _kafka_wire as kw

BEHAVIOURS = ("forged", "flood", "echo", "drip", "sasl-drip", "tls-drip")
FORGED_HOST = "evil\n  broker 9  ok.example.com:9092  ok    resolves to 198.18.0.9, connects"
ESCAPE_HOST = "b3\x1b]0;pwned\x07\x1b[2J"
ESCAPE_CLUSTER_ID = "c\r\x1b[1A"
API_SASL_HANDSHAKE, API_SASL_AUTHENTICATE = 17, 36
DRIP_BYTES = 400  # dripped bytes: at the default 0.25 s each, 100 s


def _api_versions_body():
    w = kw.Writer().int16(0).unsigned_varint(4)
    for key, low, high in ((kp.API_METADATA, 2, 2), (API_SASL_HANDSHAKE, 1, 1), (API_SASL_AUTHENTICATE, 1, 1)):
        w.int16(key).int16(low).int16(high).tagged_fields()
    return w.int32(0).tagged_fields().getvalue()


def _metadata_v2_body(brokers, cluster_id):
    w = kw.Writer().array(brokers, lambda w, b: w.int32(b[0]).string(b[1]).int32(b[2]).nullable_string(None))
    return w.nullable_string(cluster_id).int32(brokers[0][0]).int32(0).getvalue()


class HostileBroker:
    """The hostile broker of ``behaviour`` on a free port of 127.0.0.1, one thread per connection."""

    def __init__(self, behaviour, brokers=10000, drip=0.25, password_echo_prefix="Authentication failed for "):
        if behaviour not in BEHAVIOURS:
            raise ValueError("behaviour %r is not one of %s" % (behaviour, ", ".join(BEHAVIOURS)))
        self.behaviour = behaviour
        self.brokers = brokers
        self.drip = drip
        self.echo_prefix = password_echo_prefix
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.address = "127.0.0.1:%d" % self.port
        threading.Thread(target=serve_each_connection, args=(self.server, self._connection), daemon=True).start()

    def close(self):
        self.server.close()

    def _connection(self, conn):
        conn.settimeout(120)
        try:
            if self.behaviour == "tls-drip":
                conn.recv(4096)  # the client hello
                self._drip(conn, b"\x16\x03\x03\x40\x00" + b"\x02" * DRIP_BYTES)  # a handshake record, never whole
                return
            self._requests(conn)
        except (OSError, ConnectionError, kw.WireError, struct.error):
            pass  # the client gave up, as it should
        finally:
            conn.close()

    def _drip(self, conn, data):
        for index in range(len(data)):
            conn.sendall(data[index:index + 1])
            time.sleep(self.drip)

    def _requests(self, conn):
        for header, reader in requests_of(conn, kp.request_header_version):
            api_key, version = header.api_key, header.api_version
            if api_key == kp.API_API_VERSIONS:
                body = _api_versions_body()
            elif api_key == API_SASL_HANDSHAKE:
                body = kw.Writer().int16(0).array(["PLAIN"], lambda w, m: w.string(m)).getvalue()
            elif api_key == API_SASL_AUTHENTICATE:
                _authz, user, password = bytes(reader.bytes_()).decode("utf-8").split("\0")
                message = "%s%s with password %s\x1b[2J" % (self.echo_prefix, user, password)
                body = kw.Writer().int16(58).nullable_string(message).bytes_(b"").int64(0).getvalue()
            elif api_key == kp.API_METADATA:
                body = self._metadata()
            else:
                return
            frame = response_frame(header.correlation_id, kp.response_header_version(api_key, version), body)
            if (self.behaviour, api_key) in (("drip", kp.API_API_VERSIONS), ("sasl-drip", API_SASL_HANDSHAKE)):
                # an answer announced DRIP_BYTES longer than it is, sent a byte at a time
                self._drip(conn, struct.pack(">i", len(frame) - 4 + DRIP_BYTES) + frame[4:] + b"\x00" * DRIP_BYTES)
                return
            conn.sendall(frame)

    def _metadata(self):
        if self.behaviour == "flood":
            return _metadata_v2_body([(node, "127.0.0.1", 20000 + node) for node in range(self.brokers)], "flood")
        brokers = [(1, "127.0.0.1", self.port), (2, FORGED_HOST, 9092), (3, ESCAPE_HOST, 9092)]
        return _metadata_v2_body(brokers, ESCAPE_CLUSTER_ID if self.behaviour == "forged" else "hostile")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("behaviour", choices=BEHAVIOURS)
    parser.add_argument("--brokers", type=int, default=10000)
    parser.add_argument("--drip", type=float, default=0.25)
    args = parser.parse_args()
    broker = HostileBroker(args.behaviour, args.brokers, args.drip)
    print(broker.port, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
