package io.thriftnio.pool;

import java.util.concurrent.atomic.LongAdder;

/**
 * The running totals of a {@link SharedChannels} pool, and its {@link PoolStats} built from them
 * with the gauges of the moment. Counters only: the pool's {@link io.thriftnio.pool.PoolMetrics}
 * are told where each count happens.
 */
final class ChannelCounters {
  final LongAdder borrowed = new LongAdder();
  final LongAdder created = new LongAdder();
  final LongAdder destroyed = new LongAdder();
  final LongAdder invalidated = new LongAdder();
  final LongAdder timeouts = new LongAdder();
  final LongAdder connectFailures = new LongAdder();
  final LongAdder aged = new LongAdder();

  /**
   * The pool's stats: {@code counts} are open and active connections summed over the endpoints,
   * {@code waiting} the calls in the queue, the rest from the selector's retry budget and ejection.
   */
  PoolStats stats(int[] counts, int waiting, EndpointSelector selector) {
    return new PoolStats(
        counts[0],
        counts[1],
        counts[0] - counts[1],
        waiting,
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
