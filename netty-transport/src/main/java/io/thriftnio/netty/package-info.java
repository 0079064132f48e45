/**
 * Apache Thrift's framed transport over Netty 4.2.
 *
 * <ul>
 *   <li>Server: {@link io.thriftnio.netty.NettyThriftServer#builder()}.
 *   <li>Codec pieces for a pipeline of your own: {@link io.thriftnio.netty.ThriftFrameDecoder},
 *       {@link io.thriftnio.netty.ThriftFrameEncoder}, {@link
 *       io.thriftnio.netty.ThriftServerHandler}.
 *   <li>Clients: {@link io.thriftnio.netty.TNettyTransport} (synchronous, for any generated {@code
 *       Client}) and {@link io.thriftnio.netty.NettyThriftChannel} (asynchronous, pipelined), both
 *       on the event loops of a {@link io.thriftnio.netty.NettyClientResources}.
 * </ul>
 */
package io.thriftnio.netty;
