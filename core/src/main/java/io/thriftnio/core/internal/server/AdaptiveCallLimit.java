package io.thriftnio.core.internal.server;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.thriftnio.core.settings.SettingException;
import java.util.Optional;

/**
 * A server's adaptive bound on its calls in progress ({@code ServerBuilder.adaptiveLimit}): a call
 * holds a {@link Permit} from its dispatch (before it waits for a worker) to its reply, and a call
 * that finds the limit reached is answered {@code not run} instead of queueing. The limit is
 * Netflix concurrency-limits' {@code Gradient2Limit}, a delay-based algorithm: it compares the
 * recent time in progress of the calls (queue time included) with its long-run average, lowers the
 * limit when calls take longer than usual (they queue) and raises it while they do not and the
 * limit is in use.
 *
 * <p>The only class of the library that touches concurrency-limits, an optional dependency: it is
 * loaded only when a server is built with the setting, after {@code ServerConfig} has checked that
 * the library is on the class path.
 *
 * <p>Thread-safe: the limiter's own state is atomic; permits are taken on reading threads and given
 * back on whichever thread ends the call, none of them under a lock of this library.
 */
public final class AdaptiveCallLimit {

  /** The limit a server starts with, and the floor it never goes under (at most the maximum). */
  static final int DEFAULT_FLOOR = 20;

  private final SimpleLimiter<Void> limiter;
  private final int max;

  /**
   * @param max the highest the limit may go, at least 1
   */
  public AdaptiveCallLimit(int max) {
    if (max <= 0) {
      throw new SettingException("adaptiveLimit", max, "> 0");
    }
    this.max = max;
    int floor = Math.min(DEFAULT_FLOOR, max);
    this.limiter =
        SimpleLimiter.newBuilder()
            .named("thrift-nio-server")
            .limit(
                Gradient2Limit.newBuilder()
                    .initialLimit(floor)
                    .minLimit(floor)
                    .maxConcurrency(max)
                    .build())
            .build();
  }

  /** A permit for one call, or {@code null} when the calls in progress are at the limit. */
  Permit tryAcquire() {
    Optional<Limiter.Listener> listener = limiter.acquire(null);
    return listener.isPresent() ? new Permit(listener.get()) : null;
  }

  /** The limit now. */
  int limit() {
    return limiter.getLimit();
  }

  /** For a refusal's message: {@code limit=24, inProgress=24, max 200}. */
  String state() {
    return "limit=" + limiter.getLimit() + ", inProgress=" + limiter.getInflight() + ", max " + max;
  }

  /**
   * One call's place under the limit, given back once: {@link #ran} with a sample of its time in
   * progress, {@link #notRun} (the server shed it: a sign of overload), or {@link #ignored}.
   */
  static final class Permit {
    private final Limiter.Listener listener;

    private Permit(Limiter.Listener listener) {
      this.listener = listener;
    }

    /** The call ran and ended: its time in progress is a sample of the server's latency. */
    void ran() {
      listener.onSuccess();
    }

    /** The server answered it without running it, or its time ran out while it ran. */
    void notRun() {
      listener.onDropped();
    }

    /** It says nothing about the server's load (an unreadable request, a closing server). */
    void ignored() {
      listener.onIgnore();
    }
  }
}
