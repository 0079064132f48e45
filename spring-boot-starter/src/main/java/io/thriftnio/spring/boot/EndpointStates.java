package io.thriftnio.spring.boot;

import io.thriftnio.pool.PoolMetrics;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether each endpoint of a pool is up, as its events tell: down after a connect failed, up again
 * once a connection opens. Passes every event on to the pool's other metrics.
 */
final class EndpointStates implements PoolMetrics {

  /** An endpoint's state. */
  enum State {
    /** A connection opened since its last connect failure. */
    UP,
    /** Its last connect failed. */
    DOWN,
    /** No connection tried yet. */
    UNKNOWN
  }

  private final PoolMetrics next;
  private final Map<InetSocketAddress, Boolean> up = new ConcurrentHashMap<>();

  EndpointStates(PoolMetrics next) {
    this.next = next;
  }

  /** The state of each of {@code endpoints}, in their order. */
  Map<InetSocketAddress, State> of(List<InetSocketAddress> endpoints) {
    Map<InetSocketAddress, State> states = new LinkedHashMap<>();
    for (InetSocketAddress e : endpoints) {
      Boolean u = up.get(e);
      states.put(e, u == null ? State.UNKNOWN : u ? State.UP : State.DOWN);
    }
    return states;
  }

  @Override
  public void borrowed(InetSocketAddress endpoint, Duration wait) {
    next.borrowed(endpoint, wait);
  }

  @Override
  public void borrowTimedOut(InetSocketAddress endpoint, Duration wait) {
    next.borrowTimedOut(endpoint, wait);
  }

  @Override
  public void created(InetSocketAddress endpoint) {
    up.put(endpoint, true);
    next.created(endpoint);
  }

  @Override
  public void connectFailed(InetSocketAddress endpoint, Throwable cause) {
    up.put(endpoint, false);
    next.connectFailed(endpoint, cause);
  }

  @Override
  public void destroyed(InetSocketAddress endpoint) {
    next.destroyed(endpoint);
  }

  @Override
  public void invalidated(InetSocketAddress endpoint, Throwable cause) {
    next.invalidated(endpoint, cause);
  }
}
