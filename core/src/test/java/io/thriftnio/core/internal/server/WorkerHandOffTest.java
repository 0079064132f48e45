package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hand-over of an IO thread's pass to the worker pool: short calls share a wake-up, long ones
 * go alone, a call that runs long does not hold the calls behind it, and a refusal or a throwing
 * call loses no call.
 */
@Timeout(20)
class WorkerHandOffTest {

  private static final Duration TICK = Duration.ofMillis(5);
  private static final Duration BUDGET = Duration.ofNanos(50_000);

  private final ExecutorService threads = Executors.newFixedThreadPool(4);
  private final AtomicInteger tasks = new AtomicInteger();
  private final List<Runnable> refused = new CopyOnWriteArrayList<>();
  private final List<Runnable> pass = new ArrayList<>();

  /** The pool, counting the tasks it is handed. */
  private final WorkerHandOff handOff =
      new WorkerHandOff(
          task -> {
            tasks.incrementAndGet();
            threads.execute(task);
          },
          4,
          (call, e) -> refused.add(call),
          TICK,
          BUDGET);

  @AfterEach
  void stop() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aChunkCarriesAboutTheBudgetOfWork() {
    long budget = BUDGET.toNanos();
    assertThat(WorkerHandOff.chunkSize(0, budget)).as("nothing measured yet").isEqualTo(64);
    assertThat(WorkerHandOff.chunkSize(1_000, budget)).as("1 us calls").isEqualTo(50);
    assertThat(WorkerHandOff.chunkSize(100, budget)).as("at most").isEqualTo(64);
    assertThat(WorkerHandOff.chunkSize(20_000, budget)).as("20 us calls").isEqualTo(2);
    assertThat(WorkerHandOff.chunkSize(30_000, budget)).as("over half the budget").isEqualTo(1);
    assertThat(WorkerHandOff.chunkSize(5_000_000, budget)).as("5 ms calls").isEqualTo(1);
  }

  @Test
  void shortCallsOfOnePassShareOneHandOver() throws InterruptedException {
    CountDownLatch ran = new CountDownLatch(5);
    for (int i = 0; i < 5; i++) {
      handOff.add(ran::countDown, pass::add);
    }
    assertThat(tasks).as("nothing handed over during the pass").hasValue(0);
    endPass();
    assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(tasks).as("one task for the pass's five calls").hasValue(1);
  }

  @Test
  void whileEveryWorkerIsSpokenForEachCallGoesAloneForTheQueueToCount()
      throws InterruptedException {
    // Found by AdversarialSuite.aSaturatedWorkerPoolAnswersOverloadedAndQueuesNoMore: a chunk
    // waiting in the queue held several calls in one of its places, and 7 calls ran on 2 workers
    // with 4 places.
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocked = new CountDownLatch(4);
    for (int i = 0; i < 4; i++) {
      handOff.toPool(
          () -> {
            blocked.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    assertThat(blocked.await(5, TimeUnit.SECONDS)).as("the four workers are busy").isTrue();
    CountDownLatch ran = new CountDownLatch(6);
    for (int i = 0; i < 3; i++) {
      handOff.add(ran::countDown, pass::add);
    }
    endPass();
    assertThat(tasks).as("a task per call while every worker is busy").hasValue(4 + 3);
    release.countDown();
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(ran.getCount()).isEqualTo(3));
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(((ThreadPoolExecutor) threads).getActiveCount()).isZero());
    for (int i = 0; i < 3; i++) {
      handOff.add(ran::countDown, pass::add);
    }
    endPass();
    assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(tasks).as("then one task for the pass").hasValue(4 + 3 + 1);
  }

  @Test
  void theCallsOfATaskThatNeverRanAreGivenBack() {
    List<Runnable> queued = new ArrayList<>();
    WorkerHandOff stopped =
        new WorkerHandOff(queued::add, 4, (call, e) -> refused.add(call), TICK, BUDGET);
    List<Runnable> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Runnable call = () -> {};
      calls.add(call);
      stopped.add(call, pass::add);
    }
    endPass();
    Runnable alone = () -> {};
    stopped.toPool(alone);
    assertThat(queued).hasSize(2);
    assertThat(WorkerHandOff.callsIn(queued.get(0))).containsExactlyElementsOf(calls);
    assertThat(WorkerHandOff.callsIn(queued.get(1))).containsExactly(alone);
    Runnable notOurs = () -> {};
    assertThat(WorkerHandOff.callsIn(notOurs)).containsExactly(notOurs);
  }

  @Test
  void longCallsStopSharingAHandOver() throws InterruptedException {
    for (int i = 0; i < 64; i++) {
      handOff.ran(TimeUnit.MILLISECONDS.toNanos(5));
    }
    assertThat(handOff.batching()).isFalse();
    for (int i = 0; i < 64; i++) {
      handOff.ran(1_000);
    }
    assertThat(handOff.batching()).as("64 short calls after 64 of 5 ms").isFalse();
    for (int i = 0; i < 64; i++) {
      handOff.ran(1_000);
    }
    assertThat(handOff.batching()).as("128 short calls after them").isTrue();
  }

  @Test
  void aCallThatRunsLongDoesNotHoldTheCallsBehindIt() throws InterruptedException {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch behind = new CountDownLatch(3);
    List<Thread> ranOn = new CopyOnWriteArrayList<>();
    handOff.add(
        () -> {
          ranOn.add(Thread.currentThread());
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        pass::add);
    for (int i = 0; i < 3; i++) {
      handOff.add(
          () -> {
            ranOn.add(Thread.currentThread());
            behind.countDown();
          },
          pass::add);
    }
    endPass();
    try {
      assertThat(behind.await(5, TimeUnit.SECONDS))
          .as("the calls behind a blocked one ran while it was blocked")
          .isTrue();
      assertThat(ranOn.subList(1, 4)).doesNotContain(ranOn.get(0));
      assertThat(tasks).as("the chunk, then each call left in it").hasValue(4);
    } finally {
      release.countDown();
    }
  }

  @Test
  void aRefusedChunkAnswersEachOfItsCalls() {
    WorkerHandOff full =
        new WorkerHandOff(
            task -> {
              throw new RejectedExecutionException("full");
            },
            4,
            (call, e) -> refused.add(call),
            TICK,
            BUDGET);
    List<Runnable> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Runnable call = () -> {};
      calls.add(call);
      full.add(call, pass::add);
    }
    endPass();
    assertThat(refused).containsExactlyElementsOf(calls);
  }

  @Test
  void aCallThatThrowsLosesNoCallBehindIt() {
    AtomicInteger ran = new AtomicInteger();
    handOff.add(
        () -> {
          throw new IllegalStateException("a bug in a call");
        },
        pass::add);
    for (int i = 0; i < 3; i++) {
      handOff.add(ran::incrementAndGet, pass::add);
    }
    endPass();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ran).hasValue(3));
  }

  /** Runs what the hand-off asked to run after the pass, as the IO thread would. */
  private void endPass() {
    assertThat(pass).as("one task per pass").hasSize(1);
    Runnable task = pass.remove(0);
    task.run();
  }
}
