package io.thriftnio.testkit.memory;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.ConnectionRegistry;
import io.thriftnio.core.internal.server.ForwardingThriftServer;
import io.thriftnio.core.internal.server.LifecycleServer;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.core.internal.server.ServerLifecycle;
import io.thriftnio.core.util.internal.ServerCounters;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thrift-nio server whose connections carry their bytes in memory: core's whole server call path
 * (lifecycle, registry, sequencer, strategies, interceptors, listeners, drain) over one IO thread
 * and no socket IO, so that a suite about the call path runs without the kernel's network stack.
 * {@link io.thriftnio.testkit.conformance.RawConnection#open(InetSocketAddress)} connects to it by
 * its {@link #localAddress()}.
 *
 * <p>What it leaves out, being no transport: TLS, wire kinds other than framed, idle and frame
 * timeouts, and {@code LEADER_FOLLOWER}; its builder refuses them at {@code build()}. It still
 * binds a loopback port (a listening socket that accepts nothing), so that its address is unique
 * and a port in use fails {@code start()} with the {@link BindException} a socket server gives.
 */
public final class InMemoryThriftServer extends ForwardingThriftServer {

  private final LifecycleServer server;
  private final ServerConfig config;
  private final ServerCounters counters;
  private final ConnectionRegistry<ConnectionHandle> registry;
  private final ServerLifecycle lifecycle;

  private static final Map<InetSocketAddress, InMemoryThriftServer> BOUND =
      new ConcurrentHashMap<>();

  /** Client "ports", for the addresses a handler sees: unique enough among open connections. */
  private static final AtomicInteger CLIENT_PORTS = new AtomicInteger();

  private volatile ExecutorService io;
  private volatile Thread ioThread;
  private ServerSocket reservation;
  private InetSocketAddress bound;

  private InMemoryThriftServer(ServerConfig config) {
    this(new LifecycleServer("Thrift server (in memory)", "thrift-nio-memory", config));
  }

  private InMemoryThriftServer(LifecycleServer server) {
    super(server);
    this.server = server;
    this.config = server.config();
    this.counters = server.counters();
    this.registry = server.registry();
    this.lifecycle = server.lifecycle();
    lifecycle.transport(new Binding());
  }

  /** A builder; {@code bind} is the loopback address to reserve, port 0 for any. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Opens a connection to the in-memory server bound at {@code address}.
   *
   * @return the client's end, or {@code null} if no in-memory server is bound there
   */
  public static Socket connect(InetSocketAddress address) throws SocketException {
    InMemoryThriftServer server = BOUND.get(address);
    if (server == null) {
      return null;
    }
    int port = 1 + Math.floorMod(CLIENT_PORTS.getAndIncrement(), 65_535);
    InetSocketAddress client = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    MemoryServerConnection connection = new MemoryServerConnection(server, client, address);
    MemorySocket socket = new MemorySocket(connection, connection.toClient(), client, address);
    connection.execute(connection::open); // before any byte the client writes, on the IO thread
    return socket;
  }

  /** Builds {@link InMemoryThriftServer}s. */
  public static final class Builder extends ServerBuilder<Builder> {
    Builder() {}

    /**
     * @throws IllegalStateException for TLS, a wire kind other than framed, or {@code
     *     LEADER_FOLLOWER}, which an in-memory connection does not have
     */
    @Override
    public InMemoryThriftServer build() {
      ServerConfig config = config();
      if (config.ioStrategy() == IoStrategy.LEADER_FOLLOWER) {
        throw new IllegalStateException(
            "ioStrategy: LEADER_FOLLOWER (expected: SAME_THREAD or WORKER): in memory");
      }
      if (config.tls() != null) {
        throw new IllegalStateException("tls: " + config.tls() + " (expected: none): in memory");
      }
      if (!config.wireKinds().equals(Set.of(WireKind.FRAMED))) {
        throw new IllegalStateException(
            "transports: " + config.wireKinds() + " (expected: [FRAMED]): in memory");
      }
      return new InMemoryThriftServer(config);
    }
  }

  CallPath callPath() {
    return lifecycle.callPath();
  }

  ExecutorService io() {
    ExecutorService e = io;
    if (e == null) {
      throw new java.util.concurrent.RejectedExecutionException("server not started");
    }
    return e;
  }

  boolean inIoThread() {
    return Thread.currentThread() == ioThread;
  }

  boolean isClosing() {
    return registry.isClosing();
  }

  RegisteredConnection<ConnectionHandle> admit(
      ConnectionHandle handle, InetSocketAddress remote, InetSocketAddress local) {
    return registry.admit(handle, remote, local, System.nanoTime());
  }

  void closed(RegisteredConnection<ConnectionHandle> connection) {
    registry.closed(connection);
  }

  void countBadFrame() {
    counters.badFrames.increment();
  }

  @Override
  public InMemoryThriftServer start() throws IOException {
    super.start();
    return this;
  }

  @Override
  public String toString() {
    return "InMemoryThriftServer{" + (bound != null ? bound : config.bindAddress()) + '}';
  }

  private final class Binding implements ServerLifecycle.Transport {
    @Override
    public InetSocketAddress bind() throws IOException {
      ServerSocket s = new ServerSocket();
      try {
        s.bind(config.bindAddress(), 1);
      } catch (IOException e) {
        s.close();
        BindException bind =
            new BindException("cannot bind " + config.bindAddress() + ": " + e.getMessage());
        bind.initCause(e);
        throw bind;
      }
      reservation = s;
      bound = (InetSocketAddress) s.getLocalSocketAddress();
      // Not a daemon: a running server keeps the JVM alive, as the socket servers' IO threads do.
      io =
          Executors.newSingleThreadExecutor(
              task -> {
                Thread t = new Thread(task, "thrift-nio-memory-io");
                ioThread = t;
                return t;
              });
      BOUND.put(bound, InMemoryThriftServer.this);
      return bound;
    }

    @Override
    public void stopAccepting() {
      if (bound != null) {
        BOUND.remove(bound);
      }
      try {
        if (reservation != null) {
          reservation.close();
        }
      } catch (IOException e) {
        // Nothing was ever accepted on it: closing the reservation has nothing to lose.
      }
    }

    @Override
    public boolean inIoThread() {
      return InMemoryThriftServer.this.inIoThread();
    }

    @Override
    public void release() {
      stopAccepting();
      if (io != null) {
        io.shutdown(); // the IO thread ends once the tasks handed to it have run
      }
    }

    @Override
    public String describe() {
      return "in memory, " + config.ioStrategy();
    }
  }
}
