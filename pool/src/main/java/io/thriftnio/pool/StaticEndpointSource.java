package io.thriftnio.pool;

import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** A fixed list, published once when started. */
final class StaticEndpointSource implements EndpointSource {
  private final List<InetSocketAddress> endpoints;
  private final AtomicBoolean started = new AtomicBoolean();

  StaticEndpointSource(List<InetSocketAddress> endpoints) {
    Checks.notNull("endpoints", endpoints);
    for (int i = 0; i < endpoints.size(); i++) {
      if (endpoints.get(i) == null) {
        throw new SettingException("endpoints[" + i + "]", null, "an address");
      }
    }
    if (endpoints.isEmpty()) {
      throw new SettingException("endpoints", "[]", "at least one");
    }
    this.endpoints = List.copyOf(new LinkedHashSet<>(endpoints));
  }

  @Override
  public void start(Consumer<List<InetSocketAddress>> listener) {
    Checks.notNull("listener", listener);
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException(this + " was started already (expected: one pool each)");
    }
    listener.accept(endpoints);
  }

  @Override
  public void close() {
    // Nothing to release: a fixed list holds no thread and no session.
  }

  @Override
  public String toString() {
    List<String> names = new ArrayList<>();
    for (InetSocketAddress e : endpoints) {
      names.add(Names.endpoint(e));
    }
    return "static endpoints " + names;
  }
}
