package io.thriftnio.grizzly.internal;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.internal.NamedThreadFactory;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The pool handed to Grizzly's {@code LeaderFollowerNIOStrategy}, which takes an {@link
 * ExecutorService}: adapts any {@link Executor} to it. Lifecycle methods act on the delegate only
 * when this wrapper owns it; a caller's executor is never shut down. Not part of the API.
 */
public final class FollowerPool extends AbstractExecutorService {

  private final Executor delegate;
  private final boolean owned;
  private volatile boolean shutdown;

  /**
   * @param delegate the pool, or the caller's executor
   * @param owned whether {@link #shutdown()} shuts the delegate down
   */
  public FollowerPool(Executor delegate, boolean owned) {
    this.delegate = delegate;
    this.owned = owned;
  }

  /**
   * The followers of a {@code LEADER_FOLLOWER} server: the caller's executor, else a pool of {@code
   * workerThreads} named {@code PREFIX-leader-N}; {@code null} for the other strategies, whose
   * selectors hand no loop to a pool.
   */
  public static FollowerPool of(ServerConfig config, String threadPrefix) {
    if (config.ioStrategy() != IoStrategy.LEADER_FOLLOWER) {
      return null; // WORKER: the call path dispatches to the lifecycle's worker executor
    }
    if (config.workerExecutor() != null) {
      return new FollowerPool(config.workerExecutor(), false);
    }
    // The strategy hands a selector loop to the pool whenever a thread takes an event; a rejected
    // hand-over would stall the selector, so this pool queues without bound.
    ThreadPoolExecutor followers =
        new ThreadPoolExecutor(
            config.workerThreads(),
            config.workerThreads(),
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            new NamedThreadFactory(threadPrefix + "-leader"));
    followers.allowCoreThreadTimeOut(true);
    return new FollowerPool(followers, true);
  }

  @Override
  public void execute(Runnable task) {
    delegate.execute(task);
  }

  @Override
  public void shutdown() {
    shutdown = true;
    if (owned && delegate instanceof ExecutorService) {
      ((ExecutorService) delegate).shutdown();
    }
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown = true;
    if (owned && delegate instanceof ExecutorService) {
      return ((ExecutorService) delegate).shutdownNow();
    }
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    if (owned && delegate instanceof ExecutorService) {
      return ((ExecutorService) delegate).isTerminated();
    }
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    if (owned && delegate instanceof ExecutorService) {
      return ((ExecutorService) delegate).awaitTermination(timeout, unit);
    }
    return shutdown;
  }
}
