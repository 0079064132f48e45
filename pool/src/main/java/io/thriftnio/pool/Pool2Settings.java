package io.thriftnio.pool;

import java.time.Duration;
import org.apache.commons.pool2.impl.GenericKeyedObjectPoolConfig;

/**
 * A {@link PoolConfig} in commons-pool2's terms, for the {@code GenericKeyedObjectPool} of an
 * {@link EndpointPool}: where our zeros mean "off", pool2 wants its own sentinels.
 */
final class Pool2Settings {

  /** Idle eviction off, in pool2's terms: an idle time no connection reaches. */
  private static final Duration FOREVER = Duration.ofMillis(Long.MAX_VALUE);

  private Pool2Settings() {}

  static <T> GenericKeyedObjectPoolConfig<T> of(PoolConfig config) {
    IdleConnectionsConfig idle = config.idleConnections();
    GenericKeyedObjectPoolConfig<T> c = new GenericKeyedObjectPoolConfig<>();
    c.setMaxTotal(config.maxTotal());
    c.setMaxTotalPerKey(config.maxPerEndpoint());
    c.setMaxIdlePerKey(config.maxIdlePerEndpoint());
    c.setMinIdlePerKey(idle.minPerEndpoint());
    c.setBlockWhenExhausted(!config.borrowTimeout().isZero());
    c.setMaxWait(config.borrowTimeout());
    c.setTestOnCreate(false);
    c.setTestOnBorrow(idle.testOnBorrow());
    c.setTestOnReturn(false); // each pool checks for unread bytes itself; cheaper than a peek
    c.setTestWhileIdle(true);
    c.setMinEvictableIdleDuration(idle.timeout().isZero() ? FOREVER : idle.timeout());
    c.setTimeBetweenEvictionRuns(
        idle.evictionInterval().isZero() ? Duration.ofMillis(-1) : idle.evictionInterval());
    c.setNumTestsPerEvictionRun(-1); // every idle connection, each run
    // Most recently used first: busy connections stay warm, surplus ones age out.
    c.setLifo(true);
    // Waiters served in arrival order: under a burst, no borrower starves into a timeout.
    c.setFairness(true);
    c.setJmxEnabled(config.jmxName() != null);
    if (config.jmxName() != null) {
      c.setJmxNamePrefix(config.jmxName());
    }
    return c;
  }
}
