package io.thriftnio.it.bench;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.handler.ssl.OpenSsl;
import io.thriftnio.core.WireKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * gRPC-java peer rows: a real gRPC server of {@link GrpcEcho}'s unary echo, to set the library's
 * rows against another stack's (issue 29). Named only ({@code peers}, {@code grpc}, {@code
 * grpc-tls} or by name), called by the {@code grpc} client kind alone ({@link GrpcClientKind}):
 *
 * <ul>
 *   <li>{@code grpc/direct}: {@code directExecutor()}, the handler on the event loop that read the
 *       call, the peer of {@code SAME_THREAD};
 *   <li>{@code grpc/default}: gRPC's default executor (a cached thread pool), the peer of {@code
 *       WORKER}; with {@code --workers N}, a fixed pool of N threads instead;
 *   <li>{@code grpc-tls/direct}, {@code grpc-tls/default}: the same over TLS with the run's {@link
 *       BenchTls} certificates, through gRPC's own TLS choice (OpenSSL from the shaded
 *       netty-tcnative where it loads, else the JDK's).
 * </ul>
 *
 * <p>One boss event loop accepts; {@code --io-threads} worker event loops (default: the processors)
 * serve the connections, on epoll where the shaded Netty's native loads, else NIO.
 */
final class GrpcRows implements RowProvider {

  /** The stack of these rows and of their client kind. */
  static final String STACK = "grpc";

  /** How long a closing server may take to finish its calls before they are cancelled. */
  private static final long STOP_SECONDS = 5;

  @Override
  public void register(Rows rows) {
    rows.server(new GrpcRow("grpc/direct", true, false));
    rows.server(new GrpcRow("grpc/default", false, false));
    rows.server(new GrpcRow("grpc-tls/direct", true, true));
    rows.server(new GrpcRow("grpc-tls/default", false, true));
    rows.client(new GrpcClientKind("grpc", false));
    rows.client(new GrpcClientKind("grpc-loop", true));
  }

  private record GrpcRow(String name, boolean direct, boolean tls) implements ServerRow {

    @Override
    public String stack() {
      return STACK;
    }

    @Override
    public boolean listed() {
      return false;
    }

    /** Open-loop cells call a gRPC row with the grpc kind's pipelined lanes. */
    @Override
    public String openLoopClient() {
      return "grpc";
    }

    @Override
    public RunningServer start(ServerSpec spec) throws Exception {
      if (!spec.wireKinds().equals(EnumSet.of(WireKind.FRAMED))) {
        throw new IllegalStateException(
            name
                + " serves gRPC only: transports "
                + spec.wireKinds()
                + " (expected: none; the Thrift transports are the netty and grizzly rows')");
      }
      ServerCredentials credentials = InsecureServerCredentials.create();
      if (tls) {
        if (spec.tls() == null) {
          throw new IllegalStateException(name + " serves TLS: no certificates (serve --tls-dir)");
        }
        credentials =
            TlsServerCredentials.create(
                spec.tls().dir().resolve(BenchTls.CERT_FILE).toFile(),
                spec.tls().dir().resolve(BenchTls.KEY_FILE).toFile());
      }
      int ioThreads = spec.ioThreadsOr(Runtime.getRuntime().availableProcessors());
      EventLoopGroup boss = GrpcEcho.group(1, "grpc-boss");
      EventLoopGroup workers = GrpcEcho.group(ioThreads, "grpc-worker");
      ExecutorService pool =
          !direct && spec.workers() != null ? Executors.newFixedThreadPool(spec.workers()) : null;
      NettyServerBuilder builder =
          NettyServerBuilder.forAddress(
                  new InetSocketAddress(spec.host(), spec.port()), credentials)
              .bossEventLoopGroup(boss)
              .workerEventLoopGroup(workers)
              .channelType(GrpcEcho.serverChannel())
              .maxInboundMessageSize(GrpcEcho.MAX_MESSAGE)
              .addService(GrpcEcho.service());
      if (direct) {
        builder.directExecutor();
      } else if (pool != null) {
        builder.executor(pool);
      }
      Server server;
      try {
        server = builder.build().start();
      } catch (IOException | RuntimeException e) {
        stop(boss, workers, pool);
        throw e;
      }
      // Which transport and TLS ran, for the reader of the run's log.
      System.err.printf(
          "%s: gRPC-java on %s, 1 boss and %d worker event loop(s), %s%s%n",
          name,
          GrpcEcho.TRANSPORT,
          ioThreads,
          direct
              ? "handler on the event loop (directExecutor)"
              : pool != null
                  ? "handler on a fixed pool of " + spec.workers() + " threads"
                  : "handler on gRPC's default executor",
          tls
              ? ", TLS by " + (OpenSsl.isAvailable() ? "OpenSSL (netty-tcnative)" : "the JDK")
              : "");
      return new Running(
          server, new InetSocketAddress(spec.host(), server.getPort()), boss, workers, pool);
    }
  }

  private static void stop(EventLoopGroup boss, EventLoopGroup workers, ExecutorService pool) {
    boss.shutdownGracefully(0, STOP_SECONDS, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, STOP_SECONDS, TimeUnit.SECONDS);
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  /** A started gRPC server and the event loops it owns. */
  private static final class Running implements RunningServer {
    private final Server server;
    private final InetSocketAddress address;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final ExecutorService pool;
    private boolean closed;

    Running(
        Server server,
        InetSocketAddress address,
        EventLoopGroup boss,
        EventLoopGroup workers,
        ExecutorService pool) {
      this.server = server;
      this.address = address;
      this.boss = boss;
      this.workers = workers;
      this.pool = pool;
    }

    @Override
    public InetSocketAddress address() {
      return address;
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      server.shutdown();
      try {
        if (!server.awaitTermination(STOP_SECONDS, TimeUnit.SECONDS)) {
          server.shutdownNow();
        }
      } catch (InterruptedException e) {
        server.shutdownNow();
        Thread.currentThread().interrupt();
      }
      stop(boss, workers, pool);
      boss.terminationFuture().awaitUninterruptibly(STOP_SECONDS, TimeUnit.SECONDS);
      workers.terminationFuture().awaitUninterruptibly(STOP_SECONDS, TimeUnit.SECONDS);
    }
  }
}
