package io.thriftnio.testkit.conformance;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile and broken peers, run against every server, transport and strategy: each transport runs
 * it over a list of {@link ServerCell}s (see {@code NettyAdversarialTest}).
 *
 * <p>Every case checks the same five things:
 *
 * <ol>
 *   <li>the bad connection gets a clear outcome: it is closed, or answered with a {@code
 *       TApplicationException};
 *   <li>the handler sees no garbage: a {@link RecordingHandler} records every call, and the case
 *       asserts the exact calls that reached it;
 *   <li>nothing leaks: the process's sockets come back to their count before the case (read from
 *       {@code /proc/self/fd} where there is one), and after the server closed {@link
 *       #assertNoLeaks()} runs (Netty subclasses check every buffer);
 *   <li>a {@link ServerStats} counter records what happened;
 *   <li>a good client on its own connection calls the server all along, with no failure, makes
 *       progress during the case, and one more call after it.
 * </ol>
 *
 * <p>The suite's server is small and quick to time out, so that the cases are fast: {@value
 * #MAX_FRAME} bytes maxFrameSize, frameTimeout 1 s, idleTimeout 10 s, maxConnections {@value
 * #MAX_CONNECTIONS}, maxPendingWriteBytes 1 MiB, maxCallsInFlightPerConnection 64, 4 worker threads
 * with a queue of 1024. No assertion is on time: a close is awaited with a generous bound, never
 * measured.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.IO_PATHS)
public abstract class AdversarialSuite extends ServerCellSuite {
  /**
   * Tag of the cases whose rejection comes from libthrift 0.25's own protocol checks (depth counted
   * while skipping unknown fields, overlong compact varints); older libthrift accepts these inputs,
   * so the {@code libthrift-oldest} build profile leaves them out.
   */
  public static final String LIBTHRIFT_CURRENT = "libthrift-current";

  /** The suite server's maxFrameSize. */
  protected static final int MAX_FRAME = 64 * 1024;

  /** The payload of each call of the many-calls case, in bytes. */
  private static final int PIPELINED_PAYLOAD = 1_000;

  /** The suite server's maxConnections, the good client's connection included. */
  protected static final int MAX_CONNECTIONS = 20;

  private static final int MAX_PENDING_WRITE_BYTES = 1024 * 1024;

  /** Below the 256 calls the pipelining case keeps in flight, so that it runs into the bound. */
  private static final int MAX_CALLS_IN_FLIGHT = 64;

  private static final Duration FRAME_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration WITHIN = Duration.ofSeconds(30);
  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();

  /** Sockets that may stay open in the process after a case, e.g. one still in its close. */
  private static final int SOCKET_TOLERANCE = 2;

  private ThriftServer server;
  private RecordingHandler handler;
  private GoodClient good;
  private LogCapture log;
  private long socketsBeforeServer;
  private long socketsBeforeCase;
  private boolean errorLogExpected;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  /**
   * Runs after each case, once the server has closed: fails if the server still holds anything it
   * allocated for its connections. Default: nothing (the transport cannot tell).
   */
  protected void assertNoLeaks() {}

  /**
   * The largest buffer, in bytes, the server has allocated for its connections so far, or -1 if the
   * transport cannot tell. Default: -1.
   */
  protected long largestBufferAllocated() {
    return -1;
  }

  // ---- the harness --------------------------------------------------------------------------

  @BeforeEach
  void captureLogAndCountSockets() {
    log = new LogCapture();
    socketsBeforeServer = openSockets();
  }

  @AfterEach
  void closeAndCheckForLeaks() throws Exception {
    try {
      for (AutoCloseable c : closeables) {
        c.close();
      }
      if (good != null) {
        good.stop();
      }
      if (server != null) {
        server.close();
      }
    } finally {
      log.close();
    }
    if (server != null) {
      assertNoLeaks();
    }
    if (socketsBeforeServer >= 0) {
      await(
              "the process's sockets to come back to "
                  + socketsBeforeServer
                  + " after the server closed")
          .atMost(WITHIN)
          .until(() -> openSockets() <= socketsBeforeServer + SOCKET_TOLERANCE);
    }
    if (!errorLogExpected) {
      assertThat(log.linesContaining(" ERROR ")).as("lines logged at ERROR").isEmpty();
    }
    assertThat(log.linesContaining("OutOfMemoryError")).isEmpty();
  }

  /**
   * Starts the suite's server, serving a fresh {@link RecordingHandler} with {@code protocol}, and
   * the good client. {@code tweak} may change settings of the server.
   */
  private ThriftServer start(TProtocolFactory protocol, UnaryOperator<ServerBuilder<?>> tweak)
      throws Exception {
    handler = new RecordingHandler();
    ServerBuilder<?> builder =
        Workers.strategy(newServerBuilder(), strategy(), 4, 1024)
            .processor(new BenchService.Processor<>(handler))
            .protocol(protocol)
            .maxFrameSize(MAX_FRAME)
            .frameTimeout(FRAME_TIMEOUT)
            .idleTimeout(Duration.ofSeconds(10))
            .maxConnections(MAX_CONNECTIONS)
            .maxPendingWriteBytes(MAX_PENDING_WRITE_BYTES)
            .maxCallsInFlightPerConnection(MAX_CALLS_IN_FLIGHT)
            .drainTimeout(Duration.ofSeconds(2))
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    server = tweak.apply(builder).build();
    server.start();
    good = GoodClient.start(server.localAddress(), protocol);
    await("the good client's first call").atMost(WITHIN).until(() -> good.ok() > 0);
    socketsBeforeCase = openSockets();
    return server;
  }

  private ThriftServer start(TProtocolFactory protocol) throws Exception {
    return start(protocol, b -> b);
  }

  /** The suite's server with an asynchronous processor serving {@code async}. */
  private ThriftServer startAsync(BenchService.AsyncIface async, int maxCallsInFlight)
      throws Exception {
    handler = new RecordingHandler(); // sees nothing: the async handler serves
    server =
        Workers.strategy(newServerBuilder(), strategy(), 4)
            .asyncProcessor(new BenchService.AsyncProcessor<>(async))
            .protocol(BINARY)
            .maxFrameSize(MAX_FRAME)
            .frameTimeout(FRAME_TIMEOUT)
            .maxConnections(MAX_CONNECTIONS)
            .maxCallsInFlightPerConnection(maxCallsInFlight)
            // The one test that starts this server holds hundreds of pipelined calls behind the
            // in-flight limit on purpose, for as long as the test takes: with the default
            // queue-time target they are a standing queue and are answered "not run" (by design,
            // see limits.md); here the limit alone is under test.
            .queueTimeTarget(Duration.ZERO)
            .drainTimeout(Duration.ofSeconds(2))
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    server.start();
    good = GoodClient.start(server.localAddress(), BINARY);
    await("the good client's first call").atMost(WITHIN).until(() -> good.ok() > 0);
    socketsBeforeCase = openSockets();
    return server;
  }

  private RawConnection open() throws IOException {
    RawConnection c = RawConnection.open(server.localAddress());
    closeables.add(c);
    return c;
  }

  /**
   * Ends a case: the good client made progress after the bad peer's outcome and never failed, one
   * more call works, and the sockets of the case are closed.
   */
  private void finishCase() throws Exception {
    long okNow = good.ok();
    await("the good client to make progress").atMost(WITHIN).until(() -> good.ok() >= okNow + 3);
    good.assertNoFailures();
    good.stop();
    assertThat(good.callOnce("after")).isEqualTo("after");
    if (socketsBeforeCase >= 0) {
      for (AutoCloseable c : closeables) {
        c.close();
      }
      await("the sockets of the case to close (" + socketsBeforeCase + " before it)")
          .atMost(WITHIN)
          .until(() -> openSockets() <= socketsBeforeCase + SOCKET_TOLERANCE);
    }
  }

  private void assertHandlerSaw(String... calls) {
    Map<String, Long> expected = new java.util.TreeMap<>();
    for (String c : calls) {
      expected.merge(c, 1L, Long::sum);
    }
    assertThat(handler.calls()).as("calls that reached the handler").isEqualTo(expected);
  }

  private void awaitCount(String what, ToLongFunction<ServerStats> counter, long atLeast)
      throws InterruptedException {
    await(what + " >= " + atLeast)
        .atMost(WITHIN)
        .until(() -> counter.applyAsLong(server.stats()) >= atLeast);
  }

  /** Sockets open in this process, or -1 where {@code /proc/self/fd} is not available. */
  private static long openSockets() {
    Path fds = Paths.get("/proc/self/fd");
    if (!Files.isDirectory(fds)) {
      return -1;
    }
    try (Stream<Path> entries = Files.list(fds)) {
      return entries
          .filter(
              p -> {
                try {
                  return Files.readSymbolicLink(p).toString().startsWith("socket:");
                } catch (IOException closedMeanwhile) {
                  return false; // the descriptor of the listing itself, or closed since
                }
              })
          .count();
    } catch (IOException e) {
      return -1;
    }
  }

  // ---- frames ---------------------------------------------------------------------------------

  private static byte[] call(
      TProtocolFactory protocol, String method, int seqid, org.apache.thrift.TBase<?, ?> args)
      throws TException {
    return RawConnection.encodeCall(protocol, method, seqid, args);
  }

  private static byte[] echoCall(int seqid, int size) throws TException {
    return call(BINARY, "echo", seqid, new BenchService.echo_args(Payloads.of(size, seqid)));
  }

  /** A strict binary message header: version, type, name, seqid. */
  private static ByteArrayOutputStream binaryHeader(int type, String name, int seqid) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    writeInt(b, 0x80010000 | type);
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    writeInt(b, n.length);
    b.write(n, 0, n.length);
    writeInt(b, seqid);
    return b;
  }

  private static void writeInt(ByteArrayOutputStream b, int v) {
    b.write(v >>> 24);
    b.write(v >>> 16);
    b.write(v >>> 8);
    b.write(v);
  }

  private static void writeShort(ByteArrayOutputStream b, int v) {
    b.write(v >>> 8);
    b.write(v);
  }

  /** What the server did with a bad request: answered it, or closed the connection. */
  private static final class Outcome {
    final TApplicationException error;
    final boolean closed;

    Outcome(TApplicationException error, boolean closed) {
      this.error = error;
      this.closed = closed;
    }

    @Override
    public String toString() {
      return closed ? "closed" : "error reply " + error.getType() + ": " + error.getMessage();
    }
  }

  /**
   * Reads the server's answer to a bad request with sequence id {@code seqid}: a {@code
   * TApplicationException} for it, or the close of the connection. Fails on anything else.
   */
  private static Outcome outcomeOf(RawConnection raw, TProtocolFactory protocol, int seqid)
      throws Exception {
    byte[] reply;
    try {
      reply = raw.readFrame();
    } catch (IOException closed) {
      return new Outcome(null, true);
    }
    try {
      TMessage m = RawConnection.decodeReply(protocol, reply, new BenchService.echo_result());
      throw new AssertionError("a bad request was answered as a good one: " + m);
    } catch (TApplicationException e) {
      TMessage header =
          protocol
              .getProtocol(
                  io.thriftnio.core.util.internal.FrameInputTransport.of(
                      new org.apache.thrift.TConfiguration(), java.nio.ByteBuffer.wrap(reply)))
              .readMessageBegin();
      assertThat(header.seqid).as("seqid of the error reply").isEqualTo(seqid);
      return new Outcome(e, false);
    }
  }

  /** The outcome must be a close or a PROTOCOL_ERROR reply, and counted. */
  private void assertRejected(Outcome outcome, ServerStats before) throws Exception {
    if (outcome.closed) {
      awaitCount("badFrames", ServerStats::badFrames, before.badFrames() + 1);
    } else {
      assertThat(outcome.error.getType())
          .as("%s", outcome)
          .isEqualTo(TApplicationException.PROTOCOL_ERROR);
      awaitCount("failedCalls", ServerStats::failedCalls, before.failedCalls() + 1);
    }
  }

  // ---- 1, 2: lengths that are never valid -------------------------------------------------------

  @Test
  void negativeLengthClosesTheConnection() throws Exception {
    start(BINARY);
    try (RawConnection bad = open()) {
      bad.write(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xF0, 1, 2, 3});
      assertThat(bad.awaitClosedBy(WITHIN)).isEmpty();
    }
    awaitCount("badFrames", ServerStats::badFrames, 1);
    assertThat(log.linesContaining("frame length -16")).hasSize(1);
    assertHandlerSaw();
    finishCase();
  }

  @Test
  void zeroLengthClosesTheConnection() throws Exception {
    start(BINARY);
    try (RawConnection bad = open()) {
      bad.write(new byte[] {0, 0, 0, 0});
      assertThat(bad.awaitClosedBy(WITHIN)).isEmpty();
    }
    awaitCount("badFrames", ServerStats::badFrames, 1);
    assertHandlerSaw();
    finishCase();
  }

  @Test
  void aMillionZeroLengthFramesCloseAtTheFirstAndCostOneRejection() throws Exception {
    start(BINARY);
    RawConnection bad = open();
    byte[] zeros = new byte[4_000_000]; // 10^6 empty frames
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              try {
                bad.write(zeros);
              } catch (IOException closedByTheServer) {
                // Expected: the server closes after the first frame and discards the rest.
              }
            });
    assertThat(bad.awaitClosedBy(WITHIN)).isEmpty();
    writer.get(WITHIN.toSeconds(), TimeUnit.SECONDS);
    awaitCount("badFrames", ServerStats::badFrames, 1);
    // The barrier: the server counts a connection closed after it has decoded every byte it read
    // there (the decoder runs before the close reaches the call path, on the same IO thread), so
    // once only the good client's connection is open, any rejection per frame has been counted.
    await("the server to close the bad connection")
        .atMost(WITHIN)
        .until(() -> server.stats().openConnections() == 1);
    assertThat(server.stats().badFrames()).as("one rejection, not one per frame").isEqualTo(1);
    assertThat(log.linesContaining("frame length 0")).as("log lines").hasSize(1);
    assertHandlerSaw();
    finishCase();
  }

  // ---- 3: the frame size limit
  // --------------------------------------------------------------------

  @Test
  void acceptsAFrameOfExactlyMaxFrameSizeAndRejectsOneByteMore() throws Exception {
    start(BINARY);
    int overhead = echoCall(1, 0).length;
    byte[] exact = echoCall(1, MAX_FRAME - overhead);
    byte[] oneMore = echoCall(2, MAX_FRAME - overhead + 1);
    assertThat(exact.length).isEqualTo(MAX_FRAME);
    assertThat(oneMore.length).isEqualTo(MAX_FRAME + 1);
    try (RawConnection raw = open()) {
      raw.writeFrame(exact);
      BenchService.echo_result result = new BenchService.echo_result();
      RawConnection.decodeReply(BINARY, raw.readFrame(), result);
      assertThat(Payloads.check(result.success, MAX_FRAME - overhead, 1)).isTrue();
    }
    ServerStats before = server.stats();
    try (RawConnection raw = open()) {
      raw.writeFrame(oneMore);
      Outcome outcome = outcomeOf(raw, BINARY, 2);
      if (!outcome.closed) {
        // The oversize reply: PROTOCOL_ERROR for the seqid, then the close.
        assertThat(outcome.error.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
        raw.awaitClosedBy(WITHIN);
      }
    }
    awaitCount("badFrames", ServerStats::badFrames, before.badFrames() + 1);
    assertHandlerSaw("echo(" + (MAX_FRAME - overhead) + " B)");
    finishCase();
  }

  // ---- 4: other protocols on the port
  // ---------------------------------------------------------------

  static Stream<Arguments> foreignProtocols() {
    byte[] clientHello = new byte[64];
    byte[] head = {0x16, 0x03, 0x01, 0x00, (byte) 0xc8, 0x01, 0x00, 0x00, (byte) 0xc4, 0x03, 0x03};
    System.arraycopy(head, 0, clientHello, 0, head.length);
    return Stream.of(
        Arguments.of(
            "HTTP",
            "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
            "HTTP request"),
        Arguments.of("TLS ClientHello", clientHello, "TLS handshake"),
        Arguments.of(
            "SSH banner",
            "SSH-2.0-OpenSSH_9.6\r\n".getBytes(StandardCharsets.US_ASCII),
            "SSH banner"),
        Arguments.of("Redis", "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII), "Redis"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("foreignProtocols")
  void closesAnotherProtocolAndLogsWhatArrived(String name, byte[] bytes, String logged)
      throws Exception {
    start(BINARY);
    try (RawConnection bad = open()) {
      bad.write(bytes);
      assertThat(bad.awaitClosedBy(WITHIN)).isEmpty();
    }
    awaitCount("badFrames", ServerStats::badFrames, 1);
    assertThat(log.linesContaining(logged)).as("a log line naming " + logged).hasSize(1);
    assertHandlerSaw();
    finishCase();
  }

  // ---- 5: fragmentation and batching
  // ------------------------------------------------------------------

  @Test
  void answersAFrameSentOneByteAtATime() throws Exception {
    start(BINARY);
    byte[] frame = RawConnection.frame(echoCall(7, 40));
    try (RawConnection raw = open()) {
      for (byte b : frame) {
        raw.write(new byte[] {b});
        Thread.sleep(1);
      }
      BenchService.echo_result result = new BenchService.echo_result();
      assertThat(RawConnection.decodeReply(BINARY, raw.readFrame(), result).seqid).isEqualTo(7);
      assertThat(Payloads.check(result.success, 40, 7)).isTrue();
    }
    assertThat(server.stats().badFrames()).isZero();
    assertHandlerSaw("echo(40 B)");
    finishCase();
  }

  @Test
  void answersOneHundredFramesOfOneSegmentInOrder() throws Exception {
    start(BINARY);
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int seq = 1; seq <= 100; seq++) {
      batch.write(RawConnection.frame(echoCall(seq, 10)));
    }
    try (RawConnection raw = open()) {
      raw.write(batch.toByteArray());
      for (int seq = 1; seq <= 100; seq++) {
        BenchService.echo_result result = new BenchService.echo_result();
        assertThat(RawConnection.decodeReply(BINARY, raw.readFrame(), result).seqid).isEqualTo(seq);
        assertThat(Payloads.check(result.success, 10, seq)).isTrue();
      }
    }
    String[] expected = new String[100];
    Arrays.fill(expected, "echo(10 B)");
    assertHandlerSaw(expected);
    finishCase();
  }

  // ---- 6: the peer leaves inside a frame
  // ----------------------------------------------------------------

  @Test
  void aTruncatedFrameThenFinIsClosedQuietlyAndCounted() throws Exception {
    start(BINARY);
    byte[] truncated = Arrays.copyOf(RawConnection.frame(echoCall(1, 100)), 40);
    Socket s = new Socket();
    closeables.add(s);
    s.connect(server.localAddress(), 10_000);
    s.setSoTimeout((int) WITHIN.toMillis());
    s.getOutputStream().write(truncated);
    s.shutdownOutput();
    assertThat(s.getInputStream().read()).as("end of stream").isEqualTo(-1);
    s.close();
    awaitCount("truncatedFrames", ServerStats::truncatedFrames, 1);
    assertThat(server.stats().badFrames()).isZero();
    assertHandlerSaw();
    finishCase();
  }

  @Test
  void aTruncatedFrameThenResetIsClosedQuietlyAndCounted() throws Exception {
    start(BINARY);
    byte[] truncated = Arrays.copyOf(RawConnection.frame(echoCall(1, 100)), 40);
    RawConnection bad = open();
    bad.write(truncated);
    // No wait for the server to read first: Linux queues a reset behind the bytes that came
    // before it, so the server reads the partial frame, then the reset, whatever the timing.
    bad.reset();
    awaitCount("truncatedFrames", ServerStats::truncatedFrames, 1);
    await("the reset connection to close")
        .atMost(WITHIN)
        .until(() -> server.stats().openConnections() == 1);
    assertThat(server.stats().badFrames()).isZero();
    assertHandlerSaw();
    finishCase();
  }

  // ---- 7, 8, 9, 10: messages that lie
  // --------------------------------------------------------------------

  /** An echo call whose arguments are {@code fields} followed by STOP. */
  private static byte[] echoWithFields(int seqid, byte[] fields) {
    ByteArrayOutputStream b = binaryHeader(TMessageType.CALL, "echo", seqid);
    b.write(fields, 0, fields.length);
    b.write(TType.STOP);
    return b.toByteArray();
  }

  @Test
  void aListClaimingBillionsOfElementsIsRejectedBeforeAllocation() throws Exception {
    start(BINARY);
    ByteArrayOutputStream field = new ByteArrayOutputStream();
    field.write(TType.LIST);
    writeShort(field, 99); // unknown to echo_args: skipped, which reads the list header
    field.write(TType.I64);
    writeInt(field, 1 << 30); // 2^30 i64s, 8 GiB, in a frame of about 100 bytes
    for (int i = 0; i < 64; i++) {
      field.write(0);
    }
    assertRejectedWithoutAHandlerCall(echoWithFields(3, field.toByteArray()), 3);
  }

  @Test
  void aStringClaimingAGigabyteIsRejectedBeforeAllocation() throws Exception {
    start(BINARY);
    ByteArrayOutputStream field = new ByteArrayOutputStream();
    field.write(TType.STRING);
    writeShort(field, 1); // echo's payload
    writeInt(field, 1 << 30);
    field.write(new byte[64], 0, 64);
    assertRejectedWithoutAHandlerCall(echoWithFields(4, field.toByteArray()), 4);
  }

  private void assertRejectedWithoutAHandlerCall(byte[] message, int seqid) throws Exception {
    ServerStats before = server.stats();
    try (RawConnection bad = open()) {
      bad.writeFrame(message);
      assertRejected(outcomeOf(bad, BINARY, seqid), before);
    }
    assertHandlerSaw();
    finishCase();
  }

  /** A struct field nested {@code depth} levels deep, each level a struct in field 1. */
  private static byte[] nestedStructs(int depth) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(TType.STRUCT);
    writeShort(b, 99);
    for (int i = 1; i < depth; i++) {
      b.write(TType.STRUCT);
      writeShort(b, 1);
    }
    for (int i = 0; i < depth; i++) {
      b.write(TType.STOP);
    }
    return b.toByteArray();
  }

  @Test
  @Tag(LIBTHRIFT_CURRENT)
  void structsNestedPastTheRecursionLimitAreRejected() throws Exception {
    start(BINARY);
    ServerStats before = server.stats();
    try (RawConnection bad = open()) {
      bad.writeFrame(echoWithFields(5, nestedStructs(65)));
      assertRejected(outcomeOf(bad, BINARY, 5), before);
    }
    before = server.stats();
    try (RawConnection bad = open()) {
      // As deep as the frame allows: about 15,000 levels, which would overflow a thread's stack
      // without the limit.
      byte[] deepest = echoWithFields(6, nestedStructs((MAX_FRAME - 100) / 4));
      bad.writeFrame(deepest);
      assertRejected(outcomeOf(bad, BINARY, 6), before);
    }
    assertThat(log.linesContaining("StackOverflowError")).isEmpty();
    assertHandlerSaw();
    finishCase();
  }

  @Test
  void anUnknownTypeIdIsRejected() throws Exception {
    start(BINARY);
    assertRejectedWithoutAHandlerCall(echoWithFields(7, new byte[] {0x42, 0, 99, 1, 2, 3}), 7);
  }

  @Test
  @Tag(LIBTHRIFT_CURRENT)
  void anOverlongVarintIsRejected() throws Exception {
    start(COMPACT);
    // Compact header: protocol id, type CALL and version 1, then the seqid as a varint of 7 bytes.
    byte[] message = {
      (byte) 0x82,
      0x21,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      0x01,
      4,
      'e',
      'c',
      'h',
      'o',
      0
    };
    ServerStats before = server.stats();
    try (RawConnection bad = open()) {
      bad.writeFrame(message);
      Outcome outcome = outcomeOf(bad, COMPACT, -1);
      assertThat(outcome.closed).as("%s", outcome).isTrue(); // no seqid to answer
    }
    awaitCount("badFrames", ServerStats::badFrames, before.badFrames() + 1);
    assertHandlerSaw();
    finishCase();
  }

  @Test
  void aBadBinaryVersionIsRejected() throws Exception {
    start(BINARY);
    byte[] message = echoCall(8, 10);
    message[1] = 0x02; // version 0x8002
    try (RawConnection bad = open()) {
      bad.writeFrame(message);
      assertThat(outcomeOf(bad, BINARY, 8).closed).isTrue(); // the header cannot be trusted
    }
    awaitCount("badFrames", ServerStats::badFrames, 1);
    assertHandlerSaw();
    finishCase();
  }

  @ParameterizedTest(name = "message type {0}")
  @MethodSource("badMessageTypes")
  void aMessageTypeOtherThanCallOrOnewayNeverReachesTheHandler(int type) throws Exception {
    start(BINARY);
    byte[] message = echoCall(9, 10);
    message[3] = (byte) type;
    ServerStats before = server.stats();
    try (RawConnection bad = open()) {
      bad.writeFrame(message);
      assertRejected(outcomeOf(bad, BINARY, 9), before);
    }
    assertHandlerSaw();
    finishCase();
  }

  static Stream<Integer> badMessageTypes() {
    return Stream.of((int) TMessageType.REPLY, (int) TMessageType.EXCEPTION, 0, 5, 0x7F);
  }

  @Test
  void aMessageThatEndsEarlyIsRejected() throws Exception {
    start(BINARY);
    ByteArrayOutputStream field = new ByteArrayOutputStream();
    field.write(TType.STRING);
    writeShort(field, 1);
    writeInt(field, 50); // 50 bytes declared, 10 follow, then the frame ends
    field.write(new byte[10], 0, 10);
    ByteArrayOutputStream message = binaryHeader(TMessageType.CALL, "echo", 10);
    message.write(field.toByteArray(), 0, field.size());
    ServerStats before = server.stats();
    try (RawConnection bad = open()) {
      bad.writeFrame(message.toByteArray());
      assertRejected(outcomeOf(bad, BINARY, 10), before);
      // The message was malformed, the frame was not: the connection serves on.
      bad.writeFrame(echoCall(11, 5));
      BenchService.echo_result result = new BenchService.echo_result();
      assertThat(RawConnection.decodeReply(BINARY, bad.readFrame(), result).seqid).isEqualTo(11);
    }
    assertHandlerSaw("echo(5 B)");
    finishCase();
  }

  /**
   * Bytes after a whole message, inside its frame, are ignored, as by every stock libthrift
   * processor: the call is served and the connection goes on. The frame boundary is what keeps the
   * stream in step, so the garbage can never be read as the next request.
   */
  @Test
  void trailingBytesAfterAWholeMessageInsideItsFrameAreIgnored() throws Exception {
    start(BINARY);
    byte[] valid = echoCall(12, 20);
    byte[] withGarbage = Arrays.copyOf(valid, valid.length + 16);
    Arrays.fill(withGarbage, valid.length, withGarbage.length, (byte) 0xEE);
    try (RawConnection raw = open()) {
      raw.writeFrame(withGarbage);
      BenchService.echo_result result = new BenchService.echo_result();
      assertThat(RawConnection.decodeReply(BINARY, raw.readFrame(), result).seqid).isEqualTo(12);
      assertThat(Payloads.check(result.success, 20, 12)).isTrue();
      raw.writeFrame(echoCall(13, 20));
      assertThat(RawConnection.decodeReply(BINARY, raw.readFrame(), result).seqid).isEqualTo(13);
    }
    assertThat(server.stats().badFrames()).isZero();
    assertHandlerSaw("echo(20 B)", "echo(20 B)");
    finishCase();
  }

  // ---- 11, 12: slow senders
  // ---------------------------------------------------------------------------

  /** Writes {@code bytes} one per second from another thread, until done or the server closes. */
  private static CompletableFuture<Void> dribble(RawConnection c, byte[] bytes) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            for (byte b : bytes) {
              c.write(new byte[] {b});
              Thread.sleep(1000);
            }
          } catch (IOException closedByTheServer) {
            // Expected: the frame timeout closed the connection.
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
  }

  @Test
  void aHeaderSentAtOneBytePerSecondIsClosedByTheFrameTimeout() throws Exception {
    start(BINARY);
    RawConnection slow = open();
    CompletableFuture<Void> writer = dribble(slow, RawConnection.frame(echoCall(1, 10)));
    assertThat(slow.awaitClosedBy(WITHIN)).isEmpty();
    writer.cancel(true);
    awaitCount("timedOutConnections", ServerStats::timedOutConnections, 1);
    assertHandlerSaw();
    finishCase();
  }

  @Test
  void aSixteenMegabyteBodyAtOneBytePerSecondIsClosedAndHoldsOnlyWhatArrived() throws Exception {
    start(BINARY, b -> b.maxFrameSize(Framing.DEFAULT_MAX_FRAME_SIZE));
    RawConnection slow = open();
    byte[] header = new byte[4];
    Framing.encodeLength(Framing.DEFAULT_MAX_FRAME_SIZE, header, 0);
    slow.write(header);
    CompletableFuture<Void> writer = dribble(slow, binaryHeader(1, "echo", 1).toByteArray());
    assertThat(slow.awaitClosedBy(WITHIN)).isEmpty();
    writer.cancel(true);
    awaitCount("timedOutConnections", ServerStats::timedOutConnections, 1);
    long largest = largestBufferAllocated();
    if (largest >= 0) {
      assertThat(largest)
          .as("largest buffer, with %d bytes declared", Framing.DEFAULT_MAX_FRAME_SIZE)
          .isLessThan(1024 * 1024);
    }
    assertHandlerSaw();
    finishCase();
  }

  // ---- 13: too many connections
  // -------------------------------------------------------------------------

  @Test
  void connectionsBeyondTheLimitAreRefusedAndTheOthersServeOn() throws Exception {
    start(BINARY);
    List<RawConnection> members = new ArrayList<>();
    for (int i = 1; i < MAX_CONNECTIONS; i++) { // the good client holds one
      RawConnection c = open();
      c.writeFrame(call(BINARY, "get_last_sale", i, new BenchService.get_last_sale_args("m" + i)));
      c.readFrame();
      members.add(c);
    }
    for (int i = 0; i < 30; i++) {
      try (RawConnection excess = open()) {
        assertThat(excess.awaitClosedBy(WITHIN)).isEmpty();
      }
    }
    awaitCount("rejectedConnections", ServerStats::rejectedConnections, 30);
    assertThat(server.stats().openConnections()).isEqualTo(MAX_CONNECTIONS);
    for (int i = 0; i < members.size(); i++) {
      RawConnection c = members.get(i);
      c.writeFrame(
          call(BINARY, "get_last_sale", 100 + i, new BenchService.get_last_sale_args("n")));
      assertThat(
              RawConnection.decodeReply(
                      BINARY, c.readFrame(), new BenchService.get_last_sale_result())
                  .seqid)
          .isEqualTo(100 + i);
    }
    List<String> expected = new ArrayList<>();
    for (int i = 1; i < MAX_CONNECTIONS; i++) {
      expected.add("get_last_sale(m" + i + ")");
      expected.add("get_last_sale(n)");
    }
    assertHandlerSaw(expected.toArray(new String[0]));
    finishCase();
  }

  // ---- 14: a peer that never reads
  // ------------------------------------------------------------------------

  @Test
  void aPeerThatNeverReadsIsNoLongerReadFromAndIsClosed() throws Exception {
    start(BINARY);
    int size = 60 * 1024;
    byte[] request = RawConnection.frame(echoCall(1, size));
    Socket s = new Socket();
    closeables.add(s);
    s.setReceiveBufferSize(32 * 1024);
    s.connect(server.localAddress(), 10_000);
    OutputStream out = s.getOutputStream();
    AtomicLong sent = new AtomicLong();
    CompletableFuture<Throwable> writer =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                for (int i = 0; i < 5_000; i++) { // 300 MB if nothing stopped it
                  out.write(request);
                  sent.incrementAndGet();
                }
                return null;
              } catch (IOException closedByTheServer) {
                return closedByTheServer;
              }
            });
    Throwable end = writer.get(WITHIN.toSeconds() * 2, TimeUnit.SECONDS);
    assertThat(end)
        .as("the server closed the connection (%d requests sent)", sent.get())
        .isNotNull();
    awaitCount("timedOutConnections", ServerStats::timedOutConnections, 1);
    long echoes = handler.calls().getOrDefault("echo(" + size + " B)", 0L);
    // Calls run only while fewer than maxPendingWriteBytes of responses wait, plus one read batch
    // and what the sockets' buffers took: far fewer than the 5,000 sent.
    assertThat(echoes).as("echo calls run for a peer that never read").isBetween(1L, 400L);
    assertThat(handler.calls()).containsOnlyKeys("echo(" + size + " B)");
    finishCase();
  }

  /**
   * An asynchronous handler may leave any number of calls running: a client pipelining 500 of them
   * gets no more than maxCallsInFlightPerConnection started at once, then every one answered in
   * order as they complete.
   */
  @Test
  void aPipeliningClientHasAtMostMaxCallsInFlightPerConnection() throws Exception {
    int limit = 8;
    // Keyed by the call's own number (sent as its argument): under WORKER the calls of one block
    // start on several threads in any order, and a call of the next block can start while this
    // block is being completed. Completing exactly the block whose replies are due keeps the test
    // from completing a call whose predecessor has not started (its reply would wait for that one,
    // and the test would wait for its reply).
    Map<Integer, org.apache.thrift.async.AsyncMethodCallback<Void>> held =
        new java.util.concurrent.ConcurrentHashMap<>();
    AtomicLong started = new AtomicLong();
    // Calls started and not yet completed by the test, counted when each starts: the test lowers
    // it before it completes a call, so it never exceeds what the server has in flight, and a call
    // started beyond the limit shows in mostInFlight whenever it happens.
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger mostInFlight = new AtomicInteger();
    BenchService.AsyncIface holding =
        new io.thriftnio.testkit.AsyncBenchHandler() {
          @Override
          public void sleep(int seq, org.apache.thrift.async.AsyncMethodCallback<Void> cb) {
            started.incrementAndGet();
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            held.put(seq, cb); // completed by the test, which so controls what is in flight
          }
        };
    startAsync(holding, limit);
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    int calls = 500;
    for (int seq = 1; seq <= calls; seq++) {
      batch.write(
          RawConnection.frame(call(BINARY, "sleep", seq, new BenchService.sleep_args(seq))));
    }
    try (RawConnection raw = open()) {
      raw.write(batch.toByteArray());
      int answered = 0;
      while (answered < calls) {
        int first = answered + 1;
        int last = Math.min(answered + limit, calls);
        await("the server to start calls " + first + ".." + last)
            .atMost(WITHIN)
            .until(
                () ->
                    java.util.stream.IntStream.rangeClosed(first, last)
                        .allMatch(held::containsKey));
        assertThat(mostInFlight.get())
            .as("most calls in flight on one connection so far")
            .isLessThanOrEqualTo(limit);
        for (int seq = first; seq <= last; seq++) {
          inFlight.decrementAndGet();
          held.remove(seq).onComplete(null);
        }
        for (int seq = first; seq <= last; seq++) {
          answered++;
          assertThat(
                  RawConnection.decodeReply(
                          BINARY, raw.readFrame(), new BenchService.sleep_result())
                      .seqid)
              .isEqualTo(answered);
        }
      }
    } finally {
      // A failed case must not leave calls running: their frames stay held until they complete.
      for (Integer seq : new ArrayList<>(held.keySet())) {
        org.apache.thrift.async.AsyncMethodCallback<Void> cb = held.remove(seq);
        if (cb != null) {
          cb.onComplete(null);
        }
      }
    }
    assertThat(started.get()).isEqualTo(calls);
    assertThat(mostInFlight.get()).as("most calls in flight on one connection").isEqualTo(limit);
    assertThat(server.stats().overloadedCalls()).isZero();
    assertHandlerSaw();
    finishCase();
  }

  // ---- 15: a saturated worker pool
  // -----------------------------------------------------------------------

  /** Twelve connections, each sending one {@code sleep(millis)} call, all at once. */
  private List<RawConnection> twelveSleepers(int millis) throws Exception {
    List<RawConnection> callers = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      callers.add(open());
    }
    for (int i = 0; i < callers.size(); i++) {
      callers.get(i).writeFrame(call(BINARY, "sleep", i, new BenchService.sleep_args(millis)));
    }
    return callers;
  }

  @Test
  void aSaturatedWorkerPoolAnswersOverloadedAndQueuesNoMore() throws Exception {
    assumeTrue(
        strategy() == IoStrategy.WORKER,
        "only WORKER has a worker queue; the other strategies are checked by"
            + " withoutAWorkerQueueEveryCallWaitsForItsThreadAndNoneIsRefused");
    // No queue-time bound: the queued calls wait as long as the test holds the workers, and run.
    start(BINARY, b -> b.workerThreads(2).workerQueueCapacity(4).queueTimeTarget(Duration.ZERO));
    // The workers come free when the test says so, not when a sleep ends: sending the twelve calls
    // may take any time on a loaded machine, and none of them finds a free worker meanwhile. The
    // good client waits meanwhile, so that none of the six places goes to it.
    good.pause();
    try {
      handler.holdSleeps();
      List<RawConnection> callers = new ArrayList<>();
      try {
        for (int i = 0; i < 12; i++) {
          callers.add(open());
        }
        for (int i = 0; i < 2; i++) {
          callers.get(i).writeFrame(call(BINARY, "sleep", i, new BenchService.sleep_args(2000)));
        }
        await("both workers to run a call")
            .atMost(WITHIN)
            .until(() -> handler.sleepsRunning() == 2);
        for (int i = 2; i < callers.size(); i++) {
          callers.get(i).writeFrame(call(BINARY, "sleep", i, new BenchService.sleep_args(2000)));
        }
        // Four of the ten later calls fill the queue, so six are refused, and then every call has
        // been read: the count cannot reach six before the queue is full.
        awaitCount("overloadedCalls", ServerStats::overloadedCalls, 6);
      } finally {
        handler.releaseSleeps();
      }
      int ok = 0;
      int overloaded = 0;
      for (int i = 0; i < callers.size(); i++) {
        try {
          RawConnection.decodeReply(
              BINARY, callers.get(i).readFrame(), new BenchService.sleep_result());
          ok++;
        } catch (TApplicationException e) {
          assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
          assertThat(e.getMessage()).contains("overloaded");
          overloaded++;
        }
      }
      assertThat(ok).as("calls run: 2 workers and 4 queued").isEqualTo(6);
      assertThat(overloaded).isEqualTo(6);
      assertThat(server.stats().overloadedCalls()).isEqualTo(6);
      assertThat(handler.calls()).isEqualTo(Map.of("sleep(2000)", 6L));
    } finally {
      good.resume(); // after every reply: a call of its own would otherwise meet the full queue
    }
    finishCase();
  }

  /**
   * SAME_THREAD and LEADER_FOLLOWER run a call on the thread that read it, which reads nothing else
   * meanwhile: there is no queue of calls to fill, so nothing is refused; calls wait for a thread,
   * and the peers' bytes wait in their sockets.
   */
  @Test
  void withoutAWorkerQueueEveryCallWaitsForItsThreadAndNoneIsRefused() throws Exception {
    assumeTrue(
        strategy() != IoStrategy.WORKER,
        "WORKER has a bounded queue, checked by aSaturatedWorkerPoolAnswersOverloadedAndQueuesNoMore");
    start(BINARY, b -> Workers.strategy(b, strategy(), 2, 4)); // what the strategy has of them
    List<RawConnection> callers = twelveSleepers(300);
    for (int i = 0; i < callers.size(); i++) {
      assertThat(
              RawConnection.decodeReply(
                      BINARY, callers.get(i).readFrame(), new BenchService.sleep_result())
                  .seqid)
          .isEqualTo(i);
    }
    assertThat(server.stats().overloadedCalls()).isZero();
    assertThat(handler.calls()).isEqualTo(Map.of("sleep(300)", 12L));
    finishCase();
  }

  // ---- 16: handlers that throw
  // ------------------------------------------------------------------------------

  @Test
  void handlerThrowablesBecomeInternalErrorsAndEveryThreadServesOn() throws Exception {
    errorLogExpected = true; // an unhandled throwable in a handler is logged at ERROR
    start(BINARY);
    int[] codes = {
      FaultInjectingHandler.THROW_RUNTIME_EXCEPTION,
      FaultInjectingHandler.THROW_ERROR,
      FaultInjectingHandler.THROW_STACK_OVERFLOW
    };
    List<String> expected = new ArrayList<>();
    try (RawConnection raw = open()) {
      int seq = 0;
      for (int round = 0; round < 3; round++) { // more failures than the pool has threads
        for (int code : codes) {
          seq++;
          raw.writeFrame(call(BINARY, "fail", seq, new BenchService.fail_args(code, "boom")));
          Outcome outcome = outcomeOf(raw, BINARY, seq);
          assertThat(outcome.closed).isFalse();
          assertThat(outcome.error.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR);
          expected.add("fail(" + code + ")");
        }
      }
      raw.writeFrame(call(BINARY, "get_last_sale", 99, new BenchService.get_last_sale_args("x")));
      BenchService.get_last_sale_result r = new BenchService.get_last_sale_result();
      RawConnection.decodeReply(BINARY, raw.readFrame(), r);
      assertThat(r.success.getSymbol()).isEqualTo("x");
      expected.add("get_last_sale(x)");
    }
    awaitCount("failedCalls", ServerStats::failedCalls, 9);
    assertHandlerSaw(expected.toArray(new String[0]));
    finishCase();
  }

  // ---- 17: many messages, no message-size limit
  // -------------------------------------------------------------

  /**
   * 120,000 echo calls of 1,000 bytes on one connection, 256 sent ahead (more than the server's
   * maxCallsInFlightPerConnection, so it keeps pausing its reads): 124 MB of requests and as much
   * of responses, far above maxFrameSize and libthrift's 100 MB default maxMessageSize, which apply
   * to one message, never to a connection. (It sent 10^6 calls of 80 bytes until the calls
   * themselves, not the bytes, made it the longest case of the build: the same bytes in larger
   * calls check the same limits.)
   */
  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void overAHundredMegabytesOfPipelinedCallsOnOneConnectionTripNoSizeLimit() throws Exception {
    // 256 calls pipelined on one connection are more than the default queue-time target's worth
    // on a slow or busy machine (SAME_THREAD and LEADER_FOLLOWER keep one bound per connection),
    // and some would be answered "not run" by design; the size limits alone are under test.
    start(BINARY, b -> b.queueTimeTarget(Duration.ZERO));
    int calls = 120_000;
    int window = 256;
    byte[] template = RawConnection.frame(echoCall(0, PIPELINED_PAYLOAD));
    int seqidOffset = Framing.HEADER_SIZE + 4 + 4 + 4; // version, name length, "echo"
    Socket s = new Socket();
    closeables.add(s);
    s.setTcpNoDelay(true);
    s.connect(server.localAddress(), 10_000);
    s.setSoTimeout((int) WITHIN.toMillis());
    Semaphore inFlight = new Semaphore(window);
    OutputStream out = new java.io.BufferedOutputStream(s.getOutputStream(), 64 * 1024);
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              try {
                byte[] frame = template.clone();
                for (int seq = 0; seq < calls; seq++) {
                  if (!inFlight.tryAcquire()) {
                    out.flush();
                    inFlight.acquire();
                  }
                  Framing.encodeLength(seq, frame, seqidOffset);
                  out.write(frame);
                }
                out.flush();
              } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    DataInputStream in =
        new DataInputStream(new java.io.BufferedInputStream(s.getInputStream(), 64 * 1024));
    int replyLength = template.length - Framing.HEADER_SIZE; // the same header and size
    byte[] reply = new byte[replyLength];
    long bytes = 0;
    for (int seq = 0; seq < calls; seq++) {
      int length = in.readInt();
      assertThat(length).isEqualTo(replyLength);
      in.readFully(reply);
      int seqid = Framing.decodeLength(reply, seqidOffset - Framing.HEADER_SIZE);
      if (seqid != seq || reply[3] != TMessageType.REPLY) {
        throw new AssertionError("reply " + seq + " has seqid " + seqid + ", type " + reply[3]);
      }
      bytes += Framing.HEADER_SIZE + length;
      inFlight.release();
    }
    writer.get(WITHIN.toSeconds(), TimeUnit.SECONDS);
    assertThat(bytes).isGreaterThan(100_000_000L);
    ServerStats stats = server.stats();
    assertThat(stats.badFrames()).isZero();
    assertThat(stats.failedCalls()).isZero();
    assertThat(handler.calls())
        .isEqualTo(Map.of("echo(" + PIPELINED_PAYLOAD + " B)", (long) calls));
    finishCase();
  }

  // ---- 18: the caller leaves during its call
  // ----------------------------------------------------------------

  @Test
  void aCallWhoseCallerResetsIsDroppedQuietlyAndCounted() throws Exception {
    start(BINARY);
    RawConnection bad = open();
    bad.writeFrame(call(BINARY, "sleep", 1, new BenchService.sleep_args(500)));
    await("the call to start").atMost(WITHIN).until(() -> handler.sleepsRunning() == 1);
    bad.reset();
    await("the call to finish").atMost(WITHIN).until(() -> handler.sleepsFinished() == 1);
    awaitCount("droppedResponses", ServerStats::droppedResponses, 1);
    assertHandlerSaw("sleep(500)");
    finishCase();
  }

  // ---- helpers
  // ------------------------------------------------------------------------------------------------

  /**
   * A well-behaved client on its own connection: calls {@code get_last_sale("good-N")} in a loop on
   * a thread of its own and checks every answer.
   */
  private static final class GoodClient {
    private final TTransport transport;
    private final BenchService.Client client;
    private final Thread thread;
    private final AtomicLong ok = new AtomicLong();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private volatile boolean stopped;

    /** Held by the loop for each call, and by a case that pauses the client. */
    private final Semaphore turn = new Semaphore(1);

    private GoodClient(InetSocketAddress address, TProtocolFactory protocol) throws Exception {
      transport =
          new TFramedTransport(
              new TSocket(address.getHostString(), address.getPort(), (int) WITHIN.toMillis()));
      transport.open();
      client = new BenchService.Client(protocol.getProtocol(transport));
      thread = new Thread(this::run, "adversarial-good-client");
      thread.setDaemon(true);
    }

    static GoodClient start(InetSocketAddress address, TProtocolFactory protocol) throws Exception {
      GoodClient g = new GoodClient(address, protocol);
      g.thread.start();
      return g;
    }

    private void run() {
      long n = 0;
      while (!stopped) {
        String symbol = RecordingHandler.GOOD + n++;
        try {
          turn.acquire();
        } catch (InterruptedException e) {
          return;
        }
        try {
          TradeReport r = client.get_last_sale(symbol);
          if (!symbol.equals(r.getSymbol())) {
            failures.add("asked " + symbol + ", got " + r);
          } else {
            ok.incrementAndGet();
          }
        } catch (TApplicationException e) {
          failures.add(symbol + ": " + e); // an answer, but not the one asked for
        } catch (TException | RuntimeException e) {
          failures.add(symbol + ": " + e);
          return; // the connection is gone
        } finally {
          turn.release();
        }
        try {
          Thread.sleep(2); // a steady caller, not a second load generator
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    /** Waits for the call in progress to end, and makes no other until {@link #resume()}. */
    void pause() throws InterruptedException {
      assertThat(turn.tryAcquire(WITHIN.toMillis(), TimeUnit.MILLISECONDS))
          .as("the good client's call in progress to end")
          .isTrue();
    }

    void resume() {
      turn.release();
    }

    long ok() {
      return ok.get();
    }

    void assertNoFailures() {
      assertThat(failures).as("failures of the good client").isEmpty();
    }

    /** Stops the loop; idempotent. */
    void stop() throws InterruptedException {
      stopped = true;
      thread.join(WITHIN.toMillis());
    }

    /** One call after the loop stopped; returns the symbol answered. */
    String callOnce(String symbol) throws TException {
      try {
        return client
            .get_last_sale(RecordingHandler.GOOD + symbol)
            .getSymbol()
            .substring(RecordingHandler.GOOD.length());
      } finally {
        transport.close();
      }
    }
  }
}
