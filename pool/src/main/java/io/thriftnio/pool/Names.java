package io.thriftnio.pool;

import java.net.InetSocketAddress;

/** How endpoints appear in messages: {@code host:port}, never a reverse DNS lookup. */
final class Names {
  private Names() {}

  public static String endpoint(InetSocketAddress endpoint) {
    return endpoint == null ? "(no endpoint)" : endpoint.getHostString() + ":" + endpoint.getPort();
  }
}
