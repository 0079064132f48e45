package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CallHeaders;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.HeaderScope;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pools over THeader ({@code ClientOptions.wireKind(HEADER)}): the sync pool through {@code
 * ClientTransportFactory.of(resources, options)} and the channel pool send a {@link HeaderScope}'s
 * headers, the interceptors' and {@code client_timeout}; the async pool and the stock factory
 * refuse THeader with the reason; a call made in a server call inherits its deadline.
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
            .processor(new BenchService.Processor<>(new BenchHandler()))
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
    return ThriftClientPool.builder(BenchService.Client::new)
        .endpoint(server.localAddress())
        .transportFactory(ClientTransportFactory.of(resources, HEADER))
        .interceptors(List.of(tagging))
        .config(config)
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
    assertThat(Long.parseLong(seen.get(0).get(CallHeaders.CLIENT_TIMEOUT))).isBetween(1L, 5000L);
  }

  @Test
  void channelPoolFutureSendsTheScopesHeadersEvenWhenItWaitedForAConnection() throws Exception {
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new, resources)
            .options(HEADER)
            .endpoint(server.localAddress())
            .config(PoolConfig.builder().maxPerEndpoint(1).maxIdlePerEndpoint(1).build())
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
    assertThat(seen.get(0)).containsEntry("tenant", "acme").containsKey(CallHeaders.CLIENT_TIMEOUT);
    assertThat(seen.get(1)).doesNotContainKey("tenant");
  }

  @Test
  void asyncPoolAndStockFactoryRefuseTheaderWithTheReason() {
    assertThatThrownBy(
            () ->
                ThriftAsyncClientPool.builder(BenchService.AsyncClient::new)
                    .endpoint(server.localAddress())
                    .options(HEADER)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "options.wireKind: HEADER (expected: unset: a stock TAsyncClient (framed, plain TCP)"
                + " opens the connections and would ignore it)");
    assertThatThrownBy(() -> ClientTransportFactory.stock(HEADER))
        .isInstanceOf(IllegalStateException.class)
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
              Method set = ServerCallContext.class.getDeclaredMethod("deadlineNanos", long.class);
              set.setAccessible(true);
              set.invoke(context, System.nanoTime() + leftNanos);
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
    assertThat(Long.parseLong(seen.get(0).get(CallHeaders.CLIENT_TIMEOUT))).isBetween(1L, 3000L);
  }

  @Test
  void aPoolToldNotToInheritKeepsItsOwnDeadline() throws Exception {
    AtomicReference<Throwable> failed = new AtomicReference<>();
    PoolConfig config = PoolConfig.builder().callDeadline(Duration.ofSeconds(30)).build();
    try (ThriftClientPool<BenchService.Client> pool = syncPool(config, false)) {
      callThroughFront(pool, TimeUnit.SECONDS.toNanos(3), failed);
    }
    assertThat(failed.get()).isNull();
    assertThat(Long.parseLong(seen.get(0).get(CallHeaders.CLIENT_TIMEOUT))).isGreaterThan(3000L);
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
        ThriftChannelPool.builder(BenchService.Client::new, resources)
            .options(HEADER)
            .endpoint(server.localAddress())
            .build()) {
      Downstream viaChannelPool =
          p -> pool.call(c -> c.send_echo(p), c -> c.recv_echo()).get(30, TimeUnit.SECONDS);
      AtomicReference<Throwable> failed = new AtomicReference<>();
      callThroughFront(viaChannelPool, TimeUnit.SECONDS.toNanos(2), failed);
      assertThat(failed.get()).isNull();
      assertThat(Long.parseLong(seen.get(0).get(CallHeaders.CLIENT_TIMEOUT))).isBetween(1L, 2000L);

      callThroughFront(viaChannelPool, -TimeUnit.MILLISECONDS.toNanos(50), failed);
      assertThat(failed.get())
          .hasCauseInstanceOf(CallDeadlineException.class)
          .hasMessageContaining("call deadline inherited from the server call echo");
      assertThat(seen).hasSize(1);
    }
  }
}
