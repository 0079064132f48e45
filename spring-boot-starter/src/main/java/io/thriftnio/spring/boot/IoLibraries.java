package io.thriftnio.spring.boot;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.spring.boot.ThriftServerProperties.IoLibrary;
import io.thriftnio.spring.boot.ThriftServerProperties.IoTransport;
import org.springframework.util.ClassUtils;

/**
 * The IO library's server builder and client IO threads. Grizzly's types are touched only when
 * Grizzly is chosen: it is an optional dependency.
 */
final class IoLibraries {

  private static final String NETTY = "io.thriftnio.netty.NettyThriftServer";
  private static final String GRIZZLY = "io.thriftnio.grizzly.GrizzlyThriftServer";

  private IoLibraries() {}

  /**
   * The library to use: the one asked for, else Netty when present, else Grizzly.
   *
   * @throws IllegalStateException if the library asked for, or any, is not on the class path
   */
  static IoLibrary resolve(IoLibrary asked, String property) {
    ClassLoader loader = IoLibraries.class.getClassLoader();
    boolean netty = ClassUtils.isPresent(NETTY, loader);
    boolean grizzly = ClassUtils.isPresent(GRIZZLY, loader);
    IoLibrary chosen = asked != null ? asked : netty ? IoLibrary.NETTY : IoLibrary.GRIZZLY;
    if (chosen == IoLibrary.NETTY && !netty || chosen == IoLibrary.GRIZZLY && !grizzly) {
      String artifact = chosen == IoLibrary.NETTY ? "thrift-nio-netty" : "thrift-nio-grizzly";
      throw new IllegalStateException(
          property
              + ": "
              + chosen.name().toLowerCase(java.util.Locale.ROOT)
              + " (expected: an IO library on the class path; add io.thriftnio:"
              + artifact
              + ")");
    }
    return chosen;
  }

  /**
   * A server builder of the library.
   *
   * @param ioTransport Netty's transport, or {@code null} for its default
   * @throws IllegalStateException if a transport is given for Grizzly
   */
  static ServerBuilder<?> serverBuilder(IoLibrary library, IoTransport ioTransport) {
    if (library == IoLibrary.NETTY) {
      io.thriftnio.netty.NettyThriftServer.Builder b =
          io.thriftnio.netty.NettyThriftServer.builder();
      if (ioTransport != null) {
        b.ioTransport(io.thriftnio.netty.NettyTransportType.valueOf(ioTransport.name()));
      }
      return b;
    }
    if (ioTransport != null) {
      throw new IllegalStateException(
          "thrift.server.io-transport: "
              + ioTransport
              + " (expected: unset; a Netty setting, ignored with io-library grizzly)");
    }
    return Grizzly.serverBuilder();
  }

  static ClientIo clientIo(IoLibrary library) {
    return library == IoLibrary.NETTY
        ? io.thriftnio.netty.NettyClientIo.create()
        : Grizzly.clientIo();
  }

  /** Loaded only when Grizzly is chosen. */
  private static final class Grizzly {
    static ServerBuilder<?> serverBuilder() {
      return io.thriftnio.grizzly.GrizzlyThriftServer.builder();
    }

    static ClientIo clientIo() {
      return io.thriftnio.grizzly.GrizzlyClientIo.create();
    }
  }
}
