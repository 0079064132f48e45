#!/usr/bin/env python3
"""THeader interop client: Apache Thrift's own Python THeaderTransport/THeaderProtocol calling
BenchService.echo on a server that accepts WireKind.HEADER.

Every combination of inner protocol (binary, compact) and zlib (off, on) on one connection each,
then binary and compact switched call by call on one connection, payloads of several sizes checked
byte for byte; then an info header: the server's handler must answer echo with the value of the
request's `x-echo` header (testkit's HeaderEchoHandler does). With --expect-response-header, that
reply must also carry the info header `x-echoed` with the same value (the handler sets it as a
response header).

    header_client.py --port 9090 [--host 127.0.0.1] [--calls 20] [--expect-response-header]

Prints one JSON line on stdout with the counts; failed checks on stderr. Exit status: 0 when every
check passed, 1 when any failed.
"""

import argparse
import json
import sys

import bench_common as common

from thrift.protocol.THeaderProtocol import THeaderProtocol  # noqa: E402
from thrift.transport import TSocket  # noqa: E402
from thrift.transport.THeaderTransport import (  # noqa: E402
    THeaderClientType,
    THeaderSubprotocolID,
    THeaderTransformID,
)
from thriftnio_bench import BenchService  # noqa: E402

PROTOCOL_IDS = {"binary": THeaderSubprotocolID.BINARY, "compact": THeaderSubprotocolID.COMPACT}
SIZES = (0, common.SMALL, common.MEDIUM, 200 * 1024)


def connect(host, port, protocol_id, zlib):
    socket = TSocket.TSocket(host, port)
    socket.setTimeout(30000)
    protocol = THeaderProtocol(socket, [THeaderClientType.HEADERS], protocol_id)
    if zlib:
        protocol.add_transform(THeaderTransformID.ZLIB)
    protocol.trans.open()
    return BenchService.Client(protocol), protocol


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--expect-response-header", action="store_true",
                        help="check the reply's x-echoed info header too")
    args = parser.parse_args()

    passed, failed = 0, []

    def check(what, ok, detail=""):
        nonlocal passed
        if ok:
            passed += 1
        else:
            failed.append(what)
            print("FAILED %s %s" % (what, detail), file=sys.stderr, flush=True)

    for name, protocol_id in sorted(PROTOCOL_IDS.items()):
        for zlib in (False, True):
            client, protocol = connect(args.host, args.port, protocol_id, zlib)
            for i in range(args.calls):
                size = SIZES[i % len(SIZES)]
                sent = common.payload(size, i)
                got = client.echo(sent)
                check("echo %s zlib=%s #%d" % (name, zlib, i), got == sent, "size %d" % size)
            protocol.trans.close()

    # One connection, the inner protocol switched call by call (Python picks it per transport, so
    # the switch is a new THeaderProtocol over the same socket).
    socket = TSocket.TSocket(args.host, args.port)
    socket.setTimeout(30000)
    socket.open()
    for i in range(args.calls):
        protocol_id = (THeaderSubprotocolID.BINARY, THeaderSubprotocolID.COMPACT)[i % 2]
        client = BenchService.Client(
            THeaderProtocol(socket, [THeaderClientType.HEADERS], protocol_id))
        sent = common.payload(100 + i, i)
        check("echo switching #%d" % i, client.echo(sent) == sent)
    socket.close()

    client, protocol = connect(args.host, args.port, THeaderSubprotocolID.COMPACT, True)
    protocol.set_header(b"x-echo", b"from a python header")
    got = client.echo(b"ignored")
    check("info header read by the handler", got == b"from a python header", repr(got))
    if args.expect_response_header:
        headers = protocol.get_headers()
        check("response info header read by python",
              headers.get(b"x-echoed") == b"from a python header", repr(headers))
    protocol.trans.close()

    print(json.dumps({"passed": passed, "failed": len(failed)}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
