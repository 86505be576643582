# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A bounded HTTP client for instance metadata services.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Metadata services are plain HTTP on a link-local address. This client talks to exactly one endpoint, never uses
proxies (urllib would honour ``http_proxy``; a proxy must never see metadata requests), follows no redirects,
caps answer sizes, refuses an answer shorter than its ``Content-Length``, and bounds time twice: ``timeout`` for
the connect and each read of one request, and ``total_timeout`` for the whole lookup, enforced by closing every
open connection when it runs out. Independent requests run in parallel threads.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.endpoint import parse_endpoint
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import (
    EndpointUnreachable,
    MalformedAnswer,
    ParameterError,
)

# Metadata documents are a few KiB; anything much larger is not a metadata answer.
MAX_BODY_BYTES = 1024 * 1024
# Connections open at once: enough for the widest provider batch to take two rounds at most, few enough not to
# overflow a small server's listen backlog (a dropped SYN is retried only after a second, the default timeout).
MAX_PARALLEL = 4


class _DeadlineExceeded(EndpointUnreachable):
    """The whole lookup's bound (total_timeout) ran out before this call was answered."""


class Call:
    """One request to make: method, path (with query string) and headers."""

    def __init__(self, method: str, path: str, headers: dict[str, str] | None = None) -> None:
        self.method = method
        self.path = path
        self.headers = dict(headers or {})

    def describe(self) -> str:
        """``GET /path`` as messages show it."""
        return "%s %s" % (self.method, self.path)


class Answer:
    """An HTTP answer to a Call, with the provider and endpoint it came from (for messages)."""

    def __init__(self, provider: str, endpoint: str, call: Call, status: int, headers: dict[str, str],
                 body: bytes) -> None:
        self.provider = provider
        self.endpoint = endpoint
        self.call = call
        self.status = status
        self.headers = headers  # names lower-cased
        self.body = body

    def header(self, name: str) -> str | None:
        """The header's value (name compared case-insensitively), None when absent."""
        return self.headers.get(name.lower())

    def source(self, key: str | None = None) -> str:
        """Where a value came from, e.g. ``gcp metadata GET /computeMetadata/v1/instance/id``."""
        where = "%s metadata %s" % (self.provider, self.call.describe())
        return where if key is None else "%s key %s" % (where, key)


def _positive_seconds(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ParameterError("%s %r: expected a number of seconds greater than 0" % (name, value))
    return float(value)


class BoundedClient:
    """Makes requests to one metadata endpoint within a per-request timeout and a total deadline.

    The deadline starts when the client is created. ``parallel()`` never returns later than the deadline (plus
    thread scheduling): at the deadline it shuts down every open connection and raises EndpointUnreachable.
    """

    def __init__(self, provider: str, endpoint: str, timeout: float, total_timeout: float, clock=time.monotonic):
        self.provider = provider
        self.endpoint = endpoint
        self.timeout = _positive_seconds(timeout, "timeout")
        self.total_timeout = _positive_seconds(total_timeout, "total_timeout")
        self._host, self._port = parse_endpoint(endpoint)
        self._clock = clock
        self._deadline = clock() + self.total_timeout
        self._lock = threading.Lock()
        self._open: set[http.client.HTTPConnection] = set()
        self._expired = False
        self._slots = threading.BoundedSemaphore(MAX_PARALLEL)

    # -- public ---------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, headers: dict[str, str] | None = None) -> Answer:
        """Make one request and return its answer (any status); raise EndpointUnreachable/MalformedAnswer."""
        return self.parallel({"answer": Call(method, path, headers)})["answer"]

    def parallel(self, calls: dict[str, Call]) -> dict[str, Answer]:
        """Make all calls in parallel (one thread each, at most MAX_PARALLEL connections); return answers by key.

        When one or more calls fail, the error of the first failed call (in the order given) is raised, so
        messages do not depend on thread timing. Calls still running at the deadline make it raise
        EndpointUnreachable naming them and the total timeout.
        """
        outcomes: dict[str, tuple[Answer | None, Exception | None]] = {}
        threads = []
        for key, call in calls.items():
            # daemon threads: a worker stuck in name resolution must not keep the module process alive
            thread = threading.Thread(target=self._run, args=(key, call, outcomes), daemon=True,
                                      name="metadata-%s" % key)
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join(max(0.0, self._remaining()))
        if any(key not in outcomes for key in calls):
            # a call whose own thread met the deadline first is as late as one still running: both are named
            late = [call for key, call in calls.items()
                    if key not in outcomes or isinstance(outcomes[key][1], _DeadlineExceeded)]
            self._abort()
            raise self._deadline_error(late)
        answers = {}
        for key in calls:
            answer, error = outcomes[key]
            if error is not None:
                raise error
            answers[key] = answer
        return answers

    # -- internals ------------------------------------------------------------------------------------------

    def _remaining(self) -> float:
        return self._deadline - self._clock()

    def _run(self, key: str, call: Call, outcomes: dict) -> None:
        try:
            if not self._slots.acquire(timeout=max(0.0, self._remaining())):
                raise self._deadline_error([call])
            try:
                outcomes[key] = (self._perform(call), None)
            finally:
                self._slots.release()
        except Exception as exc:  # handed to the caller's thread, which re-raises it
            outcomes[key] = (None, exc)

    def _perform(self, call: Call) -> Answer:
        remaining = self._remaining()
        if self._expired or remaining <= 0:
            raise self._deadline_error([call])
        conn = http.client.HTTPConnection(self._host, self._port, timeout=min(self.timeout, remaining))
        with self._lock:
            self._open.add(conn)
        try:
            conn.request(call.method, call.path, headers=call.headers)
            response = conn.getresponse()
            body = response.read(MAX_BODY_BYTES + 1)
            missing = response.length  # what Content-Length announced and did not come (read(n) does not say)
            headers = {name.lower(): value for name, value in response.getheaders()}
            status = response.status
        except socket.timeout:  # noqa: UP041 - before Python 3.10 it is not TimeoutError; caught before OSError
            if remaining < self.timeout:  # the whole call's bound ran out, maybe before its watchdog said so
                raise self._deadline_error([call]) from None
            raise self._failure(call, "no answer within %g s" % self.timeout) from None
        except http.client.RemoteDisconnected:  # also a ConnectionResetError: test it first
            raise self._failure(call, "the connection was closed without an answer") from None
        except ConnectionRefusedError:
            raise self._failure(call, "connection refused") from None
        except (ConnectionResetError, BrokenPipeError):
            raise self._failure(call, "the connection was reset without an answer") from None
        except http.client.HTTPException as exc:
            if self._expired:
                raise self._deadline_error([call]) from None
            raise MalformedAnswer("%s metadata %s at %s: not a valid HTTP answer (%s)"
                                  % (self.provider, call.describe(), self.endpoint, type(exc).__name__)) from None
        except OSError as exc:
            raise self._failure(call, exc.strerror or str(exc)) from None
        finally:
            with self._lock:
                self._open.discard(conn)
            conn.close()
        if len(body) > MAX_BODY_BYTES:
            raise MalformedAnswer("%s metadata %s at %s: the answer is larger than %d bytes, not a metadata value"
                                  % (self.provider, call.describe(), self.endpoint, MAX_BODY_BYTES))
        if missing:
            raise MalformedAnswer("%s metadata %s at %s: the answer ended after %d of the %d bytes its Content-Length "
                                  "announced" % (self.provider, call.describe(), self.endpoint, len(body),
                                                 len(body) + missing))
        return Answer(self.provider, self.endpoint, call, status, headers, body)

    def _abort(self) -> None:
        """Shut down every open connection so the threads blocked on them return now."""
        with self._lock:
            self._expired = True
            connections = list(self._open)
        for conn in connections:
            sock = conn.sock
            if sock is not None:
                with contextlib.suppress(OSError):  # already closed by its own thread
                    sock.shutdown(socket.SHUT_RDWR)

    def _limits(self) -> str:
        return "timeout %g s per request, total_timeout %g s" % (self.timeout, self.total_timeout)

    def _failure(self, call: Call, reason: str) -> EndpointUnreachable:
        if self._expired:
            return self._deadline_error([call])
        return EndpointUnreachable("%s instance metadata endpoint %s is unreachable: %s: %s (%s)"
                                   % (self.provider, self.endpoint, call.describe(), reason, self._limits()))

    def _deadline_error(self, calls: list[Call]) -> EndpointUnreachable:
        return _DeadlineExceeded("%s instance metadata endpoint %s did not answer %s within total_timeout %g s (%s)"
                                 % (self.provider, self.endpoint, ", ".join(c.describe() for c in calls),
                                    self.total_timeout, self._limits()))
