package io.thriftnio.spring.boot;

import io.thriftnio.pool.PoolStats;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;

/** The pools built from {@code thrift.clients.*}, for health and info. */
final class ThriftPools {

  /**
   * One pool, as health and info see it.
   *
   * @param name its name under {@code thrift.clients}
   * @param type {@code ThriftClientPool}, {@code ThriftChannelPool} or {@code
   *     ThriftAsyncClientPool}
   */
  record Handle(
      String name,
      String type,
      Supplier<List<InetSocketAddress>> endpoints,
      Supplier<PoolStats> stats,
      EndpointStates states) {}

  private final Map<String, Handle> pools = new ConcurrentSkipListMap<>();

  void add(Handle handle) {
    pools.put(handle.name(), handle);
  }

  /** The pools built so far, by name. */
  Map<String, Handle> all() {
    return pools;
  }
}
