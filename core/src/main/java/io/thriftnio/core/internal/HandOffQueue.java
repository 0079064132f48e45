package io.thriftnio.core.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.AbstractQueue;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bounded task queue of the servers' own worker pools ({@link WorkerPools#newBoundedPool}):
 * what {@link java.util.concurrent.ArrayBlockingQueue} does for a {@link
 * java.util.concurrent.ThreadPoolExecutor}, with fewer wake-ups. Not part of the API.
 *
 * <p>An {@code ArrayBlockingQueue} wakes a parked worker for every task offered while one parks,
 * even when a worker that has just finished its call is about to look at the queue again; and a
 * worker that finds it empty parks at once. When the IO thread and the workers share a CPU, each
 * wake-up preempts the IO thread in its read batch, and each park is a context switch (issue 41: on
 * the Netty {@code WORKER} row with 40 blocking clients, 1.6 context switches and 3 futex calls per
 * call, where the IO thread writes the replies and the workers, with little to do, park after every
 * call). Here:
 *
 * <ul>
 *   <li>a worker that finds the queue empty looks again ({@link #LOOKS} times) before it parks; on
 *       one CPU it yields the CPU in between: the IO thread runs meanwhile, and the calls it reads
 *       are taken by the looking worker, unwoken;
 *   <li>a task wakes a parked worker only if the workers looking and those already woken are fewer
 *       than the tasks queued: each task still has a worker on its way as soon as one is free, so a
 *       slow or blocking handler holds up no other call while a worker is idle;
 *   <li>the worker that parked last is woken first (its stack and caches are the warmest); the
 *       others stay parked, and time out.
 * </ul>
 *
 * <p>Bounded: {@link #offer} refuses a task beyond the capacity (the pool then refuses it, and the
 * server answers the call as an overload). Thread-safe; one private lock, never held while a task
 * runs or a thread is woken.
 */
final class HandOffQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {

  /**
   * Whether this JVM may use one CPU only (pinned, or a one-CPU container): a looking worker then
   * yields it, so that the IO thread runs and reads the next calls; with more, it spins, and is
   * never descheduled for another process's threads on a busy machine.
   */
  private static final boolean ONE_CPU = Runtime.getRuntime().availableProcessors() == 1;

  /**
   * How many times a worker looks at an empty queue again before it parks: on one CPU, yields (1, 2
   * and 4 measured the same, issue 41; each is a system call when the CPU has nothing else to run);
   * on more, spin-wait hints, a few microseconds in all.
   */
  static final int LOOKS = ONE_CPU ? 2 : 64;

  private final int capacity;
  private final ReentrantLock lock = new ReentrantLock();

  @GuardedBy("lock")
  private final ArrayDeque<Runnable> items = new ArrayDeque<>();

  /** Parked workers, the last to park first. */
  @GuardedBy("lock")
  private final ArrayDeque<Waiter> parked = new ArrayDeque<>();

  /** Workers looking at the queue again before they park: they take a new task unwoken. */
  @GuardedBy("lock")
  private int looking;

  /** Workers woken and not yet back at the queue. */
  @GuardedBy("lock")
  private int waking;

  /** {@code items.size()}, for a looking worker to read without the lock. */
  private volatile int count;

  /** A parked worker; {@code woken} is set under the lock before it is unparked. */
  private static final class Waiter {
    final Thread thread = Thread.currentThread();
    volatile boolean woken;
  }

  HandOffQueue(int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity: " + capacity + " (expected: > 0)");
    }
    this.capacity = capacity;
  }

  @Override
  public boolean offer(Runnable task) {
    Objects.requireNonNull(task, "task");
    Waiter wake;
    lock.lock();
    try {
      if (items.size() >= capacity) {
        return false;
      }
      items.addLast(task);
      count = items.size();
      wake = wakeOne();
    } finally {
      lock.unlock();
    }
    if (wake != null) {
      LockSupport.unpark(wake.thread);
    }
    return true;
  }

  /**
   * The parked worker to wake for the tasks queued, if no worker is on its way to them already;
   * marked woken here, to be unparked outside the lock.
   */
  @GuardedBy("lock")
  private Waiter wakeOne() {
    if (looking + waking >= items.size()) {
      return null;
    }
    Waiter w = parked.pollFirst();
    if (w != null) {
      w.woken = true;
      waking++;
    }
    return w;
  }

  @Override
  public Runnable take() throws InterruptedException {
    return next(false, 0);
  }

  @Override
  public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
    return next(true, unit.toNanos(timeout));
  }

  /**
   * The next task, waiting for one: looks again {@link #LOOKS} times, then parks until woken, or
   * for {@code nanos} at most when {@code timed}.
   */
  private Runnable next(boolean timed, long nanos) throws InterruptedException {
    long deadline = timed ? System.nanoTime() + nanos : 0;
    boolean spin = true;
    boolean wasLooking = false;
    while (true) {
      Runnable task;
      Waiter wake = null;
      Waiter me = null;
      lock.lock();
      try {
        if (wasLooking) {
          looking--; // in the same step as the look below: no task slips between the two unseen
          wasLooking = false;
        }
        if (Thread.currentThread().isInterrupted()) {
          wake = wakeOne(); // in case a task came while this worker counted as looking
          task = null;
        } else {
          task = items.pollFirst();
          if (task != null) {
            count = items.size();
            wake = wakeOne(); // tasks left behind: the next worker comes for them now
          } else if (spin) {
            looking++;
            wasLooking = true;
          } else if (timed && deadline - System.nanoTime() <= 0) {
            return null;
          } else {
            me = new Waiter();
            parked.addFirst(me);
          }
        }
      } finally {
        lock.unlock();
      }
      if (wake != null) {
        LockSupport.unpark(wake.thread);
      }
      if (task != null) {
        return task;
      }
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (spin) {
        spin = false;
        lookAgain();
        continue;
      }
      park(me, timed, deadline);
      spin = true;
    }
  }

  /** Looks at the queue again for a moment, without the lock. */
  private void lookAgain() {
    for (int i = 0; i < LOOKS && count == 0; i++) {
      if (ONE_CPU) {
        Thread.yield(); // the IO thread runs meanwhile, and reads the next calls
      } else {
        Thread.onSpinWait();
      }
    }
  }

  /** Parks until woken, timed out or interrupted; leaves the parked workers if not woken. */
  private void park(Waiter me, boolean timed, long deadline) {
    while (!me.woken) {
      if (timed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        LockSupport.parkNanos(this, left);
      } else {
        LockSupport.park(this);
      }
      if (Thread.currentThread().isInterrupted()) {
        break;
      }
    }
    Waiter wake = null;
    lock.lock();
    try {
      if (me.woken) {
        waking--;
        if (Thread.currentThread().isInterrupted()) {
          wake = wakeOne(); // woken for a task, but leaving: another worker comes for it
        }
      } else {
        parked.remove(me);
      }
    } finally {
      lock.unlock();
    }
    if (wake != null) {
      LockSupport.unpark(wake.thread);
    }
  }

  @Override
  public Runnable poll() {
    Waiter wake;
    Runnable task;
    lock.lock();
    try {
      task = items.pollFirst();
      count = items.size();
      wake = task == null ? null : wakeOne();
    } finally {
      lock.unlock();
    }
    if (wake != null) {
      LockSupport.unpark(wake.thread);
    }
    return task;
  }

  @Override
  public Runnable peek() {
    lock.lock();
    try {
      return items.peekFirst();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void put(Runnable task) throws InterruptedException {
    while (!offer(task)) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      LockSupport.parkNanos(this, TimeUnit.MICROSECONDS.toNanos(100)); // not used by the pools
    }
  }

  @Override
  public boolean offer(Runnable task, long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (!offer(task)) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (deadline - System.nanoTime() <= 0) {
        return false;
      }
      LockSupport.parkNanos(this, TimeUnit.MICROSECONDS.toNanos(100)); // not used by the pools
    }
    return true;
  }

  @Override
  public int size() {
    return count;
  }

  @Override
  public int remainingCapacity() {
    return capacity - count;
  }

  @Override
  public boolean remove(Object o) {
    lock.lock();
    try {
      boolean removed = items.remove(o);
      count = items.size();
      return removed;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean contains(Object o) {
    lock.lock();
    try {
      return items.contains(o);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Object[] toArray() {
    lock.lock();
    try {
      return items.toArray();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public <T> T[] toArray(T[] a) {
    lock.lock();
    try {
      return items.toArray(a);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int drainTo(Collection<? super Runnable> c) {
    return drainTo(c, Integer.MAX_VALUE);
  }

  @Override
  public int drainTo(Collection<? super Runnable> c, int maxElements) {
    Objects.requireNonNull(c, "c");
    if (c == this) {
      throw new IllegalArgumentException("drainTo itself");
    }
    lock.lock();
    try {
      int n = 0;
      Runnable task;
      while (n < maxElements && (task = items.pollFirst()) != null) {
        c.add(task);
        n++;
      }
      count = items.size();
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** A snapshot; its {@code remove} removes the task from this queue. */
  @Override
  public Iterator<Runnable> iterator() {
    Object[] snapshot = toArray();
    return new Iterator<>() {
      private int next;
      private Runnable last;

      @Override
      public boolean hasNext() {
        return next < snapshot.length;
      }

      @Override
      public Runnable next() {
        if (next >= snapshot.length) {
          throw new java.util.NoSuchElementException();
        }
        last = (Runnable) snapshot[next++];
        return last;
      }

      @Override
      public void remove() {
        if (last == null) {
          throw new IllegalStateException();
        }
        HandOffQueue.this.remove(last);
        last = null;
      }
    };
  }
}
