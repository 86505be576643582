# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The client's Kafka wire primitives: the types its requests and the answers it reads are made of, the request
header it writes and the response header it reads, and frames.

Private to kafkaops.listeners: no compatibility promise outside the collection. Standard library only (modules run
on managed nodes). Only what the client needs lives here: the lab's stand-in broker has a codec of its own
(lab/kafkaops_lab/kafka_standin/wire.py), so that a mistake in one shows up against the other.

Field facts follow Kafka's message definitions (clients/src/main/resources/common/message/*.json):
request header v1 = api_key int16, api_version int16, correlation_id int32, client_id nullable string
(always the two-byte-length form); v2 adds tagged fields. Response header v0 = correlation_id int32;
v1 adds tagged fields.
"""

from __future__ import annotations

import struct
import uuid
from collections import namedtuple

_INT8 = struct.Struct(">b")
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_UINT16 = struct.Struct(">H")

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# Every Kafka message on a connection is preceded by its size as an int32.
FRAME_SIZE_BYTES = 4


class WireError(ValueError):
    """Raised when bytes do not decode as the requested Kafka type, or a value cannot be encoded."""


class Reader:
    """Sequential decoder over a bytes-like buffer; every read advances the position or raises WireError."""

    def __init__(self, data, offset=0):
        self._data = memoryview(bytes(data)) if not isinstance(data, (bytes, memoryview)) else memoryview(data)
        self.pos = offset

    @property
    def remaining(self):
        """Number of bytes not yet consumed."""
        return len(self._data) - self.pos

    def at_end(self):
        """True when every byte has been consumed."""
        return self.pos >= len(self._data)

    def raw(self, count):
        """Return the next ``count`` bytes as ``bytes``."""
        if count < 0:
            raise WireError(f"negative length {count} at offset {self.pos}")
        end = self.pos + count
        if end > len(self._data):
            raise WireError(f"truncated input: need {count} bytes at offset {self.pos}, only {self.remaining} left")
        chunk = self._data[self.pos : end].tobytes()
        self.pos = end
        return chunk

    def _unpack(self, fmt):
        end = self.pos + fmt.size
        if end > len(self._data):
            raise WireError(f"truncated input: need {fmt.size} bytes at offset {self.pos}, only {self.remaining} left")
        (value,) = fmt.unpack_from(self._data, self.pos)
        self.pos = end
        return value

    def boolean(self):
        """Kafka bool: one byte, non-zero is true."""
        return self._unpack(_INT8) != 0

    def int8(self):
        """Signed 8-bit integer."""
        return self._unpack(_INT8)

    def int16(self):
        """Signed big-endian 16-bit integer."""
        return self._unpack(_INT16)

    def int32(self):
        """Signed big-endian 32-bit integer."""
        return self._unpack(_INT32)

    def int64(self):
        """Signed big-endian 64-bit integer."""
        return self._unpack(_INT64)

    def uint16(self):
        """Unsigned big-endian 16-bit integer (a port)."""
        return self._unpack(_UINT16)

    def unsigned_varint(self, max_bytes=5):
        """Unsigned LEB128 varint of at most ``max_bytes`` bytes (5 for 32-bit, 10 for 64-bit values)."""
        value = 0
        shift = 0
        for _index in range(max_bytes):
            byte = self._unpack(_INT8) & 0xFF
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
        raise WireError(f"varint longer than {max_bytes} bytes at offset {self.pos}")

    def uuid(self):
        """16-byte UUID as ``uuid.UUID``."""
        return uuid.UUID(bytes=self.raw(16))

    def _text(self, length, what):
        try:
            return self.raw(length).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise WireError(f"{what} at offset {self.pos - length} is not valid UTF-8: {exc}") from None

    def string(self):
        """STRING: int16 length then UTF-8 bytes; a negative length is an error."""
        length = self.int16()
        if length < 0:
            raise WireError(f"null where a non-nullable string was expected (offset {self.pos - 2})")
        return self._text(length, "string")

    def nullable_string(self):
        """NULLABLE_STRING: int16 length (-1 means None) then UTF-8 bytes."""
        length = self.int16()
        if length == -1:
            return None
        if length < 0:
            raise WireError(f"invalid string length {length} at offset {self.pos - 2}")
        return self._text(length, "string")

    def compact_string(self):
        """COMPACT_STRING: unsigned varint length+1 then UTF-8 bytes."""
        length = self.unsigned_varint() - 1
        if length < 0:
            raise WireError(f"null where a non-nullable compact string was expected (offset {self.pos})")
        return self._text(length, "compact string")

    def compact_nullable_string(self):
        """COMPACT_NULLABLE_STRING: unsigned varint length+1 (0 means None) then UTF-8 bytes."""
        length = self.unsigned_varint() - 1
        if length < 0:
            return None
        return self._text(length, "compact string")

    def bytes_(self):
        """BYTES: int32 length then raw bytes."""
        length = self.int32()
        if length < 0:
            raise WireError(f"null where non-nullable bytes were expected (offset {self.pos - 4})")
        return self.raw(length)

    def compact_bytes(self):
        """COMPACT_BYTES: unsigned varint length+1 then raw bytes."""
        length = self.unsigned_varint() - 1
        if length < 0:
            raise WireError(f"null where non-nullable compact bytes were expected (offset {self.pos})")
        return self.raw(length)

    def array(self, read_item):
        """ARRAY: int32 count then items decoded by ``read_item(reader)``; a null array is an error."""
        count = self.int32()
        if count < 0:
            raise WireError(f"null where a non-nullable array was expected (offset {self.pos - 4})")
        return self._items(count, read_item)

    def nullable_array(self, read_item):
        """Nullable ARRAY: int32 count (-1 means None) then items."""
        count = self.int32()
        if count == -1:
            return None
        if count < 0:
            raise WireError(f"invalid array length {count} at offset {self.pos - 4}")
        return self._items(count, read_item)

    def compact_array(self, read_item):
        """COMPACT_ARRAY: unsigned varint count+1 then items; a null array is an error."""
        count = self.unsigned_varint() - 1
        if count < 0:
            raise WireError(f"null where a non-nullable compact array was expected (offset {self.pos})")
        return self._items(count, read_item)

    def compact_nullable_array(self, read_item):
        """Nullable COMPACT_ARRAY: unsigned varint count+1 (0 means None) then items."""
        count = self.unsigned_varint() - 1
        if count < 0:
            return None
        return self._items(count, read_item)

    def _items(self, count, read_item):
        # Each item takes at least one byte: a count larger than the input is a corrupt length, not a huge list.
        if count > self.remaining:
            raise WireError(f"array count {count} exceeds the {self.remaining} bytes left at offset {self.pos}")
        return [read_item(self) for _index in range(count)]

    def tagged_fields(self):
        """TAGGED_FIELDS: unsigned varint count, then (tag, size, data) triples; returns {tag: raw bytes}."""
        fields = {}
        previous = -1
        for _index in range(self.unsigned_varint()):
            tag = self.unsigned_varint()
            if tag <= previous:
                raise WireError(f"tagged fields out of order: tag {tag} after {previous} (offset {self.pos})")
            previous = tag
            fields[tag] = self.raw(self.unsigned_varint())
        return fields


class Writer:
    """Append-only encoder; ``getvalue()`` returns the bytes written so far."""

    def __init__(self):
        self._parts = []

    def getvalue(self):
        """All bytes written, concatenated."""
        return b"".join(self._parts)

    def raw(self, data):
        """Append bytes verbatim."""
        self._parts.append(bytes(data))
        return self

    def _pack(self, fmt, value, low, high, what):
        if not isinstance(value, int):
            raise WireError(f"{what} value must be an int, got {value!r}")
        if not low <= value <= high:
            raise WireError(f"{what} value {value} out of range [{low}, {high}]")
        self._parts.append(fmt.pack(value))
        return self

    def boolean(self, value):
        """Kafka bool: 1 or 0."""
        self._parts.append(b"\x01" if value else b"\x00")
        return self

    def int8(self, value):
        """Signed 8-bit integer."""
        return self._pack(_INT8, value, -128, 127, "int8")

    def int16(self, value):
        """Signed big-endian 16-bit integer."""
        return self._pack(_INT16, value, INT16_MIN, INT16_MAX, "int16")

    def int32(self, value):
        """Signed big-endian 32-bit integer."""
        return self._pack(_INT32, value, INT32_MIN, INT32_MAX, "int32")

    def int64(self, value):
        """Signed big-endian 64-bit integer."""
        return self._pack(_INT64, value, INT64_MIN, INT64_MAX, "int64")

    def uint16(self, value):
        """Unsigned big-endian 16-bit integer (a port)."""
        return self._pack(_UINT16, value, 0, 0xFFFF, "uint16")

    def unsigned_varint(self, value):
        """Unsigned LEB128 varint (values up to 64 bits)."""
        if value < 0 or value >= 1 << 64:
            raise WireError(f"unsigned varint value {value} out of range")
        out = bytearray()
        while value > 0x7F:
            out.append((value & 0x7F) | 0x80)
            value >>= 7
        out.append(value)
        self._parts.append(bytes(out))
        return self

    def uuid(self, value):
        """16-byte UUID from ``uuid.UUID`` (or None for the all-zero UUID)."""
        self._parts.append(value.bytes if value is not None else bytes(16))
        return self

    @staticmethod
    def _utf8(value):
        if not isinstance(value, str):
            raise WireError(f"string value must be str, got {value!r}")
        return value.encode("utf-8")

    def string(self, value):
        """STRING: int16 length then UTF-8 bytes."""
        data = self._utf8(value)
        self.int16(len(data))
        self._parts.append(data)
        return self

    def nullable_string(self, value):
        """NULLABLE_STRING: None is written as length -1."""
        if value is None:
            return self.int16(-1)
        return self.string(value)

    def compact_string(self, value):
        """COMPACT_STRING: unsigned varint length+1 then UTF-8 bytes."""
        data = self._utf8(value)
        self.unsigned_varint(len(data) + 1)
        self._parts.append(data)
        return self

    def compact_nullable_string(self, value):
        """COMPACT_NULLABLE_STRING: None is written as length 0."""
        if value is None:
            return self.unsigned_varint(0)
        return self.compact_string(value)

    def bytes_(self, value):
        """BYTES: int32 length then raw bytes."""
        self.int32(len(value))
        self._parts.append(bytes(value))
        return self

    def compact_bytes(self, value):
        """COMPACT_BYTES: unsigned varint length+1 then raw bytes."""
        self.unsigned_varint(len(value) + 1)
        self._parts.append(bytes(value))
        return self

    def array(self, items, write_item):
        """ARRAY: int32 count then ``write_item(writer, item)`` for each item."""
        self.int32(len(items))
        for item in items:
            write_item(self, item)
        return self

    def nullable_array(self, items, write_item):
        """Nullable ARRAY: None is written as count -1."""
        if items is None:
            return self.int32(-1)
        return self.array(items, write_item)

    def compact_array(self, items, write_item):
        """COMPACT_ARRAY: unsigned varint count+1 then the items."""
        self.unsigned_varint(len(items) + 1)
        for item in items:
            write_item(self, item)
        return self

    def compact_nullable_array(self, items, write_item):
        """Nullable COMPACT_ARRAY: None is written as count 0."""
        if items is None:
            return self.unsigned_varint(0)
        return self.compact_array(items, write_item)

    def tagged_fields(self, fields=None):
        """TAGGED_FIELDS from {tag: raw bytes}, written in ascending tag order (an empty set is one 0 byte)."""
        fields = fields or {}
        self.unsigned_varint(len(fields))
        for tag in sorted(fields):
            data = bytes(fields[tag])
            self.unsigned_varint(tag)
            self.unsigned_varint(len(data))
            self._parts.append(data)
        return self


# ---------------------------------------------------------------------------------------------------------------
# Headers

ResponseHeader = namedtuple("ResponseHeader", "correlation_id tagged_fields")
ResponseHeader.__doc__ = "A decoded response header; ``tagged_fields`` is {} for header v0."


def _check_version(kind, version, allowed):
    if version not in allowed:
        raise WireError(f"{kind} header version {version!r} is not supported (expected one of {allowed})")


def encode_request_header(api_key, api_version, correlation_id, client_id, header_version, tagged_fields=None):
    """Bytes of a request header v1 or v2 (v2 = v1 plus tagged fields; client_id keeps the int16 length)."""
    _check_version("request", header_version, (1, 2))
    out = Writer().int16(api_key).int16(api_version).int32(correlation_id).nullable_string(client_id)
    if header_version == 2:
        out.tagged_fields(tagged_fields)
    return out.getvalue()


def decode_response_header(reader, header_version):
    """Read a response header v0 or v1 from ``reader``; the reader is left at the first byte of the body."""
    _check_version("response", header_version, (0, 1))
    correlation_id = reader.int32()
    tagged = reader.tagged_fields() if header_version == 1 else {}
    return ResponseHeader(correlation_id, tagged)


def frame(payload):
    """A complete wire frame: int32 size followed by ``payload``."""
    return _INT32.pack(len(payload)) + bytes(payload)
