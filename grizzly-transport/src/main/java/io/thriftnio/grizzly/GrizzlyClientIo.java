package io.thriftnio.grizzly;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.core.internal.client.ClientConnections;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.grizzly.internal.Transports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Grizzly's {@link ClientIo}: one client-side {@link TCPNIOTransport} (selector threads, pooled
 * memory) and a timer, shared by many client connections. Create one per application, close it
 * last.
 *
 * <pre>{@code
 * try (ClientIo resources = GrizzlyClientIo.create()) {
 *   TTransport transport = resources.openTransport(address, ClientOptions.defaults());
 *   ThriftChannel channel = resources.openChannel(address, ClientOptions.defaults());
 * }
 * }</pre>
 *
 * <p>Every connection's chain is {@code TransportFilter -> [SSLFilter] ->
 * ThriftFrameFilter(maxFrameSize) -> ThriftClientFilter}, per its {@link ClientOptions}. A sync
 * transport over plain TCP is core's blocking socket transport, driven by the caller's thread: it
 * costs what {@code TSocket} + {@code TFramedTransport} cost. Over TLS it is the transport of
 * {@link ThriftClientFilter#transport} behind Grizzly's {@code SSLFilter} (JDK provider only).
 *
 * <p>Thread-safe. {@link #close()} closes every connection opened here and stops the threads; it is
 * idempotent.
 */
public final class GrizzlyClientIo implements ClientIo {

  private static final Logger log = LoggerFactory.getLogger(GrizzlyClientIo.class);
  private static final String THREAD_PREFIX = "thrift-nio-grizzly-client";

  /**
   * Worker threads under {@link IoStrategy#WORKER} and {@link IoStrategy#LEADER_FOLLOWER}:
   * {@value}.
   */
  public static final int DEFAULT_WORKER_THREADS = 16;

  /** Tasks the worker pool queues: {@value}. */
  public static final int DEFAULT_WORKER_QUEUE_CAPACITY = 1024;

  // Held, not extended: the public class has no internal superclass.
  private final ClientConnections connections = new ClientConnections(new Io());

  private final TCPNIOTransport transport;
  private final ThreadPoolExecutor workerPool;
  private final ScheduledThreadPoolExecutor timer;
  private final IoStrategy ioStrategy;
  private final GrizzlyConnector connector;

  private GrizzlyClientIo(int ioThreads, IoStrategy ioStrategy) throws IOException {
    this.ioStrategy = ioStrategy;
    // Bounded: once the queue is full the selector thread runs the task itself and stops reading
    // meanwhile, instead of queueing responses without limit behind a slow callback.
    this.workerPool =
        ioStrategy == IoStrategy.SAME_THREAD
            ? null
            : new ThreadPoolExecutor(
                DEFAULT_WORKER_THREADS,
                DEFAULT_WORKER_THREADS,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(DEFAULT_WORKER_QUEUE_CAPACITY),
                new NamedThreadFactory(THREAD_PREFIX + "-worker"),
                new ThreadPoolExecutor.CallerRunsPolicy());
    // Each connection's own limit replaces this default (see GrizzlyConnector).
    this.transport =
        Transports.newTransport(
            THREAD_PREFIX,
            ioStrategy,
            ioThreads,
            workerPool,
            GrizzlyConnector.WRITE_HIGH_WATER_MARK,
            true);
    this.connector = new GrizzlyConnector(transport);
    this.timer =
        new ScheduledThreadPoolExecutor(1, new NamedThreadFactory(THREAD_PREFIX + "-timer"));
    timer.setRemoveOnCancelPolicy(true);
    try {
      transport.start();
    } catch (IOException | RuntimeException e) {
      timer.shutdownNow();
      if (workerPool != null) {
        workerPool.shutdownNow();
      }
      throw e;
    }
  }

  /**
   * Resources with every default: one selector thread, {@link IoStrategy#SAME_THREAD}.
   *
   * @throws UncheckedIOException if Grizzly cannot start its selectors
   */
  public static GrizzlyClientIo create() {
    return create(1, IoStrategy.SAME_THREAD);
  }

  /**
   * Resources with {@code ioThreads} selector threads and {@link IoStrategy#SAME_THREAD}.
   *
   * @param ioThreads selector threads, {@code > 0}
   * @throws SettingException if {@code ioThreads} is not positive
   * @throws UncheckedIOException if Grizzly cannot start its selectors
   */
  public static GrizzlyClientIo create(int ioThreads) {
    return create(ioThreads, IoStrategy.SAME_THREAD);
  }

  /**
   * Resources with {@code ioThreads} selector threads, handling response frames by {@code
   * ioStrategy}.
   *
   * @param ioThreads selector threads, {@code > 0}
   * @param ioStrategy where response frames are handled. {@link IoStrategy#SAME_THREAD} (the
   *     default of the other factories): handing a response to a waiting thread costs little, and a
   *     worker hop only adds latency. {@link IoStrategy#WORKER} and {@link
   *     IoStrategy#LEADER_FOLLOWER} (Grizzly's own) run {@value #DEFAULT_WORKER_THREADS} worker
   *     threads with a queue of {@value #DEFAULT_WORKER_QUEUE_CAPACITY} tasks, past which the
   *     selector thread runs a task itself and reads nothing meanwhile.
   * @throws SettingException if {@code ioThreads} is not positive or {@code ioStrategy} is null
   * @throws UncheckedIOException if Grizzly cannot start its selectors
   */
  public static GrizzlyClientIo create(int ioThreads, IoStrategy ioStrategy) {
    Checks.positive("ioThreads", ioThreads);
    Checks.notNull("ioStrategy", ioStrategy);
    try {
      return new GrizzlyClientIo(ioThreads, ioStrategy);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the Grizzly client transport: " + e, e);
    }
  }

  /** The IO strategy of the client transport. */
  public IoStrategy ioStrategy() {
    return ioStrategy;
  }

  /** Tasks the worker pool may queue; 0 under {@link IoStrategy#SAME_THREAD}. */
  int workerQueueCapacity() {
    return workerPool == null
        ? 0
        : workerPool.getQueue().remainingCapacity() + workerPool.getQueue().size();
  }

  /** A connection with the chain {@code options} call for, for tests and the transports here. */
  Connection<?> connect(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    connections.ensureOpen(address);
    return connector.connect(address, options);
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  @Override
  public String toString() {
    return "GrizzlyClientIo{" + ioStrategy + (isClosed() ? ", closed}" : "}");
  }

  @Override
  public TTransport openTransport(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    return connections.openTransport(address, options);
  }

  @Override
  public ThriftChannel openChannel(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    return connections.openChannel(address, options);
  }

  /** Closes every connection opened here, then stops the threads. Idempotent. */
  @Override
  public void close() {
    connections.close();
  }

  /** Whether {@link #close()} has been called. */
  public boolean isClosed() {
    return connections.isClosed();
  }

  /** Connections opened here and not yet closed. */
  public int openConnections() {
    return connections.openConnections();
  }

  /** The IO part of what every transport's resources do alike. */
  private final class Io implements ClientConnections.Adapter {
    @Override
    public TTransport connectTlsTransport(
        InetSocketAddress address, ClientOptions options, Runnable onClose)
        throws TTransportException {
      Connection<?> connection = connector.connect(address, options);
      return new GrizzlyFramedTransport(address, connection, options, onClose);
    }

    @Override
    public ThriftChannel connectChannel(
        InetSocketAddress address, ClientOptions options, Runnable onClose)
        throws TTransportException {
      connections.ensureOpen(address);
      Connection<?> connection = connector.connect(address, options);
      return new GrizzlyThriftChannel(address, connection, options, timer, onClose);
    }

    @Override
    public void release() {
      try {
        transport.shutdownNow();
      } catch (IOException | RuntimeException e) {
        log.warn("Error shutting down the Grizzly client transport", e);
      }
      timer.shutdownNow();
      if (workerPool != null) {
        workerPool.shutdownNow();
      }
    }
  }
}
