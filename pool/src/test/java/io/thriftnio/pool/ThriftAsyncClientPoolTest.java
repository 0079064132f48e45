package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.async.AsyncMethodCallback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThriftAsyncClientPoolTest {

  private final ExecutorService callbacks =
      Executors.newFixedThreadPool(2, new NamedThreadFactory("test-callback"));

  @AfterEach
  void stopExecutor() {
    callbacks.shutdownNow();
  }

  private ThriftAsyncClientPool<BenchService.AsyncClient> pool(StockServer server) {
    return ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
        .endpoints(server.address())
        .options(ClientOptions.builder().callbackExecutor(callbacks).build())
        .selectorThreads(2)
        .build();
  }

  /** An AsyncMethodCallback as a future, remembering the thread it ran on. */
  static final class Callback<T> extends CompletableFuture<T> implements AsyncMethodCallback<T> {
    volatile String thread;

    @Override
    public void onComplete(T response) {
      thread = Thread.currentThread().getName();
      complete(response);
    }

    @Override
    public void onError(Exception exception) {
      thread = Thread.currentThread().getName();
      completeExceptionally(exception);
    }
  }

  @ParameterizedTest
  @EnumSource(StockServer.Kind.class)
  void everyBenchMethodThroughCallAndAsyncIface(StockServer.Kind kind) throws Exception {
    try (StockServer server =
            StockServer.start(kind, new BenchService.Processor<>(new BenchHandler()));
        ThriftAsyncClientPool<BenchService.AsyncClient> pool = pool(server)) {
      ByteBuffer payload = Payloads.of(Payloads.MEDIUM, 3);
      CompletableFuture<ByteBuffer> echoed = pool.call((c, cb) -> c.echo(payload.duplicate(), cb));
      assertThat(echoed.get(10, TimeUnit.SECONDS)).isEqualTo(payload);

      BenchService.AsyncIface iface = pool.asyncIface(BenchService.AsyncIface.class);
      Callback<TradeReport> sale = new Callback<>();
      iface.get_last_sale("ACME", sale);
      assertThat(sale.get(10, TimeUnit.SECONDS).getSymbol()).isEqualTo("ACME");
      assertThat(sale.thread).startsWith("test-callback");

      Callback<List<TestInfo>> rows = new Callback<>();
      iface.db_work(20, rows);
      assertThat(rows.get(10, TimeUnit.SECONDS)).hasSize(20).contains(BenchHandler.row(19));

      Callback<Nested> nested = new Callback<>();
      iface.get_nested(4, nested);
      assertThat(nested.get(10, TimeUnit.SECONDS)).isEqualTo(BenchHandler.nested(4));

      Callback<Void> slept = new Callback<>();
      iface.sleep(1, slept);
      slept.get(10, TimeUnit.SECONDS);

      Callback<Void> fired = new Callback<>();
      iface.fire(payload.duplicate(), fired);
      fired.get(10, TimeUnit.SECONDS);
      Callback<Long> count = new Callback<>();
      iface.fired(count);
      assertThat(count.get(10, TimeUnit.SECONDS)).isEqualTo(1L);

      // Back in the pool before each future completed: one connection served them all.
      assertThat(pool.stats().created()).isEqualTo(1);
      assertThat(pool.stats().destroyed()).isZero();

      Callback<Void> failed = new Callback<>();
      iface.fail(7, "declared", failed);
      assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(7));
      // A declared exception is a whole reply: the connection stays, under a fresh client.
      assertThat(pool.stats().invalidated()).isZero();
      assertThat(pool.stats().total()).isEqualTo(1);

      CompletableFuture<Long> again = pool.call((c, cb) -> c.fired(cb));
      assertThat(again.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
      assertThat(pool.stats().created()).isEqualTo(1);
    }
  }

  @Test
  void closeFailsLaterCallsAndIsIdempotent() throws Exception {
    try (StockServer server =
        StockServer.start(
            StockServer.Kind.THREADED_SELECTOR, new BenchService.Processor<>(new BenchHandler()))) {
      ThriftAsyncClientPool<BenchService.AsyncClient> pool = pool(server);
      CompletableFuture<Long> first = pool.call((c, cb) -> c.fired(cb));
      first.get(10, TimeUnit.SECONDS);
      pool.close();
      pool.close();
      CompletableFuture<Long> late = pool.call((c, cb) -> c.fired(cb));
      assertThatThrownBy(() -> late.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("is closed");
      assertThat(pool.stats().total()).isZero();
    }
  }
}
