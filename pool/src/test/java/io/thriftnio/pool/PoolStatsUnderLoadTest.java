package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gauges of {@link ThriftClientPool#stats()} read while many threads borrow and return: a
 * monitoring system must never see more connections than the pool may hold, nor gauges that do not
 * add up.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PoolStatsUnderLoadTest {
  private static final int MAX = 8;
  private static final int BORROWERS = 16;
  private static final int SAMPLES = 50_000;
  // Also a bound on sampling time: 16 borrowers on a 2-core machine slow every sample down. The
  // drift this guards against showed within the first 0.4 s.
  private static final long SAMPLING_NANOS = TimeUnit.SECONDS.toNanos(3);

  @Test
  void totalNeverExceedsTheMaximumAndTheGaugesAddUp() throws Exception {
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(server.address())
                .maxPerEndpoint(MAX)
                .maxIdlePerEndpoint(MAX)
                .borrowTimeout(Duration.ofSeconds(30))
                .build()) {
      AtomicBoolean stop = new AtomicBoolean();
      Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
      List<Thread> borrowers = new ArrayList<>();
      for (int i = 0; i < BORROWERS; i++) {
        Thread t =
            new Thread(
                () -> {
                  try {
                    while (!stop.get()) {
                      try (ThriftClientPool.Lease<BenchService.Client> lease = pool.lease()) {
                        Thread.onSpinWait(); // held briefly, so that active and idle both move
                      }
                    }
                  } catch (Throwable e) {
                    errors.add(e);
                  }
                },
                "stats-borrower-" + i);
        t.start();
        borrowers.add(t);
      }
      List<PoolStats> wrong = new ArrayList<>();
      long busySamples = 0;
      try {
        long deadline = System.nanoTime() + SAMPLING_NANOS;
        for (int i = 0; i < SAMPLES && wrong.size() < 10 && System.nanoTime() < deadline; i++) {
          PoolStats s = pool.stats();
          if (s.total() > MAX
              || s.active() < 0
              || s.idle() < 0
              || s.active() + s.idle() != s.total()) {
            wrong.add(s);
          }
          if (s.active() > 0 && s.idle() > 0) {
            busySamples++;
          }
        }
      } finally {
        stop.set(true);
        for (Thread t : borrowers) {
          t.join(TimeUnit.SECONDS.toMillis(30));
        }
      }
      assertThat(errors).isEmpty();
      assertThat(wrong)
          .as("samples with total above %d or gauges that do not add up", MAX)
          .isEmpty();
      // The check above means something only if connections were both lent and idle meanwhile.
      assertThat(busySamples).as("samples with connections both active and idle").isPositive();
      PoolStats quiet = pool.stats();
      assertThat(quiet.active()).isZero();
      assertThat(quiet.total())
          .isEqualTo(quiet.created() - quiet.destroyed())
          .isLessThanOrEqualTo(MAX);
    }
  }
}
