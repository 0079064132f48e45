package io.thriftnio.testkit.conformance;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import io.thriftnio.testkit.tls.TestPki;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Behaviour every thrift-nio server shows, whatever its transport and strategy, against one client
 * kind: the cases that call the server through {@link #clientKind()}. A transport runs {@link
 * ServerConformanceSuite} (these cases and those that reach the server without the client kind)
 * over a list of {@link ServerCell}s, each a server setting and a client kind (see {@code
 * NettyConformanceTest}); a matrix that only adds client kinds to server rows a transport's matrix
 * already runs (see {@code CrossConformanceTest}) runs this suite alone.
 *
 * <p>Every server binds 127.0.0.1 port 0 and is closed after each test.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
public abstract class ConformanceSuite {

  /** How long a case waits for a close, a count or a call to arrive. */
  protected static final Duration CLOSE_WITHIN = Duration.ofSeconds(10);

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<AutoCloseable> clients = new ArrayList<>();

  /** The servers of {@link #sharedServer}: one per protocol for the cell's cases. */
  @RegisterExtension final SharedServers shared = new SharedServers();

  /** A fresh builder of the server under test, with the transport's defaults. */
  protected abstract ServerBuilder<?> newServerBuilder();

  /** The strategy under test. */
  protected abstract IoStrategy strategy();

  /** The client kind that calls the server. Default: stock {@code TSocket + TFramedTransport}. */
  protected ClientKind clientKind() {
    return ClientKinds.stockSocket();
  }

  /**
   * Whether the server under test accepts {@code WireKind.HTTP}: an HTTP request among the bad
   * inputs is then a request it answers, and the {@link #clientKind()} (an HTTP client) shares its
   * pooled connections among callers. Default: {@code false}.
   */
  protected boolean servesHttp() {
    return false;
  }

  /**
   * TLS for the servers the suite builds through {@link #builder}, or {@code null} (the default)
   * for plain TCP. With TLS, the suite's raw connections speak TLS too, trusting {@link TestPki}'s
   * authority, so the key must come from {@link TestPki#shared()}; the {@link #clientKind()} must
   * then connect over TLS.
   */
  protected ServerTls serverTls() {
    return null;
  }

  /** A raw connection to {@code address}: over TLS when {@link #serverTls()} is set. */
  protected RawConnection openRaw(InetSocketAddress address) throws IOException {
    return serverTls() == null
        ? RawConnection.open(address)
        : RawConnection.open(address, TestPki.shared().clientSocketFactory());
  }

  static Stream<Arguments> protocols() {
    return Stream.of(
        Arguments.of("binary", new TBinaryProtocol.Factory()),
        Arguments.of("compact", new TCompactProtocol.Factory()));
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

  // ---- fixtures -------------------------------------------------------------------------------

  /** A builder for the server under test serving {@code handler}, bound to 127.0.0.1:0. */
  protected ServerBuilder<?> builder(TProtocolFactory protocol, BenchService.Iface handler) {
    return newServerBuilder()
        .processor(new BenchService.Processor<>(handler))
        .protocol(protocol)
        .ioStrategy(strategy())
        .tls(serverTls())
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  /** Builds and starts a server that the suite closes after the test. */
  protected ThriftServer start(ServerBuilder<?> builder) throws IOException {
    ThriftServer server = builder.build();
    servers.add(server);
    return server.start();
  }

  /**
   * A started server of the cell serving a {@link BenchHandler} over {@code protocol}, shared by
   * the cases that only call it (they need no fresh server, no setting of their own, and read no
   * counter that another case moves): one server per cell and protocol instead of one per case.
   */
  protected ThriftServer sharedServer(TProtocolFactory protocol) throws Exception {
    return shared.get(
        protocol.getClass().getName(), () -> builder(protocol, new BenchHandler()).build().start());
  }

  /** Connects the client kind under test; the suite closes it after the test. */
  protected BenchService.Iface connect(ThriftServer server, TProtocolFactory protocol)
      throws Exception {
    BenchConnection c = clientKind().connect(server.localAddress(), protocol);
    clients.add(c);
    return c.iface();
  }

  /** Closes {@code client} after the test, with the clients of {@link #connect}. */
  protected void closeAfterTest(AutoCloseable client) {
    clients.add(client);
  }

  // ---- every method -----------------------------------------------------------------------------

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void echoesEveryBenchSize(String name, TProtocolFactory protocol) throws Exception {
    ThriftServer server = sharedServer(protocol);
    BenchService.Iface client = connect(server, protocol);
    for (int size : new int[] {0, 1, Payloads.SMALL, Payloads.MEDIUM, Payloads.LARGE}) {
      ByteBuffer reply = client.echo(Payloads.of(size, size));
      assertThat(Payloads.check(reply, size, size)).as("echo of %d bytes intact", size).isTrue();
    }
  }

  /**
   * A binary result is the caller's: the next call on the same client must not change it (as with
   * libthrift's {@code TFramedTransport}, which reads each frame into its own array).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void aBinaryResultStaysIntactAfterTheNextCall(String name, TProtocolFactory protocol)
      throws Exception {
    ThriftServer server = sharedServer(protocol);
    BenchService.Iface client = connect(server, protocol);
    ByteBuffer first = client.echo(Payloads.of(Payloads.SMALL, 1));
    ByteBuffer second = client.echo(Payloads.of(Payloads.SMALL, 2));
    assertThat(Payloads.check(second, Payloads.SMALL, 2)).as("second echo intact").isTrue();
    assertThat(Payloads.check(first, Payloads.SMALL, 1))
        .as("first echo still intact after the second call")
        .isTrue();
  }

  /**
   * A handler may keep a binary argument after it returns (a cache, a queue): later requests on the
   * connection must not change it, as they never do with stock servers, whose transports read each
   * frame into its own array.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void aHandlerKeepsItsBinaryArgumentsIntactAfterLaterCalls(String name, TProtocolFactory protocol)
      throws Exception {
    List<ByteBuffer> kept = Collections.synchronizedList(new ArrayList<>());
    BenchHandler keeping =
        new BenchHandler() {
          @Override
          public ByteBuffer echo(ByteBuffer payload) {
            kept.add(payload);
            return payload;
          }
        };
    ThriftServer server = start(builder(protocol, keeping));
    BenchService.Iface client = connect(server, protocol);
    for (int i = 1; i <= 4; i++) {
      assertThat(Payloads.check(client.echo(Payloads.of(Payloads.SMALL, i)), Payloads.SMALL, i))
          .isTrue();
    }
    assertThat(kept).hasSize(4);
    for (int i = 1; i <= 4; i++) {
      assertThat(Payloads.check(kept.get(i - 1), Payloads.SMALL, i))
          .as("argument of call %d, kept by the handler, after all 4 calls", i)
          .isTrue();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void answersEveryMethod(String name, TProtocolFactory protocol) throws Exception {
    BenchHandler handler = new BenchHandler();
    ThriftServer server = start(builder(protocol, handler));
    BenchService.Iface client = connect(server, protocol);

    assertThat(client.get_last_sale("ACME")).isEqualTo(new TradeReport("ACME", 25.50, 100, 1));

    List<TestInfo> rows = client.db_work(100);
    assertThat(rows).hasSize(100);
    for (int i = 0; i < 100; i++) {
      assertThat(rows.get(i)).isEqualTo(BenchHandler.row(i));
    }
    assertThat(client.db_work(0)).isEmpty();

    Nested chain = client.get_nested(BenchHandler.MAX_DEPTH);
    assertThat(chain).isEqualTo(BenchHandler.nested(BenchHandler.MAX_DEPTH));
    assertThat(client.get_nested(1)).isEqualTo(new Nested("0"));

    client.sleep(5);

    assertThatThrownBy(() -> client.fail(7, "seven"))
        .isInstanceOfSatisfying(
            BenchError.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(7);
              assertThat(e.getMessage()).isEqualTo("seven");
            });
    // bench.thrift declares BenchError on fail() only, so the handler's BenchError for a bad
    // argument elsewhere reaches the caller as an undeclared exception: INTERNAL_ERROR.
    assertThatThrownBy(() -> client.db_work(-1))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
    assertThatThrownBy(() -> client.get_nested(BenchHandler.MAX_DEPTH + 1))
        .isInstanceOf(TApplicationException.class);
    assertThat(client.db_work(1)).containsExactly(BenchHandler.row(0));

    for (int i = 0; i < 5; i++) {
      client.fire(Payloads.of(Payloads.SMALL, i));
    }
    await("5 oneway fire calls to reach the handler")
        .atMost(CLOSE_WITHIN)
        .until(() -> handler.fired() == 5);
    assertThat(client.fired()).isEqualTo(5);
    assertThat(handler.firedBytes()).isEqualTo(5L * Payloads.SMALL);
    assertThat(server.stats().completedCalls()).isGreaterThanOrEqualTo(14);
  }

  @Test
  void speaksJson() throws Exception {
    TProtocolFactory json = new TJSONProtocol.Factory();
    ThriftServer server = start(builder(json, new BenchHandler()));
    BenchService.Iface client = connect(server, json);
    assertThat(Payloads.check(client.echo(Payloads.of(Payloads.MEDIUM, 3)), Payloads.MEDIUM, 3))
        .isTrue();
    assertThat(client.db_work(10)).hasSize(10).contains(BenchHandler.row(9));
    assertThatThrownBy(() -> client.fail(3, "json")).isInstanceOf(BenchError.class);
  }

  // ---- failures in handlers ---------------------------------------------------------------------

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void undeclaredThrowablesBecomeInternalErrorAndTheConnectionLivesOn(
      String name, TProtocolFactory protocol) throws Exception {
    ThriftServer server = start(builder(protocol, new FaultInjectingHandler()));
    BenchService.Iface client = connect(server, protocol);
    for (int code :
        new int[] {
          FaultInjectingHandler.THROW_RUNTIME_EXCEPTION,
          FaultInjectingHandler.THROW_ERROR,
          FaultInjectingHandler.THROW_STACK_OVERFLOW
        }) {
      assertThatThrownBy(() -> client.fail(code, "boom " + code))
          .as("fail(%d)", code)
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
      assertThat(client.get_last_sale("after-" + code).getSymbol()).isEqualTo("after-" + code);
    }
  }

  // ---- processors -------------------------------------------------------------------------------

  @ParameterizedTest(name = "{0}")
  @MethodSource("protocols")
  void servesAnAsyncProcessor(String name, TProtocolFactory protocol) throws Exception {
    ThriftServer server =
        start(
            newServerBuilder()
                .asyncProcessor(new BenchService.AsyncProcessor<>(new AsyncBenchHandler()))
                .protocol(protocol)
                .ioStrategy(strategy())
                .tls(serverTls())
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    BenchService.Iface client = connect(server, protocol);
    assertThat(Payloads.check(client.echo(Payloads.of(Payloads.LARGE, 1)), Payloads.LARGE, 1))
        .isTrue();
    assertThat(client.db_work(3))
        .containsExactly(BenchHandler.row(0), BenchHandler.row(1), BenchHandler.row(2));
    client.sleep(20);
    assertThatThrownBy(() -> client.fail(5, "async")).isInstanceOf(BenchError.class);
    client.fire(Payloads.of(10, 1));
    assertThat(client.get_last_sale("X").getPrice()).isEqualTo(25.50);
  }

  // ---- pipelining and concurrency -------------------------------------------------------------

  @Test
  void servesConcurrentClients() throws Exception {
    TProtocolFactory protocol = new TCompactProtocol.Factory();
    ThriftServer server = sharedServer(protocol);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int c = 0; c < 8; c++) {
        BenchService.Iface client = connect(server, protocol);
        int seed = c;
        results.add(
            pool.submit(
                (Callable<Integer>)
                    () -> {
                      int ok = 0;
                      for (int i = 0; i < 50; i++) {
                        if (Payloads.check(
                            client.echo(Payloads.of(Payloads.SMALL, seed * 1000 + i)),
                            Payloads.SMALL,
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
  }

  // ---- bad input --------------------------------------------------------------------------------

  static Stream<Arguments> badInputs() {
    byte[] garbage = new byte[20];
    io.thriftnio.core.util.internal.Framing.encodeLength(16, garbage, 0);
    for (int i = 4; i < garbage.length; i++) {
      garbage[i] = (byte) 0xEE;
    }
    return Stream.of(
        Arguments.of("negative length", new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x00}),
        Arguments.of("oversize length", new byte[] {0x7F, 0x00, 0x00, 0x00}),
        Arguments.of("zero length", new byte[] {0, 0, 0, 0}),
        Arguments.of("http request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes()),
        Arguments.of("garbage message", garbage));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void closesABadConnectionWhileGoodClientsCarryOn(String name, byte[] bytes) throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = sharedServer(protocol);
    long badFramesBefore = server.stats().badFrames();
    BenchService.Iface good = connect(server, protocol);
    assertThat(good.get_last_sale("before").getSymbol()).isEqualTo("before");
    if (servesHttp() && name.equals("http request")) {
      try (RawConnection http = openRaw(server.localAddress())) {
        http.write(bytes);
        RawConnection.HttpAnswer answer = http.readHttpResponse();
        assertThat(answer.status()).as("a GET is answered, not a Thrift call").isEqualTo(405);
        assertThat(answer.header("Allow")).isEqualTo("POST");
      }
      assertThat(good.get_last_sale("after").getSymbol()).isEqualTo("after");
      return;
    }
    try (RawConnection bad = openRaw(server.localAddress())) {
      bad.write(bytes);
      byte[] before = bad.awaitClosedBy(CLOSE_WITHIN);
      assertThat(before.length).as("bytes sent back before the close").isLessThan(1024);
    }
    assertThat(good.echo(Payloads.of(Payloads.SMALL, 9))).isNotNull();
    assertThat(good.get_last_sale("after").getSymbol()).isEqualTo("after");
    await("badFrames to count the connection")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().badFrames() > badFramesBefore);
  }

  @Test
  protected void survivesATruncatedFrameThenCloseOrReset() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start(builder(protocol, new BenchHandler()));
    BenchService.Iface good = connect(server, protocol);
    byte[] call =
        RawConnection.encodeCall(
            protocol, "echo", 1, new BenchService.echo_args(Payloads.of(64, 1)));
    byte[] truncated = java.util.Arrays.copyOf(RawConnection.frame(call), 30);
    try (RawConnection fin = openRaw(server.localAddress())) {
      fin.write(truncated);
    }
    RawConnection rst = openRaw(server.localAddress());
    rst.write(truncated);
    rst.reset();
    await("both truncated connections to be closed")
        .atMost(CLOSE_WITHIN)
        .until(() -> server.stats().openConnections() <= 1);
    assertThat(good.get_last_sale("still").getSymbol()).isEqualTo("still");
  }

  // ---- limits
  // -------------------------------------------------------------------------------------

  @Test
  void refusesConnectionsOverTheLimitAndKeepsServingTheOthers() throws Exception {
    TProtocolFactory protocol = new TBinaryProtocol.Factory();
    ThriftServer server = start(builder(protocol, new BenchHandler()).maxConnections(2));
    LastSale first;
    LastSale second;
    if (servesHttp()) {
      // HTTP clients share pooled connections, so two of them need not hold two. The limit is
      // applied at accept, before the transport is detected: hold two with framed raw calls (the
      // servers that serve HTTP here accept framed peers too).
      first = rawFramed(server, protocol);
      second = rawFramed(server, protocol);
    } else {
      BenchService.Iface a = connect(server, protocol);
      BenchService.Iface b = connect(server, protocol);
      first = symbol -> a.get_last_sale(symbol).getSymbol();
      second = symbol -> b.get_last_sale(symbol).getSymbol();
    }
    assertThat(first.call("1")).isEqualTo("1");
    assertThat(second.call("2")).isEqualTo("2");
    try (RawConnection third = openRaw(server.localAddress())) {
      third.awaitClosedBy(CLOSE_WITHIN);
    }
    assertThat(server.stats().rejectedConnections()).isGreaterThanOrEqualTo(1);
    assertThat(first.call("1b")).isEqualTo("1b");
    assertThat(second.call("2b")).isEqualTo("2b");
  }

  /** {@code get_last_sale(symbol).getSymbol()} over one connection the caller holds. */
  @FunctionalInterface
  private interface LastSale {
    String call(String symbol) throws Exception;
  }

  /** {@link LastSale} over a raw framed connection, kept open until the test ends. */
  private LastSale rawFramed(ThriftServer server, TProtocolFactory protocol) throws Exception {
    RawConnection raw = openRaw(server.localAddress());
    closeAfterTest(raw::close);
    AtomicInteger seq = new AtomicInteger();
    return symbol -> {
      raw.writeFrame(
          RawConnection.encodeCall(
              protocol,
              "get_last_sale",
              seq.incrementAndGet(),
              new BenchService.get_last_sale_args(symbol)));
      BenchService.get_last_sale_result result = new BenchService.get_last_sale_result();
      RawConnection.decodeReply(protocol, raw.readFrame(), result);
      return result.getSuccess().getSymbol();
    };
  }
}
