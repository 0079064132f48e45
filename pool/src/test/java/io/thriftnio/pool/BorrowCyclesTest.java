package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** 100,000 borrow/return cycles with injected failures: the books balance, nothing leaks. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class BorrowCyclesTest {
  private static final int THREADS = 4;
  private static final int CYCLES = 100_000;

  @Test
  void hundredThousandCyclesWithInjectedFailuresLeakNothing() throws Exception {
    try (StockServer server =
        StockServer.start(
            StockServer.Kind.THREADED_SELECTOR, new BenchService.Processor<>(new BenchHandler()))) {
      // Warm up first: class loading opens jars, which must not count as leaked descriptors.
      try (ThriftClientPool<BenchService.Client> warmUp =
          ThriftClientPool.builder(BenchService.Client::new).endpoints(server.address()).build()) {
        try (ThriftClientPool.Lease<BenchService.Client> lease = warmUp.lease()) {
          lease.invalidate();
        }
        warmUp.<Long>call(c -> c.fired());
      }
      String before = Fds.describe();
      int fdsBefore = Fds.count();
      CountingTransports transports = new CountingTransports(Duration.ofSeconds(10));
      ThriftClientPool<BenchService.Client> pool =
          ThriftClientPool.builder(BenchService.Client::new)
              .endpoints(server.address())
              .transportFactory(transports)
              .maxPerEndpoint(8)
              .maxIdlePerEndpoint(4)
              .borrowTimeout(Duration.ofSeconds(20))
              .build();
      LongAdder injected = new LongAdder();
      LongAdder calls = new LongAdder();
      Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
      CountDownLatch done = new CountDownLatch(THREADS);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int offset = t;
        Thread thread =
            new Thread(
                () -> {
                  try {
                    for (int i = offset; i < CYCLES; i += THREADS) {
                      cycle(pool, i, injected, calls);
                    }
                  } catch (Throwable e) {
                    errors.add(e);
                  } finally {
                    done.countDown();
                  }
                });
        thread.start();
        threads.add(thread);
      }
      assertThat(done.await(80, TimeUnit.SECONDS)).isTrue();
      assertThat(errors).isEmpty();

      PoolStats stats = pool.stats();
      assertThat(stats.borrowed()).isEqualTo(CYCLES);
      assertThat(stats.active()).isZero();
      // Live connections are exactly what the stats say, by every count.
      assertThat(stats.total()).isEqualTo(transports.open.get());
      assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.total());
      assertThat(stats.invalidated()).isGreaterThanOrEqualTo(injected.sum());
      assertThat(transports.maxOpen.get()).isLessThanOrEqualTo(8);
      assertThat(calls.sum()).isPositive();

      pool.close();
      assertThat(transports.open).hasValue(0);
      assertThat(pool.stats().total()).isZero();
      assertThat(pool.stats().destroyed()).isEqualTo(pool.stats().created());
      // The server (same process) closes its ends when it reads the FINs: then nothing is left.
      await("Fds.count() <= fdsBefore")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(Fds.count() <= fdsBefore)
                      .as(
                          "open descriptors back to %d, now %d:%n%s%n%s",
                          fdsBefore, Fds.count(), before, Fds.describe())
                      .isTrue());
    }
  }

  private static void cycle(
      ThriftClientPool<BenchService.Client> pool, int i, LongAdder injected, LongAdder calls)
      throws Exception {
    try (ThriftClientPool.Lease<BenchService.Client> lease = pool.lease()) {
      if (i % 10 == 0) {
        long fired = lease.call(c -> c.fired());
        assertThat(fired).isZero();
        calls.increment();
      }
      if (i % 97 == 0) {
        injected.increment();
        lease.invalidate();
      } else if (i % 89 == 0) {
        injected.increment();
        try {
          lease.call(
              c -> {
                throw new TTransportException(TTransportException.UNKNOWN, "injected");
              });
        } catch (TTransportException expected) {
          // The lease is spoiled: its connection must be destroyed on close.
        }
      } else if (i % 499 == 0) {
        injected.increment();
        // Broken under the lease holder's feet: close() must see it and not pool it.
        lease.client().getInputProtocol().getTransport().close();
      }
    }
  }
}
