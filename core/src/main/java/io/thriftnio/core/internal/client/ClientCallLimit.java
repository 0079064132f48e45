package io.thriftnio.core.internal.client;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.thriftnio.core.settings.SettingException;
import java.util.Optional;

/**
 * A pool's adaptive bound on its calls in flight ({@code PoolConfig.adaptiveLimit}), client-side
 * backpressure: the same delay-based algorithm as the server's adaptive limit (Netflix
 * concurrency-limits' {@code Gradient2Limit}), fed with each call's time from its start (the wait
 * for a connection included) to its end. When the pool's calls take longer than their long-run
 * average (the servers queue them), the limit falls and a call over it fails at once, instead of
 * adding to the queue; it rises again while calls are quick and the limit is in use.
 *
 * <p>Loaded only when a pool is built with the setting, after {@code PoolConfig} has checked that
 * concurrency-limits (an optional dependency) is on the class path.
 *
 * <p>Thread-safe: the limiter's state is atomic; permits are taken on the calling thread and given
 * back on whichever thread ends the call, under no lock of this library.
 */
public final class ClientCallLimit {

  /** The limit a pool starts with, and the floor it never goes under (at most the maximum). */
  public static final int DEFAULT_FLOOR = 20;

  private final SimpleLimiter<Void> limiter;
  private final int max;

  /**
   * @param max the highest the limit may go, at least 1
   */
  public ClientCallLimit(int max) {
    if (max <= 0) {
      throw new SettingException("adaptiveLimit", max, "> 0");
    }
    this.max = max;
    int floor = Math.min(DEFAULT_FLOOR, max);
    this.limiter =
        SimpleLimiter.newBuilder()
            .named("thrift-nio-pool")
            .limit(
                Gradient2Limit.newBuilder()
                    .initialLimit(floor)
                    .minLimit(floor)
                    .maxConcurrency(max)
                    .build())
            .build();
  }

  /** A permit for one call, or {@code null} when the calls in flight are at the limit. */
  public Permit tryAcquire() {
    Optional<Limiter.Listener> listener = limiter.acquire(null);
    return listener.isPresent() ? new Permit(listener.get()) : null;
  }

  /** The limit now. */
  public int limit() {
    return limiter.getLimit();
  }

  /** For a refusal's message: {@code limit=24, inFlight=24, max 200}. */
  public String state() {
    return "limit=" + limiter.getLimit() + ", inFlight=" + limiter.getInflight() + ", max " + max;
  }

  /** One call's place under the limit, given back once. */
  public static final class Permit {
    private final Limiter.Listener listener;

    private Permit(Limiter.Listener listener) {
      this.listener = listener;
    }

    /** The call was answered (a result or the handler's exception): a sample of its latency. */
    public void answered() {
      listener.onSuccess();
    }

    /** A sign of overload: a server refused it without running it, or its time ran out. */
    public void overloaded() {
      listener.onDropped();
    }

    /** It says nothing about the servers' load (a connect failure, a closing pool). */
    public void ignored() {
      listener.onIgnore();
    }
  }
}
