package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Misbehaving peers: stalls, wrong sequence ids, crashes, exhaustion, dead endpoints. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FaultInjectionTest {

  private static ThriftClientPool<BenchService.Client> syncPool(
      ClientTransportFactory transports, PoolConfig config, InetSocketAddress... endpoints) {
    return PoolSettings.with(
            ThriftClientPool.builder(BenchService.Client::new)
                .transportFactory(transports)
                .endpoints(endpoints),
            config)
        .build();
  }

  private static ThriftAsyncClientPool<BenchService.AsyncClient> asyncPool(
      StubPeer peer, Duration callTimeout) {
    return ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
        .endpoints(peer.address())
        .options(ClientOptions.builder().callTimeout(callTimeout).build())
        .build();
  }

  @Test
  void stallingServerReadTimeoutDestroysTheConnection() throws Exception {
    CountingTransports transports = new CountingTransports(Duration.ofMillis(300));
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            syncPool(transports, PoolConfig.defaults(), peer.address())) {
      assertThat(pool.call(c -> c.get_last_sale("A")).getSymbol()).isEqualTo("A");
      peer.mode = StubPeer.Mode.STALL;
      assertThatThrownBy(() -> pool.call(c -> c.get_last_sale("B")))
          .isInstanceOfSatisfying(
              TTransportException.class,
              e -> assertThat(e.getType()).isEqualTo(TTransportException.TIMED_OUT));
      assertThat(pool.stats().invalidated()).isEqualTo(1);
      assertThat(pool.stats().total()).isZero();
      assertThat(transports.open).hasValue(0);

      // The late reply of the stalled call can never reach the next caller: new connection.
      peer.mode = StubPeer.Mode.NORMAL;
      assertThat(pool.call(c -> c.get_last_sale("C")).getSymbol()).isEqualTo("C");
      assertThat(pool.stats().created()).isEqualTo(2);
    }
  }

  @Test
  void wrongSequenceIdFailsTheCallAndDestroysTheConnection() throws Exception {
    CountingTransports transports = new CountingTransports(Duration.ofSeconds(5));
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            syncPool(transports, PoolConfig.defaults(), peer.address())) {
      pool.call(c -> c.fired());
      peer.mode = StubPeer.Mode.WRONG_SEQID;
      assertThatThrownBy(() -> pool.call(c -> c.echo(ByteBuffer.allocate(16))))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.BAD_SEQUENCE_ID));
      assertThat(pool.stats().invalidated()).isEqualTo(1);
      assertThat(pool.stats().total()).isZero();
      assertThat(transports.open).hasValue(0);
      peer.mode = StubPeer.Mode.NORMAL;
      assertThat(pool.<Long>call(c -> c.fired())).isZero();
    }
  }

  @Test
  void asyncStallTimesOutAndWrongSequenceIdFails() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            asyncPool(peer, Duration.ofMillis(300))) {
      CompletableFuture<Long> ok = pool.call((c, cb) -> c.fired(cb));
      assertThat(ok.get(10, TimeUnit.SECONDS)).isZero();

      peer.mode = StubPeer.Mode.STALL;
      CompletableFuture<Long> stalled = pool.call((c, cb) -> c.fired(cb));
      assertThatThrownBy(() -> stalled.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(CallTimeoutException.class)
          .hasMessageContaining("no response to fired from")
          .hasMessageContaining("within callTimeout 300 ms; connection closed");
      assertThat(pool.stats().invalidated()).isEqualTo(1);

      peer.mode = StubPeer.Mode.WRONG_SEQID;
      CompletableFuture<Long> wrong = pool.call((c, cb) -> c.fired(cb));
      assertThatThrownBy(() -> wrong.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.BAD_SEQUENCE_ID));
      assertThat(pool.stats().invalidated()).isEqualTo(2);
      assertThat(pool.stats().total()).isZero();

      peer.mode = StubPeer.Mode.NORMAL;
      CompletableFuture<Long> again = pool.call((c, cb) -> c.fired(cb));
      assertThat(again.get(10, TimeUnit.SECONDS)).isZero();
      assertThat(pool.stats().created()).isEqualTo(3);
    }
  }

  @Test
  void exhaustedPoolTimesOutWithEndpointAndStateInTheMessage() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowTimeout(Duration.ofMillis(200))
            .build();
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            syncPool(new CountingTransports(Duration.ofSeconds(5)), config, peer.address())) {
      try (ThriftClientPool.Lease<BenchService.Client> held = pool.lease()) {
        assertThatThrownBy(() -> pool.call(c -> c.fired()))
            .isInstanceOfSatisfying(
                PoolTimeoutException.class,
                e -> {
                  assertThat(e.endpoint()).isEqualTo(peer.address());
                  assertThat(e.stats().active()).isEqualTo(1);
                })
            .hasMessageStartingWith("Connection to 127.0.0.1:" + peer.address().getPort())
            .hasMessageContaining("request timed out after")
            .hasMessageContaining("(total=1, active=1, idle=0, waiting=");
        assertThat(held.<Long>call(c -> c.fired())).isZero();
      }
      assertThat(pool.stats().timeouts()).isEqualTo(1);
      assertThat(pool.<Long>call(c -> c.fired())).isZero();
    }
  }

  @Test
  void zeroBorrowTimeoutFailsAtOnceWhenExhausted() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowTimeout(Duration.ZERO)
            .build();
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            syncPool(new CountingTransports(Duration.ofSeconds(5)), config, peer.address())) {
      try (ThriftClientPool.Lease<BenchService.Client> held = pool.lease()) {
        assertThat(held.endpoint()).isEqualTo(peer.address());
        long start = System.nanoTime();
        assertThatThrownBy(() -> pool.call(c -> c.fired()))
            .isInstanceOf(PoolTimeoutException.class)
            .hasMessageContaining("(total=1, active=1, idle=0, waiting=0)");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      }
    }
  }

  @Test
  void interruptedBorrowRestoresTheFlag() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowTimeout(Duration.ofSeconds(20))
            .build();
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            syncPool(new CountingTransports(Duration.ofSeconds(5)), config, peer.address())) {
      ThriftClientPool.Lease<BenchService.Client> held = pool.lease();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean interruptedAfter = new AtomicBoolean();
      Thread waiter =
          new Thread(
              () -> {
                try {
                  pool.call(c -> c.fired());
                } catch (Throwable t) {
                  failure.set(t);
                  interruptedAfter.set(Thread.currentThread().isInterrupted());
                }
              });
      waiter.start();
      await("pool.stats().waiting() == 1").until(() -> pool.stats().waiting() == 1);
      waiter.interrupt();
      waiter.join(10_000);
      assertThat(failure.get())
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("interrupted while waiting")
          .hasCauseInstanceOf(InterruptedException.class);
      assertThat(interruptedAfter).isTrue();
      held.close();
    }
  }

  @Test
  void interruptedCallerFailsFastKeepsItsFlagAndDoesNotMarkTheEndpointDown() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            syncPool(
                new CountingTransports(Duration.ofSeconds(5)),
                PoolConfig.defaults(),
                peer.address())) {
      Thread.currentThread().interrupt();
      try {
        assertThatThrownBy(() -> pool.<Long>call(c -> c.fired()))
            .isInstanceOf(PoolException.class)
            .hasMessageContaining("interrupted");
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(pool.stats().connectFailures()).isZero();
      assertThat(pool.<Long>call(c -> c.fired())).isZero();
    }
  }

  @Test
  void closeFailsPendingBorrowsClearlyAndReleasesEveryConnection() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowTimeout(Duration.ofSeconds(20))
            .build();
    CountingTransports transports = new CountingTransports(Duration.ofSeconds(5));
    try (StubPeer peer = StubPeer.start()) {
      ThriftClientPool<BenchService.Client> pool = syncPool(transports, config, peer.address());
      ThriftClientPool.Lease<BenchService.Client> held = pool.lease();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean interruptedAfter = new AtomicBoolean();
      Thread waiter =
          new Thread(
              () -> {
                try {
                  pool.call(c -> c.fired());
                } catch (Throwable t) {
                  failure.set(t);
                  interruptedAfter.set(Thread.currentThread().isInterrupted());
                }
              });
      waiter.start();
      await("pool.stats().waiting() == 1").until(() -> pool.stats().waiting() == 1);
      pool.close();
      waiter.join(10_000);
      assertThat(failure.get()).isInstanceOf(PoolException.class).hasMessageContaining("closed");
      assertThat(interruptedAfter)
          .as("the pool's own wake-up is not the caller's interrupt")
          .isFalse();
      // The lent connection was closed under its holder; returning it only counts it.
      assertThat(transports.open).hasValue(0);
      held.close();
      assertThat(pool.stats().total()).isZero();
      assertThat(pool.stats().destroyed()).isEqualTo(pool.stats().created());
      pool.close();
    }
  }

  @Test
  void serverKilledAndRestartedMidRunRecoversWithoutUserAction() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxPerEndpoint(8)
            .endpointHealth(
                EndpointHealthConfig.builder()
                    .backoff(Duration.ofMillis(20))
                    .maxBackoff(Duration.ofMillis(100))
                    .build())
            .build();
    CountingTransports transports = new CountingTransports(Duration.ofSeconds(5));
    StubPeer peer = StubPeer.start();
    try (ThriftClientPool<BenchService.Client> pool =
        syncPool(transports, config, peer.address())) {
      BenchService.Iface iface = pool.iface(BenchService.Iface.class);
      CountDownLatch before = new CountDownLatch(200);
      AtomicReference<CountDownLatch> after = new AtomicReference<>(new CountDownLatch(1));
      CountDownLatch afterRestart = new CountDownLatch(200);
      AtomicBoolean restarted = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
      List<Thread> callers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        Thread t =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    try {
                      iface.get_last_sale("S");
                      before.countDown();
                      if (restarted.get()) {
                        afterRestart.countDown();
                      }
                    } catch (Exception e) {
                      errors
                          .computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicInteger())
                          .incrementAndGet();
                      assertThat(e.getMessage()).isNotBlank();
                    }
                  }
                });
        t.start();
        callers.add(t);
      }
      assertThat(before.await(10, TimeUnit.SECONDS)).isTrue();
      peer.kill();
      // Let the callers see the outage before the server comes back.
      await("!errors.isEmpty()").until(() -> !errors.isEmpty());
      peer.restart();
      restarted.set(true);
      assertThat(afterRestart.await(15, TimeUnit.SECONDS))
          .as("recovered; errors: " + errors)
          .isTrue();
      stop.set(true);
      for (Thread t : callers) {
        t.join(10_000);
      }
      // Only clear errors: a lost connection, a refused connect, or the endpoint marked down.
      assertThat(errors.keySet()).isSubsetOf("TTransportException", "PoolException");
      PoolStats stats = pool.stats();
      assertThat(stats.total()).isEqualTo(transports.open.get());
      assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.total());
      assertThat(transports.maxOpen.get()).isLessThanOrEqualTo(8);
    } finally {
      peer.close();
    }
  }

  @Test
  void asyncPoolRecoversFromAServerRestartMidRun() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .maxPerEndpoint(8)
            .endpointHealth(
                EndpointHealthConfig.builder()
                    .backoff(Duration.ofMillis(20))
                    .maxBackoff(Duration.ofMillis(100))
                    .build())
            .build();
    StubPeer peer = StubPeer.start();
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        PoolSettings.with(
                ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                    .endpoints(peer.address()),
                config)
            .options(ClientOptions.builder().callTimeout(Duration.ofSeconds(5)).build())
            .build()) {
      CountDownLatch before = new CountDownLatch(100);
      CountDownLatch afterRestart = new CountDownLatch(100);
      AtomicBoolean restarted = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
      List<Thread> callers = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Thread t =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    try {
                      pool.<Long>call((c, cb) -> c.fired(cb)).get(10, TimeUnit.SECONDS);
                      before.countDown();
                      if (restarted.get()) {
                        afterRestart.countDown();
                      }
                    } catch (ExecutionException e) {
                      errors
                          .computeIfAbsent(
                              e.getCause().getClass().getSimpleName(), k -> new AtomicInteger())
                          .incrementAndGet();
                    } catch (Exception e) {
                      errors.computeIfAbsent("unexpected " + e, k -> new AtomicInteger());
                    }
                  }
                });
        t.start();
        callers.add(t);
      }
      assertThat(before.await(10, TimeUnit.SECONDS)).isTrue();
      peer.kill();
      await("!errors.isEmpty()").until(() -> !errors.isEmpty());
      peer.restart();
      restarted.set(true);
      assertThat(afterRestart.await(15, TimeUnit.SECONDS))
          .as("recovered; errors: " + errors)
          .isTrue();
      stop.set(true);
      for (Thread t : callers) {
        t.join(10_000);
      }
      // Clear errors only: the connection lost (transport/IO), a refused connect, endpoint down.
      assertThat(errors.keySet())
          .isSubsetOf("TTransportException", "PoolException", "IOException", "SocketException");
      PoolStats stats = pool.stats();
      assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.total());
      assertThat(stats.active()).isZero();
    } finally {
      peer.close();
    }
  }

  @Test
  void deadEndpointIsSkippedThenProbedBack() throws Exception {
    int deadPort = StubPeer.unusedPort();
    InetSocketAddress dead = new InetSocketAddress("127.0.0.1", deadPort);
    PoolConfig config =
        PoolConfig.builder()
            .endpointHealth(
                EndpointHealthConfig.builder()
                    .backoff(Duration.ofMillis(300))
                    .maxBackoff(Duration.ofMillis(300))
                    .build())
            .build();
    try (StubPeer live = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            syncPool(new CountingTransports(Duration.ofSeconds(5)), config, dead, live.address())) {
      long start = System.nanoTime();
      for (int i = 0; i < 50; i++) {
        // Every call succeeds: a connect failure moves the borrow to the live endpoint.
        assertThat(pool.<Long>call(c -> c.fired())).isZero();
      }
      long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
      // Marked down: tried again once per back-off at most, not on every other call.
      assertThat(pool.stats().connectFailures())
          .isGreaterThanOrEqualTo(1)
          .isLessThanOrEqualTo(1 + elapsedMillis / 300);

      try (StubPeer revived = StubPeer.startOn(deadPort)) {
        // The balancer (power of two choices) gives the endpoint a probe once the back-off has
        // passed.
        await("a probe reaching the revived endpoint")
            .until(
                () -> {
                  try {
                    pool.call(c -> c.fired());
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                  return revived.accepted.get() > 0;
                });
        assertThat(pool.stats().total()).isEqualTo(2);
      }
    }
  }

  @Test
  void everyEndpointDownFailsWithTheReason() throws Exception {
    InetSocketAddress dead = new InetSocketAddress("127.0.0.1", StubPeer.unusedPort());
    try (ThriftClientPool<BenchService.Client> pool =
        syncPool(new CountingTransports(Duration.ofSeconds(1)), PoolConfig.defaults(), dead)) {
      // The first call tried the connect, the next one tries none while the endpoint is down:
      // both fail alike, the pool saying so, caused by the connect failure (see PoolException).
      String refused = "cannot connect to " + dead + ": Connection refused";
      for (int call = 0; call < 2; call++) {
        assertThatThrownBy(() -> pool.call(c -> c.fired()))
            .isInstanceOf(PoolException.class)
            .hasMessageContaining(
                "no endpoint available: 127.0.0.1:" + dead.getPort() + " down for")
            .hasMessageContaining("ms more after 1 connect failure(s) (last: " + refused + ")")
            .cause()
            .isInstanceOfSatisfying(
                TTransportException.class,
                e -> assertThat(e.getType()).isEqualTo(TTransportException.NOT_OPEN))
            .hasMessage(refused);
      }
    }
  }
}
