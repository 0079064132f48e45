package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.thrift.async.AsyncMethodCallback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The async pools return at once, queue calls that find every connection busy, bound the queue,
 * time waiters out, and can be driven from completion callbacks on the IO threads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AsyncPoolsNeverBlockTest {
  private static final int CHAINS = 8;
  private static final int CHAINED_CALLS = 1_000;

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

  /** Completes on the Netty IO thread: the reply's thread runs the next call. */
  private static ThriftChannelPool<BenchService.Client> channelPool(PoolConfig config) {
    return PoolSettings.with(
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(resources)
                .options(ClientOptions.builder().callbackExecutor(Runnable::run).build())
                .endpoints(server.address()),
            config)
        .maxCallsInFlightPerConnection(1)
        .build();
  }

  /** Completes callbacks on the selector threads of the stock async client. */
  private static ThriftAsyncClientPool<BenchService.AsyncClient> clientPool(PoolConfig config) {
    return PoolSettings.with(
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(server.address()),
            config)
        .options(ClientOptions.builder().callbackExecutor(Runnable::run).build())
        .selectorThreads(1)
        .build();
  }

  private static PoolConfig small() {
    return PoolConfig.builder().maxTotal(2).maxPerEndpoint(2).maxIdlePerEndpoint(2).build();
  }

  /**
   * Runs {@link #CHAINS} chains of {@link #CHAINED_CALLS} calls each, every call issued from the
   * previous one's completion, over two connections: calls wait for each other all the time.
   */
  private static void chains(Supplier<CompletableFuture<Long>> call, Set<String> threads)
      throws Exception {
    CountDownLatch done = new CountDownLatch(CHAINS);
    AtomicInteger completed = new AtomicInteger();
    List<Throwable> failures = new ArrayList<>();
    for (int i = 0; i < CHAINS; i++) {
      new Object() {
        int left = CHAINED_CALLS;

        void next() {
          call.get()
              .whenComplete(
                  (n, failure) -> {
                    threads.add(Thread.currentThread().getName());
                    if (failure != null) {
                      synchronized (failures) {
                        failures.add(failure);
                      }
                      done.countDown();
                    } else if (--left == 0) {
                      completed.addAndGet(CHAINED_CALLS);
                      done.countDown();
                    } else {
                      completed.incrementAndGet();
                      next();
                    }
                  });
        }
      }.next();
    }
    assertThat(done.await(45, TimeUnit.SECONDS)).as("every chain finished").isTrue();
    assertThat(failures).isEmpty();
  }

  @Test
  void channelPoolChainedFromIoThreadCallbacks() throws Exception {
    Set<String> threads = ConcurrentHashMap.newKeySet();
    try (ThriftChannelPool<BenchService.Client> pool = channelPool(small())) {
      chains(() -> pool.call(c -> c.send_fired(), BenchService.Client::recv_fired), threads);
      PoolStats stats = pool.stats();
      assertThat(stats.total()).isLessThanOrEqualTo(2);
      assertThat(stats.timeouts()).isZero();
      assertThat(stats.waiting()).isZero();
    }
    assertThat(threads).anyMatch(t -> t.contains("netty"));
  }

  @Test
  void asyncClientPoolChainedFromSelectorThreadCallbacks() throws Exception {
    Set<String> threads = ConcurrentHashMap.newKeySet();
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool = clientPool(small())) {
      BenchService.AsyncIface iface = pool.asyncIface(BenchService.AsyncIface.class);
      chains(
          () -> {
            CompletableFuture<Long> f = new CompletableFuture<>();
            try {
              iface.fired(callback(f));
            } catch (org.apache.thrift.TException e) {
              f.completeExceptionally(e);
            }
            return f;
          },
          threads);
      PoolStats stats = pool.stats();
      assertThat(stats.total()).isLessThanOrEqualTo(2);
      assertThat(stats.timeouts()).isZero();
    }
    assertThat(threads).anyMatch(t -> t.contains("TAsyncClientManager"));
  }

  @Test
  void callReturnsWhileTheConnectIsStillUnderWay() throws Exception {
    CountDownLatch connectMayFinish = new CountDownLatch(1);
    Set<String> connectThreads = ConcurrentHashMap.newKeySet();
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(
                ChannelIo.of(
                    endpoint -> {
                      connectThreads.add(Thread.currentThread().getName());
                      connectMayFinish.await(); // a slow connect
                      return resources.openChannel(endpoint, ClientOptions.defaults());
                    }))
            .endpoints(server.address())
            .build()) {
      CompletableFuture<Long> reply =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThat(reply).isNotDone(); // returned although the connect has not finished
      assertThat(pool.stats().waiting()).isEqualTo(1);
      connectMayFinish.countDown();
      assertThat(reply.get(10, TimeUnit.SECONDS)).isNotNull();
    }
    assertThat(connectThreads).allMatch(t -> t.startsWith("thrift-nio-pool-connect"));
  }

  @Test
  void fullQueueFailsAtOnceAndWaitersTimeOut() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxTotal(1)
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowQueueCapacity(2)
            .borrowTimeout(Duration.ofMillis(300))
            .build();
    try (ThriftChannelPool<BenchService.Client> pool = channelPool(config)) {
      pool.call(c -> c.send_fired(), BenchService.Client::recv_fired).get(10, TimeUnit.SECONDS);
      CompletableFuture<Void> busy =
          pool.call(
              c -> c.send_sleep(3_000),
              c -> {
                c.recv_sleep();
                return null;
              });
      CompletableFuture<Long> first =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      CompletableFuture<Long> second =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      CompletableFuture<Long> third =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThat(third).isCompletedExceptionally();
      assertThatThrownBy(third::get)
          .cause()
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("queue is full at borrowQueueCapacity=2")
          .hasMessageContaining("waiting=2");
      for (CompletableFuture<Long> waiter : List.of(first, second)) {
        assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(PoolTimeoutException.class)
            .hasMessageContaining("total=1, active=1, idle=0");
      }
      assertThat(pool.stats().timeouts()).isEqualTo(2);
      assertThat(busy).isNotDone();
    }
  }

  @Test
  void zeroBorrowTimeoutFailsACallThatFindsEveryConnectionBusy() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxTotal(1)
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowTimeout(Duration.ZERO)
            .build();
    try (ThriftChannelPool<BenchService.Client> pool = channelPool(config)) {
      // The first call still connects (off this thread): a connect is no wait for a busy one.
      pool.call(c -> c.send_fired(), BenchService.Client::recv_fired).get(10, TimeUnit.SECONDS);
      CompletableFuture<Void> busy =
          pool.call(
              c -> c.send_sleep(2_000),
              c -> {
                c.recv_sleep();
                return null;
              });
      CompletableFuture<Long> refused =
          pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
      assertThatThrownBy(() -> refused.get(1, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(PoolTimeoutException.class)
          .hasMessageContaining("total=1, active=1");
      assertThat(busy).isNotDone();
    }
  }

  @Test
  void asyncClientPoolQueueIsBoundedToo() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxTotal(1)
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowQueueCapacity(1)
            .borrowTimeout(Duration.ofSeconds(10))
            .build();
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool = clientPool(config)) {
      pool.<Long>call((c, cb) -> c.fired(cb)).get(10, TimeUnit.SECONDS);
      CompletableFuture<Void> busy = pool.call((c, cb) -> c.sleep(500, cb));
      CompletableFuture<Long> waiter = pool.call((c, cb) -> c.fired(cb));
      CompletableFuture<Long> refused = pool.call((c, cb) -> c.fired(cb));
      assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("borrowQueueCapacity=1");
      // The waiter gets the connection when the slow call gives it back.
      busy.get(10, TimeUnit.SECONDS);
      assertThat(waiter.get(10, TimeUnit.SECONDS)).isNotNull();
      assertThat(pool.stats().total()).isEqualTo(1);
    }
  }

  private static <T> AsyncMethodCallback<T> callback(CompletableFuture<T> f) {
    return new AsyncMethodCallback<>() {
      @Override
      public void onComplete(T response) {
        f.complete(response);
      }

      @Override
      public void onError(Exception e) {
        f.completeExceptionally(e);
      }
    };
  }
}
