#!/usr/bin/env python3
"""Python interop server for BenchService: a stock Python Thrift TThreadedServer (one thread per
connection) with framed transport, serving a handler with exactly the semantics of
io.thriftnio.testkit.BenchHandler.

    bench_server.py [--host 127.0.0.1] [--port 0] [--protocol binary|compact]
                    [--transport framed|header] [--exit-on-stdin-eof]

With --transport header the server speaks THeader only (Python's THeaderProtocolFactory, which
answers each call in the inner protocol it came in, never compressed: Python reads zlib but does not
apply it to replies; --protocol is then only the default), and echo shows the call's info headers both ways as io.thriftnio.testkit.HeaderEchoHandler
does: a call carrying the info header `x-echo` gets its value back instead of its payload, and the
reply carries the info header `x-echoed` with that value.

Once bound, prints `listening on HOST:PORT` as its first stdout line (so --port 0 can be used), then
serves until SIGTERM or SIGINT (or, with --exit-on-stdin-eof, until standard input closes, so that a
parent that dies takes the server with it), and exits 0.
"""

import argparse
import logging
import os
import signal
import sys
import threading
import time

import bench_common as common

from thrift.protocol.THeaderProtocol import THeaderProtocolFactory  # noqa: E402
from thrift.server import TServer  # noqa: E402
from thrift.transport.THeaderTransport import THeaderClientType, THeaderSubprotocolID  # noqa: E402
from thrift.transport import TSocket, TTransport  # noqa: E402
from thriftnio_bench import BenchService  # noqa: E402
from thriftnio_bench.ttypes import BenchError, Nested, TestInfo, TradeReport  # noqa: E402


ECHO = b"x-echo"
ECHOED = b"x-echoed"


class CurrentProtocol(threading.local):
    """The THeaderProtocol of the call the current thread serves, or None: Python's generated
    handlers get no call context, so the processor wrapper below puts the protocol here."""
    protocol = None


CURRENT = CurrentProtocol()


class HeaderProcessor(object):
    """Runs the generated processor with the call's THeaderProtocol made current for the handler
    (TServer gives a THeader server one protocol object for input and output)."""

    def __init__(self, processor):
        self._processor = processor

    def process(self, iprot, oprot):
        CURRENT.protocol = iprot
        try:
            return self._processor.process(iprot, oprot)
        finally:
            CURRENT.protocol = None


class BenchHandler(object):
    """BenchHandler.java in Python; thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self._fired = 0
        self._fired_bytes = 0

    def echo(self, payload):
        protocol = CURRENT.protocol
        if protocol is not None:
            value = protocol.get_headers().get(ECHO)
            if value is not None:
                protocol.set_header(ECHOED, value)
                return value
        return payload

    def get_last_sale(self, symbol):
        return TradeReport(symbol=symbol, price=25.50, size=100, seq_num=1)

    def db_work(self, count):
        if count < 0 or count > common.MAX_COUNT:
            raise bad_argument("count", count, "0..%d" % common.MAX_COUNT)
        return [row(i) for i in range(count)]

    def get_nested(self, depth):
        if depth < 0 or depth > common.MAX_DEPTH:
            raise bad_argument("depth", depth, "0..%d" % common.MAX_DEPTH)
        head = None  # as in Java, depth 0 answers with no result (a MISSING_RESULT to the caller)
        for i in range(depth - 1, -1, -1):
            head = Nested(id=str(i), other=head)
        return head

    def sleep(self, millis):
        if millis < 0:
            raise bad_argument("millis", millis, ">= 0")
        time.sleep(millis / 1000.0)

    def fail(self, code, message):
        raise BenchError(code=code, message=message)

    def fire(self, payload):
        with self._lock:
            self._fired += 1
            self._fired_bytes += len(payload) if payload is not None else 0

    def fired(self):
        with self._lock:
            return self._fired


def row(i):
    return TestInfo(id=i, name="Some_Person_%d" % i, dob="1980-01-01", dbl=i * 1.5,
                    voter=(i % 2 == 0), addr1="Addr1_%d" % i, addr2="Addr2_%d" % i,
                    addr_city="City_%d" % i, addr_state="ST", addr_zip="0000%d" % i)


def bad_argument(name, value, expected):
    return BenchError(code=common.BAD_ARGUMENT,
                      message=common.bad_argument_message(name, value, expected))


class BoundServerSocket(TSocket.TServerSocket):
    """A TServerSocket that may be bound before serve() (which calls listen() again), so the port
    chosen for --port 0 is known and printed before the first accept."""

    def listen(self):
        if self.handle is None:
            TSocket.TServerSocket.listen(self)

    def bound_port(self):
        return self.handle.getsockname()[1]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default: 0)")
    parser.add_argument("--protocol", choices=common.PROTOCOLS, default="binary")
    parser.add_argument("--transport", choices=("framed", "header"), default="framed")
    parser.add_argument("--exit-on-stdin-eof", action="store_true",
                        help="stop when standard input reaches end of file")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error("port: %d (expected: 0..65535)" % args.port)
    return args


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="bench_server: %(levelname)s %(name)s: %(message)s")

    stop = threading.Event()
    stop_reason = []

    def on_signal(signum, frame):
        stop_reason.append(signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    server_socket = BoundServerSocket(host=args.host, port=args.port)
    server_socket.listen()
    port = server_socket.bound_port()

    processor = BenchService.Processor(BenchHandler())
    if args.transport == "header":
        factory = THeaderProtocolFactory(
            allowed_client_types=(THeaderClientType.HEADERS,),
            default_protocol=(THeaderSubprotocolID.BINARY if args.protocol == "binary"
                              else THeaderSubprotocolID.COMPACT))
        # THeaderProtocol does its own framing over the socket itself.
        transport_factory = TTransport.TTransportFactoryBase()
        processor = HeaderProcessor(processor)
    else:
        factory = common.protocol_factory(args.protocol)
        transport_factory = TTransport.TFramedTransportFactory()
    server = TServer.TThreadedServer(processor, server_socket,
                                     transport_factory, transport_factory, factory, factory,
                                     daemon=True)
    serving = threading.Thread(target=server.serve, name="bench-server-accept", daemon=True)
    serving.start()
    print("listening on %s:%d" % (args.host, port), flush=True)
    print("bench_server: serving BenchService, %s, %s protocol" % (args.transport, args.protocol),
          file=sys.stderr, flush=True)

    if args.exit_on_stdin_eof:
        def watch_stdin():
            # The raw descriptor, not sys.stdin: a daemon thread blocked inside a buffered reader
            # makes interpreter shutdown abort.
            while os.read(sys.stdin.fileno(), 4096):
                pass
            stop_reason.append("end of standard input")
            stop.set()
        threading.Thread(target=watch_stdin, name="bench-server-stdin", daemon=True).start()

    # A short wait in a loop: the signal handler runs on this thread between waits.
    while not stop.wait(0.2):
        if not serving.is_alive():
            print("bench_server: the accept thread died; see above", file=sys.stderr, flush=True)
            return 1
    # The accept and connection threads are daemons: returning ends them and the OS closes their
    # sockets. Closing the listening socket here instead would make the accept loop log errors.
    print("bench_server: stopped (%s)" % stop_reason[0], file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Daemon threads may sit in accept() or recv(): leave without interpreter finalization, which
    # could block on (or abort over) a lock one of them holds.
    os._exit(status)
