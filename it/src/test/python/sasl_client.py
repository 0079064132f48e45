#!/usr/bin/env python3
"""SASL interop client: Apache Thrift's own Python TSaslClientTransport, with pure-sasl's PLAIN
mechanism, calling BenchService.echo on a server that accepts WireKind.SASL with PLAIN.

Calls echo with payloads of several sizes, checked byte for byte, on one authenticated connection;
then, with --wrong-password, opens a second connection with a wrong password and checks that the
server refuses it (TTransportException carrying the server's reason).

    sasl_client.py --port 9090 --user alice --password secret [--host 127.0.0.1] [--calls 10]
                   [--wrong-password]

Prints one JSON line on stdout with the counts; failed checks on stderr. Exit status: 0 when every
check passed, 1 when any failed.
"""

import argparse
import json
import sys

import bench_common as common

from thrift.protocol.TBinaryProtocol import TBinaryProtocol  # noqa: E402
from thrift.transport import TSocket  # noqa: E402
from thrift.transport.TTransport import TSaslClientTransport, TTransportException  # noqa: E402
from thriftnio_bench import BenchService  # noqa: E402

SIZES = (1, common.SMALL, 64 * 1024, 200 * 1024)


def connect(host, port, user, password):
    socket = TSocket.TSocket(host, port)
    socket.setTimeout(30000)
    transport = TSaslClientTransport(
        socket, host, "thrift", mechanism="PLAIN", username=user, password=password)
    transport.open()
    return BenchService.Client(TBinaryProtocol(transport)), transport


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--wrong-password", action="store_true",
                        help="also check that a wrong password is refused")
    args = parser.parse_args()

    passed, failed = 0, []

    def check(what, ok, detail=""):
        nonlocal passed
        if ok:
            passed += 1
        else:
            failed.append(what)
            print("FAILED %s %s" % (what, detail), file=sys.stderr, flush=True)

    client, transport = connect(args.host, args.port, args.user, args.password)
    for i in range(args.calls):
        size = SIZES[i % len(SIZES)]
        sent = common.payload(size, i)
        got = client.echo(sent)
        check("echo #%d" % i, got == sent, "size %d" % size)
    transport.close()

    if args.wrong_password:
        try:
            connect(args.host, args.port, args.user, args.password + "-wrong")
            check("wrong password refused", False, "the negotiation completed")
        except TTransportException as e:
            check("wrong password refused", "authentication failed" in str(e), str(e))

    print(json.dumps({"passed": passed, "failed": len(failed)}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
