/**
 * Pools of Thrift clients, keyed by endpoint.
 *
 * <ul>
 *   <li>{@link io.thriftnio.pool.ThriftClientPool}: generated synchronous {@code Client}s over a
 *       {@link io.thriftnio.pool.ClientTransportFactory} (stock {@code TSocket} + {@code
 *       TFramedTransport} by default), one call at a time per connection.
 *   <li>{@link io.thriftnio.pool.ThriftAsyncClientPool}: generated {@code AsyncClient}s over {@code
 *       TNonblockingSocket}, spread over several {@code TAsyncClientManager} selector threads.
 *   <li>{@link io.thriftnio.pool.ThriftChannelPool}: any {@link io.thriftnio.core.ThriftChannel},
 *       where one connection carries many calls in flight.
 * </ul>
 *
 * <p>Limits and health are configured once, in {@link io.thriftnio.pool.PoolConfig}. No type of the
 * underlying pool library appears in this package's API.
 *
 * <p><b>Blocking.</b> The sync {@link io.thriftnio.pool.ThriftClientPool} borrows on the calling
 * thread, which waits up to {@link io.thriftnio.pool.PoolConfig#borrowTimeout()} plus a connect:
 * never call it from an event-loop or selector thread. The async pools never block the caller:
 * their calls wait, as futures, in a bounded queue ({@link
 * io.thriftnio.pool.PoolConfig#maxWaiting()}), and connect on threads of their own.
 */
package io.thriftnio.pool;
