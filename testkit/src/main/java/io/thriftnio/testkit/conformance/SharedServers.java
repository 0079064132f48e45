package io.thriftnio.testkit.conformance;

import io.thriftnio.core.ThriftServer;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Servers that the cases of one cell share, for the cases that only call a server and need no fresh
 * one: each is started by the first case that asks for it and closed when the cell's run ends (the
 * JUnit context around the cases: a {@code @ParameterizedClass} invocation, or the class).
 * Registered by the suite as an instance field, so each case finds its cell's servers.
 */
final class SharedServers implements BeforeEachCallback {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(SharedServers.class);

  private ExtensionContext.Store cellStore;

  @Override
  public void beforeEach(ExtensionContext context) {
    cellStore = context.getParent().orElseThrow().getStore(NAMESPACE);
  }

  /**
   * The cell's server under {@code key}, started by {@code start} if it has none yet.
   *
   * @throws IllegalStateException outside a test case
   */
  ThriftServer get(String key, Callable<ThriftServer> start) throws Exception {
    if (cellStore == null) {
      throw new IllegalStateException("shared servers: not in a test case");
    }
    return cellStore.getOrComputeIfAbsent(key, k -> new Holder(), Holder.class).get(start);
  }

  /** Closed by JUnit with the store it is in, when the cell's run ends. */
  private static final class Holder implements AutoCloseable {
    private ThriftServer server;

    synchronized ThriftServer get(Callable<ThriftServer> start) throws Exception {
      if (server == null) {
        server = start.call();
      }
      return server;
    }

    @Override
    public synchronized void close() {
      if (server != null) {
        server.close();
      }
    }
  }
}
