"""The stand-in's own Kafka wire codec: primitive types, the headers a broker reads and writes, record batches.

Written apart from the collection's client codec (``plugins/module_utils/_kafka_wire.py``) on purpose: the lab's
tests talk to the stand-in with the client's code, so a mistake in either codec shows up as a disagreement instead
of being made alike on both sides. Standard library only.

Field facts follow Kafka's message definitions (clients/src/main/resources/common/message/*.json): request header
v1 = api_key int16, api_version int16, correlation_id int32, client_id nullable string (always the two-byte
length form); v2 adds tagged fields. Response header v0 = correlation_id int32; v1 adds tagged fields.
"""

from __future__ import annotations

import struct
import uuid
from collections import namedtuple

# Every Kafka message on a connection is preceded by its size as an int32.
FRAME_SIZE_BYTES = 4

# name: (struct format, smallest, largest); None bounds are not checked (floats)
_FIXED = {
    "int8": (">b", -(2**7), 2**7 - 1),
    "int16": (">h", -(2**15), 2**15 - 1),
    "uint16": (">H", 0, 2**16 - 1),
    "int32": (">i", -(2**31), 2**31 - 1),
    "uint32": (">I", 0, 2**32 - 1),
    "int64": (">q", -(2**63), 2**63 - 1),
    "float64": (">d", None, None),
}
# How the length (or count) of a sized field is written, and what a null is: (length type, null marker).
_CLASSIC_STR = ("int16", -1)
_CLASSIC_BYTES = ("int32", -1)
_COMPACT = ("compact", -1)


class WireError(ValueError):
    """Bytes that do not decode as the requested Kafka type, or a value that cannot be encoded."""


class Reader:
    """Reads Kafka types from ``data`` starting at ``offset``; ``pos`` is the next unread byte."""

    def __init__(self, data, offset=0):
        self.data = bytes(data)
        self.pos = offset

    @property
    def remaining(self):
        return len(self.data) - self.pos

    def at_end(self):
        return self.pos >= len(self.data)

    def raw(self, count):
        """The next ``count`` bytes."""
        if count < 0:
            raise WireError(f"negative length {count} at offset {self.pos}")
        if count > self.remaining:
            raise WireError(f"truncated input at offset {self.pos}: {count} bytes wanted, {self.remaining} there")
        start, self.pos = self.pos, self.pos + count
        return self.data[start : self.pos]

    def _fixed(self, name):
        fmt = _FIXED[name][0]
        return struct.unpack(fmt, self.raw(struct.calcsize(fmt)))[0]

    def boolean(self):
        return self.raw(1) != b"\x00"

    def unsigned_varint(self, max_bytes=5):
        start = self.pos
        value = 0
        for index in range(max_bytes):
            byte = self.raw(1)[0]
            value += (byte & 0x7F) << (7 * index)
            if byte < 0x80:
                return value
        raise WireError(f"varint at offset {start} runs past {max_bytes} bytes")

    def varint(self):
        return _unzigzag(self.unsigned_varint(5))

    def varlong(self):
        return _unzigzag(self.unsigned_varint(10))

    def uuid(self):
        return uuid.UUID(bytes=self.raw(16))

    def _length(self, kind):
        return self.unsigned_varint() - 1 if kind == "compact" else self._fixed(kind)

    def _sized(self, layout, nullable, text):
        """A string or byte field: its length in ``layout``, then that many bytes."""
        at = self.pos
        length = self._length(layout[0])
        if length == layout[1] or length < 0:
            if nullable and length == layout[1]:
                return None
            raise WireError(f"null or negative length {length} at offset {at} where a value was expected")
        data = self.raw(length)
        if not text:
            return data
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise WireError(f"string at offset {at} is not UTF-8: {exc}") from None

    def _counted(self, kind, nullable, read_item):
        """An array: its count in ``kind``, then each item read by ``read_item(reader)``."""
        at = self.pos
        count = self._length(kind)
        if count < 0:
            if nullable and count == -1:
                return None
            raise WireError(f"null or negative array count {count} at offset {at} where an array was expected")
        if count > self.remaining:  # every item is at least one byte
            raise WireError(f"array count {count} at offset {at} is more than the {self.remaining} bytes left")
        return [read_item(self) for _ in range(count)]

    def string(self):
        return self._sized(_CLASSIC_STR, False, True)

    def nullable_string(self):
        return self._sized(_CLASSIC_STR, True, True)

    def compact_string(self):
        return self._sized(_COMPACT, False, True)

    def compact_nullable_string(self):
        return self._sized(_COMPACT, True, True)

    def bytes_(self):
        return self._sized(_CLASSIC_BYTES, False, False)

    def nullable_bytes(self):
        return self._sized(_CLASSIC_BYTES, True, False)

    def compact_bytes(self):
        return self._sized(_COMPACT, False, False)

    def compact_nullable_bytes(self):
        return self._sized(_COMPACT, True, False)

    def array(self, read_item):
        return self._counted("int32", False, read_item)

    def nullable_array(self, read_item):
        return self._counted("int32", True, read_item)

    def compact_array(self, read_item):
        return self._counted("compact", False, read_item)

    def compact_nullable_array(self, read_item):
        return self._counted("compact", True, read_item)

    def tagged_fields(self):
        """{tag: raw bytes}; tags must come in ascending order."""
        fields = {}
        for _ in range(self.unsigned_varint()):
            tag = self.unsigned_varint()
            if fields and tag <= max(fields):
                raise WireError(f"tag {tag} at offset {self.pos} is not above the tags before it")
            fields[tag] = self.raw(self.unsigned_varint())
        return fields


class Writer:
    """Writes Kafka types into a growing buffer; every method returns the writer, ``getvalue()`` the bytes."""

    def __init__(self):
        self.buffer = bytearray()

    def getvalue(self):
        return bytes(self.buffer)

    def raw(self, data):
        self.buffer += data
        return self

    def _fixed(self, name, value):
        fmt, low, high = _FIXED[name]
        if low is not None and (not isinstance(value, int) or not low <= value <= high):
            raise WireError(f"{name} cannot hold {value!r} (range {low} to {high})")
        return self.raw(struct.pack(fmt, value))

    def boolean(self, value):
        return self.raw(b"\x01" if value else b"\x00")

    def unsigned_varint(self, value):
        if not 0 <= value < 2**64:
            raise WireError(f"unsigned varint cannot hold {value} (range 0 to 2**64-1)")
        while True:
            low7, value = value & 0x7F, value >> 7
            self.buffer.append(low7 | (0x80 if value else 0))
            if not value:
                return self

    def varint(self, value):
        return self.unsigned_varint(_zigzag(value, 32))

    def varlong(self, value):
        return self.unsigned_varint(_zigzag(value, 64))

    def uuid(self, value):
        return self.raw(bytes(16) if value is None else value.bytes)

    def _length(self, kind, length):
        return self.unsigned_varint(length + 1) if kind == "compact" else self._fixed(kind, length)

    def _sized(self, layout, value, text, nullable=True):
        if value is None:
            if not nullable:
                raise WireError("a non-nullable field cannot be None")
            return self._length(layout[0], -1)
        if text and not isinstance(value, str):
            raise WireError(f"a string field cannot hold {value!r}")
        data = value.encode("utf-8") if text else bytes(value)
        return self._length(layout[0], len(data)).raw(data)

    def _counted(self, kind, items, write_item):
        if items is None:
            return self._length(kind, -1)
        self._length(kind, len(items))
        for item in items:
            write_item(self, item)
        return self

    def string(self, value):
        return self._sized(_CLASSIC_STR, value, True, nullable=False)

    def nullable_string(self, value):
        return self._sized(_CLASSIC_STR, value, True)

    def compact_string(self, value):
        return self._sized(_COMPACT, value, True, nullable=False)

    def compact_nullable_string(self, value):
        return self._sized(_COMPACT, value, True)

    def bytes_(self, value):
        return self._sized(_CLASSIC_BYTES, value, False, nullable=False)

    def nullable_bytes(self, value):
        return self._sized(_CLASSIC_BYTES, value, False)

    def compact_bytes(self, value):
        return self._sized(_COMPACT, value, False, nullable=False)

    def compact_nullable_bytes(self, value):
        return self._sized(_COMPACT, value, False)

    def array(self, items, write_item):
        return self._counted("int32", items, write_item)

    def nullable_array(self, items, write_item):
        return self._counted("int32", items, write_item)

    def compact_array(self, items, write_item):
        return self._counted("compact", items, write_item)

    def compact_nullable_array(self, items, write_item):
        return self._counted("compact", items, write_item)

    def tagged_fields(self, fields=None):
        fields = fields or {}
        self.unsigned_varint(len(fields))
        for tag, data in sorted(fields.items()):
            self.unsigned_varint(tag).unsigned_varint(len(data)).raw(data)
        return self


def _fixed_methods(name):
    def read(self):
        return self._fixed(name)

    def write(self, value):
        return self._fixed(name, value)

    read.__doc__ = write.__doc__ = f"Kafka {name} (big-endian)."
    return read, write


for _name in _FIXED:
    _read, _write = _fixed_methods(_name)
    setattr(Reader, _name, _read)
    setattr(Writer, _name, _write)


def _zigzag(value, bits):
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise WireError(f"a {bits}-bit varint cannot hold {value}")
    return (value << 1) if value >= 0 else ((-value) << 1) - 1


def _unzigzag(raw):
    return -((raw + 1) >> 1) if raw & 1 else raw >> 1


# ------------------------------------------------------------------------------------------------------- headers

RequestHeader = namedtuple("RequestHeader", "api_key api_version correlation_id client_id tagged_fields")
ResponseHeader = namedtuple("ResponseHeader", "correlation_id tagged_fields")


def _header_version(kind, version, flexible):
    if version not in (flexible - 1, flexible):
        raise WireError(f"{kind} header version {version!r} is not supported (only {flexible - 1} and {flexible})")
    return version == flexible


def encode_request_header(api_key, api_version, correlation_id, client_id, header_version, tagged_fields=None):
    """A request header v1 (v2 adds tagged fields; the client id keeps its two-byte length in both)."""
    flexible = _header_version("request", header_version, 2)
    out = Writer().int16(api_key).int16(api_version).int32(correlation_id).nullable_string(client_id)
    return (out.tagged_fields(tagged_fields) if flexible else out).getvalue()


def decode_request_header(reader, header_version):
    """The request header at ``reader``; the reader is left at the body."""
    flexible = _header_version("request", header_version, 2)
    fields = (reader.int16(), reader.int16(), reader.int32(), reader.nullable_string())
    return RequestHeader(*fields, reader.tagged_fields() if flexible else {})


def peek_request_api(data):
    """(api_key, api_version, correlation_id) of a request: readable before its header version is known."""
    return struct.unpack_from(">hhi", data) if len(data) >= 8 else Reader(data).raw(8)


def encode_response_header(correlation_id, header_version, tagged_fields=None):
    """A response header v0 (v1 adds tagged fields)."""
    flexible = _header_version("response", header_version, 1)
    out = Writer().int32(correlation_id)
    return (out.tagged_fields(tagged_fields) if flexible else out).getvalue()


def decode_response_header(reader, header_version):
    """The response header at ``reader``; the reader is left at the body."""
    flexible = _header_version("response", header_version, 1)
    return ResponseHeader(reader.int32(), reader.tagged_fields() if flexible else {})


def frame(payload):
    """``payload`` preceded by its size."""
    return struct.pack(">i", len(payload)) + bytes(payload)


def frame_size(prefix):
    """The size a frame's 4-byte prefix announces; negative sizes are refused."""
    if len(prefix) != FRAME_SIZE_BYTES:
        raise WireError(f"a frame size prefix is {FRAME_SIZE_BYTES} bytes, got {len(prefix)}")
    size = struct.unpack(">i", prefix)[0]
    if size < 0:
        raise WireError(f"negative frame size {size}")
    return size


# ---------------------------------------------------------------------------------------------------------------
# Record batch (message format v2) header layout.
# Offsets are from the first byte of the batch. The CRC (CRC-32C) covers ATTRIBUTES to the end of the batch,
# so BASE_OFFSET, BATCH_LENGTH and PARTITION_LEADER_EPOCH may be rewritten without recomputing it.

BATCH_BASE_OFFSET = 0  # int64
BATCH_LENGTH = 8  # int32: bytes after this field (from PARTITION_LEADER_EPOCH to the end)
BATCH_PARTITION_LEADER_EPOCH = 12  # int32
BATCH_MAGIC = 16  # int8, 2 for this layout
BATCH_CRC = 17  # uint32, CRC-32C
BATCH_ATTRIBUTES = 21  # int16: compression (bits 0-2), timestamp type (3), transactional (4), control (5)
BATCH_LAST_OFFSET_DELTA = 23  # int32
BATCH_BASE_TIMESTAMP = 27  # int64
BATCH_MAX_TIMESTAMP = 35  # int64
BATCH_PRODUCER_ID = 43  # int64
BATCH_PRODUCER_EPOCH = 51  # int16
BATCH_BASE_SEQUENCE = 53  # int32
BATCH_RECORDS_COUNT = 57  # int32
BATCH_RECORDS = 61  # first record
BATCH_HEADER_SIZE = 61
# Bytes that precede BATCH_LENGTH's count: baseOffset + the length field itself.
BATCH_LOG_OVERHEAD = 12
BATCH_MAGIC_V2 = 2

BatchHeader = namedtuple(
    "BatchHeader",
    "base_offset batch_length partition_leader_epoch magic crc attributes last_offset_delta base_timestamp "
    "max_timestamp producer_id producer_epoch base_sequence records_count",
)
BatchHeader.__doc__ = "The fixed 61-byte header of a v2 record batch."

_BATCH_HEADER = struct.Struct(">qiibIhiqqqhii")


def decode_batch_header(data, offset=0):
    """Decode the v2 record-batch header that starts at ``offset`` in ``data``."""
    if len(data) - offset < BATCH_HEADER_SIZE:
        raise WireError(
            f"record batch header needs {BATCH_HEADER_SIZE} bytes at offset {offset}, only {len(data) - offset} left"
        )
    return BatchHeader(*_BATCH_HEADER.unpack_from(data, offset))


def batch_total_size(header):
    """Whole size in bytes of the batch whose header is ``header`` (log overhead plus batch_length)."""
    return BATCH_LOG_OVERHEAD + header.batch_length


def batch_last_offset(header):
    """Offset of the last record of the batch (base offset plus last offset delta)."""
    return header.base_offset + header.last_offset_delta


def split_batches(data):
    """Split concatenated record batches into a list of ``(start, size, header)``; truncated data is an error.

    Only the framing (base offset + length) is used to find each batch; a batch whose magic is not 2 is still
    returned so that the caller can reject it with the right error.
    """
    batches = []
    pos = 0
    total = len(data)
    while pos < total:
        if total - pos < BATCH_LOG_OVERHEAD + 5:
            raise WireError(f"truncated record batch at offset {pos} ({total - pos} bytes left)")
        (length,) = struct.unpack_from(">i", data, pos + BATCH_LENGTH)
        magic = data[pos + BATCH_MAGIC]
        size = BATCH_LOG_OVERHEAD + length
        if length < 0 or pos + size > total:
            raise WireError(f"record batch at offset {pos} claims {size} bytes, only {total - pos} left")
        if magic == BATCH_MAGIC_V2:
            if size < BATCH_HEADER_SIZE:
                raise WireError(f"record batch at offset {pos} is {size} bytes, shorter than its header")
            header = decode_batch_header(data, pos)
        else:
            header = None
        batches.append((pos, size, header))
        pos += size
    return batches


def with_base_offset(batch, base_offset):
    """Copy of ``batch`` (bytes) whose baseOffset field is ``base_offset``; nothing else changes."""
    out = bytearray(batch)
    struct.pack_into(">q", out, BATCH_BASE_OFFSET, base_offset)
    return bytes(out)
