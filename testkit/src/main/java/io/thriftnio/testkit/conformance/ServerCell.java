package io.thriftnio.testkit.conformance;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.tls.ServerTls;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * One cell of a transport's test matrix: the server under test (transport, IO strategy, native
 * transport, TLS, wire kinds) and, for the suites that call it through a client, the client kind. A
 * transport module lists the cells of each {@link Matrix} once, in its {@link TransportCells}, and
 * runs each {@link ServerCellSuite} on them through a subclass of two lines:
 *
 * <pre>
 * &#64;ArgumentsSource(NettyCells.class)
 * class NettyCallPathTest extends CallPathSuite {}
 * </pre>
 *
 * Each cell's run is named by {@link #toString()}, for instance {@code
 * netty/worker/epoll/tls/framed/netty-sync}. The conformance suite lists its cells (with their
 * client kinds) in its subclass, as a JUnit {@code @ParameterizedClass} of its own.
 *
 * <p>A cell is immutable; the {@code with} methods return a changed copy.
 *
 * @param transport the server's IO library, {@code netty} or {@code grizzly}
 * @param io the IO flavour within it: {@code nio}, {@code epoll}, {@code io_uring}, or {@code auto}
 *     (the builder's default, a native transport where one loads)
 * @param builder a fresh builder of the server under test, before the cell's wire kinds
 * @param strategy the IO strategy under test
 * @param security {@code plain}, or the name of the TLS setup (e.g. {@code tls}, {@code openssl})
 * @param tls the server's TLS, or {@code null} for plain TCP
 * @param wires the wire kinds the server accepts, {@code FRAMED} first
 * @param client the client kind that calls the server, or {@code null} where the suite brings its
 *     own connections
 * @param requirement runs before the cell's cases: aborts them (JUnit reports them skipped, with
 *     the reason) or fails them where the cell cannot run on this machine, e.g. a native transport
 *     that does not load
 * @param tags tags of the whole cell, filtered as JUnit tags are (see {@link Cells#select})
 * @param representative whether the cell is among the few that a reduced run keeps (see {@link
 *     Cells#select})
 * @param <B> the transport's builder type
 */
public record ServerCell<B extends ServerBuilder<B>>(
    String transport,
    String io,
    Supplier<B> builder,
    IoStrategy strategy,
    String security,
    ServerTls tls,
    List<WireKind> wires,
    ClientKind client,
    Runnable requirement,
    Set<String> tags,
    boolean representative) {

  /** The path HTTP cells serve and post to. */
  public static final String HTTP_PATH = "/thrift";

  /** Checks the components and copies the collections. */
  public ServerCell {
    Objects.requireNonNull(transport, "transport");
    Objects.requireNonNull(io, "io");
    Objects.requireNonNull(builder, "builder");
    Objects.requireNonNull(strategy, "strategy");
    Objects.requireNonNull(security, "security");
    Objects.requireNonNull(requirement, "requirement");
    wires = List.copyOf(wires);
    tags = Set.copyOf(tags);
    if (wires.isEmpty() || wires.get(0) != WireKind.FRAMED) {
      throw new IllegalArgumentException("wires: " + wires + " (expected: FRAMED first)");
    }
  }

  /**
   * A plain-TCP cell that accepts framed calls only, with no client kind, no requirement and no
   * tags.
   */
  public static <B extends ServerBuilder<B>> ServerCell<B> of(
      String transport, String io, Supplier<B> builder, IoStrategy strategy) {
    return new ServerCell<>(
        transport,
        io,
        builder,
        strategy,
        "plain",
        null,
        List.of(WireKind.FRAMED),
        null,
        () -> {},
        Set.of(),
        false);
  }

  /** This cell over TLS, named {@code security} in the cell's name. */
  public ServerCell<B> withTls(String security, ServerTls tls) {
    return new ServerCell<>(
        transport,
        io,
        builder,
        strategy,
        security,
        Objects.requireNonNull(tls, "tls"),
        wires,
        client,
        requirement,
        tags,
        representative);
  }

  /**
   * This cell accepting {@code more} besides {@code FRAMED}; with {@link WireKind#HTTP}, on {@link
   * #HTTP_PATH}.
   */
  public ServerCell<B> withWires(WireKind... more) {
    List<WireKind> all = new ArrayList<>(List.of(WireKind.FRAMED));
    all.addAll(List.of(more));
    return new ServerCell<>(
        transport,
        io,
        builder,
        strategy,
        security,
        tls,
        all,
        client,
        requirement,
        tags,
        representative);
  }

  /** This cell called through {@code client}. */
  public ServerCell<B> withClient(ClientKind client) {
    return new ServerCell<>(
        transport,
        io,
        builder,
        strategy,
        security,
        tls,
        wires,
        Objects.requireNonNull(client, "client"),
        requirement,
        tags,
        representative);
  }

  /** This cell with {@code requirement} checked before its cases (see {@link #requirement()}). */
  public ServerCell<B> withRequirement(Runnable requirement) {
    return new ServerCell<>(
        transport,
        io,
        builder,
        strategy,
        security,
        tls,
        wires,
        client,
        requirement,
        tags,
        representative);
  }

  /** This cell with {@code tag} added. */
  public ServerCell<B> withTag(String tag) {
    Set<String> more = new TreeSet<>(tags);
    more.add(tag);
    return new ServerCell<>(
        transport,
        io,
        builder,
        strategy,
        security,
        tls,
        wires,
        client,
        requirement,
        more,
        representative);
  }

  /** This cell kept by a reduced run (see {@link Cells#select}). */
  public ServerCell<B> asRepresentative() {
    return new ServerCell<>(
        transport, io, builder, strategy, security, tls, wires, client, requirement, tags, true);
  }

  /**
   * A fresh builder of the server under test with the cell's wire kinds (and {@link #HTTP_PATH}
   * where they include HTTP); the suite adds its processor, strategy, TLS and address.
   */
  public B newBuilder() {
    B b = builder.get();
    if (wires.size() > 1) {
      b.wireKinds(wires.get(0), wires.subList(1, wires.size()).toArray(WireKind[]::new));
    }
    if (servesHttp()) {
      b.httpPath(HTTP_PATH);
    }
    return b;
  }

  /** Whether the server accepts {@link WireKind#HTTP}. */
  public boolean servesHttp() {
    return wires.contains(WireKind.HTTP);
  }

  /**
   * The client kind under test.
   *
   * @throws IllegalStateException if the cell has none
   */
  public ClientKind clientKind() {
    if (client == null) {
      throw new IllegalStateException(this + " has no client kind (expected: withClient)");
    }
    return client;
  }

  /**
   * The cell's name: transport, strategy, io, security, wire kinds (when more than framed) and
   * client kind, joined by {@code /}, e.g. {@code grizzly/leader-follower/nio/tls/framed+http/
   * grizzly-sync}.
   */
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    parts.add(transport);
    parts.add(strategy.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    parts.add(io);
    parts.add(security);
    if (wires.size() > 1) {
      parts.add(
          String.join("+", wires.stream().map(w -> w.name().toLowerCase(Locale.ROOT)).toList()));
    }
    if (client != null) {
      parts.add(client.name());
    }
    return String.join("/", parts);
  }
}
