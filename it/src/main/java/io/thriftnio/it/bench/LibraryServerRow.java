package io.thriftnio.it.bench;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A server row built from one of this library's {@link ServerBuilder}s, e.g. {@code
 * NettyThriftServer::builder} with {@link IoStrategy#WORKER} as {@code netty/worker}. Unset thread
 * counts keep the builder's defaults; a builder that rejects the strategy makes the row's cells
 * skip with the builder's message. A TLS row ({@code netty-tls/worker}) serves with the
 * certificates of {@link ServerSpec#tls()} and its {@link TlsProvider}; where the provider cannot
 * load, {@code build()}'s message is the skip reason.
 */
final class LibraryServerRow implements ServerRow {

  private final String name;
  private final IoStrategy strategy;
  private final Supplier<? extends ServerBuilder<?>> builder;
  private final boolean listed;
  private final TlsProvider tls;

  /**
   * A row.
   *
   * @param family {@code netty} or {@code grizzly}
   * @param strategy the IO strategy; the row is {@code family/same-thread} and so on
   * @param builder a fresh builder per start
   * @param listed whether {@code all} and the family name include it
   */
  LibraryServerRow(
      String family,
      IoStrategy strategy,
      Supplier<? extends ServerBuilder<?>> builder,
      boolean listed) {
    this(family, strategy, builder, listed, null);
  }

  /**
   * A row that serves TLS, or plain TCP.
   *
   * @param family e.g. {@code netty-tls}
   * @param strategy the IO strategy
   * @param builder a fresh builder per start
   * @param listed whether {@code all} and the family name include it
   * @param tls the TLS implementation, or {@code null} for plain TCP
   */
  LibraryServerRow(
      String family,
      IoStrategy strategy,
      Supplier<? extends ServerBuilder<?>> builder,
      boolean listed,
      TlsProvider tls) {
    this.name = family + "/" + strategyName(strategy);
    this.strategy = strategy;
    this.builder = builder;
    this.listed = listed;
    this.tls = tls;
  }

  /** {@code SAME_THREAD} as the CLI spells it: {@code same-thread}. */
  static String strategyName(IoStrategy strategy) {
    return strategy.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean listed() {
    return listed;
  }

  @Override
  public boolean tls() {
    return tls != null;
  }

  @Override
  public Set<WireKind> wireKinds() {
    return EnumSet.allOf(WireKind.class);
  }

  /**
   * Registers {@code family-empty-chain/S} (an empty interceptor list) and {@code
   * family-one-interceptor/S} (one {@link CallTimer}) for each strategy, named only: beside {@code
   * family/S} in one {@code efficiency} run they show what the interceptor chain costs per call.
   */
  static void interceptorRows(
      Rows rows,
      String family,
      Supplier<? extends ServerBuilder<?>> builder,
      IoStrategy... strategies) {
    for (IoStrategy s : strategies) {
      rows.server(
          new LibraryServerRow(
              family + "-empty-chain", s, () -> builder.get().interceptors(List.of()), false));
      rows.server(
          new LibraryServerRow(
              family + "-one-interceptor",
              s,
              () -> builder.get().addInterceptor(new CallTimer()),
              false));
    }
  }

  @Override
  public RunningServer start(ServerSpec spec) throws Exception {
    ServerBuilder<?> b = builder.get();
    if (spec.asyncHandler()) {
      b.asyncProcessor(new BenchService.AsyncProcessor<>(new AsyncBenchHandler()));
    } else {
      b.processor(new BenchService.Processor<>(spec.syncHandler()));
    }
    b.protocol(spec.protocolFactory());
    b.ioStrategy(strategy);
    if (spec.accessLog()) {
      b.addInterceptor(new AccessLog(System.err));
    }
    WireKind[] transports = spec.wireKinds().toArray(new WireKind[0]);
    b.wireKinds(transports[0], Arrays.copyOfRange(transports, 1, transports.length));
    if (spec.wireKinds().contains(WireKind.HTTP)) {
      b.httpPath(spec.httpPath()); // the server refuses a path it would not serve
    }
    if (spec.wireKinds().contains(WireKind.SASL)) {
      b.sasl(BenchSasl.server()); // a SASL twin's clients log in with BenchSasl.client()
    }
    b.bind(new InetSocketAddress(spec.host(), spec.port()));
    // --workers applies to every row of a run; a SAME_THREAD server has none and refuses it.
    if (spec.workers() != null && strategy != IoStrategy.SAME_THREAD) {
      b.workerThreads(spec.workers());
    }
    if (spec.ioThreads() != null) {
      b.ioThreads(spec.ioThreads());
    }
    if (tls != null) {
      if (spec.tls() == null) {
        throw new IllegalStateException(
            name
                + " serves TLS: no certificates (expected: serve --tls-dir DIR, or none for a"
                + " fresh CA)");
      }
      b.tls(spec.tls().serverTls(tls));
    }
    b.maxConnections(Math.max(ServerBuilder.DEFAULT_MAX_CONNECTIONS, spec.expectedConnections()));
    ServerOptions.apply(b, spec.serverOptions());
    ThriftServer server = b.build().start();
    return new RunningServer() {
      @Override
      public InetSocketAddress address() {
        return server.localAddress();
      }

      @Override
      public long acceptedConnections() {
        return server.stats().acceptedConnections();
      }

      @Override
      public ServerStats stats() {
        return server.stats();
      }

      @Override
      public ServerConfig config() {
        return server.config();
      }

      @Override
      public ThriftServer server() {
        return server;
      }

      @Override
      public void close() {
        server.close();
      }
    };
  }
}
