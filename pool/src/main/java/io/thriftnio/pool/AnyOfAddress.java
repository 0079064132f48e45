package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

/**
 * Stands for the endpoints of a pool in messages, as its {@code remoteAddress()} when it has
 * several; not a connectable address.
 */
final class AnyOfAddress extends SocketAddress {
  private static final long serialVersionUID = 1L;
  private final String text;

  AnyOfAddress(List<InetSocketAddress> endpoints) {
    StringBuilder sb = new StringBuilder("one of [");
    for (int i = 0; i < endpoints.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(Names.endpoint(endpoints.get(i)));
    }
    this.text = sb.append(']').toString();
  }

  @Override
  public String toString() {
    return text;
  }
}
