package io.thriftnio.pool;

import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.time.Duration;
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
 * PoolBuilder#endpoints(InetSocketAddress...)} builds) and {@link #dns(String, int, Duration)}; the
 * {@code thrift-nio-zookeeper} module adds one that watches ZooKeeper.
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

  /**
   * {@link #dns(String, int, Duration)} resolving again every 5 seconds.
   *
   * @param host the name to resolve, not empty
   * @param port the port every address serves on, 1 to 65535
   * @return the source, not started
   * @throws io.thriftnio.core.settings.SettingException naming the argument refused
   */
  static EndpointSource dns(String host, int port) {
    return DnsEndpointSource.of(host, port);
  }

  /**
   * The endpoints behind a DNS name: every address {@code host} resolves to, with one port,
   * resolved again every {@code interval}. This is how a Kubernetes headless service publishes its
   * pods ({@code my-service.my-namespace.svc.cluster.local}).
   *
   * <pre>{@code
   * ThriftClientPool<BenchService.Client> pool = ThriftClientPool.builder(BenchService.Client::new)
   *     .endpointSource(EndpointSource.dns("bench.prod.svc.cluster.local", 9090))
   *     .build();
   * }</pre>
   *
   * <p>The first resolution runs in {@link #start(Consumer)}, on the pool builder's thread, so a
   * pool built on a name that resolves serves at once; the later ones run on a daemon thread named
   * {@code thrift-nio-dns-N}. The pool hears only changes of the set: the order in which a DNS
   * server rotates its answers is no change. A resolution that fails, or returns no address, keeps
   * the last set (an endpoint that is really gone then fails its connects and is marked down) and
   * is logged: a WARN line for the first failure in a row, DEBUG for the next ones, INFO when it
   * resolves again. The resolver and the listener run under none of the source's locks.
   *
   * <p>The JVM caches successful lookups ({@code networkaddress.cache.ttl}, 30 seconds by default
   * without a security manager), so the source sees a change up to that much later than the
   * interval; lower the cache time in {@code java.security} or with {@code
   * Security.setProperty("networkaddress.cache.ttl", "5")} where that matters.
   *
   * @param host the name to resolve, not empty
   * @param port the port every address serves on, 1 to 65535
   * @param interval how often to resolve again, {@code > 0}
   * @return the source, not started
   * @throws io.thriftnio.core.settings.SettingException naming the argument refused
   */
  static EndpointSource dns(String host, int port, Duration interval) {
    return DnsEndpointSource.of(host, port, interval);
  }
}
