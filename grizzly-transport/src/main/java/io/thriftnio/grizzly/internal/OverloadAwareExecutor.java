package io.thriftnio.grizzly.internal;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The worker pool handed to Grizzly's {@code WorkerThreadIOStrategy}.
 *
 * <p>Grizzly submits a whole read event (not one request) to its worker pool, and a rejection
 * there would close the connection without an answer. This wrapper instead runs a rejected event
 * on the submitting selector thread with {@link #isOverloaded()} set, so the server filter answers
 * each request of that event with a {@code TApplicationException} saying the server is
 * overloaded, without running the handler.
 *
 * <p>With {@code answerOverload} off the wrapper only adapts an {@link Executor} to the {@link
 * ExecutorService} Grizzly wants, and rejections propagate: {@code LeaderFollowerNIOStrategy}
 * hands whole selector loops to its pool, which must never run inline.
 *
 * <p>Lifecycle methods act on the delegate only when this wrapper owns it; a caller's executor is
 * never shut down.
 */
public final class OverloadAwareExecutor extends AbstractExecutorService {

  private static final ThreadLocal<Boolean> OVERLOADED = ThreadLocal.withInitial(() -> false);

  private final Executor delegate;
  private final boolean owned;
  private final boolean answerOverload;
  private volatile boolean shutdown;

  /**
   * @param delegate the bounded pool or the caller's executor
   * @param owned whether {@link #shutdown()} shuts the delegate down
   * @param answerOverload whether a rejected task runs inline flagged as overloaded, or the
   *     rejection propagates
   */
  public OverloadAwareExecutor(Executor delegate, boolean owned, boolean answerOverload) {
    this.delegate = delegate;
    this.owned = owned;
    this.answerOverload = answerOverload;
  }

  /** Whether the current thread runs an event that the worker pool refused. */
  public static boolean isOverloaded() {
    return OVERLOADED.get();
  }

  @Override
  public void execute(Runnable task) {
    try {
      delegate.execute(task);
    } catch (RejectedExecutionException full) {
      if (!answerOverload) {
        throw full;
      }
      OVERLOADED.set(true);
      try {
        task.run();
      } finally {
        OVERLOADED.set(false);
      }
    }
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
