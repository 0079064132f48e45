package io.thriftnio.grizzly.internal;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
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
