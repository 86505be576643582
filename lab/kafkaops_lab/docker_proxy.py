"""A userland port forwarder, what Docker's docker-proxy does for a published port on the host's IPv6 side.

The lab's Docker host publishes container ports with iptables DNAT for IPv4 (as Docker does); connections to
[::1]:PORT (`localhost` resolves to ::1 first) cannot be DNATed to an IPv4 container, so Docker runs a proxy
for them, and so does the lab. Run inside the Docker host's namespaces:

    python docker_proxy.py --listen :: --forward 9092=198.18.1.2:9092 --forward 29094=198.18.1.2:29094
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


def _handler(target_host: str, target_port: int):
    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.close()  # like docker-proxy: the client sees the connection closed
            return
        await asyncio.gather(_pipe(client_reader, upstream_writer), _pipe(upstream_reader, client_writer))
    return handle


def _listener(address: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)  # IPv4 is published by iptables DNAT
    sock.bind((address, port))
    return sock


async def serve(address: str, forwards: list[tuple[int, str, int]]) -> None:
    servers = [await asyncio.start_server(_handler(host, target), sock=_listener(address, port))
               for port, host, target in forwards]
    await asyncio.gather(*(server.serve_forever() for server in servers))


def parse_forward(text: str) -> tuple[int, str, int]:
    """'9092=198.18.1.2:9092' -> (9092, '198.18.1.2', 9092)."""
    try:
        port, target = text.split("=", 1)
        host, target_port = target.rsplit(":", 1)
        return int(port), host, int(target_port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--forward {text!r}: expected PORT=HOST:PORT") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="IPv6 side of Docker's published ports (lab).")
    parser.add_argument("--listen", default="::", help="IPv6 address to listen on")
    parser.add_argument("--forward", action="append", type=parse_forward, required=True, help="PORT=HOST:PORT")
    args = parser.parse_args(argv)
    try:
        asyncio.run(serve(args.listen, args.forward))
    except OSError as exc:
        print(f"docker-proxy: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
