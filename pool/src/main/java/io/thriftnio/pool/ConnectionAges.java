package io.thriftnio.pool;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each connection of an {@link EndpointPool} is due to retire ({@link ConnectionAge}): set by
 * the factory when it opens one, forgotten when it destroys it, looked at when a borrower gives one
 * back. Connections are keyed by identity (none of the pooled types overrides {@code equals});
 * without ageing the map stays empty.
 *
 * @param <T> the pooled connection
 */
final class ConnectionAges<T> {
  private volatile ConnectionAge age = ConnectionAge.NONE;
  private final Map<T, Long> retireAt = new ConcurrentHashMap<>();

  /** Ages the connections opened from now on; set before the pool lends any. */
  void age(ConnectionAge age) {
    this.age = age;
  }

  /** {@code connection} was just opened. */
  void opened(T connection) {
    long lifetime = age.lifetimeNanos();
    if (lifetime > 0) {
      retireAt.put(connection, System.nanoTime() + lifetime);
    }
  }

  /** {@code connection} was destroyed. */
  void closed(T connection) {
    retireAt.remove(connection);
  }

  /** Whether {@code connection} has outlived its lifetime. */
  boolean over(T connection) {
    Long at = retireAt.get(connection);
    return at != null && System.nanoTime() - at >= 0;
  }
}
