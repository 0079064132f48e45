package io.thriftnio.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class EveryPowerOfTwoTest {

  @Test
  void picksEachPowerOfTwoExactlyOnceAcrossThreads() throws Exception {
    EveryPowerOfTwo sampler = new EveryPowerOfTwo();
    ConcurrentLinkedQueue<Long> picked = new ConcurrentLinkedQueue<>();
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done =
          List.of(
              threads.submit(() -> record(sampler, picked, go)),
              threads.submit(() -> record(sampler, picked, go)),
              threads.submit(() -> record(sampler, picked, go)),
              threads.submit(() -> record(sampler, picked, go)));
      go.countDown();
      for (Future<?> f : done) {
        f.get(5, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    // 4 x 1000 events: 1, 2, 4 ... 2048, each once.
    assertThat(picked)
        .containsExactlyInAnyOrder(1L, 2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 512L, 1024L, 2048L);
  }

  private static Void record(
      EveryPowerOfTwo sampler, ConcurrentLinkedQueue<Long> picked, CountDownLatch go)
      throws InterruptedException {
    go.await();
    for (int i = 0; i < 1000; i++) {
      long n = sampler.record();
      if (n != 0) {
        picked.add(n);
      }
    }
    return null;
  }
}
