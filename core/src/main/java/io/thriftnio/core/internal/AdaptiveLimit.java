package io.thriftnio.core.internal;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.thriftnio.core.settings.SettingException;
import java.util.Optional;

/**
 * The adaptive bound on calls in progress, built once from our settings for both sides: a server's
 * ({@code ServerBuilder.adaptiveLimit}: from a call's dispatch, before it waits for a worker, to
 * its reply) and a pool's ({@code PoolBuilder.adaptiveLimit}, client-side backpressure: from a
 * call's start, the wait for a connection included, to its end). A call that finds the limit
 * reached is not let in: the server answers it {@code not run}, the pool fails it before sending.
 *
 * <p>The limit is Netflix concurrency-limits' {@code Gradient2Limit}, a delay-based algorithm: it
 * compares the recent time of the calls with its long-run average, lowers the limit when calls take
 * longer than usual (they queue) and raises it while they do not and the limit is in use. It starts
 * at {@code min(20, max)} and never goes below that or above {@code max}.
 *
 * <p>The only class of the library that touches concurrency-limits, an optional dependency: it is
 * loaded only when a server or pool is built with the setting, after the setting's check at {@code
 * build()} has found the library on the class path.
 *
 * <p>Thread-safe: the limiter's state is atomic; permits are taken on the calling or reading thread
 * and given back on whichever thread ends the call, none of them under a lock of this library.
 */
public final class AdaptiveLimit {

  /** The limit a bound starts with, and the floor it never goes under (at most the maximum). */
  static final int DEFAULT_FLOOR = 20;

  private final SimpleLimiter<Void> limiter;
  private final int max;

  private AdaptiveLimit(String name, int max) {
    if (max <= 0) {
      throw new SettingException("adaptiveLimit", max, "> 0");
    }
    this.max = max;
    int floor = Math.min(DEFAULT_FLOOR, max);
    this.limiter =
        SimpleLimiter.newBuilder()
            .named(name)
            .limit(
                Gradient2Limit.newBuilder()
                    .initialLimit(floor)
                    .minLimit(floor)
                    .maxConcurrency(max)
                    .build())
            .build();
  }

  /**
   * A server's bound on its calls in progress.
   *
   * @param max the highest the limit may go, at least 1
   */
  public static AdaptiveLimit forServer(int max) {
    return new AdaptiveLimit("thrift-nio-server", max);
  }

  /**
   * A pool's bound on its calls in flight.
   *
   * @param max the highest the limit may go, at least 1
   */
  public static AdaptiveLimit forPool(int max) {
    return new AdaptiveLimit("thrift-nio-pool", max);
  }

  /** A permit for one call, or {@code null} when the calls are at the limit. */
  public Permit tryAcquire() {
    Optional<Limiter.Listener> listener = limiter.acquire(null);
    return listener.isPresent() ? new Permit(listener.get()) : null;
  }

  /**
   * For the message of a call {@link #tryAcquire} refused: {@code limit=24 reached, max 200}. The
   * calls in progress are not given: at the refusal they stood at the limit, and a count read
   * afterwards may already be lower (a call ended meanwhile), which would read as a contradiction.
   */
  public String state() {
    return "limit=" + limiter.getLimit() + " reached, max " + max;
  }

  /**
   * One call's place under the limit, given back once: {@link #answered} with a sample of its time,
   * {@link #overloaded} (a sign of overload), or {@link #ignored}.
   */
  public static final class Permit {
    private final Limiter.Listener listener;

    private Permit(Limiter.Listener listener) {
      this.listener = listener;
    }

    /**
     * The call ran and was answered by its handler (a result or the handler's exception): its time
     * is a sample of the latency.
     */
    public void answered() {
      listener.onSuccess();
    }

    /**
     * A sign of overload: the call was answered without running it (shed, refused), or its time ran
     * out.
     */
    public void overloaded() {
      listener.onDropped();
    }

    /**
     * It says nothing about the load (an unreadable request, a connect failure, a closing server or
     * pool).
     */
    public void ignored() {
      listener.onIgnore();
    }
  }
}
