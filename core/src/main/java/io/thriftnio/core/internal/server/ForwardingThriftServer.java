package io.thriftnio.core.internal.server;

import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.Checks;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A {@link ThriftServer} that hands its lifecycle to another ({@link LifecycleServer}), for a
 * server class that is not API (the in-memory server of the testkit). The public transport servers
 * implement {@link ThriftServer} themselves: an API type cannot extend an internal one.
 */
public abstract class ForwardingThriftServer implements ThriftServer {
  private final ThriftServer delegate;

  /**
   * @param delegate the server that carries the lifecycle; not null
   */
  protected ForwardingThriftServer(ThriftServer delegate) {
    this.delegate = Checks.notNull("delegate", delegate);
  }

  /**
   * Starts the delegate; a subclass overrides it only to return its own type.
   *
   * @return this server
   * @throws IOException if the address cannot be bound
   */
  @Override
  public ThriftServer start() throws IOException {
    delegate.start();
    return this;
  }

  @Override
  public final InetSocketAddress localAddress() {
    return delegate.localAddress();
  }

  @Override
  public final boolean isRunning() {
    return delegate.isRunning();
  }

  @Override
  public final ServerConfig config() {
    return delegate.config();
  }

  @Override
  public final ServerStats stats() {
    return delegate.stats();
  }

  @Override
  public final boolean beforeDrain(Runnable hook) {
    return delegate.beforeDrain(hook);
  }

  /**
   * Closes the server gracefully and returns once it is closed; see {@link ThriftServer#close()}.
   */
  @Override
  public final void close() {
    delegate.close();
  }
}
