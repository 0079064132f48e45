package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pool whose every endpoint refuses connections throws one {@link PoolException} on each of the
 * three pools, from the first call on: {@code no endpoint available: ...}, naming the endpoints and
 * the last connect failure, which is its cause ({@code cannot connect to P: Connection refused}).
 * Before, the first call threw that connect failure bare and the next ones a {@code PoolException}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PoolCannotServeTest {
  private static final ClientOptions OPTIONS =
      ClientOptions.builder()
          .connectTimeout(Duration.ofSeconds(5))
          .callTimeout(Duration.ofSeconds(5))
          .build();

  private InetSocketAddress one;
  private InetSocketAddress two;

  @BeforeEach
  void ports() throws Exception {
    one = new InetSocketAddress("127.0.0.1", StubPeer.unusedPort());
    two = new InetSocketAddress("127.0.0.1", StubPeer.unusedPort());
  }

  private static void assertCannotServe(Throwable failure, InetSocketAddress... endpoints) {
    assertThat(failure)
        .isInstanceOf(PoolException.class)
        .hasMessageContaining("no endpoint available: ")
        .hasCauseInstanceOf(TTransportException.class);
    String last = failure.getCause().getMessage();
    assertThat(last).startsWith("cannot connect to ").endsWith(": Connection refused");
    assertThat(failure).hasMessageContaining(last);
    assertThat(((TTransportException) failure.getCause()).getType())
        .isEqualTo(TTransportException.NOT_OPEN);
    for (InetSocketAddress e : endpoints) {
      assertThat(failure).hasMessageContaining(Names.endpoint(e) + " down");
    }
  }

  @Test
  void syncPool() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(one, two)
            .options(OPTIONS)
            .build()) {
      assertCannotServe(failureOf(pool), one, two); // the call that tried both connects
      assertCannotServe(failureOf(pool), one, two); // one that found both down
    }
  }

  @Test
  void syncPoolOneEndpoint() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(one)
            .options(OPTIONS)
            .build()) {
      assertCannotServe(failureOf(pool), one);
    }
  }

  @Test
  void asyncPool() throws Exception {
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
            .endpoints(one, two)
            .options(OPTIONS)
            .build()) {
      assertCannotServe(failureOf(pool.<Long>call((c, cb) -> c.fired(cb))), one, two);
      assertCannotServe(failureOf(pool.<Long>call((c, cb) -> c.fired(cb))), one, two);
    }
  }

  @Test
  void channelPool() throws Exception {
    try (NettyClientIo io = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(io)
                .options(OPTIONS)
                .endpoints(one, two)
                .build()) {
      assertCannotServe(
          failureOf(pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)), one, two);
      assertCannotServe(
          failureOf(pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)), one, two);
    }
  }

  private static Throwable failureOf(ThriftClientPool<BenchService.Client> pool) {
    try {
      pool.call(c -> c.fired());
      return null;
    } catch (Exception e) {
      return e;
    }
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    return f.handle((ok, t) -> t).join();
  }
}
