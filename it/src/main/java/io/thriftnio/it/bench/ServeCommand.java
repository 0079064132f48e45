package io.thriftnio.it.bench;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireKind;
import io.thriftnio.zookeeper.ZooKeeperRegistration;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.curator.framework.CuratorFramework;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code serve}: starts one server row serving the testkit {@code BenchService} handler, prints
 * {@code listening on HOST:PORT} as its first line, and runs until SIGTERM or SIGINT, when a
 * shutdown hook closes the server gracefully and prints {@code closed}.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = {
      "Starts one server row serving the testkit BenchService handler.",
      "Prints 'listening on HOST:PORT' as its first line; runs until SIGTERM/SIGINT, then closes"
          + " gracefully and prints 'closed'.",
      "TLS rows (netty-tls, netty-openssl, grizzly-tls) serve with the certificates in --tls-dir"
          + " (ca.pem, server.pem, server-key.pem); where it holds no ca.pem, or without it (then"
          + " in a temporary directory), a fresh CA is made, and stderr names its ca.pem: clients"
          + " must trust it. The certificate names localhost, 127.0.0.1 and ::1 only."
    })
final class ServeCommand implements Callable<Integer> {

  /** The strategies, as the CLI spells them. */
  static final List<String> STRATEGIES = List.of("same-thread", "worker", "leader-follower");

  /** The row families that take a strategy. */
  static final List<String> FAMILIES =
      List.of(
          "netty",
          "netty-nio",
          "netty-epoll",
          "netty-iouring",
          "netty-tls",
          "netty-openssl",
          "netty-empty-chain",
          "netty-one-interceptor",
          "grizzly",
          "grizzly-tls",
          "grizzly-empty-chain",
          "grizzly-one-interceptor");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--server",
      required = true,
      paramLabel = "S",
      description =
          "netty, grizzly, thrift-simple, thrift-threadpool, thrift-nonblocking, "
              + "thrift-hsha, thrift-threaded-selector, thrift-servlet (TServlet in Jetty, HTTP)"
              + " or raw-echo (also netty/worker etc.); netty "
              + "runs on epoll where it loads, else NIO; netty-nio, netty-epoll and netty-iouring "
              + "pin the transport; netty-tls and grizzly-tls serve TLS (the JDK's), netty-openssl "
              + "TLS through netty-tcnative (same-thread or worker); grpc/direct, grpc/default,"
              + " grpc-tls/direct and grpc-tls/default serve gRPC-java's unary echo (the grpc"
              + " client kind's peer rows)")
  String server;

  @Option(
      names = "--strategy",
      paramLabel = "T",
      description =
          "same-thread, worker or leader-follower (netty and grizzly families only; "
              + "default: worker)")
  String strategy;

  @Option(
      names = "--protocol",
      paramLabel = "P",
      defaultValue = "binary",
      description = "binary, compact or json (default: ${DEFAULT-VALUE})")
  String protocol;

  @Option(
      names = "--host",
      paramLabel = "H",
      defaultValue = MatrixRunner.LOOPBACK,
      description = "address to bind (default: ${DEFAULT-VALUE})")
  String host;

  @Option(
      names = "--port",
      paramLabel = "N",
      defaultValue = "9090",
      description = "port to bind; 0 picks a free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(
      names = "--workers",
      paramLabel = "N",
      description =
          "worker threads (default: the row's own; 64 for the library's rows and the "
              + "stock worker pools)")
  Integer workers;

  @Option(
      names = "--io-threads",
      paramLabel = "N",
      description = "IO / selector threads (default: the number of processors)")
  Integer ioThreads;

  @Option(
      names = "--connections",
      paramLabel = "N",
      defaultValue = "1024",
      description =
          "connections a thread-per-connection row (thrift-threadpool) must serve at "
              + "once (default: ${DEFAULT-VALUE})")
  int connections;

  @Option(
      names = "--async-handler",
      description =
          "serve the async handler (AsyncBenchHandler) where the row takes an async " + "processor")
  boolean asyncHandler;

  @Option(
      names = "--tls-dir",
      paramLabel = "DIR",
      description =
          "TLS rows: the certificates to serve with (ca.pem, server.pem, server-key.pem), as "
              + "a parent wrote them; where DIR holds no ca.pem, a fresh set is written there "
              + "(default: a fresh set in a temporary directory, named on stderr)")
  Path tlsDir;

  @Option(
      names = "--access-log",
      description =
          "print one line per call on stderr: peer, method, outcome, microseconds (netty and"
              + " grizzly rows, from a server interceptor)")
  boolean accessLog;

  @Option(
      names = "--transports",
      paramLabel = "T[,T...]",
      split = ",",
      description =
          "framed, unframed, http, header, comma-separated: what the server accepts on its one"
              + " port, told apart per connection by its first bytes; http peers post to"
              + " --http-path"
              + " (netty and grizzly rows take any; thrift-servlet http alone; default: framed,"
              + " http for thrift-servlet)")
  List<String> transports;

  @Option(
      names = "--http-path",
      paramLabel = "P",
      defaultValue = ServerBuilder.DEFAULT_HTTP_PATH,
      description =
          "the path http peers post their calls to, e.g. /thrift; other paths are answered 404"
              + " (default: ${DEFAULT-VALUE})")
  String httpPath;

  @Option(
      names = "--zookeeper",
      paramLabel = "CONNECT",
      description =
          "register the server in this ZooKeeper (host:port), under the path soak --discovery"
              + " zookeeper watches, with a session of its own; closing deregisters it first")
  String zooKeeper;

  @Option(
      names = "--zk-session-timeout",
      paramLabel = "D",
      defaultValue = "10s",
      converter = Cli.DurationConverter.class,
      description =
          "with --zookeeper: the session timeout, how long the node outlives a killed process"
              + " (default: ${DEFAULT-VALUE})")
  Duration zkSessionTimeout;

  @Option(
      names = "--handler",
      paramLabel = "H",
      description =
          "what echo does: echo (nothing, the default), cpu:DURATION (computes that long, e.g."
              + " cpu:100us) or sleep:DURATION (e.g. sleep:5ms); a cpu or sleep handler counts"
              + " runs after the deadline an overload payload carries ('handler' on --control)")
  String handler;

  @Option(
      names = "--server-option",
      paramLabel = "NAME=VALUE",
      description =
          "a setting of the netty and grizzly rows' server builder, by its setter's name, e.g."
              + " workerQueueCapacity=256 or workerStartTimeout=5ms; repeatable")
  List<String> serverOptions;

  @Option(
      names = "--control",
      description =
          "answer 'stats' and 'stats-gc' lines on stdin with the server's counters, threads, heap"
              + " and descriptors, and 'cpu' with its CPU time and allocated bytes; end of stdin"
              + " stops the server (for a parent process)")
  boolean control;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    Rows rows = Rows.standard();
    String name;
    Set<WireKind> accepted;
    OverloadHandler.Spec handlerSpec;
    java.util.Map<String, String> options;
    try {
      name = rowName(server, strategy);
      Protocols.factory(protocol);
      check("port", port, 0, 65535);
      check("connections", connections, 1, 100_000);
      if (workers != null) {
        check("workers", workers, 1, 100_000);
      }
      if (ioThreads != null) {
        check("io-threads", ioThreads, 1, 1024);
      }
      accepted = transports != null ? wireKinds(transports) : null;
      httpPath(httpPath);
      handlerSpec = handler != null ? OverloadHandler.Spec.parse(handler) : null;
      options = ServerOptions.parse(serverOptions);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    ServerRow row = rows.server(name);
    if (row == null) {
      String missing = rows.missing(name);
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          missing != null
              ? name + ": " + missing
              : "server: " + server + " (expected: one of " + rows.serverNames() + ")");
    }
    if (accepted == null) {
      accepted =
          row.wireKinds().contains(WireKind.FRAMED)
              ? EnumSet.of(WireKind.FRAMED)
              : EnumSet.copyOf(row.wireKinds());
    }
    RunningServer running;
    OverloadHandler served = null;
    try {
      if (handlerSpec != null) {
        served = new OverloadHandler(handlerSpec);
      }
      BenchTls tls = null;
      if (row.tls()) {
        boolean fresh = tlsDir == null || !Files.exists(tlsDir.resolve(BenchTls.CA_FILE));
        if (!fresh) {
          tls = BenchTls.load(tlsDir);
        } else {
          tls =
              BenchTls.generate(
                  tlsDir != null ? tlsDir : Files.createTempDirectory("thrift-nio-bench-tls"));
          err.println(
              "serve: " + name + " serves TLS with a fresh CA; clients must trust " + tls.caFile());
          err.flush();
        }
      }
      running =
          row.start(
              new ServerSpec(
                  host,
                  port,
                  protocol,
                  workers,
                  ioThreads,
                  asyncHandler,
                  connections,
                  tls,
                  accessLog,
                  accepted,
                  httpPath,
                  served,
                  options));
    } catch (Exception e) {
      err.println(
          "serve: cannot start "
              + name
              + " on "
              + host
              + ":"
              + port
              + ": "
              + MatrixRunner.message(e));
      return 1;
    }
    CuratorFramework session = null;
    if (zooKeeper != null) {
      try {
        session = SoakZooKeeper.connect(zooKeeper, (int) zkSessionTimeout.toMillis());
        SoakZooKeeper.register(session, running, ZooKeeperRegistration.DEFAULT_DEREGISTER_GRACE);
      } catch (Exception e) {
        running.close();
        if (session != null) {
          session.close();
        }
        err.println(
            "serve: cannot register in ZooKeeper at " + zooKeeper + ": " + MatrixRunner.message(e));
        return 1;
      }
    }
    CuratorFramework registered = session;
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  running.close(); // deregisters first when registered
                  if (registered != null) {
                    registered.close();
                  }
                  System.out.println("closed");
                  System.out.flush();
                  closed.countDown();
                },
                "bench-serve-shutdown"));
    System.out.println(
        "listening on " + running.address().getHostString() + ":" + running.address().getPort());
    System.out.flush();
    err.println(
        "serve: "
            + name
            + " ("
            + protocol
            + ") on "
            + running.address()
            + "; SIGTERM or Ctrl-C stops it");
    err.flush();
    OverloadHandler counted = served;
    if (control) {
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      Thread reader =
          new Thread(
              () -> {
                try {
                  ServeControl.answer(running, counted, in, System.out);
                } catch (IOException e) {
                  err.println("serve: control input failed: " + e);
                }
                // The parent is gone or done: the shutdown hook closes the server.
                System.exit(0);
              },
              "bench-serve-control");
      reader.setDaemon(true);
      reader.start();
    }
    closed.await();
    return 0;
  }

  /** {@code netty} + {@code worker} is {@code netty/worker}; stock rows take no strategy. */
  static String rowName(String server, String strategy) {
    if (server.contains("/")) {
      if (strategy != null) {
        throw new IllegalArgumentException(
            "strategy: " + strategy + " (expected: none, the server " + server + " names one)");
      }
      return server;
    }
    boolean ours = FAMILIES.contains(server);
    if (!ours) {
      if (strategy != null) {
        throw new IllegalArgumentException(
            "strategy: "
                + strategy
                + " (expected: none; only "
                + FAMILIES
                + " take one, not "
                + server
                + ")");
      }
      return server;
    }
    String s = strategy != null ? strategy : "worker";
    if (!STRATEGIES.contains(s)) {
      throw new IllegalArgumentException(
          "strategy: " + s + " (expected: one of " + STRATEGIES + ")");
    }
    return server + "/" + s;
  }

  private static void check(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + ": " + value + " (expected: " + min + ".." + max + ")");
    }
  }

  /**
   * Checks {@code --http-path} as {@link ServerBuilder#httpPath} does: an absolute path, without
   * query or spaces.
   *
   * @return the path
   * @throws IllegalArgumentException otherwise
   */
  static String httpPath(String path) {
    if (path == null
        || !path.startsWith("/")
        || path.indexOf('?') >= 0
        || path.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
      throw new IllegalArgumentException(
          "http-path: "
              + (path == null ? "null" : "'" + path + "'")
              + " (expected: an absolute path, starting with /, without query or spaces)");
    }
    return path;
  }

  /**
   * Parses {@code --transports}: {@code framed}, {@code unframed}, {@code http}, {@code header}, in
   * any case and order.
   */
  static Set<WireKind> wireKinds(List<String> names) {
    EnumSet<WireKind> set = EnumSet.noneOf(WireKind.class);
    for (String n : names) {
      try {
        set.add(WireKind.valueOf(n.trim().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "transports: "
                + n
                + " (expected: framed, unframed, http, header, sasl, comma-separated)",
            e);
      }
    }
    if (set.isEmpty()) {
      throw new IllegalArgumentException(
          "transports: none (expected: framed, unframed, http, header, sasl, comma-separated)");
    }
    return set;
  }
}
