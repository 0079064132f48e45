package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.util.List;

/** An endpoint source a test publishes by hand. */
final class ManualEndpointSource implements EndpointSource {
  private final List<InetSocketAddress> initial;
  private volatile Listener listener;
  private volatile boolean closed;

  ManualEndpointSource(InetSocketAddress... initial) {
    this.initial = List.of(initial);
  }

  @Override
  public void start(Listener listener) {
    this.listener = listener;
    listener.endpointsChanged(initial);
  }

  void publish(InetSocketAddress... endpoints) {
    listener.endpointsChanged(List.of(endpoints));
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
