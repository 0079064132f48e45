package io.thriftnio.pool;

import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;

/**
 * The counters of an {@link EndpointPool}, kept by its factory, borrows and returns, and the {@link
 * PoolStats} snapshot made of them. Every counter is a {@link LongAdder}: they take no lock.
 */
final class EndpointPoolStats {
  final LongAdder borrowed = new LongAdder();
  final LongAdder created = new LongAdder();
  final LongAdder destroyed = new LongAdder();
  final LongAdder invalidated = new LongAdder();
  final LongAdder timeouts = new LongAdder();
  final LongAdder connectFailures = new LongAdder();
  final LongAdder aged = new LongAdder();

  /**
   * A snapshot, with the gauges of {@code pool} and the retry and ejection counts of {@code
   * selector}.
   */
  PoolStats snapshot(GenericKeyedObjectPool<?, ?> pool, EndpointSelector selector) {
    // commons-pool2 computes getNumActive() as its total minus a second reading of the idle count,
    // so active + idle read one after the other drifted above maxTotal under load (694 with a
    // maximum of 500 in a soak run). The total comes from this pool's own books instead, created
    // read before destroyed: it is then never above the true count at the first reading.
    long opened = created.sum();
    long closedSoFar = destroyed.sum();
    int total = (int) Math.max(0, opened - closedSoFar);
    int idle = Math.min(pool.getNumIdle(), total);
    int active = total - idle;
    return new PoolStats(
        total,
        active,
        idle,
        pool.getNumWaiters(),
        borrowed.sum(),
        created.sum(),
        destroyed.sum(),
        invalidated.sum(),
        timeouts.sum(),
        connectFailures.sum(),
        selector.budget().retried(),
        selector.budget().refused(),
        selector.ejections(),
        aged.sum(),
        selector.notRun());
  }
}
