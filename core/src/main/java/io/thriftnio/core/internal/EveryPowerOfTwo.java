package io.thriftnio.core.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a repeated event and picks the occurrences worth a log line: the 1st, 2nd, 4th, 8th ... A
 * flood of {@code n} events then costs about {@code log2(n)} lines, and the running count in each
 * line still tells how big the flood is. Thread-safe: of concurrent callers, exactly one gets each
 * power of two. Not part of the API.
 *
 * <pre>{@code
 * long n = refusals.record();
 * if (n != 0) {
 *   log.warn("Refused ... ({} refused so far)", n);
 * }
 * }</pre>
 */
public final class EveryPowerOfTwo {

  private final AtomicLong count = new AtomicLong();

  /**
   * Counts one occurrence.
   *
   * @return the running count if this occurrence is to be logged (it is a power of two), else 0
   */
  public long record() {
    long n = count.incrementAndGet();
    return (n & (n - 1)) == 0 ? n : 0;
  }
}
