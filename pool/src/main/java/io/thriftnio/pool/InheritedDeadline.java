package io.thriftnio.pool;

import io.thriftnio.core.ServerCallContext;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The deadline a pool call inherits when it is made on a thread that runs a server call ({@link
 * ServerCallContext#currentIfAny()}): the time that call's caller still waits ({@link
 * ServerCallContext#timeRemaining()}), so a downstream call does not outlive the request it serves.
 * See {@link PoolBuilder#inheritDeadline(boolean)}.
 */
final class InheritedDeadline {
  private InheritedDeadline() {}

  /**
   * The deadline of a call made now, in nanoseconds from now (0: none): {@code ownNanos} (the
   * pool's or the call's own, 0 for none), or the server call's time left when that is sooner.
   *
   * @param pool the pool's name, for the failure
   * @param stats the pool's state, for the failure
   * @throws CallDeadlineException if the inherited deadline has passed already: nothing is sent
   */
  static long bound(long ownNanos, String pool, Supplier<PoolStats> stats)
      throws CallDeadlineException {
    Optional<ServerCallContext> server = ServerCallContext.currentIfAny();
    if (server.isEmpty()) {
      return ownNanos;
    }
    Optional<Duration> left = server.get().timeRemaining();
    if (left.isEmpty()) {
      return ownNanos;
    }
    long nanos = left.get().toNanos();
    if (nanos <= 0) {
      throw CallDeadlineException.inherited(pool, server.get(), -nanos, stats.get());
    }
    return ownNanos == 0 ? nanos : Math.min(ownNanos, nanos);
  }
}
