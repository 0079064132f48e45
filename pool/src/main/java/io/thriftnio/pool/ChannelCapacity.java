package io.thriftnio.pool;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pool-wide connection count of a {@link SharedChannels} pool against {@link
 * PoolConfig#maxTotal()}: open connections plus connects under way, on every endpoint. A connect
 * takes a place first ({@link #tryReserve()}), a failed connect or a close gives it back ({@link
 * #free()}); the count never goes above the limit. An atomic, so that no endpoint's lock is held
 * across endpoints.
 */
final class ChannelCapacity implements CapacityGate {
  private final int maxTotal;
  private final AtomicInteger total = new AtomicInteger();

  ChannelCapacity(int maxTotal) {
    this.maxTotal = maxTotal;
  }

  /** Takes one place under {@code maxTotal}; {@code false} at the limit. */
  @Override
  public boolean tryReserve() {
    while (true) {
      int n = total.get();
      if (n >= maxTotal) {
        return false;
      }
      if (total.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Gives back one place: a connect failed, or a connection closed. */
  void free() {
    total.decrementAndGet();
  }

  /** Whether every place is taken. */
  boolean atLimit() {
    return total.get() >= maxTotal;
  }
}
