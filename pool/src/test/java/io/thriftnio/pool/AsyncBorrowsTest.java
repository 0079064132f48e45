package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The async pools' queue of waiting calls under overload: calls that time out leave the {@code
 * waiting} count and the {@code borrowQueueCapacity} bound, and leave nothing behind in the queue.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AsyncBorrowsTest {
  private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 1001);
  private static final Duration BORROW_TIMEOUT = Duration.ofMillis(300);

  /** A pool with connections only when the test frees one; never connects. */
  private final class Pool implements AsyncBorrows.Source<String> {
    final LinkedBlockingQueue<String> free = new LinkedBlockingQueue<>();
    final LongAdder timeouts = new LongAdder();

    @Override
    public String tryNow(
        InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen) {
      return free.poll();
    }

    @Override
    public String borrow(InetSocketAddress preferred) throws PoolTimeoutException {
      String c;
      try {
        c = free.poll(BORROW_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // close() stops the connectors
        c = null;
      }
      if (c == null) {
        throw new PoolTimeoutException(A, BORROW_TIMEOUT, stats());
      }
      return c;
    }

    @Override
    public void giveBack(String borrowed) {
      free.add(borrowed);
    }

    @Override
    public PoolStats stats() {
      int waiting = borrows == null ? 0 : borrows.waiting();
      return new PoolStats(1, 1, 0, waiting, 0, 0, 0, 0, timeouts.sum(), 0, 0, 0, 0, 0);
    }

    @Override
    public InetSocketAddress soleEndpoint() {
      return A;
    }

    @Override
    public PoolException closedException() {
      return new PoolException("the test pool is closed", null);
    }

    @Override
    public void timedOut() {
      timeouts.increment();
    }

    @Override
    public void callStarted() {}
  }

  private final Pool pool = new Pool();
  private AsyncBorrows<String> borrows;

  private AsyncBorrows<String> borrows(int borrowQueueCapacity) {
    return borrows(borrowQueueCapacity, BORROW_TIMEOUT);
  }

  private AsyncBorrows<String> borrows(int borrowQueueCapacity, Duration borrowTimeout) {
    borrows =
        new AsyncBorrows<>(
            "test-pool",
            PoolConfig.builder()
                .borrowQueueCapacity(borrowQueueCapacity)
                .borrowTimeout(borrowTimeout)
                .build(),
            PoolMetrics.NONE,
            pool);
    return borrows;
  }

  @AfterEach
  void close() {
    if (borrows != null) {
      borrows.close();
    }
  }

  private List<CompletableFuture<String>> wait(int n) {
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      calls.add(borrows.later(new AsyncBorrows.Choice()));
    }
    return calls;
  }

  private static Throwable failure(CompletableFuture<String> call) {
    try {
      call.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause();
    }
  }

  @Test
  void callsThatTimedOutFreeTheirPlacesInTheBound() {
    borrows(50);
    List<CompletableFuture<String>> first = wait(50);
    assertThat(borrows.waiting()).isEqualTo(50);
    assertThat(failure(borrows.later(new AsyncBorrows.Choice())))
        .isInstanceOf(PoolException.class)
        .hasMessageContaining("the queue is full at borrowQueueCapacity=50");
    for (CompletableFuture<String> call : first) {
      assertThat(failure(call)).isInstanceOf(PoolTimeoutException.class);
    }
    assertThat(pool.timeouts.sum()).isEqualTo(50);
    // A connector may still be inside its borrow for a call that timed out; it leaves by then.
    await("borrows.waiting() == 0")
        .untilAsserted(
            () -> assertThat(borrows.waiting() == 0).as("waiting: %d", borrows.waiting()).isTrue());
    List<CompletableFuture<String>> second = wait(50);
    assertThat(second).noneMatch(CompletableFuture::isDone);
    assertThat(failure(borrows.later(new AsyncBorrows.Choice())))
        .hasMessageContaining("the queue is full at borrowQueueCapacity=50");
    pool.free.add("connection");
    borrows.dispatch();
    await("second.stream().anyMatch(f -> f.isDone() && !f.isCompletedExceptionally())")
        .untilAsserted(
            () ->
                assertThat(
                        second.stream().anyMatch(f -> f.isDone() && !f.isCompletedExceptionally()))
                    .as("a freed connection goes to a waiting call")
                    .isTrue());
  }

  /**
   * A call served by a connector counts as waiting no more once its future completes: the
   * completion can run the whole call before the connector's thread goes on, and a caller whose
   * next call then found the connector's claim still counted was refused by a full queue.
   */
  @Test
  void aCallServedByAConnectorNoLongerCountsAsWaitingWhenItHears() {
    borrows(1, Duration.ofSeconds(30));
    CompletableFuture<String> call = borrows.later(new AsyncBorrows.Choice());
    CompletableFuture<Integer> waitingWhenServed =
        call.thenApply(connection -> borrows.waiting()); // runs on the connector, inside complete
    assertThat(borrows.waiting()).isEqualTo(1);
    pool.free.add("connection"); // nobody dispatches again: the connector's borrow takes it
    assertThat(call.join()).isEqualTo("connection");
    assertThat(waitingWhenServed.join()).isZero();
  }

  @Test
  void tenThousandCallsTimingOutTogetherLeaveNothingBehind() {
    borrows(10_000);
    List<CompletableFuture<String>> calls = wait(10_000);
    assertThat(borrows.waiting()).isEqualTo(10_000);
    for (CompletableFuture<String> call : calls) {
      assertThat(failure(call)).isInstanceOf(PoolTimeoutException.class);
    }
    assertThat(pool.timeouts.sum()).isEqualTo(10_000);
    await("borrows.waiting() == 0")
        .untilAsserted(
            () -> assertThat(borrows.waiting() == 0).as("waiting: %d", borrows.waiting()).isTrue());
    CompletableFuture<String> next = borrows.later(new AsyncBorrows.Choice());
    pool.free.add("connection");
    borrows.dispatch();
    assertThat(next.join()).isEqualTo("connection");
    assertThat(borrows.waiting()).isZero();
  }

  @Test
  void servedAndTimedOutCallsAreEachCountedOnce() {
    borrows(1_000);
    List<CompletableFuture<String>> calls = wait(1_000);
    for (int i = 0; i < 300; i++) {
      pool.free.add("connection-" + i);
    }
    borrows.dispatch();
    long served = 0;
    long timedOut = 0;
    for (CompletableFuture<String> call : calls) {
      Throwable f = failure(call);
      if (f == null) {
        served++;
      } else {
        assertThat(f).isInstanceOf(PoolTimeoutException.class);
        timedOut++;
      }
    }
    assertThat(served).isEqualTo(300);
    assertThat(timedOut).isEqualTo(700);
    assertThat(pool.timeouts.sum()).isEqualTo(700);
    await("borrows.waiting() == 0")
        .untilAsserted(
            () -> assertThat(borrows.waiting() == 0).as("waiting: %d", borrows.waiting()).isTrue());
  }
}
