package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every pool follows its endpoint source: a new endpoint takes calls, one that leaves is drained
 * (its calls in flight succeed, later calls go elsewhere, its connections close), and an empty set
 * fails calls at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EndpointSourceTest {
  private static final PoolConfig CONFIG =
      PoolConfig.builder().maxPerEndpoint(16).maxTotal(64).balancer(Balancer.ROUND_ROBIN).build();

  private static NettyClientIo resources;
  private static ExecutorService callers;
  private final List<ThriftServer> servers = new ArrayList<>();

  /** The three pools, behind one face: a call that sleeps on the server. */
  enum Kind {
    SYNC,
    ASYNC_CLIENT,
    CHANNEL
  }

  interface Pool extends AutoCloseable {
    CompletableFuture<?> sleep(int millis);

    List<InetSocketAddress> endpoints();

    @Override
    void close();
  }

  @BeforeAll
  static void startResources() {
    resources = NettyClientIo.create(1);
    callers = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stopResources() {
    callers.shutdownNow();
    resources.close();
  }

  @BeforeEach
  void startServers() throws Exception {
    for (int i = 0; i < 2; i++) {
      servers.add(
          NettyThriftServer.builder()
              .processor(new BenchService.Processor<>(new BenchHandler()))
              .ioStrategy(IoStrategy.WORKER)
              .workerThreads(16)
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

  private static Pool pool(Kind kind, EndpointSource source) {
    switch (kind) {
      case SYNC:
        ThriftClientPool<BenchService.Client> sync =
            PoolSettings.with(
                    ThriftClientPool.builder(BenchService.Client::new).endpointSource(source),
                    CONFIG)
                .build();
        return face(
            ms ->
                CompletableFuture.runAsync(
                    () ->
                        unchecked(
                            () ->
                                sync.call(
                                    c -> {
                                      c.sleep(ms);
                                      return null;
                                    })),
                    callers),
            sync::endpoints,
            sync);
      case ASYNC_CLIENT:
        ThriftAsyncClientPool<BenchService.AsyncClient> async =
            PoolSettings.with(
                    ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                        .endpointSource(source),
                    CONFIG)
                .build();
        return face(ms -> async.<Void>call((c, cb) -> c.sleep(ms, cb)), async::endpoints, async);
      default:
        ThriftChannelPool<BenchService.Client> channels =
            PoolSettings.with(
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(resources)
                        .options(ClientOptions.defaults())
                        .endpointSource(source),
                    CONFIG)
                .maxCallsInFlightPerConnection(4)
                .build();
        return face(
            ms ->
                channels.call(
                    c -> c.send_sleep(ms),
                    c -> {
                      c.recv_sleep();
                      return null;
                    }),
            channels::endpoints,
            channels);
    }
  }

  interface Sleep {
    CompletableFuture<?> sleep(int millis);
  }

  interface Endpoints {
    List<InetSocketAddress> get();
  }

  private static Pool face(Sleep sleep, Endpoints endpoints, AutoCloseable closer) {
    return new Pool() {
      @Override
      public CompletableFuture<?> sleep(int millis) {
        return sleep.sleep(millis);
      }

      @Override
      public List<InetSocketAddress> endpoints() {
        return endpoints.get();
      }

      @Override
      public void close() {
        unchecked(closer::close);
      }
    };
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

  private long completed(int server) {
    return servers.get(server).stats().completedCalls();
  }

  private long open(int server) {
    return servers.get(server).stats().openConnections();
  }

  private static void all(List<CompletableFuture<?>> calls) throws Exception {
    CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void newEndpointsTakeCallsAndOneThatLeavesIsDrained(Kind kind) throws Exception {
    InetSocketAddress a = servers.get(0).localAddress();
    InetSocketAddress b = servers.get(1).localAddress();
    ManualEndpointSource source = new ManualEndpointSource(a);
    try (Pool pool = pool(kind, source)) {
      List<CompletableFuture<?>> calls = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        calls.add(pool.sleep(0));
      }
      all(calls);
      assertThat(completed(1)).isZero();

      source.publish(a, b);
      assertThat(pool.endpoints()).containsExactly(a, b);
      calls.clear();
      for (int i = 0; i < 8; i++) {
        calls.add(pool.sleep(0));
      }
      all(calls);
      assertThat(completed(1)).as("calls on the endpoint that joined").isPositive();

      // Slow calls in flight on both; then a leaves while they run.
      List<CompletableFuture<?>> slow = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        slow.add(pool.sleep(400));
      }
      await("open(0) > 0 && open(1) > 0").until(() -> open(0) > 0 && open(1) > 0);
      long onABefore = completed(0);
      source.publish(b);
      assertThat(pool.endpoints()).containsExactly(b);
      calls.clear();
      for (int i = 0; i < 16; i++) {
        calls.add(pool.sleep(0));
      }
      all(slow); // the calls in flight on a finish, successfully
      all(calls);
      assertThat(completed(0) - onABefore)
          .as("calls that reached a after it left: only those in flight before")
          .isLessThanOrEqualTo(8);
      // Every connection to a closes: the idle ones at once, the busy ones when returned.
      await("open(0) == 0")
          .untilAsserted(
              () ->
                  assertThat(open(0) == 0).as("connections left open on a: %s", open(0)).isTrue());
      long onAAfterDrain = completed(0);
      calls.clear();
      for (int i = 0; i < 8; i++) {
        calls.add(pool.sleep(0));
      }
      all(calls);
      assertThat(completed(0)).isEqualTo(onAAfterDrain);
    }
    assertThat(source.isClosed()).as("the pool closes its source").isTrue();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anEmptySetFailsCallsAtOnceNamingTheSource(Kind kind) throws Exception {
    InetSocketAddress a = servers.get(0).localAddress();
    ManualEndpointSource source = new ManualEndpointSource(a);
    try (Pool pool = pool(kind, source)) {
      pool.sleep(0).get(10, TimeUnit.SECONDS);
      source.publish();
      long start = System.nanoTime();
      CompletableFuture<?> call = pool.sleep(0);
      assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .rootCause()
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("manual source lists no endpoint");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CONFIG.borrowTimeout());
      await("open(0) == 0").until(() -> open(0) == 0);
      source.publish(a);
      pool.sleep(0).get(10, TimeUnit.SECONDS);
    }
  }

  @org.junit.jupiter.api.Test
  void builderTakesEndpointsOrASourceNotBoth() {
    InetSocketAddress a = new InetSocketAddress("127.0.0.1", 9);
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(a)
                    .endpointSource(new ManualEndpointSource(a))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("endpoints: [");
  }
}
