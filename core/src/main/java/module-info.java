/**
 * thrift-nio's transport-neutral core: the server and client API (builders, options, call contexts,
 * interceptors, exceptions, TLS settings) that the transport modules implement.
 *
 * <p>Only {@code io.thriftnio.core}, {@code io.thriftnio.core.tls} and {@code
 * io.thriftnio.core.sasl} are API. The wire codecs and the internal packages are exported only to
 * this library's own modules, which build on them; they may change in any release.
 */
module io.thriftnio.core {
  // Thrift's types (TProcessor, TProtocolFactory, TException, ...) are in the API throughout.
  requires transitive org.apache.thrift;
  requires org.slf4j;
  requires java.management; // a server's RunGate: the CPU time of the thread running a call
  // ServerSasl and ClientSasl hand out javax.security.sasl servers and clients.
  requires transitive java.security.sasl;
  // @GuardedBy, for Error Prone at build time; not needed at run time.
  requires static com.google.errorprone.annotations;
  // ServerBuilder.adaptiveLimit, opt-in: Netflix concurrency-limits, an optional dependency whose
  // jar names no module (0.5.4), so its automatic name comes from the file name.
  requires static concurrency.limits.core;

  exports io.thriftnio.core;
  exports io.thriftnio.core.tls;
  exports io.thriftnio.core.sasl;
  exports io.thriftnio.core.settings;
  exports io.thriftnio.core.wire to
      io.thriftnio.netty,
      io.thriftnio.grizzly;
  exports io.thriftnio.core.internal to
      io.thriftnio.netty,
      io.thriftnio.grizzly,
      io.thriftnio.pool;
  exports io.thriftnio.core.internal.client to
      io.thriftnio.netty,
      io.thriftnio.grizzly,
      io.thriftnio.pool;
  exports io.thriftnio.core.internal.server to
      io.thriftnio.netty,
      io.thriftnio.grizzly;
  exports io.thriftnio.core.util.internal to
      io.thriftnio.netty,
      io.thriftnio.grizzly,
      io.thriftnio.pool,
      io.thriftnio.zookeeper;
}
