package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PoolConfig#callDeadline()} bounds the wait for a connection and the call together, on
 * every pool, and says which of the two it cut short.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CallDeadlineTest {
  private static final Duration DEADLINE = Duration.ofMillis(300);

  /** One connection, a borrow timeout far beyond the deadline: only the deadline can end a wait. */
  private static PoolConfig config() {
    return PoolConfig.builder()
        .maxTotal(1)
        .maxPerEndpoint(1)
        .maxIdlePerEndpoint(1)
        .borrowTimeout(Duration.ofSeconds(20))
        .callDeadline(DEADLINE)
        .build();
  }

  private static CallDeadlineException deadlineOf(Throwable t) {
    Throwable f = t instanceof ExecutionException ? t.getCause() : t;
    assertThat(f).isInstanceOf(CallDeadlineException.class);
    return (CallDeadlineException) f;
  }

  private static void assertInTime(long startNanos) {
    long took = System.nanoTime() - startNanos;
    assertThat(Duration.ofNanos(took))
        .isGreaterThanOrEqualTo(DEADLINE.minusMillis(5)) // a timer may fire a hair early
        .isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void syncPoolWaitAndCall() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftClientPool.builder(BenchService.Client::new).endpoints(peer.address()),
                    config())
                .build()) {
      long start;
      try (ThriftClientPool.Lease<BenchService.Client> held = pool.lease()) {
        start = System.nanoTime();
        Throwable t = catchFailure(() -> pool.<Long>call(c -> c.fired()));
        assertInTime(start);
        CallDeadlineException e = deadlineOf(t);
        assertThat(e.inCall()).isFalse();
        assertThat(e.endpoint()).isNull();
        assertThat(e).hasMessageContaining("while waiting for a connection (total=1, active=1");
      }
      peer.replyGate = new CountDownLatch(1);
      try {
        start = System.nanoTime();
        Throwable t = catchFailure(() -> pool.<Long>call(c -> c.fired()));
        assertInTime(start);
        CallDeadlineException e = deadlineOf(t);
        assertThat(e.inCall()).isTrue();
        assertThat(e.endpoint()).isEqualTo(peer.address());
        assertThat(e.getCause()).as("the read the closed connection failed").isNotNull();
      } finally {
        peer.replyGate.countDown();
      }
      assertThat(pool.stats().invalidated()).as("the connection cut short").isEqualTo(1);
      peer.replyGate = null;
      assertThat(pool.<Long>call(c -> c.fired())).isZero();
    }
  }

  @Test
  void asyncPoolWaitAndCall() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            PoolSettings.with(
                    ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                        .endpoints(peer.address()),
                    config())
                .build()) {
      // The one connection open first: the first call below takes it at once, the second waits.
      assertThat(pool.<Long>call((c, cb) -> c.fired(cb)).get(10, TimeUnit.SECONDS)).isZero();
      peer.replyGate = new CountDownLatch(1);
      try {
        long start = System.nanoTime();
        CompletableFuture<Long> first = pool.call((c, cb) -> c.fired(cb));
        CompletableFuture<Long> second = pool.call((c, cb) -> c.fired(cb));
        CallDeadlineException inCall = deadlineOf(catchFailure(() -> first.get()));
        CallDeadlineException waiting = deadlineOf(catchFailure(() -> second.get()));
        assertInTime(start);
        assertThat(inCall.inCall()).isTrue();
        assertThat(inCall.endpoint()).isEqualTo(peer.address());
        assertThat(waiting.inCall()).isFalse();
        assertThat(waiting).hasMessageContaining("waiting=");
      } finally {
        peer.replyGate.countDown();
      }
      peer.replyGate = null;
      assertThat(pool.<Long>call((c, cb) -> c.fired(cb)).get(10, TimeUnit.SECONDS)).isZero();
    }
  }

  @Test
  void channelPoolWaitAndCall() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftChannelPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(ChannelIo.of(SocketThriftChannel::connect))
                        .endpoints(peer.address()),
                    config())
                .maxCallsInFlightPerConnection(1)
                .build()) {
      // The one connection open first: the first call below takes it at once, the second waits.
      assertThat(
              pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)
                  .get(10, TimeUnit.SECONDS))
          .isZero();
      peer.replyGate = new CountDownLatch(1);
      try {
        long start = System.nanoTime();
        // The first call holds the one slot past the second's deadline: were both the pool's, the
        // first's end would free the slot a hair before the second's, and send it.
        CompletableFuture<Long> first =
            pool.call(
                DEADLINE.multipliedBy(2), c -> c.send_fired(), BenchService.Client::recv_fired);
        CompletableFuture<Long> second =
            pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
        CallDeadlineException waiting = deadlineOf(catchFailure(() -> second.get()));
        assertInTime(start);
        CallDeadlineException inCall = deadlineOf(catchFailure(() -> first.get()));
        assertThat(inCall.deadline()).isEqualTo(DEADLINE.multipliedBy(2));
        assertThat(waiting.deadline()).isEqualTo(DEADLINE);
        assertThat(inCall.inCall()).isTrue();
        assertThat(inCall.endpoint()).isEqualTo(peer.address());
        assertThat(waiting.inCall()).isFalse();
      } finally {
        peer.replyGate.countDown();
      }
      peer.replyGate = null;
      // The late reply frees the slot; the waiter that gave up was never sent.
      assertThat(
              pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)
                  .get(10, TimeUnit.SECONDS))
          .isZero();
    }
  }

  /**
   * The deadline is the caller's time, not the endpoint's failure: an async call it ends (the
   * client's own timeout then fires just after it and destroys the client) does not count towards
   * ejecting the endpoint, as on the sync and channel pools.
   */
  @Test
  void asyncCallEndedByTheDeadlineDoesNotCountAgainstItsEndpoint() throws Exception {
    try (StubPeer a = StubPeer.start();
        StubPeer b = StubPeer.start();
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(a.address(), b.address())
                .callDeadline(DEADLINE)
                // one counted failure would eject
                .ejectAfterConsecutiveFailures(1)
                .build()) {
      a.replyGate = new CountDownLatch(1);
      b.replyGate = new CountDownLatch(1);
      try {
        CallDeadlineException e =
            deadlineOf(catchFailure(() -> pool.<Long>call((c, cb) -> c.fired(cb)).get()));
        assertThat(e.inCall()).isTrue();
        // The pool counts the call's end before it destroys the client: wait for the destroy.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pool.stats().invalidated() == 0) {
          assertThat(System.nanoTime() - until).as("client destroyed within 10 s").isNegative();
          Thread.sleep(5); // polling the counter
        }
        assertThat(pool.stats().ejections()).isZero();
      } finally {
        a.replyGate.countDown();
        b.replyGate.countDown();
      }
    }
  }

  interface Failing {
    void run() throws Exception;
  }

  private static Throwable catchFailure(Failing f) {
    try {
      f.run();
    } catch (Throwable t) {
      return t;
    }
    throw new AssertionError("expected a failure");
  }
}
