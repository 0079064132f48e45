package io.thriftnio.testkit.conformance;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;

/**
 * Worker settings for a server whose strategy a test varies: a server refuses a worker setting its
 * strategy would ignore, so a cell sets only those its strategy uses.
 */
public final class Workers {
  private Workers() {}

  /**
   * Sets the strategy and, where it has workers ({@code WORKER}, {@code LEADER_FOLLOWER}), their
   * number.
   */
  public static <B extends ServerBuilder<?>> B strategy(B b, IoStrategy strategy, int threads) {
    b.ioStrategy(strategy);
    if (strategy != IoStrategy.SAME_THREAD) {
      b.workerThreads(threads);
    }
    return b;
  }

  /** As {@link #strategy(ServerBuilder, IoStrategy, int)}, and the queue where there is one. */
  public static <B extends ServerBuilder<?>> B strategy(
      B b, IoStrategy strategy, int threads, int queueCapacity) {
    strategy(b, strategy, threads);
    if (strategy == IoStrategy.WORKER) {
      b.workerQueueCapacity(queueCapacity);
    }
    return b;
  }
}
