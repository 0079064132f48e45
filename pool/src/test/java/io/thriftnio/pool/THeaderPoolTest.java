package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.HeaderScope;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.ContextAccess;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.HeaderEchoHandler;
import io.thriftnio.testkit.conformance.THeaderFrames;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The pools over THeader ({@code ClientOptions.wireKind(HEADER)}): the sync pool through {@code
 * ClientTransportFactory.of(resources, options)}, the async pool's stock {@code AsyncClient}s and
 * the channel pool send a {@link HeaderScope}'s headers, the interceptors' and {@code
 * client_timeout}, and read the reply's; the stock factory refuses THeader with the reason; a call
 * made in a server call inherits its deadline. The async pool's replies that break the rules (over
 * the frame limit, a zlib bomb, garbage) come from a raw peer ({@link THeaderStubPeer}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class THeaderPoolTest {

  private static final ClientOptions HEADER =
      ClientOptions.builder().wireKind(WireKind.HEADER).build();

  private final List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
  private ThriftServer server;
  private NettyClientIo resources;

  @BeforeEach
  void start() throws Exception {
    ServerInterceptor recorder =
        new ServerInterceptor() {
          @Override
          public void beforeCall(ServerCallContext context) {
            seen.add(context.headers());
          }
        };
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new HeaderEchoHandler()))
            .ioThreads(1)
            .ioStrategy(IoStrategy.WORKER)
            .workerThreads(4)
            .wireKinds(WireKind.FRAMED, WireKind.HEADER)
            .interceptors(List.of(recorder))
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    resources = NettyClientIo.create(1);
  }

  @AfterEach
  void stop() {
    resources.close();
    server.close();
  }

  private ThriftClientPool<BenchService.Client> syncPool(PoolConfig config, boolean inherit) {
    ClientInterceptor tagging =
        new ClientInterceptor() {
          @Override
          public void beforeCall(ClientCallContext context) {
            context.setRequestHeader("from", "interceptor");
          }
        };
    return PoolSettings.with(
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(server.localAddress())
                .transportFactory(ClientTransportFactory.of(resources, HEADER))
                .interceptors(List.of(tagging)),
            config)
        .inheritDeadline(inherit)
        .build();
  }

  @Test
  void syncPoolCallSendsTheScopesAndTheInterceptorsHeadersAndItsDeadline() throws Exception {
    PoolConfig config = PoolConfig.builder().callDeadline(Duration.ofSeconds(5)).build();
    try (ThriftClientPool<BenchService.Client> pool = syncPool(config, true);
        HeaderScope scope = HeaderScope.open(Map.of("tenant", "acme", "from", "scope"))) {
      ByteBuffer echoed = pool.call(c -> c.echo(ByteBuffer.wrap(new byte[] {9})));
      assertThat(echoed).isEqualTo(ByteBuffer.wrap(new byte[] {9}));
    }
    assertThat(seen).hasSize(1);
    assertThat(seen.get(0)).containsEntry("tenant", "acme").containsEntry("from", "interceptor");
    assertThat(Long.parseLong(seen.get(0).get(ServerCallContext.CLIENT_TIMEOUT_HEADER)))
        .isBetween(1L, 5000L);
  }

  @Test
  void channelPoolFutureSendsTheScopesHeadersEvenWhenItWaitedForAConnection() throws Exception {
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(resources)
            .options(HEADER)
            .endpoints(server.localAddress())
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .build()) {
      CompletableFuture<ByteBuffer> call;
      try (HeaderScope scope = HeaderScope.open(Map.of("tenant", "acme"))) {
        // The pool has no connection yet: the call is sent once one is open, from another thread.
        call = pool.call(c -> c.send_echo(ByteBuffer.wrap(new byte[] {7})), c -> c.recv_echo());
      }
      assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo(ByteBuffer.wrap(new byte[] {7}));
      CompletableFuture<ByteBuffer> outside =
          pool.call(c -> c.send_echo(ByteBuffer.wrap(new byte[] {8})), c -> c.recv_echo());
      assertThat(outside.get(30, TimeUnit.SECONDS)).isEqualTo(ByteBuffer.wrap(new byte[] {8}));
    }
    assertThat(seen).hasSize(2);
    assertThat(seen.get(0))
        .containsEntry("tenant", "acme")
        .containsKey(ServerCallContext.CLIENT_TIMEOUT_HEADER);
    assertThat(seen.get(1)).doesNotContainKey("tenant");
  }

  @Test
  void asyncPoolRefusesWireKindsItDoesNotSpeakAndStockFactoryRefusesTheader() {
    assertThatThrownBy(
            () ->
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .endpoints(server.localAddress())
                    .options(ClientOptions.builder().wireKind(WireKind.HTTP).build())
                    .build())
        .isInstanceOf(SettingException.class)
        .hasMessage(
            "options.wireKind: HTTP (expected: one of [FRAMED, HEADER, SASL], which a stock"
                + " TAsyncClient (plain TCP) speaks)");
    assertThatThrownBy(() -> ClientTransportFactory.stock(HEADER))
        .isInstanceOf(SettingException.class)
        .hasMessageStartingWith("wireKind: HEADER (expected: FRAMED, UNFRAMED or FRAMED with tls");
  }

  /**
   * A front server whose handler calls the THeader server through {@code pool}, with its own
   * deadline set {@code leftNanos} from the call's start (the plumbing a THeader or HTTP server
   * does from the caller's {@code client_timeout}).
   */
  private ByteBuffer callThroughFront(
      ThriftClientPool<BenchService.Client> pool, long leftNanos, AtomicReference<Throwable> failed)
      throws Exception {
    return callThroughFront(p -> pool.call(c -> c.echo(p)), leftNanos, failed);
  }

  /** What the front server's handler does with the payload. */
  private interface Downstream {
    ByteBuffer call(ByteBuffer payload) throws Exception;
  }

  private ByteBuffer callThroughFront(
      Downstream downstream, long leftNanos, AtomicReference<Throwable> failed) throws Exception {
    BenchHandler front =
        new BenchHandler() {
          @Override
          public ByteBuffer echo(ByteBuffer payload) {
            ServerCallContext context = ServerCallContext.current();
            try {
              // The engine sets a call's deadline through core's internal access hook.
              ContextAccess.serverContexts().deadlineNanos(context, System.nanoTime() + leftNanos);
              return downstream.call(payload);
            } catch (Exception e) {
              failed.set(e);
              return ByteBuffer.allocate(0);
            }
          }
        };
    ThriftServer frontServer =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(front))
            .ioStrategy(IoStrategy.WORKER)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    try (TTransport transport = resources.openTransport(frontServer.localAddress())) {
      return new BenchService.Client(new TBinaryProtocol(transport))
          .echo(ByteBuffer.wrap(new byte[] {5}));
    } finally {
      frontServer.close();
    }
  }

  @Test
  void aCallInAServerCallSendsTheTimeThatCallStillHas() throws Exception {
    AtomicReference<Throwable> failed = new AtomicReference<>();
    PoolConfig config = PoolConfig.builder().callDeadline(Duration.ofSeconds(30)).build();
    try (ThriftClientPool<BenchService.Client> pool = syncPool(config, true)) {
      callThroughFront(pool, TimeUnit.SECONDS.toNanos(3), failed);
    }
    assertThat(failed.get()).isNull();
    assertThat(Long.parseLong(seen.get(0).get(ServerCallContext.CLIENT_TIMEOUT_HEADER)))
        .isBetween(1L, 3000L);
  }

  @Test
  void aPoolToldNotToInheritKeepsItsOwnDeadline() throws Exception {
    AtomicReference<Throwable> failed = new AtomicReference<>();
    PoolConfig config = PoolConfig.builder().callDeadline(Duration.ofSeconds(30)).build();
    try (ThriftClientPool<BenchService.Client> pool = syncPool(config, false)) {
      callThroughFront(pool, TimeUnit.SECONDS.toNanos(3), failed);
    }
    assertThat(failed.get()).isNull();
    assertThat(Long.parseLong(seen.get(0).get(ServerCallContext.CLIENT_TIMEOUT_HEADER)))
        .isGreaterThan(3000L);
  }

  @Test
  void anInheritedDeadlineThatPassedFailsTheCallWithoutSendingIt() throws Exception {
    AtomicReference<Throwable> failed = new AtomicReference<>();
    try (ThriftClientPool<BenchService.Client> pool = syncPool(PoolConfig.defaults(), true)) {
      callThroughFront(pool, -TimeUnit.MILLISECONDS.toNanos(50), failed);
    }
    assertThat(failed.get())
        .isInstanceOf(CallDeadlineException.class)
        .hasMessageContaining("call deadline inherited from the server call echo on this thread")
        .hasMessageContaining("nothing sent");
    assertThat(seen).isEmpty();
  }

  @Test
  void channelPoolCallsInheritTooAndFailAtOnceWhenThatDeadlinePassed() throws Exception {
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(resources)
            .options(HEADER)
            .endpoints(server.localAddress())
            .build()) {
      Downstream viaChannelPool =
          p -> pool.call(c -> c.send_echo(p), c -> c.recv_echo()).get(30, TimeUnit.SECONDS);
      AtomicReference<Throwable> failed = new AtomicReference<>();
      callThroughFront(viaChannelPool, TimeUnit.SECONDS.toNanos(2), failed);
      assertThat(failed.get()).isNull();
      assertThat(Long.parseLong(seen.get(0).get(ServerCallContext.CLIENT_TIMEOUT_HEADER)))
          .isBetween(1L, 2000L);

      callThroughFront(viaChannelPool, -TimeUnit.MILLISECONDS.toNanos(50), failed);
      assertThat(failed.get())
          .hasCauseInstanceOf(CallDeadlineException.class)
          .hasMessageContaining("call deadline inherited from the server call echo");
      assertThat(seen).hasSize(1);
    }
  }

  // ---- the async pool: stock AsyncClients over THeader ----

  private static ThriftAsyncClientPool<BenchService.AsyncClient> asyncPool(
      InetSocketAddress endpoint,
      ClientOptions options,
      TProtocolFactory protocol,
      List<ClientInterceptor> interceptors) {
    return ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
        .endpoints(endpoint)
        .options(options)
        .protocol(protocol)
        .interceptors(interceptors)
        .maxPerEndpoint(1)
        .maxIdlePerEndpoint(1)
        .build();
  }

  private static ByteBuffer echo(
      ThriftAsyncClientPool<BenchService.AsyncClient> pool, ByteBuffer payload) throws Exception {
    CompletableFuture<ByteBuffer> reply = pool.call((c, cb) -> c.echo(payload, cb));
    return reply.get(30, TimeUnit.SECONDS);
  }

  private static Throwable echoFailure(
      ThriftAsyncClientPool<BenchService.AsyncClient> pool, ByteBuffer payload) {
    CompletableFuture<ByteBuffer> reply = pool.call((c, cb) -> c.echo(payload, cb));
    return assertThatThrownBy(() -> reply.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .actual()
        .getCause();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"binary", "compact"})
  void asyncPoolEchoesAndCarriesHeadersBothWays(String protocol) throws Exception {
    AtomicReference<Map<String, String>> afterCallSaw = new AtomicReference<>();
    ClientInterceptor tagging =
        new ClientInterceptor() {
          @Override
          public void beforeCall(ClientCallContext context) {
            context.setRequestHeader("from", "interceptor");
          }

          @Override
          public void afterCall(
              ClientCallContext context, CallOutcome outcome, Throwable failure, long nanos) {
            afterCallSaw.set(context.responseHeaders());
          }
        };
    TProtocolFactory factory =
        protocol.equals("binary") ? new TBinaryProtocol.Factory() : new TCompactProtocol.Factory();
    ClientOptions options =
        ClientOptions.builder()
            .wireKind(WireKind.HEADER)
            .callTimeout(Duration.ofSeconds(20))
            .build();
    byte[] large = new byte[3 * 1024 * 1024]; // many partial writes and reads on loopback
    new Random(7).nextBytes(large);
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        asyncPool(server.localAddress(), options, factory, List.of(tagging))) {
      try (HeaderScope scope =
          HeaderScope.open(Map.of("tenant", "acme", "from", "scope", "x-echo", "hello"))) {
        // No connection yet: the call starts on a connector thread, with the scope carried over.
        ByteBuffer echoed = echo(pool, ByteBuffer.wrap(new byte[] {1}));
        assertThat(StandardCharsets.UTF_8.decode(echoed).toString()).isEqualTo("hello");
        assertThat(scope.responseHeaders()).containsEntry("x-echoed", "hello");
      }
      assertThat(afterCallSaw.get()).containsEntry("x-echoed", "hello");
      assertThat(echo(pool, ByteBuffer.wrap(large))).isEqualTo(ByteBuffer.wrap(large));
      assertThat(afterCallSaw.get()).isEmpty();
      assertThat(pool.stats().created()).isEqualTo(1);
    }
    assertThat(seen).hasSize(2);
    assertThat(seen.get(0))
        .containsEntry("tenant", "acme")
        .containsEntry("from", "interceptor")
        .containsEntry("x-echo", "hello");
    assertThat(Long.parseLong(seen.get(0).get(ServerCallContext.CLIENT_TIMEOUT_HEADER)))
        .isBetween(1L, 20000L);
    assertThat(seen.get(1)).doesNotContainKeys("tenant", "x-echo").containsKey("from");
  }

  @Test
  void asyncPoolCallInAServerCallSendsTheTimeThatCallStillHas() throws Exception {
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        asyncPool(server.localAddress(), HEADER, new TBinaryProtocol.Factory(), List.of())) {
      AtomicReference<Throwable> failed = new AtomicReference<>();
      callThroughFront(p -> echo(pool, p), TimeUnit.SECONDS.toNanos(2), failed);
      assertThat(failed.get()).isNull();
    }
    assertThat(Long.parseLong(seen.get(0).get(ServerCallContext.CLIENT_TIMEOUT_HEADER)))
        .isBetween(1L, 2000L);
  }

  @Test
  void asyncPoolReadsAZlibReplyArrivingByteByByteAndItsHeaders() throws Exception {
    Function<byte[], byte[]> zlib =
        reply -> THeaderFrames.request().transform(1).header("region", "eu").frame(reply);
    try (THeaderStubPeer peer = new THeaderStubPeer(zlib, true);
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            asyncPool(peer.address(), HEADER, new TBinaryProtocol.Factory(), List.of())) {
      for (int i = 0; i < 2; i++) {
        try (HeaderScope scope = HeaderScope.open(Map.of("tenant", "acme"))) {
          assertThat(echo(pool, ByteBuffer.wrap(new byte[] {3, 4})))
              .isEqualTo(ByteBuffer.wrap(new byte[] {3, 4}));
          assertThat(scope.responseHeaders()).containsEntry("region", "eu");
        }
      }
      assertThat(peer.accepted.get()).as("one connection for both calls").isEqualTo(1);
      THeaderFrames.Reply request = peer.requests.get(0);
      assertThat(request.protocolId).isZero();
      assertThat(request.transforms).isEmpty();
      assertThat(request.headers).containsEntry("tenant", "acme");
      assertThat(peer.requests.get(1).seqId).isEqualTo(request.seqId + 1);
    }
  }

  static Stream<Arguments> repliesOverTheLimit() {
    Function<byte[], byte[]> longSection =
        reply -> THeaderFrames.request().header("pad", "x".repeat(5000)).frame(reply);
    Function<byte[], byte[]> zlibBomb =
        reply -> THeaderFrames.request().transform(1).frame(Arrays.copyOf(reply, 1 << 20));
    return Stream.of(
        Arguments.of(
            Named.of("a frame over maxFrameSize", longSection),
            "failed: frame length 50"), // then its length, "exceeds maxFrameSize 4096"
        Arguments.of(
            Named.of("a zlib body inflating past maxFrameSize", zlibBomb),
            "inflates past maxFrameSize 4096"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("repliesOverTheLimit")
  void asyncPoolRefusesAReplyOverItsFrameLimitAndClosesTheConnection(
      Function<byte[], byte[]> answer, String says) throws Exception {
    ClientOptions small =
        ClientOptions.builder().wireKind(WireKind.HEADER).maxFrameSize(4096).build();
    try (THeaderStubPeer peer = new THeaderStubPeer(answer, false);
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            asyncPool(peer.address(), small, new TBinaryProtocol.Factory(), List.of())) {
      Throwable failure = echoFailure(pool, ByteBuffer.wrap(new byte[] {1}));
      assertThat(failure)
          .isInstanceOf(TTransportException.class)
          .hasMessageContaining(String.valueOf(peer.address().getPort()))
          .hasMessageContaining(says)
          .hasMessageContaining("maxFrameSize 4096");
      peer.firstClosed.get(10, TimeUnit.SECONDS);
      assertThat(pool.stats().destroyed()).isEqualTo(1);
    }
  }

  @Test
  void asyncPoolFailsAGarbageReplyClosesTheConnectionAndOpensAnotherForTheNextCall()
      throws Exception {
    Function<byte[], byte[]> garbage =
        reply -> ByteBuffer.allocate(24).putInt(20).put("xxxxxxxxxxxxxxxxxxxx".getBytes()).array();
    try (THeaderStubPeer peer = new THeaderStubPeer(garbage, false);
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            asyncPool(peer.address(), HEADER, new TBinaryProtocol.Factory(), List.of())) {
      for (int call = 1; call <= 2; call++) {
        Throwable failure = echoFailure(pool, ByteBuffer.wrap(new byte[] {1}));
        assertThat(failure)
            .isInstanceOf(TTransportException.class)
            .hasMessageContaining("THeader reply from")
            .hasMessageContaining(String.valueOf(peer.address().getPort()))
            .hasMessageContaining("bytes 4-5 are 7878 (expected: 0fff); connection closed");
        assertThat(((TTransportException) failure).getType())
            .isEqualTo(TTransportException.CORRUPTED_DATA);
      }
      peer.firstClosed.get(10, TimeUnit.SECONDS);
      assertThat(peer.accepted.get()).isEqualTo(2);
    }
  }

  @Test
  void asyncPoolRefusesJsonAndNonStrictBinaryBeforeSendingAByte() throws Exception {
    for (TProtocolFactory protocol :
        List.of(new TJSONProtocol.Factory(), new TBinaryProtocol.Factory(false, false))) {
      try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
          asyncPool(server.localAddress(), HEADER, protocol, List.of())) {
        assertThat(echoFailure(pool, ByteBuffer.wrap(new byte[] {1})))
            .isInstanceOf(TTransportException.class)
            .hasMessageContaining("THeader request to")
            .hasMessageContaining("not sent: the message starts")
            .hasMessageContaining("THeader has no protocol id for JSON or non-strict binary");
      }
    }
    assertThat(seen).isEmpty();
  }
}
