package io.thriftnio.testkit.conformance;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a server accepting {@link WireKind#UNFRAMED} does beyond the {@link ConformanceSuite} (which
 * a transport also runs with {@link ClientKinds#stockUnframedSocket()}): unframed pipelining read
 * off a raw socket, the largest message, hostile unframed input, first bytes that match no accepted
 * transport, and framed and unframed peers on one port at once. A transport runs it once per
 * strategy, one {@link ServerCell} each, as the conformance suite.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.IO_PATHS)
public abstract class UnframedSuite extends ServerCellSuite {

  private static final Duration CLOSE_WITHIN = Duration.ofSeconds(10);

  /** maxFrameSize of the JSON server refusing an endless string. */
  private static final int JSON_LIMIT = 64 * 1024;

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<AutoCloseable> clients = new ArrayList<>();

  static Stream<Arguments> protocols() {
    return Stream.of(
        Arguments.of("binary", new TBinaryProtocol.Factory()),
        Arguments.of("compact", new TCompactProtocol.Factory()),
        Arguments.of("json", new TJSONProtocol.Factory()));
  }

  @AfterEach
  void closeEverything() throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    for (ThriftServer s : servers) {
      s.close();
    }
  }

  /** A server accepting both transports, serving {@code handler} in {@code protocol}. */
  protected ServerBuilder<?> builder(TProtocolFactory protocol, BenchService.Iface handler) {
    return newServerBuilder()
        .processor(new BenchService.Processor<>(handler))
        .protocol(protocol)
        .ioStrategy(strategy())
        .wireKinds(WireKind.FRAMED, WireKind.UNFRAMED)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private ThriftServer start(ServerBuilder<?> builder) throws Exception {
    ThriftServer server = builder.build();
    servers.add(server);
    return server.start();
  }

  private RawConnection raw(ThriftServer server) throws Exception {
    RawConnection raw = RawConnection.open(server.localAddress());
    clients.add(raw);
    return raw;
  }

  private BenchService.Client client(ThriftServer server, TProtocolFactory p, boolean framed)
      throws Exception {
    InetSocketAddress a = server.localAddress();
    TTransport t = new TSocket(a.getHostString(), a.getPort(), 30_000);
    if (framed) {
      t = new TFramedTransport(t);
    }
    t.open();
    clients.add(t::close);
    return new BenchService.Client(p.getProtocol(t));
  }

  private static byte[] echoCall(TProtocolFactory protocol, int seq) throws Exception {
    return RawConnection.encodeCall(
        protocol, "echo", seq, new BenchService.echo_args(Payloads.of(seq * 10, seq)));
  }

  // ---- calls ------------------------------------------------------------------------------------

  /**
   * One hundred calls and oneway calls written back to back in one write, unframed: the replies
   * come back unframed, in request order, none for the oneway calls.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void answersPipelinedUnframedCallsInOrder(String name, TProtocolFactory protocol)
      throws Exception {
    BenchHandler handler = new BenchHandler();
    ThriftServer server = start(builder(protocol, handler));
    RawConnection raw = raw(server);
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int seq = 1; seq <= 100; seq++) {
      batch.write(echoCall(protocol, seq));
      if (seq % 10 == 0) {
        batch.write(
            RawConnection.encodeCall(
                protocol,
                "fire",
                TMessageType.ONEWAY,
                1000 + seq,
                new BenchService.fire_args(Payloads.of(8, seq))));
      }
    }
    raw.write(batch.toByteArray());
    for (int seq = 1; seq <= 100; seq++) {
      BenchService.echo_result result = new BenchService.echo_result();
      TMessage reply = raw.readUnframedReply(protocol, result);
      assertThat(reply.seqid).isEqualTo(seq);
      assertThat(reply.type).isEqualTo(TMessageType.REPLY);
      assertThat(Payloads.check(result.success, seq * 10, seq)).isTrue();
    }
    await("10 oneway calls to reach the handler")
        .atMost(CLOSE_WITHIN)
        .until(() -> handler.fired() == 10);
    assertThat(server.stats().completedCalls()).isEqualTo(110);
  }

  /**
   * Calls sent one byte per write, so that the server's reads end anywhere in them, are served: the
   * walk resumes across reads.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void servesCallsSentOneBytePerWrite(String name, TProtocolFactory protocol) throws Exception {
    ThriftServer server = start(builder(protocol, new BenchHandler()));
    RawConnection raw = raw(server);
    for (int seq = 1; seq <= 2; seq++) {
      for (byte b : echoCall(protocol, seq)) {
        raw.write(new byte[] {b});
      }
      BenchService.echo_result result = new BenchService.echo_result();
      assertThat(raw.readUnframedReply(protocol, result).seqid).isEqualTo(seq);
      assertThat(Payloads.check(result.success, seq * 10, seq)).isTrue();
    }
  }

  /** A message of exactly {@code maxFrameSize} bytes is served; one byte more closes. */
  @Test
  void acceptsAMessageOfExactlyMaxFrameSizeAndRefusesOneByteMore() throws Exception {
    TProtocolFactory protocol = new TCompactProtocol.Factory();
    int max = 64 * 1024;
    byte[] probe = fire(protocol, 1, 0);
    BenchHandler handler = new BenchHandler();
    ThriftServer server = start(builder(protocol, handler).maxFrameSize(max));
    // A compact binary's length is a varint: 64 KiB takes one byte more than 0.
    byte[] exact = fire(protocol, 1, max - probe.length - 2);
    assertThat(exact.length).isEqualTo(max);
    byte[] oneMore = fire(protocol, 2, max - probe.length - 1);
    assertThat(oneMore.length).isEqualTo(max + 1);

    raw(server).write(exact);
    await("the max-size message to reach the handler")
        .atMost(CLOSE_WITHIN)
        .until(() -> handler.fired() == 1);
    RawConnection over = raw(server);
    try {
      over.write(oneMore);
    } catch (SocketException closedFirst) {
      // The server refuses the declared size from the first bytes and may close before the rest
      // is written.
    }
    over.awaitClosedBy(CLOSE_WITHIN);
    assertThat(handler.fired()).isEqualTo(1);
    await("badFrames to count the refused message")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().badFrames() == 1);
  }

  private static byte[] fire(TProtocolFactory protocol, int seq, int size) throws Exception {
    return RawConnection.encodeCall(
        protocol,
        "fire",
        TMessageType.ONEWAY,
        seq,
        new BenchService.fire_args(Payloads.of(size, seq)));
  }

  /** Interceptors and the call context see an unframed call as they see a framed one. */
  @Test
  void interceptorsSeeUnframedCalls() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    ServerInterceptor recorder =
        new ServerInterceptor() {
          @Override
          public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
            seen.add(context.methodName() + ":" + context.seqId() + ":" + outcome);
          }
        };
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start(builder(protocol, new BenchHandler()).addInterceptor(recorder));
    BenchService.Client client = client(server, protocol, false);
    assertThat(client.get_last_sale("CTX").getSymbol()).isEqualTo("CTX");
    assertThatThrownBy(() -> client.fail(3, "declared")).isInstanceOf(Exception.class);
    await("two calls to be intercepted").atMost(CLOSE_WITHIN).until(() -> seen.size() == 2);
    assertThat(seen)
        .containsExactly(
            "get_last_sale:1:" + CallOutcome.SUCCESS, "fail:2:" + CallOutcome.DECLARED_EXCEPTION);
  }

  // ---- one port, several transports ------------------------------------------------------------

  /** Framed and unframed clients, binary and compact, call one port at the same time. */
  @Test
  void framedAndUnframedClientsShareOnePortAtOnce() throws Exception {
    TProtocolFactory protocol = new TCompactProtocol.Factory();
    ThriftServer server = start(builder(protocol, new BenchHandler()));
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int c = 0; c < 6; c++) {
        BenchService.Client client = client(server, protocol, c % 2 == 0);
        int seed = c;
        results.add(
            pool.submit(
                (Callable<Integer>)
                    () -> {
                      int ok = 0;
                      for (int i = 0; i < 50; i++) {
                        int size = i % 2 == 0 ? Payloads.SMALL : Payloads.MEDIUM;
                        if (Payloads.check(
                            client.echo(Payloads.of(size, seed * 1000 + i)),
                            size,
                            seed * 1000 + i)) {
                          ok++;
                        }
                      }
                      return ok;
                    }));
      }
      for (Future<Integer> r : results) {
        assertThat(r.get(60, TimeUnit.SECONDS)).isEqualTo(50);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(server.stats().completedCalls()).isEqualTo(300);
    assertThat(server.stats().badFrames()).isZero();
  }

  /** The default, FRAMED alone, is what it always was: an unframed peer is refused. */
  @Test
  void aFramedOnlyServerRefusesUnframedPeers() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start(builder(protocol, new BenchHandler()).wireKinds(WireKind.FRAMED));
    // Answered in its own shape before the close, saying what would serve it (issue 38).
    assertThatThrownBy(() -> client(server, protocol, false).get_last_sale("X"))
        .isInstanceOf(org.apache.thrift.TApplicationException.class)
        .hasMessageContaining("accept WireKind.UNFRAMED on this server");
    await("badFrames to count the peer")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().badFrames() == 1);
    assertThat(client(server, protocol, true).get_last_sale("F").getSymbol()).isEqualTo("F");
  }

  /** A server accepting UNFRAMED alone refuses a framed peer, and serves unframed ones. */
  @Test
  void anUnframedOnlyServerRefusesFramedPeers() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start(builder(protocol, new BenchHandler()).wireKinds(WireKind.UNFRAMED));
    assertThatThrownBy(() -> client(server, protocol, true).get_last_sale("X"))
        .isInstanceOf(TTransportException.class);
    await("badFrames to count the peer")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().badFrames() == 1);
    assertThat(client(server, protocol, false).get_last_sale("U").getSymbol()).isEqualTo("U");
  }

  // ---- hostile input ----------------------------------------------------------------------------

  static Stream<Arguments> garbage() {
    return Stream.of(
        Arguments.of("ff bytes", new byte[] {(byte) 0xff, (byte) 0xee, 0, 1, 2, 3}),
        Arguments.of("81", new byte[] {(byte) 0x81, 1, 0, 1}),
        Arguments.of("binary, version 2", new byte[] {(byte) 0x80, 0x02, 0, 1, 0, 0, 0, 0, 0}),
        Arguments.of("compact, bad version", new byte[] {(byte) 0x82, 0x3f, 1, 1, 'x'}));
  }

  /** First bytes no accepted transport starts with close that connection alone, counted. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("garbage")
  void closesAConnectionWithGarbageFirstBytesAndServesTheOthers(String name, byte[] bytes)
      throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start(builder(protocol, new BenchHandler()));
    BenchService.Client good = client(server, protocol, false);
    assertThat(good.get_last_sale("before").getSymbol()).isEqualTo("before");
    RawConnection bad = raw(server);
    bad.write(bytes);
    assertThat(bad.awaitClosedBy(CLOSE_WITHIN)).as("nothing answered").isEmpty();
    await("badFrames to count the connection")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().badFrames() == 1);
    assertThat(good.get_last_sale("after").getSymbol()).isEqualTo("after");
  }

  /**
   * A call declaring a 2 GB string is refused from its first bytes: the caller gets a {@code
   * PROTOCOL_ERROR} for its sequence id and the connection closes at once, long before the frame
   * timeout, with nothing allocated for the string; other clients carry on.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void refusesADeclaredTwoGigabyteStringAtOnce(String name, TProtocolFactory protocol)
      throws Exception {
    boolean json = protocol instanceof TJSONProtocol.Factory;
    ThriftServer server =
        start(
            builder(protocol, new BenchHandler())
                .frameTimeout(Duration.ofMinutes(5))
                .maxFrameSize(json ? JSON_LIMIT : 16_384_000));
    BenchService.Client good = client(server, protocol, false);
    RawConnection bad = raw(server);
    long started = System.nanoTime();
    try {
      bad.write(twoGigabyteString(protocol));
    } catch (SocketException closedFirst) {
      // JSON: the server refuses the message at its limit and may close before the rest arrives.
    }
    if (!json) {
      assertThatThrownBy(() -> bad.readUnframedReply(protocol, new BenchService.echo_result()))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> {
                assertThat(e.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
                assertThat(e.getMessage()).contains("2147483647").contains("16384000");
              });
    }
    bad.awaitClosedBy(CLOSE_WITHIN);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(CLOSE_WITHIN);
    assertThat(good.get_last_sale("after").getSymbol()).isEqualTo("after");
    await("badFrames to count the connection")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().badFrames() == 1);
  }

  /**
   * The first bytes of an echo call whose binary argument declares {@link Integer#MAX_VALUE} bytes;
   * JSON declares nothing, so there it is a string that goes on past {@link #JSON_LIMIT}.
   */
  private static byte[] twoGigabyteString(TProtocolFactory protocol) throws Exception {
    if (protocol instanceof TJSONProtocol.Factory) {
      byte[] start = "[1,\"echo\",1,7,{\"1\":{\"str\":\"".getBytes();
      byte[] all = Arrays.copyOf(start, 2 * JSON_LIMIT);
      Arrays.fill(all, start.length, all.length, (byte) 'A');
      return all;
    }
    ByteBuffer b = ByteBuffer.allocate(64);
    if (protocol instanceof TBinaryProtocol.Factory) {
      b.putInt(0x80010001).putInt(4).put("echo".getBytes()).putInt(7);
      b.put((byte) TType.STRING).putShort((short) 1).putInt(Integer.MAX_VALUE);
    } else {
      b.put((byte) 0x82).put((byte) 0x21).put((byte) 7).put((byte) 4).put("echo".getBytes());
      b.put((byte) 0x18); // field 1, binary
      b.put(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07});
    }
    return Arrays.copyOf(b.array(), b.position());
  }

  /**
   * A peer that stops in the middle of an unframed message is closed by the frame timeout and
   * counted there; a peer that leaves in the middle counts as a truncated frame.
   */
  @Test
  void closesAnUnframedMessageThatStopsHalfwayByTheFrameTimeout() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server =
        start(builder(protocol, new BenchHandler()).frameTimeout(Duration.ofMillis(300)));
    byte[] call = echoCall(protocol, 5);
    RawConnection slow = raw(server);
    slow.write(Arrays.copyOf(call, call.length / 2));
    slow.awaitClosedBy(CLOSE_WITHIN);
    await("the frame timeout to be counted")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().timedOutConnections() == 1);

    RawConnection leaving = raw(server);
    leaving.write(Arrays.copyOf(call, call.length / 2));
    leaving.close();
    await("the truncated message to be counted")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().truncatedFrames() == 1);
    assertThat(client(server, protocol, false).get_last_sale("ok").getSymbol()).isEqualTo("ok");
  }
}
