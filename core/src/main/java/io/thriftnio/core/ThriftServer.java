package io.thriftnio.core;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A Thrift server on one listening socket. Built by a transport's builder (for example {@code
 * NettyThriftServer.builder()}), then started:
 *
 * <pre>{@code
 * ThriftServer server = NettyThriftServer.builder()
 *     .processor(new BenchService.Processor<>(handler))
 *     .bind(new InetSocketAddress("127.0.0.1", 0))
 *     .build()
 *     .start();
 * InetSocketAddress address = server.localAddress();
 * ...
 * server.close();
 * }</pre>
 *
 * <p>Lifecycle: {@link #start()} binds and begins accepting; it is idempotent. {@link #close()} is
 * graceful and idempotent: it lets calls in flight finish for up to the configured {@linkplain
 * ServerConfig#drainTimeout() drain timeout} (a connection accepted meanwhile drains from the
 * start: its calls are answered not run; with a {@linkplain ServerConfig#healthPath() health path}
 * it is served for the probe alone), stops accepting once the drain ends, then closes every
 * connection and the threads the server owns. It never hangs beyond the drain timeout plus a short
 * grace for thread shutdown. A closed server cannot be started again.
 */
public interface ThriftServer extends AutoCloseable {

  /**
   * Binds the configured address and begins serving. Calling it on a running server does nothing.
   *
   * @return this server
   * @throws IOException if the address cannot be bound
   * @throws IllegalStateException if the server was closed
   */
  ThriftServer start() throws IOException;

  /**
   * The address the server listens on, with the actual port when the configuration asked for port
   * 0.
   *
   * @throws IllegalStateException if the server is not started
   */
  InetSocketAddress localAddress();

  /** Whether the server has started and is not yet closed. */
  boolean isRunning();

  /** The configuration the server was built with. */
  ServerConfig config();

  /** A snapshot of the server's counters. */
  ServerStats stats();

  /**
   * Adds a hook that {@link #close()} runs first, before the server stops accepting and drains: the
   * place to withdraw the server from service discovery (a ZooKeeper node, a load balancer's list)
   * while it still accepts and serves every call, so that clients stop choosing it before it stops
   * answering. Hooks run once, in the order added, on the thread that closes (the server's {@code
   * -close-PORT} thread when {@code close()} was called in a call or on an IO thread, never an IO
   * thread); the drain timeout starts after the last hook returns. A hook that throws is logged and
   * the close goes on. Added after the close began, a hook does not run.
   *
   * @param hook not null; should return within a few seconds, since close() waits for it
   * @return {@code true} if the hook will run, {@code false} if the close has begun
   */
  boolean beforeDrain(Runnable hook);

  /**
   * Stops the server gracefully; see the class documentation. Idempotent; returns once the server
   * is closed.
   */
  @Override
  void close();
}
