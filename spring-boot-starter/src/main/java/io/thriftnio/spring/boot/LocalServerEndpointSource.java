package io.thriftnio.spring.boot;

import io.thriftnio.pool.EndpointSource;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Consumer;

/**
 * The application's own Thrift server, once it serves: an empty set before, then its address
 * ({@code thrift.clients.<name>.local-server=true}).
 */
final class LocalServerEndpointSource implements EndpointSource {

  private final ThriftServerLifecycle server;
  private volatile boolean closed;

  LocalServerEndpointSource(ThriftServerLifecycle server) {
    this.server = server;
  }

  @Override
  public void start(Consumer<List<InetSocketAddress>> listener) {
    listener.accept(List.of());
    server.onServing(
        address -> {
          if (!closed) {
            listener.accept(List.of(address));
          }
        });
  }

  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return "this application's Thrift server (local-server=true, "
        + server.localAddress().map(a -> "at " + a).orElse("not serving")
        + ")";
  }
}
