#!/usr/bin/env python3
"""Python interop client for BenchService: calls every bench.thrift method against a server and
checks each result against the reference semantics of io.thriftnio.testkit.BenchHandler.

Stock Python Thrift only: TSocket + TFramedTransport (or, with --transport buffered, the unframed
TBufferedTransport that is Python's default; with --transport http, THttpClient posting each call
to --http-path) + TBinaryProtocol or TCompactProtocol.

    bench_client.py --port 9090 [--host 127.0.0.1] [--protocol binary|compact]
                    [--transport framed|buffered|http] [--http-path /] [--clients 32]

Bad arguments (db_work(-1), get_nested(61), sleep(-1), ...) make the handler throw BenchError(400).
Where bench.thrift declares `throws (BenchError)` for the method, the client expects exactly that;
elsewhere it expects TApplicationException(INTERNAL_ERROR), which is what every stock processor
answers for an undeclared exception. The summary lists those methods under bench_error_undeclared.

Prints one JSON line on stdout with the counts. Failed checks are printed on stderr, one line each
(the first 20). Exit status: 0 when every check passed, 1 when any failed, 2 for bad arguments.
"""

import argparse
import functools
import json
import sys
import threading
import time
import traceback

import bench_common as common

from thrift.Thrift import TApplicationException  # noqa: E402
from thrift.transport import THttpClient, TSocket, TTransport  # noqa: E402
from thriftnio_bench import BenchService  # noqa: E402
from thriftnio_bench.ttypes import BenchError, TestInfo, TradeReport  # noqa: E402

ECHO_SIZES = (0, common.SMALL, common.MEDIUM, common.LARGE)
FIRES = 5
MAX_PRINTED_FAILURES = 20


class Checks(object):
    """Counts passed and failed checks; thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self.passed = 0
        self.failures = []

    def ok(self, what):
        with self._lock:
            self.passed += 1

    def fail(self, what, detail):
        line = "FAILED %s: %s" % (what, detail)
        with self._lock:
            self.failures.append(line)
            shown = len(self.failures)
        if shown <= MAX_PRINTED_FAILURES:
            print(line, file=sys.stderr, flush=True)
        elif shown == MAX_PRINTED_FAILURES + 1:
            print("(further failures counted, not printed)", file=sys.stderr, flush=True)

    def expect(self, what, actual, expected):
        if actual == expected:
            self.ok(what)
        elif isinstance(actual, bytes) and isinstance(expected, bytes):
            self.fail(what, _bytes_difference(actual, expected))
        else:
            self.fail(what, "got %s (expected: %s)" % (_short(actual), _short(expected)))

    def expect_bench_error(self, what, call, code, message, prefix=False):
        """`call` must raise BenchError(code, message), or one whose message starts with it."""
        try:
            result = call()
        except BenchError as e:
            text = e.message or ""
            if e.code == code and (text.startswith(message) if prefix else text == message):
                self.ok(what)
            else:
                self.fail(what, "BenchError(code=%r, message=%r) (expected: code %d, message %s%r)"
                          % (e.code, e.message, code, "starting " if prefix else "", message))
            return
        except TApplicationException as e:
            self.fail(what, "TApplicationException(type=%d, %r) (expected: BenchError code %d)"
                      % (e.type, e.message, code))
            return
        self.fail(what, "returned %s (expected: BenchError code %d)" % (_short(result), code))

    def expect_internal_error(self, what, call):
        """`call` must raise TApplicationException(INTERNAL_ERROR)."""
        try:
            result = call()
        except TApplicationException as e:
            if e.type == TApplicationException.INTERNAL_ERROR:
                self.ok(what)
            else:
                self.fail(what, "TApplicationException(type=%d, %r) (expected: type %d, "
                          "INTERNAL_ERROR)"
                          % (e.type, e.message, TApplicationException.INTERNAL_ERROR))
            return
        except BenchError as e:
            self.fail(what, "BenchError(code=%r, message=%r) (expected: TApplicationException "
                      "INTERNAL_ERROR: the IDL does not declare BenchError here)"
                      % (e.code, e.message))
            return
        self.fail(what, "returned %s (expected: TApplicationException INTERNAL_ERROR)"
                  % _short(result))


def declares_bench_error(method):
    """Whether bench.thrift lets `method` throw BenchError: only then can a handler's BenchError
    reach the caller. Any other exception from a handler, BenchError included, is answered by the
    stock processors of every language with TApplicationException(INTERNAL_ERROR)."""
    spec = getattr(BenchService, method + "_result").thrift_spec
    return any(f is not None and isinstance(f[3], (list, tuple)) and f[3][0] is BenchError
               for f in spec)


def _bytes_difference(actual, expected):
    for i in range(min(len(actual), len(expected))):
        if actual[i] != expected[i]:
            return "%d bytes, first difference at byte %d: 0x%02x (expected: %d bytes, 0x%02x)" % (
                len(actual), i, actual[i], len(expected), expected[i])
    return "%d bytes (expected: %d bytes; the common prefix matches)" % (len(actual), len(expected))


def _short(value):
    text = repr(value)
    return text if len(text) <= 200 else "%s... (%d chars)" % (text[:200], len(text))


class Connection(object):
    """One connection, framed, buffered (unframed) or HTTP, and its generated client."""

    def __init__(self, args):
        if args.transport == "http":
            # THttpClient posts each message on flush() and reads the whole reply then, so a oneway
            # call's empty 200 is consumed before the next call.
            self.transport = THttpClient.THttpClient(
                "http://%s:%d%s" % (args.host, args.port, args.http_path))
            self.transport.setTimeout(args.timeout_ms)
            self.client = BenchService.Client(common.protocol_factory(args.protocol)
                                              .getProtocol(self.transport))
            self.transport.open()
            return
        socket = TSocket.TSocket(args.host, args.port)
        socket.setTimeout(args.timeout_ms)
        if args.transport == "buffered":
            self.transport = TTransport.TBufferedTransport(socket)
        else:
            self.transport = TTransport.TFramedTransport(socket)
        self.client = BenchService.Client(common.protocol_factory(args.protocol)
                                          .getProtocol(self.transport))
        self.transport.open()

    def close(self):
        self.transport.close()


def check_every_method(args, checks, calls, fired):
    """Every method of BenchService on one connection, in an order where a stray or missing
    response frame (a oneway answered, say) shows up as a failed check on the next call."""
    conn = Connection(args)
    client = conn.client
    try:
        for size in ECHO_SIZES:
            seed = 1000 + size
            expected = common.payload(size, seed)
            calls[0] += 1
            checks.expect("echo(%d bytes)" % size, client.echo(expected), expected)

        for symbol in ("IBM", "\u00c4\u00df\u20ac-\U0001F600"):
            calls[0] += 1
            checks.expect("get_last_sale(%r)" % symbol, client.get_last_sale(symbol),
                          TradeReport(symbol=symbol, price=25.50, size=100, seq_num=1))

        for count in (0, 100):
            calls[0] += 1
            rows = client.db_work(count)
            checks.expect("db_work(%d) row count" % count, len(rows), count)
            for i, row in enumerate(rows[:count]):
                checks.expect("db_work(%d) row %d" % (count, i), row, expected_row(i))

        for depth in (1, common.MAX_DEPTH):
            calls[0] += 1
            checks.expect("get_nested(%d) ids" % depth, nested_ids(client.get_nested(depth)),
                          [str(i) for i in range(depth)])

        calls[0] += 1
        started = time.monotonic()
        result = client.sleep(5)
        elapsed_ms = (time.monotonic() - started) * 1000
        checks.expect("sleep(5) result", result, None)
        if elapsed_ms >= 5:
            checks.ok("sleep(5) took >= 5 ms")
        else:
            checks.fail("sleep(5)", "returned after %.2f ms (expected: >= 5 ms)" % elapsed_ms)

        calls[0] += 1
        checks.expect_bench_error("fail(7, 'seven')", lambda: client.fail(7, "seven"), 7, "seven")

        bad = [
            ("db_work", -1, "count", "0..%d" % common.MAX_COUNT),
            ("db_work", common.MAX_COUNT + 1, "count", "0..%d" % common.MAX_COUNT),
            ("get_nested", -1, "depth", "0..%d" % common.MAX_DEPTH),
            ("get_nested", common.MAX_DEPTH + 1, "depth", "0..%d" % common.MAX_DEPTH),
            ("sleep", -1, "millis", ">= 0"),
        ]
        for method, value, name, expected in bad:
            what = "%s(%d)" % (method, value)
            call = functools.partial(getattr(client, method), value)
            calls[0] += 1
            if declares_bench_error(method):
                checks.expect_bench_error(
                    what, call, common.BAD_ARGUMENT,
                    common.bad_argument_message(name, value, expected))
            else:
                checks.expect_internal_error(what + " (BenchError undeclared)", call)
            # The connection lives on after an exception answer.
            calls[0] += 1
            checks.expect("get_last_sale after %s" % what, client.get_last_sale(what).symbol, what)

        calls[0] += 1
        before = client.fired()
        for i in range(FIRES):
            calls[0] += 1
            fire = common.payload(common.SMALL * i, 2000 + i)
            client.fire(fire)
            fired[0] += 1
            fired[1] += len(fire)
        # Oneway is asynchronous: the server may not have run every fire() yet. Poll, bounded.
        deadline = time.monotonic() + args.oneway_wait_ms / 1000.0
        while True:
            calls[0] += 1
            now = client.fired()
            if now >= before + FIRES or time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        if now >= before + FIRES:
            checks.ok("fired() after %d fire()" % FIRES)
        else:
            checks.fail("fired() after %d fire()" % FIRES, "fired() is %d within %d ms (expected: "
                        ">= %d + %d)" % (now, args.oneway_wait_ms, before, FIRES))

        # The connection still works after the oneways: no response frame was sent for them.
        calls[0] += 1
        tail = common.payload(common.SMALL, 3000)
        checks.expect("echo after fire()", client.echo(tail), tail)
    finally:
        conn.close()


def expected_row(i):
    return TestInfo(id=i, name="Some_Person_%d" % i, dob="1980-01-01", dbl=i * 1.5,
                    voter=(i % 2 == 0), addr1="Addr1_%d" % i, addr2="Addr2_%d" % i,
                    addr_city="City_%d" % i, addr_state="ST", addr_zip="0000%d" % i)


def nested_ids(head):
    ids = []
    while head is not None and len(ids) <= common.MAX_DEPTH + 1:
        ids.append(head.id)
        head = head.other
    return ids


def run_concurrent(args, checks):
    """`--clients` threads, each on its own connection, all connected before any calls, each
    making `--calls` checked echo round trips. Returns the number of calls made."""
    payloads = {}
    for c in range(args.clients):
        for k in range(args.calls):
            size = common.SMALL if k % 2 == 0 else common.MEDIUM
            seed = (c + 1) * 1000003 + k
            payloads[(c, k)] = (seed, common.payload(size, seed))
    barrier = threading.Barrier(args.clients, timeout=args.timeout_ms / 1000.0)
    done = [0] * args.clients

    def client_thread(c):
        conn = None
        try:
            conn = Connection(args)
            barrier.wait()
            for k in range(args.calls):
                seed, expected = payloads[(c, k)]
                actual = conn.client.echo(expected)
                done[c] += 1
                checks.expect("client %d echo %d (%d bytes, seed %d)" % (c, k, len(expected), seed),
                              actual, expected)
        except threading.BrokenBarrierError:
            checks.fail("client %d" % c, "did not start: another client failed, or not every "
                        "client connected within %d ms" % args.timeout_ms)
        except Exception as e:  # reported as a failed check, with what the client got
            barrier.abort()
            checks.fail("client %d" % c, "%s: %s after %d calls" % (type(e).__name__, e, done[c]))
        finally:
            if conn is not None:
                conn.close()

    threads = [threading.Thread(target=client_thread, args=(c,), name="bench-client-%d" % c,
                                daemon=True)
               for c in range(args.clients)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + args.timeout_ms / 1000.0 * (args.calls + 2)
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    stuck = [t.name for t in threads if t.is_alive()]
    if stuck:
        checks.fail("concurrent clients", "%d threads still running at the deadline: %s"
                    % (len(stuck), ", ".join(stuck)))
    return sum(done)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--protocol", choices=common.PROTOCOLS, default="binary")
    parser.add_argument("--transport", choices=("framed", "buffered", "http"), default="framed",
                        help="framed, buffered (unframed messages) or http (THttpClient)"
                             " (default: framed)")
    parser.add_argument("--http-path", default="/",
                        help="the path --transport http posts to (default: /)")
    parser.add_argument("--clients", type=int, default=0,
                        help="concurrent clients, each on its own connection (default: 0, none)")
    parser.add_argument("--calls", type=int, default=20,
                        help="echo round trips per concurrent client (default: 20)")
    parser.add_argument("--timeout-ms", type=int, default=30000,
                        help="socket timeout per call (default: 30000)")
    parser.add_argument("--oneway-wait-ms", type=int, default=5000,
                        help="how long fired() may take to count every fire() (default: 5000)")
    args = parser.parse_args(argv)
    if not 1 <= args.port <= 65535:
        parser.error("port: %d (expected: 1..65535)" % args.port)
    if not args.http_path.startswith("/"):
        parser.error("http-path: %r (expected: an absolute path, starting with /)" % args.http_path)
    for name, low in (("clients", 0), ("calls", 1), ("timeout_ms", 1), ("oneway_wait_ms", 0)):
        value = getattr(args, name)
        if value < low:
            parser.error("%s: %d (expected: >= %d)" % (name.replace("_", "-"), value, low))
    return args


def main(argv=None):
    args = parse_args(argv)
    checks = Checks()
    calls = [0]
    fired = [0, 0]  # fire() calls made and their payload bytes, for the server's side to check
    concurrent_calls = 0
    error = None
    started = time.monotonic()
    try:
        check_every_method(args, checks, calls, fired)
        if args.clients > 0:
            concurrent_calls = run_concurrent(args, checks)
    except (TTransport.TTransportException, TApplicationException, OSError, EOFError) as e:
        error = "%s: %s" % (type(e).__name__, e)
    except Exception as e:  # anything else is a bug on one side or the other: show where
        error = "%s: %s" % (type(e).__name__, e)
        traceback.print_exc(file=sys.stderr)
    if error is not None:
        checks.fail("calls to %s:%d" % (args.host, args.port), error)
    summary = {
        "ok": not checks.failures,
        "host": args.host,
        "port": args.port,
        "protocol": args.protocol,
        "transport": args.transport,
        "calls": calls[0],
        "concurrent_clients": args.clients,
        "concurrent_calls": concurrent_calls,
        "checks_passed": checks.passed,
        "checks_failed": len(checks.failures),
        "fire_calls": fired[0],
        "fire_bytes": fired[1],
        "first_failure": checks.failures[0] if checks.failures else None,
        # Methods whose bad arguments are answered with INTERNAL_ERROR, not BenchError(400).
        "bench_error_undeclared": [m for m in ("db_work", "get_nested", "sleep")
                                   if not declares_bench_error(m)],
        "seconds": round(time.monotonic() - started, 3),
    }
    print(json.dumps(summary, sort_keys=True), flush=True)
    if checks.failures:
        print("bench_client: %d of %d checks failed against %s:%d (%s); first: %s"
              % (len(checks.failures), len(checks.failures) + checks.passed, args.host, args.port,
                 args.protocol, checks.failures[0]), file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
