/**
 * thrift-nio's Netty 4.2 transport: {@code NettyThriftServer}, {@code NettyClientIo} and the codec
 * pieces for a pipeline of one's own.
 */
module io.thriftnio.netty {
  requires transitive io.thriftnio.core;
  // In the API: event loop groups, channels, ByteBuf, the decoder's and TLS's types.
  requires transitive io.netty.buffer;
  requires transitive io.netty.codec;
  requires transitive io.netty.common;
  requires transitive io.netty.handler;
  requires transitive io.netty.transport;
  // The native transports are optional artifacts, looked up at run time.
  requires static io.netty.transport.classes.epoll;
  requires static io.netty.transport.classes.io_uring;
  requires org.slf4j;
  // @GuardedBy, for Error Prone at build time; not needed at run time.
  requires static com.google.errorprone.annotations;

  exports io.thriftnio.netty;
}
