package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@code futureIface} proxies of the two async pools refuse, at creation, an interface whose
 * methods do not fit the client, naming the method; accept any interface of the generated {@code
 * FutureIface}'s shape; and keep the pool's deadline. {@link ThriftChannelPool#callVoid} takes a
 * void {@code recv_x}. Each transport's servers: {@code PoolFutureIfaceCrossTransportTest} in
 * {@code it}; retries: {@link IdempotentRetryTest}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FutureIfaceTest {

  enum Pool {
    ASYNC,
    CHANNEL
  }

  /** One of the two pools, open to a peer, seen through its {@code futureIface}. */
  interface FuturePool extends AutoCloseable {
    <F> F futureIface(Class<F> type);

    @Override
    void close();
  }

  private static FuturePool open(Pool kind, StubPeer peer) {
    if (kind == Pool.ASYNC) {
      ThriftAsyncClientPool<BenchService.AsyncClient> pool =
          PoolSettings.with(
                  ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                      .endpoints(peer.address()),
                  deadline())
              .build();
      return new FuturePool() {
        @Override
        public <F> F futureIface(Class<F> type) {
          return pool.futureIface(type);
        }

        @Override
        public void close() {
          pool.close();
        }
      };
    }
    ThriftChannelPool<BenchService.Client> pool =
        PoolSettings.with(
                ThriftChannelPool.builder(BenchService.Client::new)
                    .io(ChannelIo.of(SocketThriftChannel::connect))
                    .endpoints(peer.address()),
                deadline())
            .build();
    return new FuturePool() {
      @Override
      public <F> F futureIface(Class<F> type) {
        return pool.futureIface(type);
      }

      @Override
      public void close() {
        pool.close();
      }
    };
  }

  private static final Duration DEADLINE = Duration.ofMillis(300);

  private static PoolConfig deadline() {
    return PoolConfig.builder().callDeadline(DEADLINE).build();
  }

  /** Part of BenchService, as a user might write it by hand: any interface of the shape works. */
  interface EchoAndSleep {
    CompletableFuture<ByteBuffer> echo(ByteBuffer payload);

    CompletableFuture<Void> sleep(int millis);
  }

  /** echo's future of the wrong type. */
  interface WrongResult {
    CompletableFuture<String> echo(ByteBuffer payload);
  }

  /** A method BenchService does not have. */
  interface OtherService {
    CompletableFuture<Void> ping();
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(Pool.class)
  void refusesAnInterfaceThatDoesNotFitNamingTheMethod(Pool kind) throws Exception {
    try (StubPeer peer = StubPeer.start();
        FuturePool pool = open(kind, peer)) {
      assertThatThrownBy(() -> pool.futureIface(BenchService.Iface.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("futureIface: io.thriftnio.testkit.gen.BenchService.Iface.")
          .hasMessageContaining(" returns ")
          .hasMessageContaining("(expected: java.util.concurrent.CompletableFuture<")
          .hasMessageContaining("java:future_iface");
      assertThatThrownBy(() -> pool.futureIface(BenchService.AsyncIface.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("futureIface: io.thriftnio.testkit.gen.BenchService.AsyncIface.");
      assertThatThrownBy(() -> pool.futureIface(WrongResult.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "futureIface: io.thriftnio.pool.FutureIfaceTest.WrongResult.echo(java.nio.ByteBuffer)"
                  + " returns java.util.concurrent.CompletableFuture<java.lang.String> (expected:"
                  + " java.util.concurrent.CompletableFuture<java.nio.ByteBuffer>, as Thrift's"
                  + " --gen java:future_iface writes it)");
      assertThatThrownBy(() -> pool.futureIface(OtherService.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(
              "futureIface: io.thriftnio.pool.FutureIfaceTest.OtherService.ping()")
          .hasMessageContaining("ping");
      assertThatThrownBy(() -> pool.futureIface(BenchService.FutureClient.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "futureIface: io.thriftnio.testkit.gen.BenchService$FutureClient"
                  + " (expected: an interface)");
    }
  }

  @ParameterizedTest
  @EnumSource(Pool.class)
  void anyInterfaceOfTheShapeAndThePoolsDeadline(Pool kind) throws Exception {
    try (StubPeer peer = StubPeer.start();
        FuturePool pool = open(kind, peer)) {
      EchoAndSleep proxy = pool.futureIface(EchoAndSleep.class);
      assertThat(proxy.echo(bytes("shape")).get(10, TimeUnit.SECONDS)).isEqualTo(bytes("shape"));
      assertThat(proxy.sleep(0).get(10, TimeUnit.SECONDS)).isNull();
      assertThat(proxy.toString()).contains(EchoAndSleep.class.getName());

      peer.replyGate = new CountDownLatch(1);
      try {
        CompletableFuture<ByteBuffer> held = proxy.echo(bytes("late"));
        assertThatThrownBy(() -> held.get(10, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOfSatisfying(
                CallDeadlineException.class,
                e -> {
                  assertThat(e.deadline()).isEqualTo(DEADLINE);
                  assertThat(e.inCall()).isTrue();
                });
      } finally {
        peer.replyGate.countDown();
      }
    }
  }

  @Test
  void channelPoolCallVoidTakesAVoidReceive() throws Exception {
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(ChannelIo.of(SocketThriftChannel::connect))
                .endpoints(server.address())
                .build()) {
      CompletableFuture<Void> slept =
          pool.callVoid(c -> c.send_sleep(1), BenchService.Client::recv_sleep);
      assertThat(slept.get(10, TimeUnit.SECONDS)).isNull();

      CompletableFuture<Void> failed =
          pool.callVoid(c -> c.send_fail(9, "declared"), BenchService.Client::recv_fail);
      assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(9));

      CompletableFuture<Void> cut =
          pool.callVoid(
              Duration.ofMillis(200), c -> c.send_sleep(5_000), BenchService.Client::recv_sleep);
      assertThatThrownBy(() -> cut.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              CallDeadlineException.class,
              e -> assertThat(e.deadline()).isEqualTo(Duration.ofMillis(200)));
      assertThatThrownBy(
              () ->
                  pool.callVoid(
                      Duration.ZERO, c -> c.send_sleep(1), BenchService.Client::recv_sleep))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("deadline: PT0S (expected: > 0)");
    }
  }

  /**
   * The stock async client's void methods already fit {@link ThriftAsyncClientPool#call}: the
   * callback's {@code Void} becomes the future's type from the assignment.
   */
  @Test
  void asyncPoolCallOfAVoidMethod() throws Exception {
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(server.address())
                .build()) {
      CompletableFuture<Void> slept = pool.call((c, cb) -> c.sleep(1, cb));
      assertThat(slept.get(10, TimeUnit.SECONDS)).isNull();
    }
  }
}
