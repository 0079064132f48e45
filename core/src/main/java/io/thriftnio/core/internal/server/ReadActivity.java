package io.thriftnio.core.internal.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The read clock of one connection whose timeouts are checked by another thread than the one
 * reading it (Grizzly's timeout sweep), and the commit of the idle decision against it. Not part of
 * the API.
 *
 * <p>A read is bracketed: {@link #beginRead} before its bytes are looked at, {@link #endRead} once
 * the requests it carried are with the call path ({@link CallSequencer#pendingCalls()} counts
 * them). The idle sweep takes a {@link #snapshot()}, then reads the pending calls, and commits with
 * {@link #claimIdle}, which succeeds only if no read is in progress and none has begun since the
 * snapshot. So a request read while the sweep decides either keeps the connection open or is
 * dropped before it reaches the call path; it never starts a call on a connection closed as idle.
 *
 * <pre>
 *  stamp:  ...nanoTime...|r     r = 1 while a read is in progress
 *          Long.MIN_VALUE        claimed by the idle sweep: reads from now on are dropped
 * </pre>
 */
public final class ReadActivity {

  /** The stamp once the idle sweep has claimed the connection. */
  public static final long CLAIMED = Long.MIN_VALUE;

  private static final long READING = 1;

  /** 0 until the first read. */
  private final AtomicLong stamp = new AtomicLong();

  /**
   * A read begins at {@code now}.
   *
   * @return {@code false} if the idle sweep has claimed the connection: drop what was read
   */
  public boolean beginRead(long now) {
    while (true) {
      long s = stamp.get();
      if (s == CLAIMED) {
        return false;
      }
      if (stamp.compareAndSet(s, (now & ~READING) | READING)) {
        return true;
      }
    }
  }

  /**
   * The read begun last has handed its requests to the call path (or kept a partial one), at {@code
   * now}.
   */
  public void endRead(long now) {
    long next = now & ~READING;
    if (next == CLAIMED || next == 0) {
      next += 2;
    }
    while (true) {
      long s = stamp.get();
      if (s == CLAIMED || stamp.compareAndSet(s, next)) {
        return;
      }
    }
  }

  /** The stamp to give to {@link #claimIdle}. */
  public long snapshot() {
    return stamp.get();
  }

  /**
   * When the last read of {@code snapshot} happened ({@link System#nanoTime()}, to 2 ns), or {@link
   * TimeoutPolicy#NONE} if there was none or it was claimed.
   */
  public static long lastRead(long snapshot) {
    return snapshot == CLAIMED ? TimeoutPolicy.NONE : snapshot & ~READING;
  }

  /** Whether a read was in progress at {@code snapshot}. */
  public static boolean isReading(long snapshot) {
    return snapshot != CLAIMED && (snapshot & READING) != 0;
  }

  /**
   * Commits the idle sweep's decision: succeeds only if no read was in progress at {@code seen} and
   * none has begun since. From then on {@link #beginRead} returns {@code false}.
   */
  public boolean claimIdle(long seen) {
    return seen != CLAIMED && !isReading(seen) && stamp.compareAndSet(seen, CLAIMED);
  }

  /** Whether {@link #claimIdle} has succeeded. */
  public boolean isClaimed() {
    return stamp.get() == CLAIMED;
  }
}
