package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The endpoints that refused one call "not run" ({@link Failures#notRun}), in order, and the last
 * refusal: what the caller hears if no other endpoint takes the call. Immutable; each refusal makes
 * a new one ({@link #and}).
 *
 * @param endpoints never empty
 * @param last the last refusal, as the attempt failed with it
 */
record Refusals(List<InetSocketAddress> endpoints, Throwable last) {

  /**
   * {@code refusals} ({@code null}: none yet) and one more, {@code refusal} by {@code endpoint}.
   */
  static Refusals and(Refusals refusals, InetSocketAddress endpoint, Throwable refusal) {
    List<InetSocketAddress> all =
        new ArrayList<>(refusals == null ? List.of() : refusals.endpoints);
    all.add(endpoint);
    return new Refusals(List.copyOf(all), refusal);
  }

  /** Whether {@code endpoint} has refused the call. */
  boolean refused(InetSocketAddress endpoint) {
    return endpoints.contains(endpoint);
  }

  /** Whether every endpoint of {@code all} has refused the call: none is left to take it. */
  boolean cover(List<InetSocketAddress> all) {
    return endpoints.containsAll(all);
  }
}
