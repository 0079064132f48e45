package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code PoolConfig.adaptiveLimit} on the three pools: with the limit at 1, a call started while
 * another is in flight fails at once with a {@link PoolException} naming the limit, before anything
 * is sent; a call started once the first call's future has completed goes through, even one started
 * by that completion itself.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PoolAdaptiveLimitTest {

  private static StockServer server;
  private static NettyClientIo resources;

  @BeforeAll
  static void start() throws Exception {
    server =
        StockServer.start(
            StockServer.Kind.THREADED_SELECTOR, new BenchService.Processor<>(new BenchHandler()));
    resources = NettyClientIo.create(1);
  }

  @AfterAll
  static void stop() {
    if (resources != null) {
      resources.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static void assertRefusedAtTheLimit(Throwable t) {
    Throwable e = t instanceof ExecutionException ? t.getCause() : t;
    assertThat(e)
        .isInstanceOf(PoolException.class)
        .hasMessageMatching(
            ".*: call refused at the adaptive limit \\(limit=1 reached, max 1\\): .*");
  }

  @Test
  void channelPoolFailsACallOverTheLimitAtOnce() throws Exception {
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(resources)
            .endpoints(server.address())
            .adaptiveLimit(1)
            .build()) {
      CompletableFuture<Object> busy =
          pool.call(
              c -> c.send_sleep(300),
              c -> {
                c.recv_sleep();
                return null;
              });
      CompletableFuture<Long> refused =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
          .satisfies(PoolAdaptiveLimitTest::assertRefusedAtTheLimit);
      assertThat(refused).as("refused before anything was sent").isCompletedExceptionally();
      // Started the moment the busy call's future completes: its permit is back by then.
      busy.thenCompose(v -> pool.call(c -> c.send_fired(), BenchService.Client::recv_fired))
          .get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void asyncClientPoolFailsACallOverTheLimitAtOnce() throws Exception {
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
            .endpoints(server.address())
            .adaptiveLimit(1)
            .build()) {
      CompletableFuture<Void> busy = pool.call((c, cb) -> c.sleep(300, cb));
      CompletableFuture<Long> refused = pool.<Long>call((c, cb) -> c.fired(cb));
      assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
          .satisfies(PoolAdaptiveLimitTest::assertRefusedAtTheLimit);
      // Started the moment the busy call's future completes: its permit is back by then.
      busy.thenCompose(v -> pool.<Long>call((c, cb) -> c.fired(cb))).get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void asyncClientPoolGivesThePermitBackWhenTheCallerCancels() throws Exception {
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
            .endpoints(server.address())
            .adaptiveLimit(1)
            .build()) {
      CompletableFuture<Void> busy = pool.call((c, cb) -> c.sleep(5_000, cb));
      assertThat(busy.cancel(true)).isTrue();
      assertThat(pool.<Long>call((c, cb) -> c.fired(cb)).get(4, TimeUnit.SECONDS))
          .as("answered while the cancelled call still sleeps on the server")
          .isNotNull();
    }
  }

  @Test
  void blockingPoolFailsACallOverTheLimitAtOnce() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(server.address())
            .adaptiveLimit(1)
            .build()) {
      ByteBuffer payload = ByteBuffer.wrap(new byte[] {1});
      Callable<Object> sleep =
          () ->
              pool.call(
                  c -> {
                    c.sleep(3_000);
                    return null;
                  });
      // The one permit goes to whichever call asks first: an echo here, or the sleep on the other
      // thread. A sleep that lost it to an echo was refused itself and is sent again; an echo
      // refused while the sleep holds the permit is what the test waits for.
      Future<Object> busy = other.submit(sleep);
      Throwable refused = null;
      while (refused == null) {
        if (busy.isDone()) {
          try {
            busy.get();
          } catch (ExecutionException e) {
            assertRefusedAtTheLimit(e.getCause());
          }
          busy = other.submit(sleep);
        }
        try {
          pool.call(c -> c.echo(payload.duplicate()));
        } catch (PoolException e) {
          refused = e;
        }
      }
      assertRefusedAtTheLimit(refused);
      busy.get(10, TimeUnit.SECONDS);
      pool.call(c -> c.echo(payload.duplicate()));
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void theLimitIsCheckedAtBuild() {
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(server.address())
                    .adaptiveLimit(-1)
                    .build())
        .hasMessageContaining("adaptiveLimit: -1");
    assertThat(PoolConfig.builder().adaptiveLimit(200).build().adaptiveLimit()).isEqualTo(200);
    assertThat(PoolConfig.builder().build().adaptiveLimit()).isZero();
  }
}
