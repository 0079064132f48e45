package io.thriftnio.it.bench;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Set;
import org.apache.thrift.server.TServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The row {@code thrift-servlet}: libthrift's {@code TServlet} with the row's protocol in embedded
 * Jetty 12.1 (ee10 servlet), the stock way to serve Thrift over HTTP. It serves {@link
 * WireKind#HTTP} peers only, at {@link ServerSpec#httpPath()} ({@code /} by default). Named only:
 * {@code all} and {@code stock} leave it out, since the framed client kinds cannot call it.
 *
 * <p>Threads: Jetty's pool holds {@code --workers} threads for requests (default {@value
 * ServerBuilder#DEFAULT_WORKER_THREADS}, as the other stock worker pools), beyond one acceptor and
 * {@code --io-threads} selectors (default: the processors). A servlet call blocks its thread for
 * the request, not for the connection, so idle keep-alive connections hold none.
 */
final class ServletRows implements RowProvider {

  /** The row's name. */
  static final String NAME = "thrift-servlet";

  /** How long Jetty may take to stop, in milliseconds. */
  private static final long STOP_TIMEOUT_MILLIS = 5_000;

  @Override
  public void register(Rows rows) {
    rows.server(new Servlet());
  }

  private static final class Servlet implements ServerRow {
    @Override
    public String name() {
      return NAME;
    }

    @Override
    public boolean listed() {
      return false;
    }

    @Override
    public Set<WireKind> wireKinds() {
      return EnumSet.of(WireKind.HTTP);
    }

    @Override
    public RunningServer start(ServerSpec spec) throws Exception {
      if (!spec.wireKinds().equals(EnumSet.of(WireKind.HTTP))) {
        throw new IllegalStateException(
            NAME
                + " serves http peers only: transports "
                + spec.wireKinds()
                + " (expected: http; TServlet in Jetty answers HTTP alone)");
      }
      int workers = spec.workersOr(ServerBuilder.DEFAULT_WORKER_THREADS);
      int selectors = spec.ioThreadsOr(Runtime.getRuntime().availableProcessors());
      int acceptors = 1;
      QueuedThreadPool pool =
          new QueuedThreadPool(workers + selectors + acceptors, Math.min(8, workers));
      pool.setName("bench-" + NAME);
      pool.setDaemon(true);
      // Every thread beyond the selectors and the acceptor serves requests; none is set aside.
      pool.setReservedThreads(0);
      Server server = new Server(pool);
      server.setStopTimeout(STOP_TIMEOUT_MILLIS);
      ServerConnector connector = new ServerConnector(server, acceptors, selectors);
      connector.setHost(spec.host());
      connector.setPort(spec.port());
      connector.setAcceptQueueSize(1024);
      server.addConnector(connector);
      ServletContextHandler context = new ServletContextHandler("/");
      TServlet servlet =
          new TServlet(new BenchService.Processor<>(new BenchHandler()), spec.protocolFactory());
      context.addServlet(new ServletHolder(NAME, servlet), mapping(spec.httpPath()));
      // Without a default servlet, a POST elsewhere is answered 404 (Jetty's own default servlet
      // would answer it 405), as the library's servers answer it.
      context.getServletHandler().setEnsureDefaultServlet(false);
      server.setHandler(context);
      try {
        server.start();
      } catch (Exception e) {
        stopQuietly(server);
        throw e;
      }
      InetSocketAddress address = new InetSocketAddress(spec.host(), connector.getLocalPort());
      return RunningServer.of(address, "Jetty", () -> stopQuietly(server));
    }
  }

  /**
   * The servlet mapping of an HTTP path: the empty mapping (the context root alone) for {@code /},
   * else the exact path, so that other paths are answered {@code 404} as the library's servers do.
   */
  static String mapping(String httpPath) {
    return httpPath.equals("/") ? "" : httpPath;
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      // Stopping after the measurement: nothing measured depends on it; say so and go on.
      System.err.println("bench: " + NAME + " did not stop cleanly: " + e);
    }
  }
}
