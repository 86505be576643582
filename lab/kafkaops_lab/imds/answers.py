"""Requests and responses as the metadata emulator's providers see them, and the bodies of fault "garbage"."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Request:
    """The parts of an HTTP request the providers look at."""

    method: str
    path: str
    query: dict[str, str]
    headers: Any  # http.client.HTTPMessage: case-insensitive .get()

    def header(self, name: str) -> str | None:
        """The header's value (name compared case-insensitively), None when absent."""
        return self.headers.get(name)


@dataclass
class Served:
    """What the emulator process holds beside the request: the control file's fault for this request, and the
    session tokens it issued (AWS's; the other providers have no state and ignore both)."""

    fault: str
    tokens: Any  # aws.TokenStore


@dataclass
class Response:
    """What to answer. `kind` marks a data route (hostname, ip, id, text, json, yaml): faults replace its body."""

    status: int
    body: bytes = b""
    content_type: str = "text/plain"
    headers: list[tuple[str, str]] = field(default_factory=list)
    kind: str | None = None


def text(status: int, body: str, kind: str | None = None, content_type: str = "text/plain") -> Response:
    """A UTF-8 text answer."""
    return Response(status, body.encode("utf-8"), content_type, kind=kind)


def as_json(status: int, obj: Any, kind: str | None = "json", content_type: str = "application/json") -> Response:
    """A JSON answer (a data route of kind "json" unless told otherwise)."""
    return Response(status, json.dumps(obj, indent=2).encode("utf-8"), content_type, kind=kind)


# Bodies served under fault "garbage": each breaks what a careful client must check for that kind of value.
GARBAGE = {
    "json": b'<!doctype html><title>maintenance</title>{"truncated": ',
    "yaml": b"hostname: [never closed\n\tinstance-id: : :\n",
    # spaces, a newline and '=': written unchecked into server.properties it would inject a second key
    "hostname": b"broker 1.internal\nadvertised.listeners=PLAINTEXT://evil.example:9092",
    "ip": b"\x00\xff\xfe198.18.0.\x1b[31m999\r\n=",
    "id": b"\x00\xff\xfe\xfd i-\x07\n=",
    "text": b"\x00\xff\xfe\xfd garbage \n=\x1b[0m",
}
