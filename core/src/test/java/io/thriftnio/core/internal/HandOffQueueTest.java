package io.thriftnio.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The worker pools' queue: fewer wake-ups, the same guarantees (issue 41). */
@Timeout(20)
class HandOffQueueTest {

  /** The pool's threads, once every one of them is parked waiting for a task. */
  private static List<Thread> parkedWorkers(String prefix, int threads) {
    List<Thread> found = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              found.clear();
              for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith(prefix + "-")) {
                  found.add(t);
                }
              }
              return found.size() == threads
                  && found.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING);
            });
    return found;
  }

  @Test
  void callsOneAfterAnotherRunOnTheWorkerThatParkedLast() throws Exception {
    // An ArrayBlockingQueue wakes the worker that has waited longest: one call after another went
    // round all the threads (4 here), each a cold stack. The worker that parked last is woken.
    ThreadPoolExecutor pool = WorkerPools.newBoundedPool("handoff-lifo", 4, 16);
    try {
      pool.prestartAllCoreThreads();
      Set<String> ranOn = new LinkedHashSet<>();
      for (int i = 0; i < 8; i++) {
        parkedWorkers("handoff-lifo", 4);
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(
            () -> {
              ranOn.add(Thread.currentThread().getName());
              ran.countDown();
            });
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(ranOn).as("threads that ran 8 calls made one after another").hasSize(1);
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void tasksOfferedTogetherEachGetAWorkerAtOnce() throws Exception {
    // Fewer wake-ups must not serialize: each of 6 tasks offered in one go blocks until all 6 run
    // at the same time, which they can only do on 6 workers.
    int n = 6;
    ThreadPoolExecutor pool = WorkerPools.newBoundedPool("handoff-wide", n, 16);
    try {
      pool.prestartAllCoreThreads();
      parkedWorkers("handoff-wide", n);
      CyclicBarrier allRunning = new CyclicBarrier(n);
      CountDownLatch done = new CountDownLatch(n);
      for (int i = 0; i < n; i++) {
        pool.execute(
            () -> {
              try {
                allRunning.await(10, TimeUnit.SECONDS);
                done.countDown();
              } catch (Exception e) {
                Thread.currentThread().interrupt();
              }
            });
      }
      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aTaskBehindABlockedOneRunsOnAnotherWorker() throws Exception {
    // A worker that took a task and left another behind, or the offer itself, wakes a second
    // worker: the task behind a handler that blocks does not wait for it.
    ThreadPoolExecutor pool = WorkerPools.newBoundedPool("handoff-block", 2, 16);
    CountDownLatch release = new CountDownLatch(1);
    try {
      pool.prestartAllCoreThreads();
      parkedWorkers("handoff-block", 2);
      CountDownLatch blocked = new CountDownLatch(1);
      CountDownLatch second = new CountDownLatch(1);
      pool.execute(
          () -> {
            blocked.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      pool.execute(second::countDown);
      assertThat(second.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(blocked.await(5, TimeUnit.SECONDS)).isTrue();
    } finally {
      release.countDown();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void manyProducersAndWorkersLoseNoTask() throws Exception {
    ThreadPoolExecutor pool = WorkerPools.newBoundedPool("handoff-many", 8, 100_000);
    int producers = 4;
    int perProducer = 20_000;
    Set<Integer> ran = ConcurrentHashMap.newKeySet();
    CountDownLatch done = new CountDownLatch(producers * perProducer);
    try {
      List<Thread> threads = new ArrayList<>();
      for (int p = 0; p < producers; p++) {
        int base = p * perProducer;
        Thread t =
            new Thread(
                () -> {
                  for (int i = 0; i < perProducer; i++) {
                    int id = base + i;
                    pool.execute(
                        () -> {
                          ran.add(id);
                          done.countDown();
                        });
                  }
                });
        t.start();
        threads.add(t);
      }
      for (Thread t : threads) {
        t.join();
      }
      assertThat(done.await(15, TimeUnit.SECONDS)).isTrue();
      assertThat(ran).hasSize(producers * perProducer);
      assertThat(pool.getQueue()).isEmpty();
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void shutdownNowReturnsTheTasksNotRunAndIdleWorkersTimeOut() throws Exception {
    ThreadPoolExecutor pool = WorkerPools.newBoundedPool("handoff-stop", 1, 8);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    pool.execute(
        () -> {
          started.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    Runnable a = () -> {};
    Runnable b = () -> {};
    pool.execute(a);
    pool.execute(b);
    assertThat(pool.getQueue()).containsExactly(a, b);
    assertThat(pool.remove(a)).isTrue();
    assertThat(pool.shutdownNow()).containsExactly(b);
    assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();

    ThreadPoolExecutor idle = WorkerPools.newBoundedPool("handoff-idle", 2, 8);
    idle.setKeepAliveTime(50, TimeUnit.MILLISECONDS);
    idle.prestartAllCoreThreads();
    await().atMost(Duration.ofSeconds(10)).until(() -> idle.getPoolSize() == 0);
    idle.shutdown();
    assertThat(idle.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }
}
