package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The evictor's check of an idle connection holds it off the idle list for a moment; it is not a
 * call: the channel pool's stats and calls in flight do not count it. (A pool with no caller once
 * read {@code active=18} of 28 connections, caught in the middle of an eviction run.)
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IdleCheckStatsTest {
  private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 1);

  @Test
  void idleConnectionsUnderTheEvictorsCheckAreNotActive() throws Exception {
    CountDownLatch validating = new CountDownLatch(1);
    CountDownLatch unblock = new CountDownLatch(1);
    AtomicBoolean blockNext = new AtomicBoolean();
    PoolConfig config =
        PoolConfig.builder()
            .idleConnections(
                IdleConnectionsConfig.builder()
                    .minPerEndpoint(3)
                    .evictionInterval(Duration.ofMillis(10)) // the pool's own upkeep
                    .build())
            .build();
    try (MultiplexedPool pool =
        new MultiplexedPool(
            "test-channels",
            List.of(A),
            config,
            new PoolMetrics() {},
            OpenChannel::new,
            new TBinaryProtocol.Factory(),
            channel -> {
              if (blockNext.compareAndSet(true, false)) {
                validating.countDown();
                try {
                  unblock.await(20, TimeUnit.SECONDS); // the user's check takes a while
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              return true;
            },
            4)) {
      await("the upkeep tops up three idle connections").until(() -> pool.stats().idle() == 3);
      blockNext.set(true); // the next run's check of a connection waits for the test
      try {
        assertThat(validating.await(5, TimeUnit.SECONDS)).isTrue();
        PoolStats during = pool.stats();
        assertThat(during.active()).as("no call is in flight: %s", during).isZero();
        assertThat(during.idle()).as("%s", during).isEqualTo(3);
        assertThat(pool.callsInFlight()).as("calls in flight").isZero();
      } finally {
        unblock.countDown();
      }
      await("the check ends, the connection back on the idle list")
          .until(() -> pool.stats().idle() == 3 && pool.stats().active() == 0);
    }
  }
}
