package io.thriftnio.core.internal.server;

import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.util.internal.ServerCounters;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * The {@link ThriftServer} contract over a {@link ServerLifecycle}: the server every transport's
 * builder returns ({@code NettyThriftServer.builder().build()}, Grizzly's alike), carrying the
 * transport's {@link ServerLifecycle.Transport}, which binds, accepts and releases its threads. The
 * in-memory server of the testkit holds one. Not part of the API: program against {@link
 * ThriftServer}.
 */
public final class LifecycleServer implements ThriftServer {

  private final ServerConfig config;
  private final ServerCounters counters = new ServerCounters();
  private final ConnectionRegistry<ConnectionHandle> registry;
  private final ServerLifecycle lifecycle;

  /**
   * @param name the server's name in log lines, e.g. {@code "Thrift server"}
   * @param threadPrefix the prefix of its threads' names, e.g. {@code "thrift-nio-netty"}
   * @param config the server's settings
   */
  public LifecycleServer(String name, String threadPrefix, ServerConfig config) {
    this(name, threadPrefix, config, false);
  }

  /**
   * @param name the server's name in log lines, e.g. {@code "Thrift server"}
   * @param threadPrefix the prefix of its threads' names, e.g. {@code "thrift-nio-netty"}
   * @param config the server's settings
   * @param handsOverPasses whether its IO threads run tasks after each pass over their connections
   *     (Netty's event loops), so that its own worker pool may take the short calls of a pass
   *     together ({@code WorkerHandOff})
   */
  public LifecycleServer(
      String name, String threadPrefix, ServerConfig config, boolean handsOverPasses) {
    this.config = Objects.requireNonNull(config, "config");
    this.registry =
        new ConnectionRegistry<>(config.maxConnections(), counters, ConnectionEvents.of(config));
    this.lifecycle =
        new ServerLifecycle(name, threadPrefix, config, counters, registry, handsOverPasses);
  }

  /** The server's counters, behind {@link #stats()}. */
  public ServerCounters counters() {
    return counters;
  }

  /** The server's open connections. */
  public ConnectionRegistry<ConnectionHandle> registry() {
    return registry;
  }

  /** The server's lifecycle; the transport's server gives it its {@code Transport}. */
  public ServerLifecycle lifecycle() {
    return lifecycle;
  }

  /**
   * Binds and starts serving; does nothing if running.
   *
   * @throws java.net.BindException if the address cannot be bound, naming it
   * @throws IllegalStateException if the server was closed
   */
  @Override
  public LifecycleServer start() throws IOException {
    lifecycle.start();
    return this;
  }

  @Override
  public InetSocketAddress localAddress() {
    return lifecycle.localAddress();
  }

  @Override
  public boolean isRunning() {
    return lifecycle.isRunning();
  }

  @Override
  public ServerConfig config() {
    return config;
  }

  @Override
  public ServerStats stats() {
    return counters.snapshot(ServerStats.class);
  }

  @Override
  public boolean beforeDrain(Runnable hook) {
    if (hook == null) {
      throw new IllegalArgumentException("hook: null (expected: not null)");
    }
    return lifecycle.beforeDrain(hook);
  }

  /**
   * Closes the server gracefully and returns once it is closed: stops accepting, lets every
   * connection answer the calls it has received for up to {@code drainTimeout}, closes what is
   * left, then stops the threads the server owns. Idempotent: a concurrent or later call waits for
   * the first one to finish.
   *
   * <p>In a call of this server (on any strategy), or on one of its IO threads, waiting would wait
   * for that very call, or stall that thread's connections for the whole {@code drainTimeout}.
   * There it stops accepting, hands the drain to a thread named {@code ...-close-PORT}, and returns
   * at once: {@link #isRunning()} is then false while calls may still be finishing.
   */
  @Override
  public void close() {
    lifecycle.close();
  }

  /**
   * The transport's description: the server class, the bound address (the configured one before
   * {@link #start()}), the IO transport and the strategy, e.g. {@code
   * NettyThriftServer{/127.0.0.1:9090, NIO, WORKER}}.
   */
  @Override
  public String toString() {
    return String.valueOf(lifecycle.transport());
  }
}
