package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A scale-up behind a connection balancer: a pool knows one address, a round-robin TCP proxy (as a
 * Kubernetes Service) in front of two servers, and a third server joins behind the proxy while the
 * pool is under load. With {@link PoolBuilder#maxConnectionAge(Duration)} the pool's connections
 * age out and reopen through the proxy, so calls reach the new server within about one age, and no
 * call fails.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ScaleUpRebalancingTest {
  private static final Duration AGE = Duration.ofSeconds(1);
  private static final int CALLERS = 6;

  @Test
  void callsReachANewServerWithinAboutOneAgeWithoutFailures() throws Exception {
    try (StubPeer first = StubPeer.start();
        StubPeer second = StubPeer.start();
        StubPeer third = StubPeer.start();
        RoundRobinProxy proxy = new RoundRobinProxy(List.of(first.address(), second.address()));
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(proxy.address())
                .maxConnectionAge(AGE)
                .build()) {
      AtomicBoolean stop = new AtomicBoolean();
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      List<Thread> callers = new ArrayList<>();
      for (int i = 0; i < CALLERS; i++) {
        Thread t =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    try {
                      pool.<Long>call(c -> c.fired());
                    } catch (Exception e) {
                      failures.add(e);
                    }
                  }
                },
                "scale-up-load-" + i);
        t.start();
        callers.add(t);
      }
      try {
        await("first.handled.get() > 0")
            .atMost(Duration.ofSeconds(5))
            .until(() -> first.handled.get() > 0);
        await("second.handled.get() > 0")
            .atMost(Duration.ofSeconds(5))
            .until(() -> second.handled.get() > 0);

        long added = System.nanoTime();
        proxy.add(third.address());
        // One age (+10% jitter) for the connections to age out, and one for a slow machine.
        await("calls on the third server")
            .atMost(AGE.multipliedBy(2))
            .untilAsserted(
                () ->
                    assertThat(third.handled.get())
                        .as(
                            "calls on the third server %s after it joined: %s",
                            Duration.ofNanos(System.nanoTime() - added), pool.stats())
                        .isPositive());
        // It keeps its share: the old servers' connections moved, not only one.
        await("third.accepted.get() >= 2")
            .atMost(AGE.multipliedBy(3))
            .until(() -> third.accepted.get() >= 2);
      } finally {
        stop.set(true);
        for (Thread t : callers) {
          t.join(10_000);
        }
      }
      assertThat(failures).as("failed calls").isEmpty();
      PoolStats stats = pool.stats();
      assertThat(stats.aged()).as("%s", stats).isPositive();
      assertThat(stats.invalidated()).as("%s", stats).isZero();
      assertThat(first.handled.get() + second.handled.get() + third.handled.get())
          .isEqualTo((int) stats.borrowed());
    }
  }
}
