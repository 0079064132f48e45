package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.SaslNegotiationException;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.testkit.conformance.HostileServer.Misbehaviour;
import io.thriftnio.testkit.conformance.HostileServer.Wire;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.sasl.SaslPeers;
import io.thriftnio.testkit.tls.TestPki;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No server, however broken or hostile, can hurt a client (issue 39): each client kind a module
 * has, on each wire kind it speaks, calls a {@link HostileServer} that misbehaves after reading the
 * request. Every call fails within {@link #CALL_TIMEOUT} plus {@link #MARGIN} with a typed
 * exception naming the endpoint (the accepted types per case are in {@link #accepted}), allocates
 * no reply buffer near the declared sizes (run it in a small heap: a 1.5 GiB allocation fails the
 * JVM's heap before anything else), and the same client then serves a call on a well-behaved
 * server. The servers are shared: one hostile and one healthy per wire kind.
 *
 * <p>A module runs it through a subclass that lists its {@link Kind}s; the table of outcomes is
 * written to {@code target/hostile-server-<class>.md}.
 */
@Tag("small-heap")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 20, unit = TimeUnit.SECONDS)
public abstract class HostileServerSuite {

  /** The largest heap the suite runs in: the modules' {@code small-heap} execution gives 64 MiB. */
  public static final long SMALL_HEAP = 96L << 20;

  /** Every client's {@code callTimeout}. */
  public static final Duration CALL_TIMEOUT = Duration.ofMillis(300);

  /**
   * How much later than {@link #CALL_TIMEOUT} a call may fail: room for a loaded machine (700 ms
   * was exceeded by 48 ms with two module builds running), and still well under what a defeated
   * timeout takes: the trickled echo reply is about 30 bytes at one byte every 200 ms, 6 s.
   */
  public static final Duration MARGIN = Duration.ofMillis(2_700);

  /** Every client's {@code maxFrameSize}: 1 MiB. */
  public static final int MAX_FRAME_SIZE = 1 << 20;

  /** A client kind under test: a pool, a channel, a transport. */
  public interface Kind {
    /** A short name for the report, e.g. {@code sync-pool/netty}. */
    String name();

    /** The wire kinds it speaks. */
    Set<Wire> wires();

    /**
     * Opens a client of this kind to {@code hostile}, which can move to {@code healthy}.
     *
     * @param options the suite's options for the wire kind (timeouts, limit, TLS, SASL)
     */
    Session open(ClientOptions options, InetSocketAddress hostile, InetSocketAddress healthy)
        throws Exception;
  }

  /** One client under test. */
  public interface Session extends AutoCloseable {
    /** Calls the endpoint the client is on now. */
    BenchService.Iface iface();

    /** Moves the same client (pool, {@code ClientIo}) to the healthy endpoint. */
    void toHealthy() throws Exception;
  }

  /** One row of the report. */
  private record Row(
      String kind,
      Wire wire,
      Misbehaviour misbehaviour,
      String outcome,
      long millis,
      boolean namesEndpoint,
      boolean namesMethod,
      long peakHeapBytes,
      String message) {}

  private final Map<Wire, HostileServer> hostile = new EnumMap<>(Wire.class);
  private final Map<Wire, HostileServer> healthy = new EnumMap<>(Wire.class);
  private final ConcurrentLinkedQueue<Row> rows = new ConcurrentLinkedQueue<>();

  /** The kinds of this module, each opened once per case. */
  protected abstract List<Kind> kinds();

  /**
   * Why a case is known to fail today and is being fixed elsewhere, or {@code null}: such a case is
   * not run (a trickled reply holds a sync call for seconds) and is reported as aborted with this
   * reason. Remove a case from the list when its fix lands.
   */
  protected String knownOpen(String kind, Wire wire, Misbehaviour misbehaviour) {
    return null;
  }

  @BeforeAll
  void startServers() throws Exception {
    Assumptions.assumeTrue(
        Runtime.getRuntime().maxMemory() <= SMALL_HEAP,
        () ->
            "runs in the small-heap execution (-Xmx64m), not in a heap of "
                + (Runtime.getRuntime().maxMemory() >> 20)
                + " MiB");
    for (Wire wire : Wire.values()) {
      hostile.put(
          wire,
          new HostileServer(
              wire, wire == Wire.TLS ? Misbehaviour.TLS_STALL : Misbehaviour.HEALTHY));
      healthy.put(wire, new HostileServer(wire, Misbehaviour.HEALTHY));
    }
    warmUp();
  }

  /**
   * One healthy call per kind and wire kind before the cases: a cold JVM's first call (class
   * loading, the first TLS context) can take longer than the 300 ms the cases allow.
   */
  private void warmUp() throws Exception {
    for (Kind kind : kinds()) {
      for (Wire wire : kind.wires()) {
        InetSocketAddress good = healthy.get(wire).address();
        try (Session session = kind.open(options(wire, Duration.ofSeconds(10)), good, good)) {
          assertThat(echo(session.iface(), "warm")).isEqualTo("warm");
        }
      }
    }
  }

  @AfterAll
  void stopServersAndReport() throws IOException {
    for (HostileServer s : hostile.values()) {
      s.close();
    }
    for (HostileServer s : healthy.values()) {
      s.close();
    }
    if (rows.isEmpty()) {
      return;
    }
    StringBuilder table = new StringBuilder();
    table.append(
        "| client | wire | misbehaviour | outcome | ms | names endpoint | names method |"
            + " peak heap MiB | message |\n|---|---|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      table.append(
          String.format(
              "| %s | %s | %s | %s | %d | %s | %s | %.1f | %s |%n",
              r.kind,
              r.wire.label(),
              r.misbehaviour.name().toLowerCase(java.util.Locale.ROOT),
              r.outcome,
              r.millis,
              r.namesEndpoint ? "yes" : "no",
              r.namesMethod ? "yes" : "no",
              r.peakHeapBytes / 1048576.0,
              r.message.replace('|', '/').replace('\n', ' ')));
    }
    Path out = Path.of("target", "hostile-server-" + getClass().getSimpleName() + ".md");
    try {
      Files.createDirectories(out.getParent());
      Files.writeString(out, table);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The cases: each kind, each wire kind it speaks, each misbehaviour that wire kind has. */
  Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Kind kind : kinds()) {
      for (Wire wire : kind.wires()) {
        for (Misbehaviour m : misbehaviours(wire)) {
          cases.add(Arguments.of(kind, wire, m));
        }
      }
    }
    return cases.stream();
  }

  /** What a server on {@code wire} can do wrong. */
  static Set<Misbehaviour> misbehaviours(Wire wire) {
    Set<Misbehaviour> common = EnumSet.range(Misbehaviour.OVERSIZE_FRAME, Misbehaviour.TWICE);
    return switch (wire) {
      case TLS -> EnumSet.of(Misbehaviour.TLS_STALL);
      case SASL_INT -> EnumSet.of(Misbehaviour.SASL_BAD_WRAP);
      case SASL -> {
        common.add(Misbehaviour.SASL_STALL);
        yield common;
      }
      case UNFRAMED -> {
        common.remove(Misbehaviour.OVERSIZE_FRAME); // no frame to declare
        yield common;
      }
      default -> common;
    };
  }

  /** The options of every client on {@code wire}. */
  public static ClientOptions options(Wire wire) {
    return options(wire, CALL_TIMEOUT);
  }

  /** As {@link #options(Wire)}, with {@code timeout} for calls, SASL and TLS. */
  private static ClientOptions options(Wire wire, Duration timeout) {
    ClientOptions.Builder b =
        ClientOptions.builder()
            .connectTimeout(Duration.ofSeconds(2))
            .callTimeout(timeout)
            .maxFrameSize(MAX_FRAME_SIZE);
    switch (wire) {
      case FRAMED -> b.wireKind(WireKind.FRAMED);
      case UNFRAMED -> b.wireKind(WireKind.UNFRAMED);
      case HEADER -> b.wireKind(WireKind.HEADER);
      case HTTP -> b.wireKind(WireKind.HTTP).httpPath("/thrift");
      case SASL ->
          b.wireKind(WireKind.SASL)
              .sasl(
                  ClientSasl.plain("alice", "alice-secret".toCharArray())
                      .withNegotiationTimeout(timeout));
      case SASL_INT ->
          b.wireKind(WireKind.SASL)
              .sasl(
                  ClientSasl.digestMd5(
                          "alice",
                          "alice-secret".toCharArray(),
                          SaslPeers.PROTOCOL,
                          SaslPeers.SERVER_NAME)
                      .withQop(SaslQop.AUTH_INT)
                      .withNegotiationTimeout(timeout));
      case TLS ->
          b.tls(
              TestPki.shared()
                  .clientTls()
                  .hostnameVerification(false)
                  .handshakeTimeout(timeout)
                  .build());
    }
    return b.build();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  void aHostileServerCannotHurtTheClient(Kind kind, Wire wire, Misbehaviour misbehaviour)
      throws Exception {
    String open = knownOpen(kind.name(), wire, misbehaviour);
    Assumptions.assumeTrue(open == null, () -> "known open, fixed elsewhere: " + open);
    HostileServer server = hostile.get(wire);
    if (wire != Wire.TLS) {
      server.misbehave(misbehaviour);
    }
    InetSocketAddress endpoint = server.address();
    String method = misbehaviour == Misbehaviour.HUGE_LIST ? "db_work" : "echo";
    InetSocketAddress good = healthy.get(wire).address();
    ClientOptions options = options(wire);
    resetPeaks();
    long heapBefore = heapUsed();
    long start = System.nanoTime();
    Throwable failure = null;
    Session session = null;
    try {
      // A connect-time misbehaviour (a stalled handshake) fails the open of a bare channel, and
      // the first call of a pool, which connects on demand.
      session = kind.open(options, endpoint, good);
      if (misbehaviour == Misbehaviour.TWICE) {
        // The first call has its reply; the second must not take the first one's copy.
        assertThat(echo(session.iface(), "one")).isEqualTo("one");
        start = System.nanoTime();
        assertThat(echo(session.iface(), "two")).isEqualTo("two");
      } else {
        Object result = call(session.iface(), misbehaviour);
        failure = new AssertionError("no failure: the call returned " + result);
      }
    } catch (TException | RuntimeException e) {
      failure = e;
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    long peak = Math.max(0, peakHeapUsed() - heapBefore);
    String message = failure == null ? "" : String.valueOf(failure.getMessage());
    boolean namesEndpoint = message.contains(":" + endpoint.getPort());
    boolean namesMethod = message.contains(method);
    rows.add(
        new Row(
            kind.name(),
            wire,
            misbehaviour,
            failure == null ? "served" : describe(failure),
            millis,
            namesEndpoint,
            namesMethod,
            peak,
            message));
    try {
      assertThat(causes(failure))
          .as("no OutOfMemoryError in %s", failure)
          .noneMatch(OutOfMemoryError.class::isInstance);
      if (failure != null) {
        Throwable seen = failure;
        assertThat(failure).as("a typed failure").isInstanceOf(TException.class);
        assertThat(accepted(misbehaviour))
            .as("the type accepted for %s: %s", misbehaviour, describe(failure))
            .anyMatch(
                t ->
                    t.isInstance(seen)
                        || connectPhase(misbehaviour) && t.isInstance(seen.getCause()));
        assertThat(millis)
            .as("%s failed within callTimeout + margin", failure)
            .isLessThanOrEqualTo(CALL_TIMEOUT.plus(MARGIN).toMillis());
        assertThat(namesEndpoint).as("%s names the endpoint %s", failure, endpoint).isTrue();
      }
      if (session == null) { // the same ClientIo, a new channel
        session = kind.open(options, good, good);
      } else {
        session.toHealthy();
      }
      assertThat(echo(session.iface(), "healthy")).isEqualTo("healthy");
    } finally {
      if (session != null) {
        session.close();
      }
    }
  }

  /**
   * The exception types a case may end in: the pools' vocabulary where there is one ({@code
   * CallTimeoutException} for a reply that does not come in time), else the type that says what was
   * wrong with the reply. Where client kinds differ, each type is the one some kind gives: a
   * channel that matches replies by THeader sequence id closes the connection on an unknown id
   * ({@code TTransportException}); the unframed decoder refuses a message type itself ({@code
   * TTransportException} {@code CORRUPTED_DATA}); the channel pool's own reply check reports a
   * wrong name as {@code BAD_SEQUENCE_ID}.
   */
  static List<Class<?>> accepted(Misbehaviour misbehaviour) {
    return switch (misbehaviour) {
      case SILENT, TRICKLE -> List.of(CallTimeoutException.class);
      case OVERSIZE_FRAME,
          HUGE_STRING,
          LARGE_STRING,
          HUGE_LIST,
          TRUNCATED_FIN,
          RESET,
          SASL_BAD_WRAP,
          TLS_STALL ->
          List.of(TTransportException.class);
      case SASL_STALL -> List.of(SaslNegotiationException.class);
      case GARBAGE -> List.of(TProtocolException.class, TTransportException.class);
      case OTHER_SEQID, OTHER_METHOD, UNKNOWN_TYPE, TWICE ->
          List.of(TApplicationException.class, TTransportException.class);
      default -> List.of();
    };
  }

  /**
   * Whether a case fails the connect (a stalled handshake): a pool, which connects on demand,
   * reports it as a {@code PoolException} (it cannot serve the call) with the accepted type as the
   * cause; a bare channel fails its open with the accepted type itself.
   */
  static boolean connectPhase(Misbehaviour misbehaviour) {
    return misbehaviour == Misbehaviour.SASL_STALL || misbehaviour == Misbehaviour.TLS_STALL;
  }

  private static Object call(BenchService.Iface iface, Misbehaviour misbehaviour)
      throws TException {
    if (misbehaviour == Misbehaviour.HUGE_LIST) {
      List<TestInfo> rows = iface.db_work(1);
      return rows.size() + " rows";
    }
    return echo(iface, "one");
  }

  private static String echo(BenchService.Iface iface, String text) throws TException {
    ByteBuffer reply = iface.echo(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    return StandardCharsets.UTF_8.decode(reply).toString();
  }

  private static String describe(Throwable failure) {
    StringBuilder s = new StringBuilder(failure.getClass().getSimpleName());
    if (failure instanceof TTransportException t) {
      s.append('(').append(t.getType()).append(')');
    } else if (failure instanceof TApplicationException t) {
      s.append('(').append(t.getType()).append(')');
    } else if (failure instanceof TProtocolException t) {
      s.append('(').append(t.getType()).append(')');
    }
    if (failure.getCause() != null && failure.getCause() != failure) {
      s.append(" < ").append(failure.getCause().getClass().getSimpleName());
    }
    return s.toString();
  }

  private static List<Throwable> causes(Throwable t) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable c = t; c != null && !chain.contains(c); c = c.getCause()) {
      chain.add(c);
    }
    return chain;
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long peakHeapUsed() {
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    return peak;
  }

  /** The wire kinds a channel or a pool of channels speaks. */
  public static final Set<Wire> CHANNEL_WIRES =
      EnumSet.of(
          Wire.FRAMED, Wire.UNFRAMED, Wire.HEADER, Wire.HTTP, Wire.SASL, Wire.SASL_INT, Wire.TLS);

  /** A bare {@link ThriftChannel} of {@code io}, called through {@link AsyncClients}. */
  public static Kind channel(String name, ClientIo io) {
    return kind(
        name,
        CHANNEL_WIRES,
        (options, hostile, healthy) ->
            new Session() {
              private ThriftChannel channel = io.openChannel(hostile, options);
              private BenchService.Iface iface = over(channel);

              private BenchService.Iface over(ThriftChannel c) {
                return ClientKinds.blocking(
                    AsyncClients.asyncIface(
                        BenchService.AsyncIface.class,
                        c,
                        BenchService.Client::new,
                        new TBinaryProtocol.Factory(),
                        ForkJoinPool.commonPool()));
              }

              @Override
              public BenchService.Iface iface() {
                return iface;
              }

              @Override
              public void toHealthy() throws Exception {
                channel.close();
                channel = io.openChannel(healthy, options);
                iface = over(channel);
              }

              @Override
              public void close() {
                channel.close();
              }
            });
  }

  /** Opens a session of a kind. */
  @FunctionalInterface
  public interface Opener {
    /** See {@link Kind#open}. */
    Session open(ClientOptions options, InetSocketAddress hostile, InetSocketAddress healthy)
        throws Exception;
  }

  /** A kind from its name, wire kinds and opener. */
  public static Kind kind(String name, Set<Wire> wires, Opener opener) {
    return new Kind() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Set<Wire> wires() {
        return wires;
      }

      @Override
      public Session open(
          ClientOptions options, InetSocketAddress hostile, InetSocketAddress healthy)
          throws Exception {
        return opener.open(options, hostile, healthy);
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }
}
