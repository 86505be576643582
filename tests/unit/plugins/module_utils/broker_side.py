# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The broker's half of the framing, for the fake brokers of these unit tests: read a request header, frame a
response.

The collection's codec (``_kafka_wire``) only writes requests and reads responses, as a client does; the broker's
side is written here with ``struct``, so the client's header code is not only checked against itself.
"""

from __future__ import annotations

import struct
import threading
from collections import namedtuple

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_wire import Reader

RequestHeader = namedtuple("RequestHeader", "api_key api_version correlation_id client_id")


def read_request(payload, header_version_of):
    """(RequestHeader, Reader at the body) of one request; ``header_version_of(api_key, version)`` is 1 or 2."""
    api_key, version, correlation_id, length = struct.unpack_from(">hhih", payload)
    client_id = None if length < 0 else payload[10:10 + length].decode("utf-8")
    reader = Reader(payload, 10 + max(length, 0))
    if header_version_of(api_key, version) == 2:
        reader.tagged_fields()
    return RequestHeader(api_key, version, correlation_id, client_id), reader


def response_frame(correlation_id, header_version, body):
    """A whole response frame: size, response header v0 (v1 adds an empty tagged-field set), then ``body``."""
    payload = struct.pack(">i", correlation_id) + (b"\x00" if header_version == 1 else b"") + body
    return struct.pack(">i", len(payload)) + payload


def frame_size(prefix):
    """The size a frame's 4-byte prefix announces."""
    return struct.unpack(">i", prefix)[0]


def serve_each_connection(server, handle):
    """Accept on ``server`` until it is closed, calling ``handle(conn)`` in a thread of its own per connection."""
    while True:
        try:
            conn, _peer = server.accept()
        except OSError:
            return
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


def read_exactly(stream, count):
    """``count`` bytes from a buffered reader (which returns fewer only at the end of the stream)."""
    data = stream.read(count)
    if len(data) < count:
        raise ConnectionError("client went away")
    return data


def requests_of(conn, header_version_of):
    """Each request on ``conn`` as (RequestHeader, Reader at its body), until the client goes away."""
    stream = conn.makefile("rb")
    while True:
        yield read_request(read_exactly(stream, frame_size(read_exactly(stream, 4))), header_version_of)
