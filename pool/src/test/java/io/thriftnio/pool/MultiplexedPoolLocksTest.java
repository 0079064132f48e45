package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The channel pool keeps each endpoint's books apart and runs no user code under a lock. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MultiplexedPoolLocksTest {
  private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 1);
  private static final InetSocketAddress B = new InetSocketAddress("127.0.0.1", 2);

  @Test
  void aValidatorThatBlocksOnOneEndpointStallsNoCallToAnother() throws Exception {
    CountDownLatch validating = new CountDownLatch(1);
    CountDownLatch unblock = new CountDownLatch(1);
    AtomicBoolean blockNext = new AtomicBoolean();
    PoolConfig config =
        PoolConfig.builder()
            .idleConnections(
                IdleConnectionsConfig.builder()
                    .testOnBorrow(true)
                    .evictionInterval(Duration.ZERO)
                    .build())
            .balancer(Balancer.ROUND_ROBIN) // the endpoints in turn, as the comments below say
            .build();
    try (MultiplexedPool pool =
        new MultiplexedPool(
            "test-channels",
            List.of(A, B),
            config,
            new PoolMetrics() {},
            OpenChannel::new,
            new TBinaryProtocol.Factory(),
            channel -> {
              if (channel.remoteAddress().equals(A) && blockNext.compareAndSet(true, false)) {
                validating.countDown();
                try {
                  unblock.await(20, TimeUnit.SECONDS); // a validator stuck on a slow check
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              return true;
            },
            4)) {
      // One idle connection on each endpoint (round-robin: A, then B).
      pool.send(ByteBuffer.allocate(8)).get(5, TimeUnit.SECONDS);
      pool.send(ByteBuffer.allocate(8)).get(5, TimeUnit.SECONDS);
      blockNext.set(true);
      CompletableFuture<Void> stuck =
          CompletableFuture.runAsync(() -> pool.send(ByteBuffer.allocate(8)).join());
      try {
        assertThat(validating.await(5, TimeUnit.SECONDS)).isTrue();
        // Round-robin sends this one to B; with one lock for every endpoint, it waited for A's
        // validator.
        pool.send(ByteBuffer.allocate(8)).get(5, TimeUnit.SECONDS);
        assertThat(stuck).isNotDone();
      } finally {
        unblock.countDown();
      }
      stuck.get(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void remoteAddressOfAPoolOfSeveralEndpointsNamesThemAll() {
    try (MultiplexedPool one = pool(List.of(A));
        MultiplexedPool two = pool(List.of(A, B))) {
      assertThat(one.remoteAddress()).isEqualTo(A);
      assertThat(two.remoteAddress()).hasToString("one of [127.0.0.1:1, 127.0.0.1:2]");
    }
  }

  @Test
  void theEvictorKeepsMinIdleConnectionsOpenOnEndpointsThatAreUp() {
    // The pool's own upkeep, every 10 ms; each run checks every idle connection (the validator).
    java.util.concurrent.atomic.AtomicInteger checks =
        new java.util.concurrent.atomic.AtomicInteger();
    PoolConfig config =
        PoolConfig.builder()
            .idleConnections(
                IdleConnectionsConfig.builder()
                    .minPerEndpoint(3)
                    .evictionInterval(Duration.ofMillis(10))
                    .build())
            .endpointHealth(
                EndpointHealthConfig.builder() // B stays down for the test's length
                    .backoff(Duration.ofSeconds(20))
                    .maxBackoff(Duration.ofSeconds(20))
                    .build())
            .build();
    try (MultiplexedPool pool =
        new MultiplexedPool(
            "test-channels",
            List.of(A, B),
            config,
            new PoolMetrics() {},
            endpoint -> {
              if (endpoint.equals(B)) {
                throw new java.net.ConnectException("Connection refused");
              }
              return new OpenChannel(endpoint);
            },
            new TBinaryProtocol.Factory(),
            channel -> {
              checks.incrementAndGet();
              return true;
            },
            4)) {
      await("three idle connections on A, B refused once")
          .until(() -> pool.stats().idle() == 3 && pool.stats().connectFailures() == 1);
      int before = checks.get();
      await("three more upkeep runs").until(() -> checks.get() >= before + 3 * 3);
      assertThat(pool.stats().idle()).isEqualTo(3);
      assertThat(pool.stats().connectFailures())
          .as("a down endpoint is left to its probe, not topped up")
          .isEqualTo(1);
    }
  }

  @Test
  void callersWaitingForTheOnlySlotAreAllServedWithoutTimingOut() throws Exception {
    // One connection carrying one call: every other caller waits, and each release must wake one.
    // (A release landing between a caller's look and its wait would leave that caller asleep for
    // its whole borrow timeout; the look and the wait are one step. This load rarely hits that
    // window: it guards the waiting as a whole, not that window alone.)
    PoolConfig config =
        PoolConfig.builder()
            .maxPerEndpoint(1)
            .maxIdlePerEndpoint(1)
            .borrowTimeout(Duration.ofSeconds(20))
            .idleConnections(
                IdleConnectionsConfig.builder().evictionInterval(Duration.ZERO).build())
            .build();
    try (MultiplexedPool pool =
        new MultiplexedPool(
            "test-channels",
            List.of(A),
            config,
            new PoolMetrics() {},
            OpenChannel::new,
            new TBinaryProtocol.Factory(),
            null,
            1)) {
      int callers = 8;
      int calls = 2_000;
      java.util.concurrent.ExecutorService threads =
          java.util.concurrent.Executors.newFixedThreadPool(callers);
      try {
        List<java.util.concurrent.Future<Long>> done = new java.util.ArrayList<>();
        for (int t = 0; t < callers; t++) {
          done.add(
              threads.submit(
                  () -> {
                    long slowest = 0;
                    for (int i = 0; i < calls; i++) {
                      long start = System.nanoTime();
                      pool.send(ByteBuffer.allocate(8)).get(30, TimeUnit.SECONDS);
                      slowest = Math.max(slowest, System.nanoTime() - start);
                    }
                    return slowest;
                  }));
        }
        long slowest = 0;
        for (java.util.concurrent.Future<Long> f : done) {
          slowest = Math.max(slowest, f.get(60, TimeUnit.SECONDS));
        }
        // A lost wake-up costs a waiter its whole borrow timeout (20 s); a call here takes far
        // less.
        assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofSeconds(10));
        assertThat(pool.stats().timeouts()).isZero();
      } finally {
        threads.shutdownNow();
      }
    }
  }

  private static MultiplexedPool pool(List<InetSocketAddress> endpoints) {
    return new MultiplexedPool(
        "test-channels",
        endpoints,
        PoolConfig.builder()
            .idleConnections(
                IdleConnectionsConfig.builder().evictionInterval(Duration.ZERO).build())
            .build(),
        new PoolMetrics() {},
        OpenChannel::new,
        new TBinaryProtocol.Factory(),
        null,
        4);
  }

  /**
   * A channel from the user's factory whose own checks ({@code isOpen()}, {@code abandonedCalls()})
   * read the pool's stats on another thread once armed, as a channel with listeners or logging of
   * its own might: that read takes each endpoint's lock.
   */
  private static final class ChannelThatReadsThePool implements ThriftChannel {
    private final OpenChannel channel;
    private final java.util.concurrent.atomic.AtomicReference<MultiplexedPool> pool;
    private final AtomicBoolean armed;
    private final List<String> heldLocks;
    private final java.util.concurrent.ExecutorService reader;

    ChannelThatReadsThePool(
        InetSocketAddress endpoint,
        java.util.concurrent.atomic.AtomicReference<MultiplexedPool> pool,
        AtomicBoolean armed,
        List<String> heldLocks,
        java.util.concurrent.ExecutorService reader) {
      this.channel = new OpenChannel(endpoint);
      this.pool = pool;
      this.armed = armed;
      this.heldLocks = heldLocks;
      this.reader = reader;
    }

    private void readThePool(String check) {
      if (!armed.get()) {
        return;
      }
      try {
        // On a thread of the test's own: the common pool is shared with the tests that follow.
        CompletableFuture.supplyAsync(() -> pool.get().stats(), reader).get(2, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        heldLocks.add(check + " ran while the pool held a lock that its stats need");
      } catch (Exception e) {
        heldLocks.add(check + ": " + e);
      }
    }

    @Override
    public boolean isOpen() {
      readThePool("isOpen()");
      return channel.isOpen();
    }

    @Override
    public int abandonedCalls() {
      readThePool("abandonedCalls()");
      return 0;
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
      return channel.exchange(request);
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
      return channel.exchange(request, timeout);
    }

    @Override
    public CompletableFuture<Void> send(ByteBuffer request) {
      return channel.send(request);
    }

    @Override
    public int callsInFlight() {
      return 0;
    }

    @Override
    public java.net.SocketAddress remoteAddress() {
      return channel.remoteAddress();
    }

    @Override
    public void close() {
      channel.close();
    }
  }

  @Test
  void aChannelsOwnChecksRunOutsideThePoolsLocks() throws Exception {
    java.util.concurrent.atomic.AtomicReference<MultiplexedPool> ref =
        new java.util.concurrent.atomic.AtomicReference<>();
    AtomicBoolean armed = new AtomicBoolean();
    List<String> heldLocks = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.ExecutorService reader =
        java.util.concurrent.Executors.newCachedThreadPool();
    PoolConfig config =
        PoolConfig.builder()
            .idleConnections(
                IdleConnectionsConfig.builder().evictionInterval(Duration.ZERO).build())
            .build();
    try (MultiplexedPool pool =
        new MultiplexedPool(
            "test-channels",
            List.of(A),
            config,
            new PoolMetrics() {},
            endpoint -> new ChannelThatReadsThePool(endpoint, ref, armed, heldLocks, reader),
            new TBinaryProtocol.Factory(),
            null,
            4)) {
      ref.set(pool);
      pool.send(ByteBuffer.allocate(8)).get(5, TimeUnit.SECONDS); // opens the connection
      armed.set(true);
      // Borrows the open connection (its checks decide whether it may take the call) and
      // releases it.
      pool.send(ByteBuffer.allocate(8)).get(10, TimeUnit.SECONDS);
      pool.send(ByteBuffer.allocate(8)).get(10, TimeUnit.SECONDS);
      armed.set(false);
      assertThat(heldLocks).isEmpty();
    } finally {
      reader.shutdownNow();
      assertThat(reader.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
