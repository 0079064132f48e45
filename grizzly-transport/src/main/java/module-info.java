/**
 * thrift-nio's Grizzly 4.0 transport: {@code GrizzlyThriftServer}, {@code GrizzlyClientIo} and the
 * filters for a filter chain of one's own.
 */
module io.thriftnio.grizzly {
  requires transitive io.thriftnio.core;
  // In the API: transports, filters, buffers.
  requires transitive org.glassfish.grizzly;
  requires org.slf4j;

  exports io.thriftnio.grizzly;
}
