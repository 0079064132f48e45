package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * A deadline given to one call replaces {@link PoolConfig#callDeadline()} for that call only, on
 * every pool, with the same phases and exception; a pool without a deadline honours it too.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PerCallDeadlineTest {
  /** The call's own deadline. */
  private static final Duration PER_CALL = Duration.ofMillis(250);

  /** The pool's deadline, well above the call's: a call that waited this long ignored its own. */
  private static final Duration POOL_DEADLINE = Duration.ofSeconds(3);

  /** One connection, a borrow timeout far beyond every deadline: only a deadline ends a wait. */
  private static PoolConfig config(Duration poolDeadline) {
    return PoolConfig.builder()
        .maxTotal(1)
        .maxPerEndpoint(1)
        .maxIdlePerEndpoint(1)
        .borrowTimeout(Duration.ofSeconds(20))
        .callDeadline(poolDeadline)
        .build();
  }

  private static CallDeadlineException deadlineOf(Throwable t) {
    Throwable f = t instanceof ExecutionException ? t.getCause() : t;
    assertThat(f).isInstanceOf(CallDeadlineException.class);
    return (CallDeadlineException) f;
  }

  /** The call ended at its own deadline, well before the pool's (or the borrow timeout). */
  private static void assertEndedAtOwnDeadline(long startNanos, CallDeadlineException e) {
    long took = System.nanoTime() - startNanos;
    assertThat(Duration.ofNanos(took))
        .isGreaterThanOrEqualTo(PER_CALL.minusMillis(5)) // a timer may fire a hair early
        .isLessThan(POOL_DEADLINE);
    assertThat(e.deadline()).isEqualTo(PER_CALL);
    assertThat(e).hasMessageContaining("call deadline of 250ms passed");
  }

  @Test
  void syncPoolShorterThanThePools() throws Exception {
    syncPool(POOL_DEADLINE);
  }

  @Test
  void syncPoolWithoutADeadline() throws Exception {
    syncPool(Duration.ZERO);
  }

  private static void syncPool(Duration poolDeadline) throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftClientPool.builder(BenchService.Client::new).endpoints(peer.address()),
                    config(poolDeadline))
                .build()) {
      try (ThriftClientPool.Lease<BenchService.Client> held = pool.lease()) {
        long start = System.nanoTime();
        CallDeadlineException e =
            deadlineOf(catchFailure(() -> pool.<Long>call(PER_CALL, c -> c.fired())));
        assertEndedAtOwnDeadline(start, e);
        assertThat(e.inCall()).isFalse();
        assertThat(e.endpoint()).isNull();
        start = System.nanoTime();
        e = deadlineOf(catchFailure(() -> pool.call(PER_CALL, c -> c.fired())));
        assertEndedAtOwnDeadline(start, e);
        assertThat(e.inCall()).isFalse();
      }
      peer.replyGate = new CountDownLatch(1);
      try {
        long start = System.nanoTime();
        CallDeadlineException e =
            deadlineOf(catchFailure(() -> pool.<Long>call(PER_CALL, c -> c.fired())));
        assertEndedAtOwnDeadline(start, e);
        assertThat(e.inCall()).isTrue();
        assertThat(e.endpoint()).isEqualTo(peer.address());
        assertThat(e.getCause()).as("the read the closed connection failed").isNotNull();
      } finally {
        peer.replyGate.countDown();
      }
      assertThat(pool.stats().invalidated()).as("the connection cut short").isEqualTo(1);
      peer.replyGate = null;
      assertThat(pool.<Long>call(PER_CALL.multipliedBy(40), c -> c.fired())).isZero();
      assertThat(pool.<Long>call(c -> c.fired())).as("no deadline left behind").isZero();
    }
  }

  @Test
  void asyncPoolShorterThanThePools() throws Exception {
    asyncPool(POOL_DEADLINE);
  }

  @Test
  void asyncPoolWithoutADeadline() throws Exception {
    asyncPool(Duration.ZERO);
  }

  private static void asyncPool(Duration poolDeadline) throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            PoolSettings.with(
                    ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                        .endpoints(peer.address()),
                    config(poolDeadline))
                .build()) {
      // The one connection open first: the first call below takes it at once, the second waits.
      assertThat(pool.<Long>call((c, cb) -> c.fired(cb)).get(10, TimeUnit.SECONDS)).isZero();
      peer.replyGate = new CountDownLatch(1);
      try {
        long start = System.nanoTime();
        CompletableFuture<Long> first = pool.call(PER_CALL, (c, cb) -> c.fired(cb));
        CompletableFuture<Long> second = pool.call(PER_CALL, (c, cb) -> c.fired(cb));
        CallDeadlineException inCall = deadlineOf(catchFailure(() -> first.get()));
        CallDeadlineException waiting = deadlineOf(catchFailure(() -> second.get()));
        assertEndedAtOwnDeadline(start, inCall);
        assertEndedAtOwnDeadline(start, waiting);
        assertThat(inCall.inCall()).isTrue();
        assertThat(inCall.endpoint()).isEqualTo(peer.address());
        assertThat(waiting.inCall()).isFalse();
        assertThat(waiting).hasMessageContaining("waiting=");
      } finally {
        peer.replyGate.countDown();
      }
      peer.replyGate = null;
      assertThat(
              pool.<Long>call(PER_CALL.multipliedBy(40), (c, cb) -> c.fired(cb))
                  .get(10, TimeUnit.SECONDS))
          .isZero();
      assertThat(pool.<Long>call((c, cb) -> c.fired(cb)).get(10, TimeUnit.SECONDS))
          .as("no deadline left behind")
          .isZero();
    }
  }

  @Test
  void channelPoolShorterThanThePools() throws Exception {
    channelPool(POOL_DEADLINE);
  }

  @Test
  void channelPoolWithoutADeadline() throws Exception {
    channelPool(Duration.ZERO);
  }

  private static void channelPool(Duration poolDeadline) throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftChannelPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(ChannelIo.of(SocketThriftChannel::connect))
                        .endpoints(peer.address()),
                    config(poolDeadline))
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
        // The first call holds the one slot past the second's deadline: with equal deadlines, the
        // first's end would free the slot a hair before the second's, and send it.
        CompletableFuture<Long> first =
            pool.call(
                PER_CALL.multipliedBy(2), c -> c.send_fired(), BenchService.Client::recv_fired);
        CompletableFuture<Long> second =
            pool.call(PER_CALL, c -> c.send_fired(), BenchService.Client::recv_fired);
        CallDeadlineException waiting = deadlineOf(catchFailure(() -> second.get()));
        assertEndedAtOwnDeadline(start, waiting);
        CallDeadlineException inCall = deadlineOf(catchFailure(() -> first.get()));
        assertThat(inCall.deadline()).isEqualTo(PER_CALL.multipliedBy(2));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(POOL_DEADLINE);
        assertThat(inCall.inCall()).isTrue();
        assertThat(inCall.endpoint()).isEqualTo(peer.address());
        assertThat(waiting.inCall()).isFalse();
      } finally {
        peer.replyGate.countDown();
      }
      peer.replyGate = null;
      // The late reply frees the slot; the waiter that gave up was never sent.
      assertThat(
              pool.call(
                      PER_CALL.multipliedBy(40),
                      c -> c.send_fired(),
                      BenchService.Client::recv_fired)
                  .get(10, TimeUnit.SECONDS))
          .isZero();
      assertThat(
              pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)
                  .get(10, TimeUnit.SECONDS))
          .as("no deadline left behind")
          .isZero();
    }
  }

  @Test
  void aDeadlineMustBePositive() throws Exception {
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> sync =
            ThriftClientPool.builder(BenchService.Client::new).endpoints(peer.address()).build();
        ThriftAsyncClientPool<BenchService.AsyncClient> async =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(peer.address())
                .build()) {
      assertThatThrownBy(() -> sync.<Long>call(Duration.ZERO, c -> c.fired()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("deadline: PT0S (expected: > 0)");
      assertThatThrownBy(() -> sync.call(Duration.ofMillis(-1), c -> c.fired()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("deadline: PT-0.001S (expected: > 0)");
      assertThatThrownBy(() -> sync.<Long>call(null, c -> c.fired()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("deadline: null (expected: > 0)");
      assertThatThrownBy(() -> async.<Long>call(Duration.ZERO, (c, cb) -> c.fired(cb)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("deadline: PT0S (expected: > 0)");
      try (ThriftChannelPool<BenchService.Client> channels =
          ThriftChannelPool.builder(BenchService.Client::new)
              .io(ChannelIo.of(SocketThriftChannel::connect))
              .endpoints(peer.address())
              .build()) {
        assertThatThrownBy(
                () ->
                    channels.call(
                        Duration.ZERO, c -> c.send_fired(), BenchService.Client::recv_fired))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("deadline: PT0S (expected: > 0)");
      }
      assertThat(peer.handled.get()).as("nothing sent").isZero();
      // The smallest deadline is accepted: it passes before any reply can come.
      assertThat(
              deadlineOf(catchFailure(() -> sync.<Long>call(Duration.ofNanos(1), c -> c.fired())))
                  .deadline())
          .isEqualTo(Duration.ofNanos(1));
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
