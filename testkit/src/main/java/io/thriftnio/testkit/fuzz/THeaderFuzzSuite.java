package io.thriftnio.testkit.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.conformance.THeaderFrames;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes a server that accepts THeader peers, over loopback sockets, written once for every
 * transport: a subclass starts the server (binary, {@code FRAMED} and {@code HEADER} accepted,
 * {@link #MAX_FRAME_SIZE}). Each input is one connection: good THeader echo calls (binary or
 * compact, zlib or not, random info headers; every one must be answered with its payload), a good
 * frame with a few bytes mutated anywhere (length, magic, header size, section, payload), or a good
 * fixed part around a random header section; written in random pieces, then a half-close. For every
 * input the server closes within {@link #WITHIN}, and everything it sent is well-formed THeader
 * replies (an echo result, or a {@code TApplicationException}), in the protocol the header names.
 * Every {@value #PROBE_EVERY} inputs and at the end a good THeader client still gets its echo; at
 * the end the counters agree with what the client did, no ERROR was logged for an unexpected
 * exception, and the open descriptors are back where they were.
 */
public abstract class THeaderFuzzSuite {

  /** The servers' frame limit: small, so that oversize inputs are cheap. */
  protected static final int MAX_FRAME_SIZE = 64 * 1024;

  /** How long the server has to close a connection after the client's half-close. */
  protected static final Duration WITHIN = Duration.ofSeconds(20);

  private static final int PROBE_EVERY = 100;
  private static final TProtocolFactory[] PROTOCOLS = {
    new TBinaryProtocol.Factory(), null, new TCompactProtocol.Factory()
  };

  /**
   * Starts a server on loopback port 0 accepting {@code FRAMED} and {@code HEADER}, binary.
   *
   * @param handler the handler to serve
   * @param maxFrameSize the frame limit
   * @return the started server
   */
  protected abstract ThriftServer start(BenchService.Iface handler, int maxFrameSize)
      throws Exception;

  /** Checks after the server has closed, e.g. that every buffer it allocated was released. */
  protected void afterClose() {}

  /** The seed of the normal build's run. */
  protected abstract long defaultSeed();

  /** Inputs in the normal build's run. */
  protected int defaultInputs() {
    return 300;
  }

  /** One input: its bytes, and the payloads of the calls that must be echoed (good inputs). */
  private record Input(String kind, byte[] bytes, List<byte[]> echoed) {}

  @Test
  @Timeout(3600) // a long run sets its own budget (Fuzz.SECONDS); each input has WITHIN
  void theaderFrames() throws Exception {
    FuzzHandler handler = new FuzzHandler(MAX_FRAME_SIZE);
    Fuzz run = Fuzz.of(getClass().getSimpleName() + " theader", defaultSeed(), defaultInputs());
    ThriftServer server = start(handler, MAX_FRAME_SIZE);
    InetSocketAddress address = server.localAddress();
    long[] connections = {0};
    long[] replies = {0};
    int tried;
    List<String> errors;
    int fdsBefore;
    int fdsAfter;
    try (LogWatch log = new LogWatch()) {
      try {
        probe(address, new Random(1), 0);
        connections[0]++;
        fdsBefore = OpenFiles.count();
        tried =
            run.run(
                (index, random, recorder) -> {
                  Input input = next(random);
                  recorder.record(input.kind(), input.bytes());
                  connections[0]++;
                  replies[0] += exchange(address, random, input);
                  awaitClosed(server);
                  if (index % PROBE_EVERY == PROBE_EVERY - 1) {
                    probe(address, random, index);
                    connections[0]++;
                  }
                });
        probe(address, new Random(2), -1);
        connections[0]++;
        ServerStats stats = awaitClosed(server);
        assertThat(stats.acceptedConnections()).as("accepted, %s", stats).isEqualTo(connections[0]);
        assertThat(stats.badFrames())
            .as("bad frames, %s", stats)
            .isLessThanOrEqualTo(connections[0]);
        assertThat(stats.overloadedCalls()).as("overloaded, %s", stats).isZero();
        assertThat(stats.timedOutConnections()).as("timed out, %s", stats).isZero();
        fdsAfter = OpenFiles.count();
      } finally {
        server.close();
      }
      errors = log.unexpectedErrors("BenchError");
    }
    System.out.printf(
        "fuzz %s theader: %d inputs (seed %d), %d replies, %s, open descriptors %d then %d%n",
        getClass().getSimpleName(),
        tried,
        run.seed(),
        replies[0],
        server.stats(),
        fdsBefore,
        fdsAfter);
    assertThat(handler.violations()).as("arguments the handler saw").isEmpty();
    assertThat(errors).as("errors logged for unexpected exceptions").isEmpty();
    // Loose: other threads may open a few files meanwhile; a leak per connection shows hundreds.
    assertThat(fdsAfter).as("open descriptors").isLessThanOrEqualTo(fdsBefore + 16);
    afterClose();
  }

  private static Input next(Random random) throws Exception {
    int shape = random.nextInt(10);
    if (shape < 3) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      List<byte[]> echoed = new ArrayList<>();
      for (int i = 1 + random.nextInt(3); i > 0; i--) {
        byte[] payload = new byte[random.nextInt(2000)];
        random.nextBytes(payload);
        out.writeBytes(goodFrame(random, echoed.size() + 1, payload));
        echoed.add(payload);
      }
      return new Input("good calls", out.toByteArray(), echoed);
    }
    byte[] payload = new byte[random.nextInt(300)];
    random.nextBytes(payload);
    if (shape < 8) {
      return new Input(
          "mutated frame", Mutations.mutate(random, goodFrame(random, 1, payload)), List.of());
    }
    byte[] section = new byte[random.nextInt(24)];
    random.nextBytes(section);
    THeaderFrames frame = THeaderFrames.request().seqId(random.nextInt()).rawSection(section);
    if (random.nextBoolean()) {
      frame.headerSizeWords(random.nextInt(1 << 16));
    }
    return new Input(
        "random header section", frame.frame(echoCall(PROTOCOLS[0], 1, payload)), List.of());
  }

  /** One good echo call: binary or compact, zlib or not, zero to three info headers. */
  private static byte[] goodFrame(Random random, int seqid, byte[] payload) throws Exception {
    int protocolId = random.nextBoolean() ? 0 : 2;
    // Any flags but SUPPORT_OUT_OF_ORDER (0x01): the check reads the echoes in request order, which
    // a WORKER server keeps only for requests without it (out of order: ServerHeadersSuite).
    THeaderFrames frame =
        THeaderFrames.request()
            .protocol(protocolId)
            .seqId(seqid)
            .flags(random.nextInt(1 << 16) & ~0x01);
    if (random.nextBoolean()) {
      frame.transform(1);
    }
    for (int i = random.nextInt(4); i > 0; i--) {
      frame.header("k" + random.nextInt(1000), Long.toHexString(random.nextLong()));
    }
    return frame.frame(echoCall(PROTOCOLS[protocolId], seqid, payload));
  }

  private static byte[] echoCall(TProtocolFactory protocol, int seqid, byte[] payload)
      throws Exception {
    return RawConnection.encodeCall(
        protocol, "echo", seqid, new BenchService.echo_args(ByteBuffer.wrap(payload)));
  }

  /**
   * Sends one input on its own connection, half-closes, reads until the server closes, and checks
   * what came back.
   *
   * @return the number of well-formed replies
   */
  private static int exchange(InetSocketAddress address, Random random, Input input)
      throws Exception {
    byte[] sent = input.bytes();
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    try (RawConnection raw = RawConnection.open(address)) {
      try {
        int at = 0;
        for (int piece : FrameInputs.pieces(random, sent.length)) {
          raw.write(Arrays.copyOfRange(sent, at, at + piece));
          at += piece;
        }
        // Good calls' replies are read before the half-close: a server may take the client's FIN
        // for a close and drop replies still being made (droppedResponses).
        for (int i = 0; i < input.echoed().size(); i++) {
          received.writeBytes(RawConnection.frame(raw.readFrame()));
        }
        raw.shutdownOutput();
      } catch (SocketException closedByServer) {
        // The server closed (a refused frame) before the rest was written. Half-close anyway.
        try {
          raw.shutdownOutput();
        } catch (IOException reset) {
          // Already reset by the server: there is nothing left to half-close.
        }
      }
      received.writeBytes(raw.awaitClosedBy(WITHIN));
    }
    List<byte[]> echoes = check(received.toByteArray());
    if (!input.echoed().isEmpty()) {
      assertThat(echoes.size()).as("echoes of %s", input.kind()).isEqualTo(input.echoed().size());
      for (int i = 0; i < echoes.size(); i++) {
        assertThat(Arrays.equals(echoes.get(i), input.echoed().get(i)))
            .as("echo %d of %s is its payload (%d bytes)", i, input.kind(), echoes.get(i).length)
            .isTrue();
      }
    }
    return echoes.size();
  }

  /**
   * Checks that {@code received} is a sequence of THeader reply frames, each in binary or compact
   * and an echo result or a {@code TApplicationException}; an incomplete last frame is tolerated (a
   * reset may drop bytes in flight).
   *
   * @return the payloads echoed, in order
   */
  private static List<byte[]> check(byte[] received) throws Exception {
    List<byte[]> echoes = new ArrayList<>();
    int at = 0;
    while (received.length - at >= Framing.HEADER_SIZE) {
      int length = Framing.decodeLength(received, at);
      if (length <= 0 || length > MAX_FRAME_SIZE) {
        throw new AssertionError("reply with length " + length + " (limit " + MAX_FRAME_SIZE + ")");
      }
      if (received.length - at - Framing.HEADER_SIZE < length) {
        break;
      }
      byte[] frame = Arrays.copyOfRange(received, at, at + Framing.HEADER_SIZE + length);
      at += frame.length;
      TProtocolFactory protocol = PROTOCOLS[0];
      byte[] message = Arrays.copyOfRange(frame, Framing.HEADER_SIZE, frame.length);
      if (length >= 2 && frame[4] == 0x0f && frame[5] == (byte) 0xff) {
        THeaderFrames.Reply reply = THeaderFrames.read(frame);
        assertThat(reply.protocolId).as("a reply's protocol id").isIn(0, 2);
        protocol = PROTOCOLS[reply.protocolId];
        message = reply.message;
      } // else a mutated magic made the connection framed: a framed reply in the server's binary
      BenchService.echo_result result = new BenchService.echo_result();
      try {
        RawConnection.decodeReply(protocol, message, result);
        echoes.add(result.getSuccess());
      } catch (TApplicationException refused) {
        // An error answer (a refused section, an unknown method): well-formed.
      }
    }
    return echoes;
  }

  /** A good THeader client: one echo on a fresh connection. */
  private static void probe(InetSocketAddress address, Random random, int after) throws Exception {
    byte[] payload =
        ("probe after input " + after).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (RawConnection raw = RawConnection.open(address)) {
      raw.write(goodFrame(random, 7, payload));
      THeaderFrames.Reply reply = THeaderFrames.read(RawConnection.frame(raw.readFrame()));
      BenchService.echo_result result = new BenchService.echo_result();
      RawConnection.decodeReply(PROTOCOLS[reply.protocolId], reply.message, result);
      assertThat(result.getSuccess())
          .as("the echo of a good client after input %d", after)
          .isEqualTo(payload);
    }
  }

  /** Waits until every connection is closed, then returns the counters. */
  private static ServerStats awaitClosed(ThriftServer server) throws InterruptedException {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    ServerStats stats = server.stats();
    while (stats.openConnections() != 0) {
      assertThat(System.nanoTime())
          .as("connections closed within %s: %s", WITHIN, stats)
          .isLessThan(deadline);
      Thread.sleep(10); // polling counters
      stats = server.stats();
    }
    return stats;
  }
}
