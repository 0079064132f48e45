package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RetryBudgetInternalsTest {
  private final AtomicLong now = new AtomicLong(-5_000_000_000L); // a negative nanoTime, too

  private RetryBudget budget(double ratio, int minPerSecond) {
    return new RetryBudget(
        RetryBudgetConfig.builder()
            .ratio(ratio)
            .minRetriesPerSecond(minPerSecond)
            .window(Duration.ofSeconds(10))
            .build(),
        now::get);
  }

  private static int withdrawAll(RetryBudget b) {
    int n = 0;
    while (b.tryWithdraw()) {
      n++;
      if (n > 1_000_000) {
        throw new AssertionError("the budget never ran out");
      }
    }
    return n;
  }

  @Test
  void aShareOfCallsPlusTheFloor() {
    RetryBudget b = budget(0.5, 1); // floor: 1/s over 10 s = 10
    for (int i = 0; i < 20; i++) {
      b.deposit();
    }
    assertThat(withdrawAll(b)).isEqualTo(10 + 10);
    assertThat(b.retried()).isEqualTo(20);
    assertThat(b.refused()).isEqualTo(1);
    assertThat(b.describe()).contains("20 of 20 retries").contains("for 20 calls");
  }

  @Test
  void nothingWithoutCallsOrFloor() {
    RetryBudget b = budget(0, 0);
    b.deposit();
    assertThat(b.tryWithdraw()).isFalse();
    assertThat(b.refused()).isEqualTo(1);
    RetryBudget ratioOnly = budget(0.1, 0);
    for (int i = 0; i < 9; i++) {
      ratioOnly.deposit();
    }
    assertThat(ratioOnly.tryWithdraw()).as("0.9 of a retry is none").isFalse();
    ratioOnly.deposit();
    assertThat(ratioOnly.tryWithdraw()).isTrue();
  }

  @Test
  void callsAndRetriesAgeOutOfTheWindowASliceAtATime() {
    RetryBudget b = budget(1, 0);
    for (int i = 0; i < 10; i++) {
      b.deposit();
    }
    now.addAndGet(Duration.ofSeconds(5).toNanos());
    for (int i = 0; i < 10; i++) {
      b.deposit();
    }
    assertThat(withdrawAll(b)).isEqualTo(20);
    // 5.5 s later the first ten calls have left the window; so have no retries (taken at 5 s).
    now.addAndGet(Duration.ofMillis(5_500).toNanos());
    assertThat(b.tryWithdraw()).isFalse();
    // Ten seconds after the retries, they have left with the calls that paid for them.
    now.addAndGet(Duration.ofSeconds(5).toNanos());
    assertThat(withdrawAll(b)).isZero();
    for (int i = 0; i < 3; i++) {
      b.deposit();
    }
    assertThat(withdrawAll(b)).isEqualTo(3);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void noDepositIsLostWhileManyThreadsCrossSliceBoundariesTogether() throws Exception {
    // Deposits take no lock: the slice of a new tick replaces the old one by compare-and-set while
    // other threads add to it. The clock moves a slice every STEP reads and stops nine slices on,
    // so every deposit stays in the window and the count must come out exact.
    int threads = 8;
    int perThread = 20_000;
    long step = threads * (long) perThread / 10; // a boundary every tenth of the deposits
    for (int run = 0; run < 10; run++) {
      AtomicLong reads = new AtomicLong();
      long start = run * 1_000_000_000_000L;
      RetryBudget b =
          new RetryBudget(
              RetryBudgetConfig.builder().window(Duration.ofSeconds(10)).build(),
              () -> start + Math.min(reads.getAndIncrement() / step, 9) * 1_000_000_000L);
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> depositors = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread d =
            new Thread(
                () -> {
                  try {
                    go.await();
                  } catch (InterruptedException e) {
                    return; // the test fails on the count below
                  }
                  for (int i = 0; i < perThread; i++) {
                    b.deposit();
                  }
                });
        d.start();
        depositors.add(d);
      }
      go.countDown();
      for (Thread d : depositors) {
        d.join();
      }
      assertThat(reads.get()).as("the clock crossed every boundary").isGreaterThan(9 * step);
      assertThat(b.describe())
          .as("run %d", run)
          .contains(" for " + ((long) threads * perThread) + " calls ");
    }
  }

  @Test
  void aDepositThatReadTheClockAWindowAgoIsDroppedNotCountedNow() {
    // A depositor reads the clock, loses the processor for a whole window, and finds its slice's
    // place taken by a newer tick: its call is out of the window, and the newer count stays whole.
    long second = 1_000_000_000L;
    long[] clock = {0};
    RetryBudget b =
        new RetryBudget(
            RetryBudgetConfig.builder()
                .ratio(1)
                .minRetriesPerSecond(0)
                .window(Duration.ofSeconds(10))
                .build(),
            () -> clock[0]);
    clock[0] = 13 * second; // tick 13: ring place 3
    b.deposit();
    b.deposit();
    clock[0] = 3 * second; // the late depositor's reading: tick 3, the same place
    b.deposit();
    clock[0] = 13 * second;
    assertThat(b.describe()).contains(" for 2 calls ");
    assertThat(withdrawAll(b)).isEqualTo(2);
  }
}
