# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Resolve host names, and optionally connect to them, under a hard deadline.

Private to kafkaops.listeners: no compatibility promise outside the collection.

This answers the question the listener plan asks on every broker: "does each broker's external name resolve (and
connect) from here?". A dead DNS server must not cost glibc's default waits (5 s per attempt, per server), so every
name is looked up in a worker thread of its own and the caller stops waiting at the deadline: threads still blocked
in ``getaddrinfo`` are abandoned (they are daemon threads and end with the process).

Runs on managed nodes: standard library only, except dnspython, which is needed only when nameservers are given.
"""

from __future__ import annotations

import functools
import socket
import threading
import time
import traceback

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import ip_literal, validate_host


@functools.lru_cache(maxsize=None)  # noqa: UP033 - functools.cache is 3.9+, managed nodes may run 3.8
def _dnspython():
    """(dnspython's ``dns`` package with its exception, name and resolver modules, None), or (None, the traceback).

    Imported on first use, not with this file: the import takes a few tenths of a second, and only a check against
    given nameservers needs it, while every module that resolves a name imports this file.
    """
    try:
        import dns.exception
        import dns.name
        import dns.resolver
    except ImportError:
        return None, traceback.format_exc()
    return dns, None


def dnspython_import_error():
    """None when dnspython imports, else the traceback of its failed import (for missing_required_lib)."""
    return _dnspython()[1]


DEFAULT_TIMEOUT = 2.0
DEFAULT_DNS_PORT = 53
#: Added to the per-name timeout when no total timeout is given: room for the connect checks.
DEFAULT_EXTRA_TOTAL = 1.0


class ResolverError(ValueError):
    """An argument is invalid; the message names it and says what is wrong."""


class _LookupFailed(Exception):
    """A name did not resolve; the message is the reason reported to the user."""


def _timed_out(seconds: float) -> str:
    return "timed out after %s s" % float(seconds)


# ---------------------------------------------------------------------------------------------------- input checks


def _positive_seconds(value: object, option: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ResolverError("%s must be a number of seconds greater than 0, got %r" % (option, value))
    return float(value)


def _tcp_port(value: object, option: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise ResolverError("%s must be a TCP/UDP port from 1 to 65535, got %r" % (option, value))
    return value


def _address_list(values: object, option: str) -> list:
    """Return ``values`` as compressed IP address strings, or raise ResolverError naming the bad one."""
    if not isinstance(values, (list, tuple)):
        raise ResolverError("%s must be a list of IP addresses, got %r" % (option, values))
    addresses = []
    for index, value in enumerate(values):
        address = ip_literal(value) if isinstance(value, str) else None
        if address is None:
            raise ResolverError("%s[%d]: %r is not an IP address" % (option, index, value))
        addresses.append(address.compressed)
    return addresses


def check_names(names: object) -> list:
    """Return the names validated as DNS names or IP literals, duplicates (ignoring case) removed, order kept.

    Raises HostError (from ``validate_host``, naming the value and its position in ``names``) for a value that
    is neither, and ResolverError when ``names`` is not a non-empty list.
    """
    if not isinstance(names, (list, tuple)) or not names:
        raise ResolverError("names must be a non-empty list of host names, got %r" % (names,))
    seen = set()
    unique = []
    for index, value in enumerate(names):
        name = validate_host(value, "names[%d]" % index)
        if name.lower() not in seen:
            seen.add(name.lower())
            unique.append(name)
    return unique


def _check_expected(expected: object, names: list) -> dict:
    """Return ``expected`` as {lower-case name: set of addresses}; every key must be one of ``names``."""
    if expected is None:
        return {}
    if not isinstance(expected, dict):
        raise ResolverError("expected must map names to lists of IP addresses, got %r" % (expected,))
    known = {name.lower() for name in names}
    checked = {}
    for key, values in expected.items():
        name = validate_host(key, "the keys of expected").lower()
        if name not in known:
            raise ResolverError("expected[%r]: the name is not in names" % (key,))
        checked[name] = set(_address_list(values, "expected[%r]" % (key,)))
    return checked


# ---------------------------------------------------------------------------------------------------- lookups


def _sorted_addresses(name: str, raw: list) -> list:
    """Return the answer's addresses sorted (IPv4 first, numerically) and unique; answers are untrusted input."""
    parsed = set()
    for value in raw:
        address = ip_literal(value) if isinstance(value, str) else None
        if address is None:
            raise _LookupFailed("the answer for %s holds %r, which is not an IP address" % (name, value))
        parsed.add(address)
    return [address.compressed for address in sorted(parsed, key=lambda a: (a.version, a.packed, str(a)))]


def _system_lookup(name: str, timeout: float) -> list:
    """Resolve with getaddrinfo (glibc: /etc/hosts, then resolv.conf); ``timeout`` is enforced by the caller."""
    try:
        infos = socket.getaddrinfo(name, None, socket.AF_UNSPEC, socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise _LookupFailed(exc.strerror or str(exc)) from exc
    except UnicodeError as exc:
        raise _LookupFailed("cannot encode the name: %s" % exc) from exc
    return [info[4][0] for info in infos]


def _dns_lookup(nameservers: list, dns_port: int):
    """Return a lookup that asks ``nameservers`` directly (A and AAAA) with dnspython, bypassing resolv.conf."""

    dns = _dnspython()[0]

    def lookup(name: str, timeout: float) -> list:
        resolver = dns.resolver.Resolver(configure=False)
        resolver.port = dns_port  # before nameservers: dnspython applies the port when they are set
        resolver.nameservers = list(nameservers)
        resolver.timeout = timeout
        resolver.lifetime = timeout
        try:
            answers = resolver.resolve_name(dns.name.from_text(name), lifetime=timeout)
        except dns.exception.Timeout as exc:
            raise _LookupFailed(_timed_out(timeout)) from exc
        except dns.exception.DNSException as exc:
            raise _LookupFailed(str(exc) or type(exc).__name__) from exc
        return [str(address) for address in answers.addresses()]

    return lookup


# ---------------------------------------------------------------------------------------------------- probing


class _Probe:
    """What is known about one name; every change happens under the shared condition's lock."""

    def __init__(self, name: str):
        self.name = name
        self.addresses = None
        self.error = None
        self.connected = False
        self.connecting = set()
        self.connect_errors = []
        self.finished_at = None

    @property
    def final(self) -> bool:
        return self.finished_at is not None

    def finish(self, now: float) -> None:
        if self.finished_at is None:
            self.finished_at = now


class _Run:
    """One call: a worker thread per name (and per address to connect to) and a deadline the caller enforces."""

    def __init__(self, names: list, lookup, timeout: float, total_timeout: float, port: int | None):
        self.lookup = lookup
        self.timeout = timeout
        self.total_timeout = total_timeout
        self.port = port
        self.probes = [_Probe(name) for name in names]
        self.cond = threading.Condition()
        self.start = time.monotonic()
        self.name_deadline = self.start + timeout
        self.total_deadline = self.start + total_timeout

    def _start_thread(self, target, *args) -> None:
        # daemon: a thread stuck in getaddrinfo must never keep the process alive after the deadline
        threading.Thread(target=target, args=args, daemon=True).start()

    def _resolve(self, probe: _Probe) -> None:
        literal = ip_literal(probe.name)
        error = None
        try:
            if literal is not None:
                addresses = [literal.compressed]
            else:
                addresses = _sorted_addresses(probe.name, self.lookup(probe.name, self.timeout))
            if not addresses:
                raise _LookupFailed("the answer holds no address")
        except _LookupFailed as exc:
            addresses, error = None, str(exc)
        except Exception as exc:  # an unexpected failure must still give this name a result, not kill the run
            addresses, error = None, "lookup failed: %s" % (exc,)
        with self.cond:
            if probe.final:  # abandoned at the deadline
                return
            probe.addresses, probe.error = addresses, error
            if addresses is None or self.port is None:
                probe.finish(time.monotonic())
            else:
                probe.connecting = set(addresses)
            self.cond.notify_all()
        if addresses is not None and self.port is not None:
            for address in addresses:
                self._start_thread(self._connect, probe, address)

    def _connect(self, probe: _Probe, address: str) -> None:
        remaining = self.total_deadline - time.monotonic()
        error = None
        if remaining <= 0:
            error = "no time left before the deadline"
        else:
            try:
                socket.create_connection((address, self.port), timeout=remaining).close()
            except OSError as exc:
                error = exc.strerror or str(exc) or type(exc).__name__
        with self.cond:
            if probe.final:
                return
            probe.connecting.discard(address)
            if error is None:
                probe.connected = True
            else:
                probe.connect_errors.append((address, error))
            if probe.connected or not probe.connecting:
                probe.finish(time.monotonic())
            self.cond.notify_all()

    def _expire(self, now: float) -> None:
        """Give up on what the deadlines have passed for (caller holds the lock)."""
        for probe in self.probes:
            if probe.final:
                continue
            if probe.addresses is None and now >= self.name_deadline:
                probe.error = _timed_out(self.timeout)
                probe.finish(now)
            elif probe.addresses is not None and now >= self.total_deadline:
                probe.connect_errors.extend((address, "timed out") for address in probe.connecting)
                probe.finish(now)

    def run(self) -> list:
        for probe in self.probes:
            self._start_thread(self._resolve, probe)
        with self.cond:
            while True:
                now = time.monotonic()
                self._expire(now)
                waiting = [probe for probe in self.probes if not probe.final]
                if not waiting:
                    break
                resolving = any(probe.addresses is None for probe in waiting)
                wake = self.name_deadline if resolving and now < self.name_deadline else self.total_deadline
                self.cond.wait(max(0.0, wake - now))
            return [self._result(probe) for probe in self.probes]

    def _result(self, probe: _Probe) -> dict:
        resolvable = probe.addresses is not None
        connectable = None
        error = probe.error
        if self.port is not None:
            connectable = probe.connected
            if resolvable and not connectable:
                error = "no address accepted a connection on port %d: %s" % (self.port, "; ".join(
                    "%s: %s" % item for item in sorted(probe.connect_errors)))
        return {
            "name": probe.name,
            "resolvable": resolvable,
            "addresses": list(probe.addresses or []),
            "connectable": connectable,
            "error": error,
            "elapsed_ms": int(round((probe.finished_at - self.start) * 1000)),
        }


def probe_names(names: object, timeout: object = DEFAULT_TIMEOUT, total_timeout: object = None,
                port: object = None, nameservers: object = None, dns_port: object = DEFAULT_DNS_PORT,
                expected: object = None) -> dict:
    """Resolve every name in parallel and, with ``port``, check that one of its addresses accepts a TCP connection.

    ``names`` are validated first (HostError names a bad one). Without ``nameservers`` the system resolver answers
    (getaddrinfo: /etc/hosts, then resolv.conf); with them, dnspython asks those servers (on ``dns_port``) for A and
    AAAA records. An IP literal resolves to itself. A name whose lookup has not finished ``timeout`` seconds after
    the start is reported as timed out; connect checks end at ``total_timeout`` (default ``timeout`` + 1), so the
    call returns within ``total_timeout`` whatever the DNS servers do. ``expected`` maps names to the addresses they
    should resolve to; a name that resolves to a different set is listed in ``stale``.

    Returns ``{"results": [...], "all_resolvable", "all_connectable", "stale"}``: one result per unique name in
    input order with ``name``, ``resolvable``, ``addresses`` (sorted, unique), ``connectable`` (None without
    ``port``), ``error`` (None on success), ``elapsed_ms`` and ``matches_expected`` (None without an expectation;
    False when the name did not resolve). ``all_connectable`` is None without ``port``.
    """
    checked_names = check_names(names)
    timeout = _positive_seconds(timeout, "timeout")
    if total_timeout is None:
        total_timeout = timeout + DEFAULT_EXTRA_TOTAL
    total_timeout = _positive_seconds(total_timeout, "total_timeout")
    if total_timeout < timeout:
        raise ResolverError("total_timeout (%s s) must not be shorter than timeout (%s s)" % (total_timeout, timeout))
    if port is not None:
        port = _tcp_port(port, "port")
    wanted = _check_expected(expected, checked_names)
    if nameservers:
        servers = _address_list(nameservers, "nameservers")
        dns_port = _tcp_port(dns_port, "dns_port")
        if dnspython_import_error() is not None:
            raise ResolverError("querying nameservers directly needs the Python library dnspython, which is missing")
        lookup = _dns_lookup(servers, dns_port)
    else:
        lookup = _system_lookup

    results = _Run(checked_names, lookup, timeout, total_timeout, port).run()
    stale = []
    for result in results:
        addresses = wanted.get(result["name"].lower())
        if addresses is None:
            result["matches_expected"] = None
            continue
        result["matches_expected"] = result["resolvable"] and set(result["addresses"]) == addresses
        if result["resolvable"] and not result["matches_expected"]:
            stale.append(result["name"])
    return {
        "results": results,
        "all_resolvable": all(result["resolvable"] for result in results),
        "all_connectable": None if port is None else all(result["connectable"] for result in results),
        "stale": stale,
    }
