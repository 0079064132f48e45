package io.thriftnio.core;

import io.thriftnio.core.util.internal.Checks;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A {@link ThriftServer} that hands its lifecycle to another: a transport's server class extends it
 * with the server that does the work (binding, counting, draining, closing), so every transport
 * starts, counts, drains and closes the same way, and each adds only what is its own (a covariant
 * {@link #start()}, its settings, its {@code toString}).
 *
 * <pre>{@code
 * public final class MyServer extends ForwardingThriftServer {
 *   MyServer(ThriftServer lifecycle) { super(lifecycle); }
 *
 *   public MyServer start() throws IOException {
 *     super.start();
 *     return this;
 *   }
 * }
 * }</pre>
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
