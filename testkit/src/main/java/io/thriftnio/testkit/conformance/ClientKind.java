package io.thriftnio.testkit.conformance;

import java.net.InetSocketAddress;
import org.apache.thrift.protocol.TProtocolFactory;

/** A way of calling {@code BenchService}: stock sockets, a library transport, an async channel. */
public interface ClientKind {

  /** A short name for test reports, e.g. {@code tsocket}, {@code netty-async}. */
  String name();

  /**
   * Opens one connection to {@code address}.
   *
   * @param address the server
   * @param protocolFactory the protocol the server speaks
   * @return the connection; the caller closes it
   * @throws Exception if it cannot connect
   */
  BenchConnection connect(InetSocketAddress address, TProtocolFactory protocolFactory)
      throws Exception;
}
