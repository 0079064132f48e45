package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The borrow loops of both pool engines end the probe of a down endpoint on every path, so the pool
 * serves again as soon as the endpoint does. The clock is moved by hand; connects are scripted.
 * Each case failed before the probe became a lease closed by the borrow loop.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PoolProbeTest {
  private static final InetSocketAddress ENDPOINT = new InetSocketAddress("127.0.0.1", 9);
  private static final Duration BACKOFF = Duration.ofMillis(100);

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);

  /** What the next connect does. */
  enum Outcome {
    REFUSED,
    INTERRUPTED,
    OK
  }

  private volatile Outcome next = Outcome.REFUSED;
  private final AtomicInteger connects = new AtomicInteger();

  private Object connect() throws Exception {
    connects.incrementAndGet();
    switch (next) {
      case REFUSED:
        throw new ConnectException("Connection refused");
      case INTERRUPTED:
        // What a connect does when its thread is interrupted (pool shutdown of a caller's executor,
        // a cancelled task): the flag is set and the channel closed under it.
        Thread.currentThread().interrupt();
        throw new ClosedByInterruptException();
      default:
        return new Object();
    }
  }

  private static PoolConfig config() {
    return PoolConfig.builder()
        .endpointHealth(
            EndpointHealthConfig.builder()
                .backoff(BACKOFF)
                .maxBackoff(Duration.ofMillis(400))
                .build())
        .borrowTimeout(Duration.ofSeconds(2))
        .idleConnections(IdleConnectionsConfig.builder().evictionInterval(Duration.ZERO).build())
        .build();
  }

  private void advance(Duration d) {
    clock.addAndGet(d.toNanos());
  }

  // ---- EndpointPool: the sync and async-client pools ----

  private EndpointPool<Object> endpointPool() {
    return new EndpointPool<>(
        "test-pool",
        EndpointSource.of(List.of(ENDPOINT)),
        config(),
        new PoolMetrics() {},
        new EndpointPool.Connections<>() {
          @Override
          public Object open(InetSocketAddress endpoint) throws Exception {
            return connect();
          }

          @Override
          public boolean validate(Object connection) {
            return true;
          }

          @Override
          public void close(Object connection) {}
        },
        clock::get);
  }

  private void borrowAndRelease(EndpointPool<Object> pool) throws Exception {
    EndpointPool.Borrowed<Object> b = pool.borrow();
    pool.release(b);
  }

  @Test
  void endpointPoolServesAgainAfterAnInterruptedProbe() throws Exception {
    try (EndpointPool<Object> pool = endpointPool()) {
      assertThatThrownBy(() -> pool.borrow())
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      advance(BACKOFF);
      next = Outcome.INTERRUPTED;
      try {
        assertThatThrownBy(() -> pool.borrow())
            .isInstanceOf(PoolException.class)
            .hasCauseInstanceOf(Exception.class);
      } finally {
        assertThat(Thread.interrupted()).as("the interrupt reaches the caller").isTrue();
      }

      next = Outcome.OK;
      borrowAndRelease(pool); // before the fix: "no endpoint available ... down" forever
      borrowAndRelease(pool); // up: served again without a probe
    }
  }

  /**
   * A probe whose connect is refused frees the probe: the pool serves again within the longest
   * back-off. (The same with the pool's own top-up failing during the probe's connect and moving
   * the deadline is EndpointStateTest's probeWhoseConnectFailsAfterATopUpMovedTheDeadline case.)
   */
  @Test
  void endpointPoolServesAgainAfterARefusedProbe() throws Exception {
    try (EndpointPool<Object> pool = endpointPool()) {
      assertThatThrownBy(() -> pool.borrow())
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      advance(BACKOFF);
      assertThatThrownBy(() -> pool.borrow()) // the probe, refused
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      assertThatThrownBy(() -> pool.borrow())
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("no endpoint available: 127.0.0.1:9 down for")
          .hasMessageNotContaining("probe in flight");

      next = Outcome.OK;
      assertThat(serveWithinMaxBackoff(() -> borrowAndRelease(pool))).isTrue();
      borrowAndRelease(pool); // up: served again without a probe
    }
  }

  @Test
  void endpointPoolFreesTheProbeWhenTheBorrowFailsOtherThanByConnecting() throws Exception {
    PoolConfig config =
        PoolConfig.builder()
            .endpointHealth(EndpointHealthConfig.builder().backoff(BACKOFF).build())
            .idleConnections(
                IdleConnectionsConfig.builder()
                    .testOnBorrow(true)
                    .evictionInterval(Duration.ZERO)
                    .build())
            .build();
    AtomicInteger validations = new AtomicInteger();
    try (EndpointPool<Object> pool =
        new EndpointPool<>(
            "test-pool",
            EndpointSource.of(List.of(ENDPOINT)),
            config,
            new PoolMetrics() {},
            new EndpointPool.Connections<>() {
              @Override
              public Object open(InetSocketAddress endpoint) throws Exception {
                return connect();
              }

              @Override
              public boolean validate(Object connection) {
                return validations.incrementAndGet() > 1; // the first fresh connection fails
              }

              @Override
              public void close(Object connection) {}
            },
            clock::get)) {
      assertThatThrownBy(() -> pool.borrow())
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      advance(BACKOFF);
      next = Outcome.OK;
      assertThatThrownBy(() -> pool.borrow())
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("failed validation");
      borrowAndRelease(pool); // the probe was freed: the next borrow probes and is served
    }
  }

  // ---- MultiplexedPool: the channel pool ----

  private MultiplexedPool channelPool() {
    return new MultiplexedPool(
        "test-channels",
        EndpointSource.of(List.of(ENDPOINT)),
        config(),
        new PoolMetrics() {},
        endpoint -> {
          connect();
          return new OpenChannel(endpoint);
        },
        new TBinaryProtocol.Factory(),
        channel -> true,
        4,
        clock::get);
  }

  private static void send(MultiplexedPool pool) throws Exception {
    try {
      pool.send(ByteBuffer.allocate(16)).get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  @Test
  void channelPoolServesAgainAfterAnInterruptedProbe() throws Exception {
    try (MultiplexedPool pool = channelPool()) {
      assertThatThrownBy(() -> send(pool))
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      advance(BACKOFF);
      next = Outcome.INTERRUPTED;
      try {
        assertThatThrownBy(() -> send(pool))
            .isInstanceOf(PoolException.class)
            .hasCauseInstanceOf(Exception.class);
      } finally {
        // The connect ran on the pool's connector thread: the caller's thread is not touched.
        assertThat(Thread.interrupted()).as("the caller's thread interrupted").isFalse();
      }

      next = Outcome.OK;
      send(pool); // before the fix: "no endpoint available ... down" forever
      send(pool); // up: served again without a probe
    }
  }

  /** {@link #endpointPoolServesAgainAfterARefusedProbe} for the channel pool. */
  @Test
  void channelPoolServesAgainAfterARefusedProbe() throws Exception {
    try (MultiplexedPool pool = channelPool()) {
      assertThatThrownBy(() -> send(pool))
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      advance(BACKOFF);
      assertThatThrownBy(() -> send(pool)) // the probe, refused
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);

      next = Outcome.OK;
      assertThat(serveWithinMaxBackoff(() -> send(pool))).isTrue();
      send(pool); // up: served again without a probe
      assertThat(connects.get())
          .as("the first connect, the refused probe, the one that served")
          .isEqualTo(3);
    }
  }

  /** An attempt that may fail while the endpoint is still backing off. */
  interface Attempt {
    void run() throws Exception;
  }

  /** Tries once per 10 ms of the clock; whether one attempt served within the longest back-off. */
  private boolean serveWithinMaxBackoff(Attempt attempt) throws Exception {
    long limit = clock.get() + Duration.ofMillis(400).toNanos();
    while (clock.get() - limit <= 0) {
      try {
        attempt.run();
        return true;
      } catch (PoolException e) {
        assertThat(e).hasMessageContaining("down for");
        advance(Duration.ofMillis(10));
      }
    }
    return false;
  }
}
