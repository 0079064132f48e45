/**
 * Apache Thrift over Grizzly 4.0: a server with Grizzly's three IO strategies, sync and async
 * clients, and the filters to build your own chain.
 *
 * <pre>
 *  server chain:  TransportFilter -&gt; ThriftFrameFilter -&gt; ThriftServerFilter
 *  client chain:  TransportFilter -&gt; ThriftFrameFilter -&gt; ThriftClientFilter
 * </pre>
 *
 * <ul>
 *   <li>{@link io.thriftnio.grizzly.GrizzlyThriftServer}: the server, built with {@code
 *       GrizzlyThriftServer.builder()}.
 *   <li>{@link io.thriftnio.grizzly.GrizzlyClientIo}: core's {@link io.thriftnio.core.ClientIo} on
 *       Grizzly, one client transport shared by many sync transports and {@link
 *       io.thriftnio.core.ThriftChannel async channels}.
 *   <li>{@link io.thriftnio.grizzly.ThriftFrameFilter}, {@link
 *       io.thriftnio.grizzly.ThriftServerFilter}, {@link io.thriftnio.grizzly.ThriftClientFilter}
 *       (and its {@code transport(connection)}): the pieces, for a chain of your own.
 * </ul>
 *
 * <p>Logging: this package logs through SLF4J; Grizzly itself logs through {@code
 * java.util.logging}. To send Grizzly's records to SLF4J too, add {@code org.slf4j:jul-to-slf4j}
 * and install the bridge once at startup:
 *
 * <pre>{@code
 * SLF4JBridgeHandler.removeHandlersForRootLogger();
 * SLF4JBridgeHandler.install();
 * }</pre>
 */
package io.thriftnio.grizzly;
