package io.thriftnio.testkit.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes a real server over loopback sockets, written once for every transport: a subclass starts
 * the server. Each input is one connection: a stream from {@link CallInputs} (valid calls, valid
 * headers with random arguments, mutated calls, random frames and bytes) written in random pieces,
 * then a half-close. For every input:
 *
 * <ul>
 *   <li>the server closes the connection within {@link #WITHIN} (no hang);
 *   <li>everything it sent is well-formed replies ({@link Replies});
 * </ul>
 *
 * <p>Every {@value #PROBE_EVERY} inputs and at the end a good client still gets its echo. At the
 * end: the handler saw no impossible argument ({@link FuzzHandler}), no ERROR was logged for an
 * exception other than the handler's own {@code BenchError}, the counters agree with what the
 * client did, the open descriptors are back where they were, and {@link #afterClose} runs the
 * subclass's checks (buffers released).
 *
 * <p>The fixed seed and input count keep the normal build short and reproducible; see {@link Fuzz}
 * for a long run with another seed.
 */
public abstract class ServerFuzzSuite {

  /** The servers' frame limit: small, so that oversize inputs are cheap. */
  protected static final int MAX_FRAME_SIZE = 64 * 1024;

  /** How long the server has to close a connection after the client's half-close. */
  protected static final Duration WITHIN = Duration.ofSeconds(20);

  private static final int PROBE_EVERY = 100;

  /**
   * Starts a server on loopback port 0.
   *
   * @param protocol the protocol to serve
   * @param handler the handler to serve
   * @param maxFrameSize the frame limit
   * @return the started server
   */
  protected abstract ThriftServer start(
      TProtocolFactory protocol, BenchService.Iface handler, int maxFrameSize) throws Exception;

  /** Checks after the server has closed, e.g. that every buffer it allocated was released. */
  protected void afterClose() {}

  /** The seed of the normal build's run. */
  protected abstract long defaultSeed();

  /** Inputs per protocol in the normal build's run. */
  protected int defaultInputs() {
    return 1500;
  }

  @Test
  @Timeout(3600) // a long run sets its own budget (Fuzz.SECONDS); each input has WITHIN
  void binaryProtocol() throws Exception {
    fuzz("binary", new TBinaryProtocol.Factory());
  }

  @Test
  @Timeout(3600)
  void compactProtocol() throws Exception {
    fuzz("compact", new TCompactProtocol.Factory());
  }

  private void fuzz(String protocolName, TProtocolFactory protocol) throws Exception {
    FuzzHandler handler = new FuzzHandler(MAX_FRAME_SIZE);
    Fuzz run =
        Fuzz.of(getClass().getSimpleName() + " " + protocolName, defaultSeed(), defaultInputs());
    ThriftServer server = start(protocol, handler, MAX_FRAME_SIZE);
    InetSocketAddress address = server.localAddress();
    long[] connections = {0};
    long[] replies = {0};
    int tried;
    List<String> errors;
    int fdsBefore;
    int fdsAfter;
    long logLines;
    try (LogWatch log = new LogWatch()) {
      try {
        probe(address, protocol, 0);
        connections[0]++;
        fdsBefore = OpenFiles.count();
        tried =
            run.run(
                (index, random, input) -> {
                  FrameInputs.Stream stream = CallInputs.next(random, protocol, MAX_FRAME_SIZE);
                  input.record(stream.kind(), stream.bytes());
                  connections[0]++;
                  long completedBefore = server.stats().completedCalls();
                  long callsBefore = handler.calls();
                  replies[0] += exchange(address, random, stream.bytes(), protocol);
                  // Per input, so that a call run but not counted names its input.
                  awaitQuiet(server, handler, completedBefore, callsBefore);
                  if (index % PROBE_EVERY == PROBE_EVERY - 1) {
                    probe(address, protocol, index);
                    connections[0]++;
                  }
                });
        probe(address, protocol, -1);
        connections[0]++;
        ServerStats stats = awaitQuiet(server, handler, 0, 0);
        assertThat(stats.acceptedConnections()).as("accepted, %s", stats).isEqualTo(connections[0]);
        assertThat(stats.rejectedConnections()).as("rejected, %s", stats).isZero();
        assertThat(stats.badFrames())
            .as("bad frames, %s", stats)
            .isLessThanOrEqualTo(connections[0]);
        assertThat(stats.failedCalls())
            .as("failed, %s", stats)
            .isLessThanOrEqualTo(stats.completedCalls());
        assertThat(stats.overloadedCalls()).as("overloaded, %s", stats).isZero();
        assertThat(stats.timedOutConnections()).as("timed out, %s", stats).isZero();
        fdsAfter = OpenFiles.count();
      } finally {
        server.close();
      }
      errors = log.unexpectedErrors("BenchError");
      logLines = log.lines();
    }
    System.out.printf(
        "fuzz %s %s: %d inputs (seed %d), %d replies, %d handler calls, %s, open descriptors %d"
            + " then %d, %d log lines checked%n",
        getClass().getSimpleName(),
        protocolName,
        tried,
        run.seed(),
        replies[0],
        handler.calls(),
        server.stats(),
        fdsBefore,
        fdsAfter,
        logLines);
    assertThat(handler.violations())
        .as("arguments the handler saw (seed %d)", run.seed())
        .isEmpty();
    assertThat(errors)
        .as("errors logged for unexpected exceptions (seed %d)", run.seed())
        .isEmpty();
    // Loose: other tests' threads and the JVM may open a few files meanwhile; a leak per
    // connection would show hundreds.
    assertThat(fdsAfter)
        .as("open descriptors (seed %d)", run.seed())
        .isLessThanOrEqualTo(fdsBefore + 16);
    afterClose();
  }

  /**
   * Sends one input on its own connection and checks what comes back. When the input is whole
   * frames with valid lengths, a good call follows it on the same connection: if the server still
   * serves the connection, the reply to that call arrives after the replies to the input (responses
   * leave in request order), so every reply is read and checked before the half-close. Then the
   * client half-closes and reads until the server closes.
   *
   * @return the number of well-formed replies
   */
  private static int exchange(
      InetSocketAddress address, Random random, byte[] bytes, TProtocolFactory protocol)
      throws Exception {
    FrameInputs.Expected expected = FrameInputs.expected(bytes, MAX_FRAME_SIZE);
    boolean tail = expected.rejectedLength() == null && expected.partialBytes() == 0;
    byte[] sent = tail ? concat(bytes, RawConnection.frame(tailCall(protocol))) : bytes;
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    try (RawConnection raw = RawConnection.open(address)) {
      try {
        int at = 0;
        for (int piece : FrameInputs.pieces(random, sent.length)) {
          raw.write(Arrays.copyOfRange(sent, at, at + piece));
          at += piece;
        }
        while (tail) {
          byte[] reply = raw.readFrame();
          received.writeBytes(RawConnection.frame(reply));
          Integer seqid = Replies.seqidOf(reply, protocol);
          if (seqid != null && seqid == TAIL_SEQID) {
            BenchService.echo_result result = new BenchService.echo_result();
            RawConnection.decodeReply(protocol, reply, result);
            assertThat(result.getSuccess()).as("the echo after the input").isEqualTo(TAIL_PAYLOAD);
            break;
          }
        }
        raw.shutdownOutput();
      } catch (EOFException | SocketException closedByServer) {
        // The server closed (a bad frame or message) before the rest was written or answered.
        // Half-close anyway: after an error reply the server waits for the client's FIN.
        try {
          raw.shutdownOutput();
        } catch (IOException reset) {
          // Already reset by the server: there is nothing left to half-close.
        }
      }
      received.writeBytes(raw.awaitClosedBy(WITHIN));
    }
    return Replies.check(received.toByteArray(), protocol, MAX_FRAME_SIZE);
  }

  private static final int TAIL_SEQID = 0x7A11CA11;
  private static final byte[] TAIL_PAYLOAD = {'t', 'a', 'i', 'l'};

  private static byte[] tailCall(TProtocolFactory protocol) throws Exception {
    return RawConnection.encodeCall(
        protocol, "echo", TAIL_SEQID, new BenchService.echo_args(ByteBuffer.wrap(TAIL_PAYLOAD)));
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** A good client: one echo on a fresh connection. */
  private static void probe(InetSocketAddress address, TProtocolFactory protocol, int after)
      throws Exception {
    byte[] payload = ("probe after input " + after).getBytes(StandardCharsets.UTF_8);
    try (RawConnection raw = RawConnection.open(address)) {
      raw.writeFrame(
          RawConnection.encodeCall(
              protocol, "echo", 7, new BenchService.echo_args(ByteBuffer.wrap(payload))));
      BenchService.echo_result result = new BenchService.echo_result();
      RawConnection.decodeReply(protocol, raw.readFrame(), result);
      assertThat(result.getSuccess())
          .as("the echo of a good client after input %d", after)
          .isEqualTo(payload);
    }
  }

  /**
   * Waits until every connection is closed and every call that reached the handler since the
   * baseline is counted as completed (workers may still be finishing calls of closed connections),
   * then returns the counters.
   */
  private static ServerStats awaitQuiet(
      ThriftServer server, FuzzHandler handler, long completedBefore, long callsBefore)
      throws InterruptedException {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    ServerStats stats = server.stats();
    while (stats.openConnections() != 0
        || stats.completedCalls() - completedBefore < handler.calls() - callsBefore) {
      assertThat(System.nanoTime())
          .as(
              "connections closed and calls counted within %s: %s, handler calls %d (before: %d"
                  + " completed, %d handler calls)",
              WITHIN, stats, handler.calls(), completedBefore, callsBefore)
          .isLessThan(deadline);
      Thread.sleep(10); // polling counters
      stats = server.stats();
    }
    return stats;
  }
}
