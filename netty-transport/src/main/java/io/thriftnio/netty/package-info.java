/**
 * Apache Thrift's framed transport over Netty 4.2.
 *
 * <ul>
 *   <li>Server: {@link io.thriftnio.netty.NettyThriftServer#builder()}.
 *   <li>Pieces for a pipeline of your own: {@link io.thriftnio.netty.ThriftFrameCodec}, {@link
 *       io.thriftnio.netty.ThriftServerHandler}.
 *   <li>Clients: {@link io.thriftnio.netty.NettyClientIo}, core's {@link
 *       io.thriftnio.core.ClientIo} on Netty: sync transports for any generated {@code Client} and
 *       pipelined {@link io.thriftnio.core.ThriftChannel}s.
 * </ul>
 */
package io.thriftnio.netty;
