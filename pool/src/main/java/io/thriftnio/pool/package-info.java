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
 * <p>Limits and health are configured once, in the pool builder ({@link
 * io.thriftnio.pool.PoolBuilder}). No type of the underlying pool library appears in this package's
 * API.
 *
 * <p><b>Blocking.</b> The sync {@link io.thriftnio.pool.ThriftClientPool} borrows on the calling
 * thread, which waits up to {@link io.thriftnio.pool.PoolBuilder#borrowTimeout(java.time.Duration)}
 * plus a connect: never call it from an event-loop or selector thread. The async pools never block
 * the caller: their calls wait, as futures, in a bounded queue ({@link
 * io.thriftnio.pool.PoolBuilder#borrowQueueCapacity(int)}), and connect on threads of their own.
 *
 * <p><b>Layout.</b> The implementation lives here too, in package-private classes (the call policy
 * {@code CallPolicy}, {@code SyncCalls} and {@code AsyncCalls}; the books {@code EndpointPool} and
 * {@code SharedChannels}; the endpoints' health {@code EndpointSelector}): the public types are the
 * whole API, the compiler keeps the rest out of reach, and the API and its implementation depend on
 * each other without a package cycle.
 */
package io.thriftnio.pool;
