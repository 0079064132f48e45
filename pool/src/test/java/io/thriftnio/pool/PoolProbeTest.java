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

  /** Runs inside each connect, before its outcome: what happens concurrently with it. */
  private volatile Runnable duringConnect = () -> {};

  private Object connect() throws Exception {
    connects.incrementAndGet();
    duringConnect.run();
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
        List.of(ENDPOINT),
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
      assertThat(pool.state(ENDPOINT).describeDown()).doesNotContain("probe in flight");

      next = Outcome.OK;
      borrowAndRelease(pool); // before the fix: "no endpoint available ... down" forever
      assertThat(pool.state(ENDPOINT).isUp()).isTrue();
    }
  }

  @Test
  void endpointPoolServesAgainAfterAProbeFailedBehindATopUpThatMovedTheDeadline() throws Exception {
    try (EndpointPool<Object> pool = endpointPool()) {
      assertThatThrownBy(() -> pool.borrow())
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      EndpointState state = pool.state(ENDPOINT);
      advance(BACKOFF);
      // While the probe connects, the pool's own top-up connect fails and moves the deadline; the
      // probe's failure then returns early ("one outage, one step").
      duringConnect = () -> state.connectFailed(new ConnectException("top-up: Connection refused"));
      assertThatThrownBy(() -> pool.borrow())
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      duringConnect = () -> {};
      assertThat(state.describeDown()).doesNotContain("probe in flight");
      assertThatThrownBy(() -> pool.borrow())
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("no endpoint available: 127.0.0.1:9 down for");

      next = Outcome.OK;
      assertThat(serveWithinMaxBackoff(() -> borrowAndRelease(pool))).isTrue();
      assertThat(state.isUp()).isTrue();
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
            List.of(ENDPOINT),
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
      assertThat(pool.state(ENDPOINT).describeDown()).doesNotContain("probe in flight");
      borrowAndRelease(pool);
      assertThat(pool.state(ENDPOINT).isUp()).isTrue();
    }
  }

  // ---- MultiplexedPool: the channel pool ----

  private MultiplexedPool channelPool() {
    return new MultiplexedPool(
        "test-channels",
        List.of(ENDPOINT),
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
      assertThat(pool.state(ENDPOINT).describeDown()).doesNotContain("probe in flight");

      next = Outcome.OK;
      send(pool); // before the fix: "no endpoint available ... down" forever
      assertThat(pool.state(ENDPOINT).isUp()).isTrue();
    }
  }

  @Test
  void channelPoolServesAgainAfterAProbeFailedBehindATopUpThatMovedTheDeadline() throws Exception {
    try (MultiplexedPool pool = channelPool()) {
      assertThatThrownBy(() -> send(pool))
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      EndpointState state = pool.state(ENDPOINT);
      advance(BACKOFF);
      duringConnect = () -> state.connectFailed(new ConnectException("top-up: Connection refused"));
      assertThatThrownBy(() -> send(pool))
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(Exception.class);
      duringConnect = () -> {};
      assertThat(state.describeDown()).doesNotContain("probe in flight");

      next = Outcome.OK;
      assertThat(serveWithinMaxBackoff(() -> send(pool))).isTrue();
      assertThat(state.isUp()).isTrue();
      assertThat(connects.get()).isEqualTo(3);
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
