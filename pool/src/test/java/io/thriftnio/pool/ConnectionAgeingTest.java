package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PoolBuilder#maxConnectionAge(Duration)}: under steady load each pool closes its
 * connections once they have lived their age, between calls, opens new ones, and fails no call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionAgeingTest {
  private static final Duration AGE = Duration.ofMillis(200);
  private static final int CALLERS = 4;

  /** Replacements each test waits for: every connection of the first round, at least. */
  private static final int AGED = 2 * CALLERS;

  @Test
  void syncPoolReplacesAgedConnectionsWithoutFailingACall() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(peer.address())
                .maxConnectionAge(AGE)
                .build()) {
      Load load = Load.run(() -> pool.<Long>call(c -> c.fired()), pool::stats);
      load.assertAgedWithoutFailures(peer);
    }
  }

  @Test
  void asyncPoolReplacesAgedConnectionsWithoutFailingACall() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(peer.address())
                .maxConnectionAge(AGE)
                .build()) {
      Load load =
          Load.run(
              () -> pool.<Long>call((c, cb) -> c.fired(cb)).get(10, TimeUnit.SECONDS), pool::stats);
      load.assertAgedWithoutFailures(peer);
    }
  }

  @Test
  void channelPoolReplacesAgedConnectionsWithoutFailingACall() throws Exception {
    try (StubPeer peer = StubPeer.start();
        NettyClientIo resources = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(resources)
                .options(ClientOptions.defaults())
                .endpoints(peer.address())
                .maxCallsInFlightPerConnection(1) // several connections, as the other pools
                .maxConnectionAge(AGE)
                .build()) {
      Load load =
          Load.run(
              () ->
                  pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)
                      .get(10, TimeUnit.SECONDS),
              pool::stats);
      load.assertAgedWithoutFailures(peer);
    }
  }

  @Test
  void channelPoolLetsACallLongerThanTheAgeFinishOnItsConnection() throws Exception {
    try (StubPeer peer = StubPeer.start();
        NettyClientIo resources = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(resources)
                .options(ClientOptions.defaults())
                .endpoints(peer.address())
                .maxConnectionAge(Duration.ofMillis(50))
                .build()) {
      // Longer than the age (plus its jitter): the connection ages under the call.
      CompletableFuture<Void> slow =
          pool.callVoid(c -> c.send_sleep(400), BenchService.Client::recv_sleep);
      slow.get(10, TimeUnit.SECONDS);
      await("pool.stats().aged() == 1")
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(pool.stats().aged() == 1)
                      .as("closed once its call was done: %s", pool.stats())
                      .isTrue());
      PoolStats stats = pool.stats();
      assertThat(stats.total()).isZero();
      assertThat(stats.invalidated()).isZero();
      // The next call opens another.
      pool.call(c -> c.send_fired(), BenchService.Client::recv_fired).get(10, TimeUnit.SECONDS);
      assertThat(pool.stats().created()).isEqualTo(2);
    }
  }

  @Test
  void withoutAnAgeConnectionsAreKept() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new).endpoints(peer.address()).build()) {
      for (int i = 0; i < 20; i++) {
        pool.<Long>call(c -> c.fired());
      }
      assertThat(pool.stats().created()).isEqualTo(1);
      assertThat(pool.stats().aged()).isZero();
    }
  }

  @Test
  void aNegativeAgeIsRefused() {
    assertThatThrownBy(
            () ->
                ThriftClientPool.builder(BenchService.Client::new)
                    .endpoints(new java.net.InetSocketAddress("127.0.0.1", 1))
                    .maxConnectionAge(Duration.ofSeconds(-1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxConnectionAge: PT-1S (expected: >= 0, 0 = off)");
  }

  @Test
  void eachConnectionDrawsItsLifetimeWithinTheJitter() {
    ConnectionAge age = ConnectionAge.of(Duration.ofSeconds(10));
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 1000; i++) {
      long l = age.lifetimeNanos();
      min = Math.min(min, l);
      max = Math.max(max, l);
    }
    assertThat(min).isBetween(Duration.ofSeconds(9).toNanos(), Duration.ofMillis(9500).toNanos());
    assertThat(max).isBetween(Duration.ofMillis(10500).toNanos(), Duration.ofSeconds(11).toNanos());
    assertThat(ConnectionAge.of(Duration.ZERO).lifetimeNanos()).isZero();
  }

  /** One call of the load; what it throws is recorded as a failure. */
  interface Call {
    Object run() throws Exception;
  }

  /** {@link #CALLERS} threads calling back to back until enough connections aged. */
  private static final class Load {
    final AtomicLong calls = new AtomicLong();
    final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    final Supplier<PoolStats> stats;
    boolean aged;

    private Load(Supplier<PoolStats> stats) {
      this.stats = stats;
    }

    static Load run(Call call, Supplier<PoolStats> stats) throws InterruptedException {
      Load load = new Load(stats);
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < CALLERS; i++) {
        Thread t =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    try {
                      call.run();
                      load.calls.incrementAndGet();
                    } catch (Exception e) {
                      load.failures.add(e);
                    }
                  }
                },
                "ageing-load-" + i);
        t.start();
        threads.add(t);
      }
      try {
        try {
          await("aged connections")
              .atMost(Duration.ofSeconds(20))
              .until(() -> stats.get().aged() >= AGED);
          load.aged = true;
        } catch (ConditionTimeoutException e) {
          load.aged = false;
        }
      } finally {
        stop.set(true);
        for (Thread t : threads) {
          t.join(15_000);
        }
      }
      return load;
    }

    void assertAgedWithoutFailures(StubPeer peer) {
      PoolStats s = stats.get();
      assertThat(aged).as("connections aged out under load: %s", s).isTrue();
      assertThat(failures).as("failed calls (of %d)", calls.get()).isEmpty();
      assertThat(s.invalidated()).as("%s", s).isZero();
      assertThat(s.created()).as("%s", s).isGreaterThanOrEqualTo(s.aged() + 1);
      assertThat(s.destroyed()).as("%s", s).isGreaterThanOrEqualTo(s.aged());
      assertThat(peer.accepted.get()).isEqualTo((int) s.created());
    }
  }
}
