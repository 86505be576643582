#!/usr/bin/env python3
"""Instance-metadata emulator for the kafkaops.listeners test lab (a test double, never shipped).

The lab starts one emulator per broker network namespace on 169.254.169.254:80. It serves that broker's own
values in the wire format and with the access rules of one of seven clouds (AWS IMDSv2, GCP, Azure, OpenStack,
DigitalOcean, OCI, Hetzner), so the collection's metadata clients meet the real protocols without a cloud.

    python lab/kafkaops_lab/imds_emulator.py --values FILE.json --bind ADDR --port N [--control FILE.json]

Both JSON files are read again on every request: the lab changes a node's public IP (simulated stop/start)
or injects a fault (down, slow, token_refused, garbage) by rewriting a file, without restarting anything.
Port 0 binds a free port; the first line on stdout always names the address actually bound.
The values/control schemas are documented in lab/README.md ("Instance metadata emulator").
This script holds the HTTP server, the dispatch to the providers and the command line; each provider's documents
and handler are in imds/<provider>.py beside it, the shared parts in imds/inputs.py, answers.py and documents.py.

Only the Python standard library is used: the lab runs it inside namespaces with whatever python3 is there.
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

if not __package__:
    # Run as a script (the lab and the tests start it by path): import the package from the folder that holds it.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kafkaops_lab.imds.answers import GARBAGE, Request, Response, Served, text
from kafkaops_lab.imds.aws import TokenStore, handle_aws
from kafkaops_lab.imds.azure import handle_azure
from kafkaops_lab.imds.digitalocean import handle_digitalocean
from kafkaops_lab.imds.gcp import handle_gcp
from kafkaops_lab.imds.hetzner import handle_hetzner
from kafkaops_lab.imds.inputs import ConfigError, Control, Values, load_control, load_values
from kafkaops_lab.imds.oci import handle_oci
from kafkaops_lab.imds.openstack import handle_openstack

# --------------------------------------------------------------------------------------------------------------
# HTTP server
# --------------------------------------------------------------------------------------------------------------

# Which module answers for which provider (lab/kafkaops_lab/imds/<provider>.py): each takes the request, the values
# and what the server holds beside them (the fault, AWS's token store).
PROVIDER_HANDLERS = {
    "aws": handle_aws,
    "gcp": handle_gcp,
    "azure": handle_azure,
    "openstack": handle_openstack,
    "digitalocean": handle_digitalocean,
    "oci": handle_oci,
    "hetzner": handle_hetzner,
}
PROVIDER_EXTRA_HEADERS = {"gcp": [("Metadata-Flavor", "Google")]}  # GCP sends it on every answer, errors too


class EmulatorServer(ThreadingHTTPServer):
    """Threaded HTTP server holding the file paths and the AWS token store."""

    daemon_threads = True  # a request sleeping under fault "slow" must not keep the process alive

    def __init__(self, address: tuple[str, int], values_path: str, control_path: str | None) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.values_path = values_path
        self.control_path = control_path
        self.tokens = TokenStore()
        super().__init__(address, EmulatorHandler)


class EmulatorHandler(BaseHTTPRequestHandler):
    """Reads both files per request, applies the fault, and lets the provider answer."""

    protocol_version = "HTTP/1.1"  # keep-alive like the real services; every answer has Content-Length
    server: EmulatorServer

    def version_string(self) -> str:
        return "imds-emulator"

    def _read_control(self) -> Control | ConfigError:
        try:
            return load_control(self.server.control_path)
        except ConfigError as exc:
            return exc

    def _drop_connection(self) -> None:
        """Reset the connection without answering: what a dead metadata endpoint looks like to a client."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def handle_one_request(self) -> None:
        control = self._read_control()
        if isinstance(control, Control) and control.fault == "down":
            self._drop_connection()  # before even reading the request
            return
        super().handle_one_request()

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        self._dispatch()

    def do_HEAD(self) -> None:  # noqa: N802
        self._dispatch(send_body=False)

    def do_PUT(self) -> None:  # noqa: N802
        self._dispatch()

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch()

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch()

    def _dispatch(self, send_body: bool = True) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)  # drain the body so the connection stays usable
        control = self._read_control()  # again: a kept-alive connection may have idled since the last check
        if isinstance(control, Control) and control.fault == "down":
            self._drop_connection()
            return
        provider = None
        if isinstance(control, ConfigError):
            response = text(500, f"imds-emulator: {control}\n")
        else:
            if control.fault == "slow":
                time.sleep(control.slow_seconds)
            try:
                values = load_values(self.server.values_path)
            except ConfigError as exc:
                response = text(500, f"imds-emulator: {exc}\n")
            else:
                provider = values.provider
                response = self._answer(values, control)
        if isinstance(control, ConfigError) or response.status == 500:
            sys.stderr.write(response.body.decode("utf-8", "replace"))
        self._send(response, PROVIDER_EXTRA_HEADERS.get(provider or "", []), send_body)

    def _answer(self, values: Values, control: Control) -> Response:
        split = urlsplit(self.path)
        query = {key: vals[0] for key, vals in parse_qs(split.query, keep_blank_values=True).items()}
        req = Request(self.command, split.path, query, self.headers)
        response = PROVIDER_HANDLERS[values.provider](req, values, Served(control.fault, self.server.tokens))
        if control.fault == "garbage" and response.kind is not None and response.status in (200, 404):
            response.status, response.body = 200, GARBAGE[response.kind]
        return response

    def _send(self, response: Response, extra_headers: list[tuple[str, str]], send_body: bool) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers + extra_headers:
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(response.body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature from http.server
        sys.stderr.write(f"imds-emulator {self.address_string()} {format % args}\n")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line the lab helper uses (see the module docstring)."""
    parser = argparse.ArgumentParser(description="Cloud instance-metadata emulator for the kafkaops lab.")
    parser.add_argument("--values", required=True, help="JSON file with the instance's values (re-read per request)")
    parser.add_argument("--bind", required=True, help="address to listen on (the lab: 169.254.169.254)")
    parser.add_argument("--port", required=True, type=int, help="TCP port (0 = any free port)")
    parser.add_argument("--control", help="JSON file with the fault to inject (re-read per request)")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0..65535, got {args.port}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Validate the files, bind, print the bound address, serve until killed."""
    args = parse_args(argv)
    try:
        values = load_values(args.values)
        load_control(args.control)
    except ConfigError as exc:
        print(f"imds-emulator: {exc}", file=sys.stderr)
        return 2
    try:
        server = EmulatorServer((args.bind, args.port), args.values, args.control)
    except OSError as exc:
        print(f"imds-emulator: cannot listen on {args.bind}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    host, port = server.server_address[:2]
    print(f"imds-emulator: serving {values.provider} metadata on {host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
