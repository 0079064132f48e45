package io.thriftnio.pool;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The arrival-order queue of an async pool's waiting calls ({@link AsyncBorrows}), bounded by the
 * calls that wait ({@link io.thriftnio.pool.PoolConfig#borrowQueueCapacity()}).
 *
 * <p>A waiter may settle while it is queued (it timed out): then it leaves the count at once
 * ({@link #settled}) but stays in the deque as a tombstone until it reaches the head, where it is
 * dropped; removing it from the middle would scan the deque, up to {@code borrowQueueCapacity}
 * entries per timeout under the lock. {@link #poll()} and {@link #peek()} skip tombstones. When
 * tombstones outnumber the live waiters (only when waiters settle out of arrival order) the deque
 * is compacted once, a cost paid for by the tombstones it drops, so the deque never holds more than
 * about twice the live waiters.
 *
 * <p>A waiter a connector takes off the queue ({@link #take()}) still waits until it settles: it
 * counts among the calls waiting, against the bound, until whoever settles it says so ({@link
 * #settled}), which happens before its future completes, so its caller's next call never finds the
 * place still taken.
 *
 * <p>Thread-safe: every method holds the queue's private lock; {@link #add} runs the caller's own
 * step for the new waiter (schedule its timer) under it, so that waiters' timers are scheduled in
 * arrival order. Nothing of a user's runs under it.
 */
final class WaiterQueue<W extends WaiterQueue.Waiter> {

  /** Tombstones allowed beyond the live waiters before a compaction. */
  private static final int SLACK = 16;

  /** A queued call: settled exactly once, by whoever wins {@link #settle()}. */
  abstract static class Waiter {
    // Who settles the waiter owns its future: the counters are updated before the caller hears.
    private final AtomicBoolean settled = new AtomicBoolean();
    boolean queued; // in the deque and counted; guarded by the queue's lock
    boolean taken; // taken off the queue by a connector and counted; guarded by the queue's lock

    /** {@code true} for the one caller that settles this waiter. */
    final boolean settle() {
      return settled.compareAndSet(false, true);
    }

    final boolean isSettled() {
      return settled.get();
    }
  }

  private final Object lock = new Object();

  @GuardedBy("lock")
  private final ArrayDeque<W> deque = new ArrayDeque<>();

  private volatile int live; // waiters queued and not settled; written under the lock
  private volatile int taken; // waiters taken by connectors and not settled; written under the lock

  @GuardedBy("lock")
  private boolean closed;

  /**
   * Queues {@code w} unless the queue is closed or the calls waiting (queued or taken) have reached
   * {@code max}; {@code false} then. Once queued, {@code whenQueued} runs with it, still under the
   * lock: the library's own step (never a user's), in arrival order with the other waiters'.
   */
  boolean add(W w, int max, Consumer<? super W> whenQueued) {
    synchronized (lock) {
      if (closed || live + taken >= max) {
        return false;
      }
      deque.addLast(w);
      w.queued = true;
      live++;
      whenQueued.accept(w);
      return true;
    }
  }

  /** The oldest waiter not settled, taken off the queue; {@code null} if none. */
  W poll() {
    synchronized (lock) {
      W w;
      while ((w = deque.pollFirst()) != null) {
        leave(w);
        if (!w.isSettled()) {
          dropSettledHead(); // the next poll finds a live head, or none
          return w;
        }
      }
      return null;
    }
  }

  /**
   * The oldest waiter not settled, taken off the queue by a connector that will serve it: it counts
   * as waiting until {@link #settled}.
   */
  W take() {
    synchronized (lock) {
      W w = poll();
      if (w != null) {
        w.taken = true;
        taken++;
      }
      return w;
    }
  }

  /** The oldest waiter not settled, left in the queue; {@code null} if none. */
  W peek() {
    synchronized (lock) {
      dropSettledHead();
      return deque.peekFirst();
    }
  }

  /**
   * {@code w} has been settled (served, failed or timed out), and its future not yet completed: it
   * stops counting now. A queued one's entry goes when it reaches the head, or at the next
   * compaction.
   */
  @SuppressWarnings("GuardedBy") // removeIf runs its lambda on this thread, under the lock
  void settled(W w) {
    synchronized (lock) {
      leave(w);
      if (w.taken) {
        w.taken = false;
        taken--;
      }
      dropSettledHead();
      if (deque.size() > 2 * live + SLACK) {
        // Settled out of arrival order: one pass drops every tombstone, at least half the deque.
        deque.removeIf(
            e -> {
              if (!e.isSettled()) {
                return false;
              }
              leave(e);
              return true;
            });
      }
    }
  }

  /** Waiters queued and not settled. */
  int live() {
    return live;
  }

  /**
   * Calls waiting: queued, or taken by a connector, and not settled. Read under the lock: {@link
   * #take} moves a waiter from {@code live} to {@code taken} in two writes, and a read between them
   * saw a waiting call as none.
   */
  int waiting() {
    synchronized (lock) {
      return live + taken;
    }
  }

  /** Closes the queue: nothing is added any more; returns the waiters that were queued. */
  List<W> close() {
    synchronized (lock) {
      closed = true;
      List<W> all = new ArrayList<>(deque.size());
      for (W w : deque) {
        if (!w.isSettled()) {
          all.add(w);
        }
        w.queued = false;
      }
      deque.clear();
      live = 0;
      return all;
    }
  }

  @GuardedBy("lock")
  private void dropSettledHead() {
    W w;
    while ((w = deque.peekFirst()) != null && w.isSettled()) {
      deque.pollFirst();
      leave(w);
    }
  }

  /** {@code w} stops counting, once. */
  @GuardedBy("lock")
  private void leave(W w) {
    if (w.queued) {
      w.queued = false;
      live--;
    }
  }
}
