package io.thriftnio.netty.internal;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import java.util.concurrent.TimeUnit;

/**
 * Shutting event loop groups down without blocking one of their own threads. Not part of the API.
 */
public final class EventLoops {

  private EventLoops() {}

  /** Whether the calling thread is one of {@code group}'s event loops. */
  public static boolean inEventLoopOf(EventExecutorGroup group) {
    for (EventExecutor e : group) {
      if (e.inEventLoop()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Starts a graceful shutdown of {@code group} (no quiet period, at most {@code graceMillis} for
   * the tasks already queued) and waits up to twice that for it to terminate, except on one of the
   * group's own threads: that thread must return for the group to terminate, so there it returns at
   * once.
   *
   * @return whether the group had terminated on return
   */
  public static boolean shutdown(EventExecutorGroup group, long graceMillis) {
    io.netty.util.concurrent.Future<?> terminated =
        group.shutdownGracefully(0, graceMillis, TimeUnit.MILLISECONDS);
    if (inEventLoopOf(group)) {
      return false; // waiting here would block the very loop we wait for, for 2 * graceMillis
    }
    return terminated.awaitUninterruptibly(graceMillis * 2);
  }
}
