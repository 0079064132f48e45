package io.thriftnio.pool;

import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Where a pool's endpoints come from: publishes the current set of endpoints and every change to
 * it. A pool given one with {@link PoolBuilder#endpointSource(EndpointSource)} follows it:
 *
 * <ul>
 *   <li>an endpoint that joins is used by the next borrows;
 *   <li>an endpoint that leaves is drained: calls in flight on it finish, new calls go to the
 *       others, its idle connections close at once and its busy ones when their call returns them;
 *   <li>while the set is empty, borrows fail at once with a {@link PoolException} that names the
 *       source.
 * </ul>
 *
 * <p>Implementations in this module: {@link #of(List)} (a fixed list, what {@link
 * PoolBuilder#endpoints(InetSocketAddress...)} builds) and {@link DnsEndpointSource}; the {@code
 * thrift-nio-zookeeper} module adds one that watches ZooKeeper.
 *
 * <p>The contract: the pool calls {@link #start(Consumer)} once, when it is built, and {@link
 * #close()} when it is closed; a source serves one pool. The source calls the listener with the
 * whole current set, first as soon as it knows one (during {@code start} when it can) and then
 * after each change, one call at a time, never while holding a lock the listener could need. The
 * listener only updates the pool's books; it neither blocks nor connects. Its {@code toString()}
 * names the source in the pool's errors.
 */
public interface EndpointSource extends AutoCloseable {

  /**
   * Begins publishing to {@code listener}. Called once, by the pool that uses this source.
   *
   * @param listener receives the endpoints now, in the source's order, without duplicates, each
   *     call replacing the previous set (which may be empty); not null
   * @throws IllegalStateException if the source was started before or is closed
   */
  void start(Consumer<List<InetSocketAddress>> listener);

  /** Stops publishing and releases what the source holds (threads, sessions). Idempotent. */
  @Override
  void close();

  /**
   * A source that publishes {@code endpoints} once and never changes: a pool's behaviour with a
   * fixed list.
   *
   * @param endpoints at least one, no null element; duplicates count once
   * @return the source
   * @throws IllegalArgumentException if {@code endpoints} is empty
   */
  static EndpointSource of(List<InetSocketAddress> endpoints) {
    return new StaticEndpointSource(endpoints);
  }

  /**
   * {@link #of(List)} for a few addresses.
   *
   * @param endpoints at least one, no null element
   * @return the source
   */
  static EndpointSource of(InetSocketAddress... endpoints) {
    return of(Arrays.asList(Checks.notNull("endpoints", endpoints)));
  }
}
