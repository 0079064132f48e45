package io.thriftnio.it.bench;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.gen.BenchService;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TProcessor;
import org.apache.thrift.server.THsHaServer;
import org.apache.thrift.server.TNonblockingServer;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TSimpleServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.THttpClient;
import org.apache.thrift.transport.TNonblockingServerSocket;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TServerTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;

/**
 * The rows that need only libthrift: the stock Thrift servers, the raw echo ceiling, the stock
 * {@code TSocket} client, a new connection per call, and the stock {@code THttpClient} ({@code
 * thttpclient}, which calls the rows that serve HTTP: {@code thrift-servlet} and the library's).
 * Against a TLS row the stock clients run over a JDK {@code SSLSocket} (the stock servers serve
 * plain TCP only).
 *
 * <p>Thread counts: rows with a worker pool get {@code --workers} (default {@value
 * ServerBuilder#DEFAULT_WORKER_THREADS}, the library's default, so stock and library rows run with
 * the same pool); selector rows get {@code --io-threads} (default: the processors). {@code
 * thrift-threadpool} needs a thread per connection, so its pool is at least the run's connection
 * count; {@code thrift-simple} serves one connection at a time, so it runs one-connection cells
 * only.
 */
final class StockRows implements RowProvider {

  /** How long a stock server may take to stop; libthrift's default is 60 s. */
  private static final int STOP_TIMEOUT_SECONDS = 5;

  /** Read timeout of stock client sockets opened outside a cell (tests, {@code serve} checks). */
  static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(60);

  @Override
  public void register(Rows rows) {
    rows.server(new Stock("thrift-simple", Kind.SIMPLE));
    rows.server(new Stock("thrift-threadpool", Kind.THREAD_POOL));
    rows.server(new Stock("thrift-nonblocking", Kind.NONBLOCKING));
    rows.server(new Stock("thrift-hsha", Kind.HSHA));
    rows.server(new Stock("thrift-threaded-selector", Kind.THREADED_SELECTOR));
    rows.server(new RawEcho());
    rows.client(new TSocketKind());
    rows.client(new PerCallConnection());
    rows.client(new THttpClientKind());
    rows.client(new TSocketHeaderKind());
    rows.client(new TSocketSaslKind());
  }

  /**
   * A stock {@code THttpClient} on its default back-end (the JDK's {@code HttpURLConnection}, which
   * keeps connections alive and reuses them), posting to {@code http://HOST:PORT/PATH}.
   *
   * @param path the server's HTTP path, e.g. {@code /}
   * @param timeout the connect and read timeout
   */
  static TTransport openHttpClient(InetSocketAddress address, String path, Duration timeout)
      throws Exception {
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    String host = address.getHostString();
    if (host.indexOf(':') >= 0) {
      host = "[" + host + "]";
    }
    THttpClient client =
        new THttpClient(new TConfiguration(), "http://" + host + ":" + address.getPort() + path);
    client.setConnectTimeout(millis);
    client.setReadTimeout(millis);
    return client;
  }

  /** A stock framed {@code TSocket}, open, with a 60 s read timeout. */
  static TTransport openFramedSocket(InetSocketAddress address) throws Exception {
    return openFramedSocket(address, DEFAULT_READ_TIMEOUT);
  }

  /**
   * A stock framed {@code TSocket}, open.
   *
   * @param readTimeout the longest a call waits for its reply; also the connect timeout
   */
  static TTransport openFramedSocket(InetSocketAddress address, Duration readTimeout)
      throws Exception {
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, readTimeout.toMillis()));
    TSocket socket =
        new TSocket(
            new TConfiguration(), address.getHostString(), address.getPort(), millis, millis);
    TTransport framed = new TFramedTransport(socket);
    framed.open();
    return framed;
  }

  /** One JSSE context per run's client TLS settings; built once, not per connection. */
  private static final Map<ClientTls, SSLContext> CONTEXTS = new ConcurrentHashMap<>();

  /**
   * A framed connection for one cell's client: a stock {@code TSocket}, over a JDK {@code
   * SSLSocket} when the cell speaks TLS (handshake done, host name verified).
   */
  static TTransport openFramedSocket(CellSpec cell, InetSocketAddress address) throws Exception {
    if (cell.tls() == null) {
      return openFramedSocket(address, cell.callTimeout());
    }
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, cell.callTimeout().toMillis()));
    ClientTls tls = cell.tls();
    SSLContext context = CONTEXTS.computeIfAbsent(tls, StockRows::sslContext);
    Socket plain = new Socket();
    SSLSocket socket;
    try {
      plain.setTcpNoDelay(true);
      plain.connect(address, millis);
      plain.setSoTimeout(millis);
      String host = tls.peerHost(address);
      socket =
          (SSLSocket) context.getSocketFactory().createSocket(plain, host, address.getPort(), true);
      SSLParameters params = socket.getSSLParameters();
      if (tls.hostnameVerification()) {
        params.setEndpointIdentificationAlgorithm("HTTPS");
      }
      params.setProtocols(tls.protocols().toArray(new String[0]));
      socket.setSSLParameters(params);
      socket.startHandshake();
    } catch (Exception e) {
      try {
        plain.close();
      } catch (IOException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    // TSocket over a connected socket is open already: TFramedTransport.open() would reject it.
    return new TFramedTransport(new TSocket(socket));
  }

  private static SSLContext sslContext(ClientTls tls) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          tls.keyManagerFactory() != null ? tls.keyManagerFactory().getKeyManagers() : null,
          tls.trustManagerFactory() != null ? tls.trustManagerFactory().getTrustManagers() : null,
          null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot make a TLS context for " + tls, e);
    }
  }

  private enum Kind {
    SIMPLE,
    THREAD_POOL,
    NONBLOCKING,
    HSHA,
    THREADED_SELECTOR
  }

  private static final class Stock implements ServerRow {
    private final String name;
    private final Kind kind;

    Stock(String name, Kind kind) {
      this.name = name;
      this.kind = kind;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String cannotServe(CellSpec cell) {
      if (kind == Kind.SIMPLE && cell.connections() > 1) {
        return "TSimpleServer serves one connection at a time (cell has "
            + cell.connections()
            + ")";
      }
      return null;
    }

    @Override
    public RunningServer start(ServerSpec spec) throws Exception {
      spec.requireFramedOnly(name());
      spec.requireNoServerOptions(name());
      InetSocketAddress bind = new InetSocketAddress(spec.host(), spec.port());
      TProcessor processor = new BenchService.Processor<>(spec.syncHandler());
      int workers = spec.workersOr(ServerBuilder.DEFAULT_WORKER_THREADS);
      int ioThreads = spec.ioThreadsOr(Runtime.getRuntime().availableProcessors());
      TServerTransport transport;
      TServer server;
      switch (kind) {
        case SIMPLE:
          {
            TServerSocket socket = blockingSocket(bind);
            transport = socket;
            server =
                new TSimpleServer(
                    new TServer.Args(socket)
                        .processor(processor)
                        .transportFactory(new TFramedTransport.Factory())
                        .protocolFactory(spec.protocolFactory()));
            break;
          }
        case THREAD_POOL:
          {
            TServerSocket socket = blockingSocket(bind);
            transport = socket;
            // A thread per connection: fewer threads than connections would leave the rest
            // unserved.
            int threads = Math.max(workers, spec.expectedConnections());
            server =
                new TThreadPoolServer(
                    new TThreadPoolServer.Args(socket)
                        .processor(processor)
                        .transportFactory(new TFramedTransport.Factory())
                        .protocolFactory(spec.protocolFactory())
                        .minWorkerThreads(Math.min(threads, 5))
                        .maxWorkerThreads(threads)
                        .stopTimeoutVal(STOP_TIMEOUT_SECONDS)
                        .stopTimeoutUnit(TimeUnit.SECONDS));
            break;
          }
        case NONBLOCKING:
          {
            TNonblockingServerSocket socket = nonblockingSocket(bind);
            transport = socket;
            server =
                new TNonblockingServer(
                    new TNonblockingServer.Args(socket)
                        .processor(processor)
                        .protocolFactory(spec.protocolFactory()));
            break;
          }
        case HSHA:
          {
            TNonblockingServerSocket socket = nonblockingSocket(bind);
            transport = socket;
            server =
                new THsHaServer(
                    new THsHaServer.Args(socket)
                        .minWorkerThreads(workers)
                        .maxWorkerThreads(workers)
                        .stopTimeoutVal(STOP_TIMEOUT_SECONDS)
                        .stopTimeoutUnit(TimeUnit.SECONDS)
                        .processor(processor)
                        .protocolFactory(spec.protocolFactory()));
            break;
          }
        case THREADED_SELECTOR:
          {
            TNonblockingServerSocket socket = nonblockingSocket(bind);
            transport = socket;
            server =
                new TThreadedSelectorServer(
                    new TThreadedSelectorServer.Args(socket)
                        .selectorThreads(ioThreads)
                        .workerThreads(workers)
                        .stopTimeoutVal(STOP_TIMEOUT_SECONDS)
                        .stopTimeoutUnit(TimeUnit.SECONDS)
                        .processor(processor)
                        .protocolFactory(spec.protocolFactory()));
            break;
          }
        default:
          throw new AssertionError(kind);
      }
      int port =
          transport instanceof TServerSocket
              ? ((TServerSocket) transport).getServerSocket().getLocalPort()
              : ((TNonblockingServerSocket) transport).getPort();
      return new StockServer(name, server, transport, new InetSocketAddress(spec.host(), port));
    }

    private static TServerSocket blockingSocket(InetSocketAddress bind) throws Exception {
      return new TServerSocket(
          new TServerSocket.ServerSocketTransportArgs().bindAddr(bind).backlog(1024));
    }

    private static TNonblockingServerSocket nonblockingSocket(InetSocketAddress bind)
        throws Exception {
      return new TNonblockingServerSocket(
          new TNonblockingServerSocket.NonblockingAbstractServerSocketArgs()
              .bindAddr(bind)
              .backlog(1024));
    }
  }

  /** A stock {@code TServer} serving on its own thread. */
  private static final class StockServer implements RunningServer {
    private final TServer server;
    private final TServerTransport transport;
    private final InetSocketAddress address;
    private final Thread thread;
    private boolean closed;

    StockServer(String name, TServer server, TServerTransport transport, InetSocketAddress address)
        throws InterruptedException {
      this.server = server;
      this.transport = transport;
      this.address = address;
      this.thread = new Thread(server::serve, "bench-" + name);
      this.thread.setDaemon(true);
      this.thread.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!server.isServing()) {
        if (!thread.isAlive() || System.nanoTime() > deadline) {
          close();
          throw new IllegalStateException(name + " did not start serving on " + address);
        }
        Thread.sleep(5);
      }
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
      server.stop();
      try {
        thread.join(TimeUnit.SECONDS.toMillis(STOP_TIMEOUT_SECONDS + 2));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      transport.close();
    }
  }

  private static final class RawEcho implements ServerRow {
    @Override
    public String name() {
      return "raw-echo";
    }

    @Override
    public boolean rawEcho() {
      return true;
    }

    @Override
    public RunningServer start(ServerSpec spec) throws Exception {
      spec.requireFramedOnly(name());
      return new RawEchoServer(
              new InetSocketAddress(spec.host(), spec.port()),
              spec.ioThreadsOr(Runtime.getRuntime().availableProcessors()),
              Framing.DEFAULT_MAX_FRAME_SIZE)
          .start();
    }
  }

  /** Stock libthrift: {@code TSocket} in {@code TFramedTransport}, one lane per connection. */
  private static final class TSocketKind implements ClientKindRow {
    @Override
    public String name() {
      return "tsocket";
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
      return Lanes.syncConnections(cell, address, a -> openFramedSocket(cell, a), null);
    }
  }

  /**
   * Stock libthrift over HTTP: one {@code THttpClient} per lane, each a sequence of blocking {@code
   * POST}s to {@code /}; its default back-end keeps the connections alive. Plain HTTP only.
   */
  private static final class THttpClientKind implements ClientKindRow {
    @Override
    public String name() {
      return "thttpclient";
    }

    @Override
    public WireKind wireKind() {
      return WireKind.HTTP;
    }

    @Override
    public String cannotRun(CellSpec cell) {
      if (cell.tls() != null) {
        return name() + " speaks plain HTTP only (" + cell.server() + " serves TLS)";
      }
      return null;
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
      return Lanes.syncConnections(
          cell,
          address,
          a -> openHttpClient(a, ServerBuilder.DEFAULT_HTTP_PATH, cell.callTimeout()),
          null);
    }
  }

  /**
   * A new stock connection for every call, closed after it: what a caller without a pool does.
   * {@code connections} is the number of concurrent callers.
   */
  private static final class PerCallConnection implements ClientKindRow {
    @Override
    public String name() {
      return "per-call-connection";
    }

    @Override
    public boolean listed() {
      return false;
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) {
      AtomicLong opened = new AtomicLong();
      List<ClientLoad.Lane> lanes = new ArrayList<>();
      for (int i = 0; i < cell.connections(); i++) {
        lanes.add(
            new ClientLoad.SyncLane() {
              @Override
              public boolean call() throws Exception {
                TTransport transport = openFramedSocket(cell, address);
                opened.incrementAndGet();
                try {
                  return Lanes.syncLane(cell, transport).call();
                } finally {
                  transport.close();
                }
              }

              @Override
              public boolean continuesAfterError() {
                return true; // the next call opens a fresh connection
              }
            });
      }
      List<ClientLoad.Lane> all = List.copyOf(lanes);
      return new ClientLoad() {
        @Override
        public List<Lane> lanes() {
          return all;
        }

        @Override
        public long connectionsOpened() {
          return opened.get();
        }

        @Override
        public void close() {
          // Each call closes its own connection.
        }
      };
    }
  }
}
