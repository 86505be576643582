# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Loopback-only helpers for the resolvability target: a tiny DNS server, a DNS blackhole and a closed port.

Usage: python fake_dns.py STATE_FILE LIFETIME NAME=ADDRESS...

Binds, on 127.0.0.1 only, a DNS server (UDP, and TCP that accepts and closes) answering A/AAAA for the given names
and NXDOMAIN for every other name, a blackhole (UDP and TCP) that reads and never answers, and a TCP port that is
bound but never listens (connections are refused). Writes {"pid", "port", "blackhole_port", "closed_port"} as JSON to
STATE_FILE, then serves until killed or LIFETIME seconds have passed.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import struct
import sys
import threading
import time


def reply(query, zone):
    """Return the answer to a DNS query (bytes), or None when it cannot be parsed."""
    pos, labels = 12, []
    while pos < len(query) and query[pos]:
        labels.append(query[pos + 1:pos + 1 + query[pos]].decode("ascii", "replace"))
        pos += 1 + query[pos]
    if len(query) < pos + 5:
        return None
    qtype = struct.unpack(">H", query[pos + 1:pos + 3])[0]
    name = ".".join(labels).lower()
    size = {1: 4, 28: 16}.get(qtype)
    records = [address.packed for address in zone.get(name, ()) if len(address.packed) == size]
    rcode = 0 if name in zone else 3  # NOERROR / NXDOMAIN
    flags = bytes([0x84 | (query[2] & 0x01), 0x80 | rcode])  # response, authoritative, RD copied; RA
    header = query[:2] + flags + struct.pack(">HHHH", 1, len(records), 0, 0)
    answers = b"".join(b"\xc0\x0c" + struct.pack(">HHIH", qtype, 1, 60, len(data)) + data for data in records)
    return header + query[12:pos + 5] + answers


def serve_udp(sock, zone):
    """Answer queries on ``sock``; a None zone makes it a blackhole that reads and never answers."""
    while True:
        query, peer = sock.recvfrom(4096)
        answer = reply(query, zone) if zone is not None else None
        if answer is not None:
            sock.sendto(answer, peer)


def serve_tcp(sock, hold):
    """Accept connections; close them at once, or hold them open unanswered (blackhole)."""
    held = []
    while True:
        conn, _peer = sock.accept()
        if hold:
            held.append(conn)
        else:
            conn.close()


def bind_pair():
    """Bind a UDP socket and a listening TCP socket on the same free port of 127.0.0.1."""
    for _attempt in range(50):
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            tcp.bind(("127.0.0.1", udp.getsockname()[1]))
        except OSError:  # the TCP port is taken: try another
            udp.close()
            tcp.close()
            continue
        tcp.listen(16)
        return udp, tcp
    raise SystemExit("no free port pair on 127.0.0.1")


def main():
    state_file, lifetime = sys.argv[1], float(sys.argv[2])
    zone = {}
    for item in sys.argv[3:]:
        name, _sep, address = item.partition("=")
        zone.setdefault(name.lower().rstrip("."), []).append(ipaddress.ip_address(address))
    dns_udp, dns_tcp = bind_pair()
    hole_udp, hole_tcp = bind_pair()
    closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    closed.bind(("127.0.0.1", 0))
    for target, args in ((serve_udp, (dns_udp, zone)), (serve_tcp, (dns_tcp, False)),
                         (serve_udp, (hole_udp, None)), (serve_tcp, (hole_tcp, True))):
        threading.Thread(target=target, args=args, daemon=True).start()
    state = {"pid": os.getpid(), "port": dns_udp.getsockname()[1], "blackhole_port": hole_udp.getsockname()[1],
             "closed_port": closed.getsockname()[1]}
    with open(state_file + ".tmp", "w") as handle:
        json.dump(state, handle)
    os.rename(state_file + ".tmp", state_file)
    time.sleep(lifetime)


if __name__ == "__main__":
    main()
