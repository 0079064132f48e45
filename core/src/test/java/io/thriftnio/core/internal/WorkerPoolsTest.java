package io.thriftnio.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.util.internal.Checks;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WorkerPoolsTest {

  @Test
  void boundedQueueRejectsWhenFullAndThreadsAreNamed() throws Exception {
    ThreadPoolExecutor pool = WorkerPools.newBoundedPool("test-worker", 2, 3);
    CountDownLatch started = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    Set<String> names = ConcurrentHashMap.newKeySet();
    Set<Boolean> daemon = ConcurrentHashMap.newKeySet();
    Runnable blocker =
        () -> {
          names.add(Thread.currentThread().getName());
          daemon.add(Thread.currentThread().isDaemon());
          started.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    try {
      pool.execute(blocker);
      pool.execute(blocker);
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      // Two threads busy: exactly three more fit in the queue, the fourth is refused.
      CountDownLatch queuedRan = new CountDownLatch(3);
      for (int i = 0; i < 3; i++) {
        pool.execute(queuedRan::countDown);
      }
      assertThat(pool.getQueue()).hasSize(3);
      assertThatThrownBy(() -> pool.execute(() -> {}))
          .isInstanceOf(RejectedExecutionException.class);

      release.countDown();
      assertThat(queuedRan.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(names).containsExactlyInAnyOrder("test-worker-1", "test-worker-2");
      assertThat(daemon).containsOnly(true);
      // Once drained, the pool accepts work again.
      CountDownLatch again = new CountDownLatch(1);
      pool.execute(again::countDown);
      assertThat(again.await(5, TimeUnit.SECONDS)).isTrue();
    } finally {
      release.countDown();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(pool.getMaximumPoolSize()).isEqualTo(2);
  }

  @Test
  void checksShareOneMessageForm() {
    assertThat(Checks.positive("n", 1)).isEqualTo(1);
    assertThat(Checks.nonNegative("n", 0)).isZero();
    assertThatThrownBy(() -> Checks.nonNegative("queue", -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("queue: -1 (expected: >= 0)");
    assertThatThrownBy(() -> Checks.notNull("executor", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("executor: null (expected: not null)");
  }
}
