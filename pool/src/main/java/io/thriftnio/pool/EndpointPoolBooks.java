package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.util.Set;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;

/**
 * What the borrows and the returns of one {@link EndpointPool} share: the pool itself (whether it
 * is closed, its state for errors), its name, the pool2 pool, the endpoint selector, the
 * connections lent now, the counters, the metrics, the connections' factory and when each
 * connection retires.
 *
 * @param <T> the pooled connection
 */
record EndpointPoolBooks<T>(
    EndpointPool<T> owner,
    String name,
    GenericKeyedObjectPool<InetSocketAddress, T> pool,
    EndpointSelector selector,
    Set<T> lent,
    EndpointPoolStats stats,
    PoolMetrics metrics,
    EndpointPool.Connections<T> connections,
    ConnectionAges<T> ages) {}
