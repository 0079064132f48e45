package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.HeldLocks;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pools call their {@link PoolMetrics} under none of their locks: a metrics callback that runs
 * when an endpoint leaves the source's set (its idle connections close) may close the pool from
 * another thread and wait for it (issue 38).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PoolCallbacksTest {

  enum Kind {
    SYNC,
    ASYNC_CLIENT,
    CHANNEL
  }

  private static NettyClientIo resources;
  private final List<ThriftServer> servers = new ArrayList<>();

  @BeforeAll
  static void startResources() {
    resources = NettyClientIo.create(1);
  }

  @AfterAll
  static void stopResources() {
    resources.close();
  }

  @BeforeEach
  void startServers() throws Exception {
    for (int i = 0; i < 2; i++) {
      servers.add(
          NettyThriftServer.builder()
              .processor(new BenchService.Processor<>(new BenchHandler()))
              .ioThreads(1)
              .bind(new InetSocketAddress("127.0.0.1", 0))
              .build()
              .start());
    }
  }

  @AfterEach
  void stopServers() {
    servers.forEach(ThriftServer::close);
  }

  /** Counts what a metrics callback saw when it closed the pool from another thread. */
  static final class ClosingMetrics implements PoolMetrics {
    final AtomicReference<AutoCloseable> pool = new AtomicReference<>();
    final List<String> held = new CopyOnWriteArrayList<>();
    final AtomicReference<Object> outcome = new AtomicReference<>();
    final CountDownLatch destroyed = new CountDownLatch(1);

    @Override
    public void destroyed(InetSocketAddress endpoint) {
      if (destroyed.getCount() == 0) {
        return; // the close destroys the rest
      }
      held.addAll(HeldLocks.ofLibrary());
      try {
        CompletableFuture.runAsync(
                () -> {
                  try {
                    pool.get().close();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                })
            .get(5, TimeUnit.SECONDS);
        outcome.set("closed");
      } catch (Exception e) {
        outcome.set(e);
      } finally {
        destroyed.countDown();
      }
    }
  }

  private AutoCloseable poolWithACall(Kind kind, EndpointSource source, PoolMetrics metrics)
      throws Exception {
    PoolConfig config = PoolConfig.builder().maxPerEndpoint(8).maxTotal(16).build();
    switch (kind) {
      case SYNC:
        ThriftClientPool<BenchService.Client> sync =
            PoolSettings.with(
                    ThriftClientPool.builder(BenchService.Client::new).endpointSource(source),
                    config)
                .metrics(metrics)
                .build();
        sync.call(
            c -> {
              c.sleep(0);
              return null;
            });
        return sync;
      case ASYNC_CLIENT:
        ThriftAsyncClientPool<BenchService.AsyncClient> async =
            PoolSettings.with(
                    ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                        .endpointSource(source),
                    config)
                .metrics(metrics)
                .build();
        async.<Void>call((c, cb) -> c.sleep(0, cb)).get(10, TimeUnit.SECONDS);
        return async;
      default:
        ThriftChannelPool<BenchService.Client> channels =
            PoolSettings.with(
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(resources)
                        .options(ClientOptions.defaults())
                        .endpointSource(source),
                    config)
                .metrics(metrics)
                .build();
        channels
            .call(
                c -> c.send_sleep(0),
                c -> {
                  c.recv_sleep();
                  return null;
                })
            .get(10, TimeUnit.SECONDS);
        return channels;
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aMetricsCallbackClosesThePoolFromAnotherThreadWhenAnEndpointLeaves(Kind kind)
      throws Exception {
    InetSocketAddress a = servers.get(0).localAddress();
    InetSocketAddress b = servers.get(1).localAddress();
    ManualEndpointSource source = new ManualEndpointSource(a);
    ClosingMetrics metrics = new ClosingMetrics();
    try (AutoCloseable pool = poolWithACall(kind, source, metrics)) {
      metrics.pool.set(pool);

      source.publish(b); // a leaves: its idle connection closes, and the metrics hear of it

      assertThat(metrics.destroyed.await(20, TimeUnit.SECONDS)).isTrue();
      assertThat(metrics.outcome.get()).isEqualTo("closed");
      assertThat(metrics.held).as("library locks held while the metrics ran").isEmpty();
      assertThat(source.isClosed()).isTrue();
    }
  }

  /**
   * The futures of asynchronous calls complete under none of the pool's locks: dependents run on
   * the completing thread (an IO thread, or the one that frees a connection for a waiting call),
   * and one that asks the pool for its numbers there gets them.
   */
  @ParameterizedTest
  @EnumSource(
      value = Kind.class,
      names = {"ASYNC_CLIENT", "CHANNEL"})
  void callFuturesCompleteUnderNoLockOfThePool(Kind kind) throws Exception {
    InetSocketAddress a = servers.get(0).localAddress();
    PoolConfig config =
        PoolConfig.builder().maxPerEndpoint(1).maxIdlePerEndpoint(1).maxTotal(1).build();
    List<String> held = new CopyOnWriteArrayList<>();
    List<CompletableFuture<?>> calls = new ArrayList<>();
    List<CompletableFuture<?>> dependents = new ArrayList<>();
    AutoCloseable pool;
    Supplier<CompletableFuture<?>> call;
    Supplier<PoolStats> stats;
    if (kind == Kind.ASYNC_CLIENT) {
      ThriftAsyncClientPool<BenchService.AsyncClient> async =
          PoolSettings.with(
                  ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                      .endpointSource(EndpointSource.of(a)),
                  config)
              .build();
      pool = async;
      call = () -> async.<Void>call((c, cb) -> c.sleep(20, cb));
      stats = async::stats;
    } else {
      ThriftChannelPool<BenchService.Client> channels =
          PoolSettings.with(
                  ThriftChannelPool.builder(BenchService.Client::new)
                      .io(resources)
                      .options(ClientOptions.defaults())
                      .endpointSource(EndpointSource.of(a)),
                  config)
              .maxCallsInFlightPerConnection(1)
              .build();
      pool = channels;
      call =
          () ->
              channels.call(
                  c -> c.send_sleep(20),
                  c -> {
                    c.recv_sleep();
                    return null;
                  });
      stats = channels::stats;
    }
    try (pool) {
      for (int i = 0; i < 6; i++) { // one connection: five wait for it in turn
        CompletableFuture<?> f = call.get();
        calls.add(f);
        dependents.add(
            f.whenComplete(
                (ok, failed) -> {
                  held.addAll(HeldLocks.ofLibrary());
                  stats.get(); // re-enters the pool on the completing thread
                }));
      }
      CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
      CompletableFuture.allOf(dependents.toArray(new CompletableFuture<?>[0]))
          .get(30, TimeUnit.SECONDS);
      assertThat(held).as("library locks held while a dependent stage ran").isEmpty();
    }
  }

  /**
   * The user's validator runs under none of the pool's locks: one that asks the pool for its
   * numbers from another thread, and waits, gets them.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aValidatorAsksThePoolFromAnotherThread(Kind kind) throws Exception {
    InetSocketAddress a = servers.get(0).localAddress();
    PoolConfig config =
        PoolConfig.builder()
            .idleConnections(IdleConnectionsConfig.builder().testOnBorrow(true).build())
            .build();
    List<String> held = new CopyOnWriteArrayList<>();
    List<Object> answers = new CopyOnWriteArrayList<>();
    AtomicReference<Supplier<PoolStats>> stats = new AtomicReference<>();
    Predicate<Object> validator =
        client -> {
          held.addAll(HeldLocks.ofLibrary());
          try {
            answers.add(CompletableFuture.supplyAsync(stats.get()).get(5, TimeUnit.SECONDS));
          } catch (Exception e) {
            answers.add(e);
          }
          return true;
        };
    AutoCloseable pool;
    Runnable call;
    if (kind == Kind.SYNC) {
      ThriftClientPool<BenchService.Client> sync =
          PoolSettings.with(
                  ThriftClientPool.builder(BenchService.Client::new)
                      .endpointSource(EndpointSource.of(a)),
                  config)
              .validator(validator)
              .build();
      pool = sync;
      stats.set(sync::stats);
      call =
          () ->
              unchecked(
                  () ->
                      sync.call(
                          c -> {
                            c.sleep(0);
                            return null;
                          }));
    } else if (kind == Kind.ASYNC_CLIENT) {
      ThriftAsyncClientPool<BenchService.AsyncClient> async =
          PoolSettings.with(
                  ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                      .endpointSource(EndpointSource.of(a)),
                  config)
              .validator(validator)
              .build();
      pool = async;
      stats.set(async::stats);
      call =
          () ->
              unchecked(
                  () -> async.<Void>call((c, cb) -> c.sleep(0, cb)).get(10, TimeUnit.SECONDS));
    } else {
      ThriftChannelPool<BenchService.Client> channels =
          PoolSettings.with(
                  ThriftChannelPool.builder(BenchService.Client::new)
                      .io(resources)
                      .options(ClientOptions.defaults())
                      .endpointSource(EndpointSource.of(a)),
                  config)
              .validator(validator)
              .build();
      pool = channels;
      stats.set(channels::stats);
      call =
          () ->
              unchecked(
                  () ->
                      channels
                          .call(
                              c -> c.send_sleep(0),
                              c -> {
                                c.recv_sleep();
                                return null;
                              })
                          .get(10, TimeUnit.SECONDS));
    }
    try (pool) {
      for (int i = 0; i < 3; i++) {
        call.run(); // the first connects; the next ones borrow it idle, validated
      }
      assertThat(answers).isNotEmpty().allMatch(answer -> answer instanceof PoolStats);
      assertThat(held).as("library locks held while the validator ran").isEmpty();
    }
  }

  interface Body {
    void run() throws Exception;
  }

  private static void unchecked(Body body) {
    try {
      body.run();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
