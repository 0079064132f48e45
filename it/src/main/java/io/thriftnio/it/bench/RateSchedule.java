package io.thriftnio.it.bench;

/**
 * When the calls of an open-loop run are due, and how late a call is: the arithmetic of {@link
 * OpenLoop}, apart from any clock so that it can be tested without timing.
 *
 * <p>Call {@code i} (from 0) is due at {@code start + i * 1e9 / rate} nanoseconds, whatever
 * happened to the calls before it. A call's latency is measured from that due time, not from the
 * moment the load generator got round to sending it: a server that stalls for 100 ms at 1,000
 * calls/s delays the 100 calls due during the stall, and each of them is recorded with the time it
 * waited (100 ms, 99 ms, ... 1 ms), as wrk2 and HdrHistogram's corrected recording do. A closed
 * loop (send, wait, send) would record one slow call and then simply not send the other 99:
 * coordinated omission.
 *
 * @param startNanos when call 0 is due, on the {@link System#nanoTime()} clock
 * @param rate calls per second, {@code > 0}
 */
record RateSchedule(long startNanos, double rate) {

  RateSchedule {
    if (!(rate > 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("rate: " + rate + " (expected: > 0 calls/s)");
    }
  }

  /** When call {@code i} (from 0) is due. */
  long dueNanos(long i) {
    // A double holds i * 1e9 / rate to well under a nanosecond for any run this bench makes.
    return startNanos + (long) (i * 1e9 / rate);
  }

  /** How many calls are due at or before {@code nowNanos}: 0 before the start, 1 at it. */
  long dueBy(long nowNanos) {
    if (nowNanos < startNanos) {
      return 0;
    }
    long n = (long) ((nowNanos - startNanos) * rate / 1e9) + 1;
    // The two roundings may disagree by one at a boundary: dueNanos is the definition.
    while (n > 0 && dueNanos(n - 1) > nowNanos) {
      n--;
    }
    while (dueNanos(n) <= nowNanos) {
      n++;
    }
    return n;
  }

  /**
   * A call's latency in microseconds, from when it was due to when its reply arrived: the wait
   * behind a late load generator or a stalled server counts. Never negative.
   */
  static long latencyMicros(long dueNanos, long completedNanos) {
    return Math.max(0, completedNanos - dueNanos) / 1000;
  }

  /**
   * How long the last of {@code backlog} calls (due but not answered) waits behind the others at
   * this rate, in nanoseconds: {@code backlog / rate}.
   */
  long queueNanos(double backlog) {
    return (long) (backlog * 1e9 / rate);
  }
}
