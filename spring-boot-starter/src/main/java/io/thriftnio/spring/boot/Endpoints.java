package io.thriftnio.spring.boot;

import java.net.InetSocketAddress;

/** {@code host:port} strings ({@code [v6]:port} too) to socket addresses, the host resolved now. */
final class Endpoints {

  private Endpoints() {}

  static InetSocketAddress parse(String property, String value) {
    String v = value == null ? "" : value.trim();
    int colon = v.lastIndexOf(':');
    if (colon > 0 && colon < v.length() - 1) {
      String host = v.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      try {
        int port = Integer.parseInt(v.substring(colon + 1));
        if (port > 0 && port <= 65535 && !host.isEmpty()) {
          return new InetSocketAddress(host, port);
        }
      } catch (NumberFormatException e) {
        // not a port: refused below, with the value
      }
    }
    throw new IllegalArgumentException(
        property + ": '" + value + "' (expected: host:port, port 1 to 65535)");
  }
}
