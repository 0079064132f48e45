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
 * <p><b>Borrowing blocks the calling thread.</b> Every pool borrows a connection on the thread that
 * makes the call, including the asynchronous pools' {@code call} and {@code asyncIface} proxies
 * (their futures and callbacks complete elsewhere, but the borrow does not). When the pool is
 * exhausted, or an endpoint must be connected first, that thread blocks for up to {@link
 * io.thriftnio.pool.PoolConfig#borrowTimeout()} plus the connect timeout. Never call a pool from an
 * event-loop or selector thread (Netty, Grizzly, a {@code TAsyncClientManager}, or a callback
 * running on one): the replies that would free a connection may be waiting on that very thread.
 */
package io.thriftnio.pool;
