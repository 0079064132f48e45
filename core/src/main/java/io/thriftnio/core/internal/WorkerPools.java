package io.thriftnio.core.internal;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The servers' own bounded worker pools. Not part of the API. */
public final class WorkerPools {
  private WorkerPools() {}

  /**
   * A fixed pool with a bounded queue that rejects (rather than runs on the caller, or queues
   * without bound) when full, so an overloaded server answers "overloaded" instead of growing.
   */
  public static ThreadPoolExecutor newBoundedPool(String name, int threads, int queueCapacity) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(queueCapacity),
            new NamedThreadFactory(name),
            new ThreadPoolExecutor.AbortPolicy());
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}
