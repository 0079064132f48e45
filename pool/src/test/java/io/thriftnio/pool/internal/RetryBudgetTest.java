package io.thriftnio.pool.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.pool.PoolConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {
  private final AtomicLong now = new AtomicLong(-5_000_000_000L); // a negative nanoTime, too

  private RetryBudget budget(double ratio, int minPerSecond) {
    return new RetryBudget(
        PoolConfig.builder()
            .retryBudgetRatio(ratio)
            .minRetriesPerSecond(minPerSecond)
            .retryBudgetWindow(Duration.ofSeconds(10))
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
}
