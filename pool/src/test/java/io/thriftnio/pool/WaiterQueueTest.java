package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The async pools' waiter queue: a waiter that times out stops counting at once (for {@code
 * waiting} and the {@code borrowQueueCapacity} bound) without being searched for, and its entry
 * goes without a scan.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WaiterQueueTest {

  private static final class W extends WaiterQueue.Waiter {
    final int id;

    W(int id) {
      this.id = id;
    }
  }

  private final WaiterQueue<W> queue = new WaiterQueue<>();

  private List<W> add(int n, int max) {
    List<W> added = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      W w = new W(i);
      assertThat(queue.add(w, max, x -> {})).as("waiter %d of max %d", i, max).isTrue();
      added.add(w);
    }
    return added;
  }

  /** What a timer does when {@code w} times out. */
  private void timeOut(W w) {
    assertThat(w.settle()).isTrue();
    queue.settled(w);
  }

  @Test
  void theBoundCountsTheWaitersQueuedAndThoseWaitingElsewhere() {
    add(10, 10);
    assertThat(queue.add(new W(10), 10, x -> {})).as("max+1").isFalse();
    assertThat(queue.live()).isEqualTo(10);
    W first = queue.take(); // taken by a connector: it still waits
    assertThat(first.id).isZero();
    assertThat(queue.waiting()).isEqualTo(10);
    assertThat(queue.add(new W(11), 10, x -> {})).as("still 10 waiting").isFalse();
    assertThat(first.settle()).isTrue();
    queue.settled(first); // the connector served it, before its future completes
    assertThat(queue.waiting()).isEqualTo(9);
    assertThat(queue.add(new W(12), 10, x -> {})).as("the connector served it").isTrue();
    queue.settled(first); // settling twice counts once
    assertThat(queue.waiting()).isEqualTo(10);
  }

  /**
   * Weak references to {@code ws}, which the caller then drops: what the queue still holds of them
   * shows as references the collector cannot clear ({@link #heldAfterCollection}).
   */
  private static List<WeakReference<W>> watch(List<W> ws) {
    List<WeakReference<W>> refs = new ArrayList<>();
    for (W w : ws) {
      refs.add(new WeakReference<>(w));
    }
    return refs;
  }

  /**
   * Waits until at most {@code max} of {@code refs} are still reachable (held by the queue), asking
   * the collector to run between looks; fails when more stay held.
   */
  private static void heldAfterCollection(List<WeakReference<W>> refs, int max, String what) {
    await(what + ": at most " + max + " of " + refs.size() + " waiters held by the queue")
        .until(
            () -> {
              System.gc();
              return refs.stream().filter(r -> r.get() != null).count() <= max;
            });
  }

  @Test
  void aWaiterThatTimesOutStopsCountingAtOnceAndFreesItsPlace() {
    List<W> ws = add(10, 10);
    List<WeakReference<W>> timedOut = watch(List.of(ws.get(4)));
    timeOut(ws.get(4)); // not at the head: its entry stays as a tombstone, skipped
    ws = null; // the test keeps no waiter: only the queue may
    assertThat(queue.live()).isEqualTo(9);
    assertThat(queue.add(new W(10), 10, x -> {})).as("its place is free").isTrue();
    assertThat(queue.add(new W(11), 10, x -> {})).isFalse();
    List<Integer> polled = new ArrayList<>();
    for (W w; (w = queue.poll()) != null; ) {
      polled.add(w.id);
    }
    assertThat(polled).containsExactly(0, 1, 2, 3, 5, 6, 7, 8, 9, 10);
    assertThat(queue.live()).isZero();
    heldAfterCollection(timedOut, 0, "the queue drained");
  }

  @Test
  void waitersTimingOutInArrivalOrderLeaveFromTheHeadWithNothingLeftBehind() {
    List<W> ws = add(10_000, 10_000);
    List<WeakReference<W>> firstHalf = watch(ws.subList(0, 5_000));
    for (W w : ws.subList(0, 5_000)) {
      timeOut(w);
    }
    List<W> rest = new ArrayList<>(ws.subList(5_000, 10_000));
    ws = null;
    heldAfterCollection(firstHalf, 0, "the first half timed out at the head");
    assertThat(queue.live()).isEqualTo(5_000);
    for (W w : rest) {
      timeOut(w);
    }
    List<WeakReference<W>> secondHalf = watch(rest);
    rest = null;
    heldAfterCollection(secondHalf, 0, "all timed out");
    assertThat(queue.live()).isZero();
    assertThat(queue.peek()).isNull();
    assertThat(queue.poll()).isNull();
  }

  @Test
  void waitersTimingOutBehindALiveHeadAreCompactedAwayNotKeptForever() {
    List<W> ws = add(1_000, 1_000);
    W oldest = ws.get(0);
    for (int i = ws.size() - 1; i >= 1; i--) { // newest first, the oldest stays
      timeOut(ws.get(i));
    }
    List<WeakReference<W>> timedOut = watch(ws.subList(1, ws.size()));
    ws = null;
    // Tombstones beyond twice the live waiters and a slack of 16 are compacted away.
    heldAfterCollection(timedOut, 2 * 1 + 16, "999 timed out behind a live head");
    assertThat(queue.live()).isEqualTo(1);
    assertThat(queue.peek()).isSameAs(oldest);
    assertThat(queue.poll()).isSameAs(oldest);
    heldAfterCollection(timedOut, 0, "the head polled");
  }

  @Test
  void aWaiterSettledBetweenItsTimerAndTheQueueIsCountedOnce() {
    // The timer has settled the head but not yet told the queue when a dispatcher polls.
    List<W> ws = add(3, 3);
    assertThat(ws.get(0).settle()).isTrue();
    assertThat(queue.peek()).as("skipped").isSameAs(ws.get(1));
    assertThat(queue.live()).isEqualTo(2);
    queue.settled(ws.get(0)); // the timer catches up: nothing more to count
    assertThat(queue.live()).isEqualTo(2);
    assertThat(queue.poll()).isSameAs(ws.get(1));
    assertThat(queue.live()).isEqualTo(1);
  }

  @Test
  void closeHandsBackTheWaitersStillWaitingAndRefusesMore() {
    List<W> ws = add(4, 10);
    timeOut(ws.get(2));
    assertThat(queue.close()).containsExactly(ws.get(0), ws.get(1), ws.get(3));
    assertThat(queue.live()).isZero();
    assertThat(queue.add(new W(9), 10, x -> {})).isFalse();
  }
}
