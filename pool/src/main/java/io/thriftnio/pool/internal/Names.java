package io.thriftnio.pool.internal;

import java.net.InetSocketAddress;

/** How endpoints appear in messages: {@code host:port}, never a reverse DNS lookup. */
public final class Names {
  private Names() {}

  public static String endpoint(InetSocketAddress endpoint) {
    return endpoint == null ? "(no endpoint)" : endpoint.getHostString() + ":" + endpoint.getPort();
  }
}
