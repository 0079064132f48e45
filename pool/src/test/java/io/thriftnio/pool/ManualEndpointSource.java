package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Consumer;

/** An endpoint source a test publishes by hand. */
final class ManualEndpointSource implements EndpointSource {
  private final List<InetSocketAddress> initial;
  private volatile Consumer<List<InetSocketAddress>> listener;
  private volatile boolean closed;

  ManualEndpointSource(InetSocketAddress... initial) {
    this.initial = List.of(initial);
  }

  @Override
  public void start(Consumer<List<InetSocketAddress>> listener) {
    this.listener = listener;
    listener.accept(initial);
  }

  void publish(InetSocketAddress... endpoints) {
    listener.accept(List.of(endpoints));
  }

  boolean isClosed() {
    return closed;
  }

  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return "manual source";
  }
}
