package io.thriftnio.it.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The registry of server rows and client kinds, by name.
 *
 * <p>{@link #standard()} holds {@link StockRows} and whichever of the Netty, Grizzly, pool and
 * servlet providers are in this build. Names of a provider that is missing stay known, with the
 * reason, so that {@code matrix} skips their cells with that reason instead of rejecting the name.
 */
final class Rows {

  /** A provider the registry loads by name, and the rows it is expected to bring. */
  private record Optional(String className, List<String> servers, List<String> clients) {}

  private static final List<Optional> OPTIONAL =
      List.of(
          new Optional(
              "io.thriftnio.it.bench.NettyRows",
              List.of("netty/same-thread", "netty/worker"),
              List.of(
                  "netty-sync",
                  "netty-async",
                  "netty-sync-http",
                  "netty-async-http",
                  "netty-sync-header",
                  "netty-async-header",
                  "netty-sync-sasl",
                  "netty-async-sasl")),
          new Optional(
              "io.thriftnio.it.bench.GrizzlyRows",
              List.of("grizzly/same-thread", "grizzly/worker", "grizzly/leader-follower"),
              List.of(
                  "grizzly-sync",
                  "grizzly-async",
                  "grizzly-sync-http",
                  "grizzly-async-http",
                  "grizzly-sync-header",
                  "grizzly-async-header",
                  "grizzly-sync-sasl",
                  "grizzly-async-sasl")),
          new Optional(
              "io.thriftnio.it.bench.PoolRows", List.of(), List.of("pooled-sync", "pooled-async")),
          new Optional("io.thriftnio.it.bench.ServletRows", List.of(ServletRows.NAME), List.of()),
          new Optional(
              "io.thriftnio.it.bench.GrpcRows",
              List.of("grpc/direct", "grpc/default", "grpc-tls/direct", "grpc-tls/default"),
              List.of("grpc", "grpc-loop")));

  /**
   * What {@code peers} selects: the plain (not TLS) rows of other RPC stacks, measured beside ours;
   * {@code armeria} serves HTTP alone, so only the HTTP scenarios call it. Peer rows are named only
   * (never in {@code all}); their families ({@link #PEER_FAMILIES}) select them too.
   */
  static final List<String> PEERS =
      List.of(DriftRows.NAME, ArmeriaRows.NAME, "grpc/direct", "grpc/default");

  /** Families of peer rows, selected by name although their rows are named only. */
  private static final List<String> PEER_FAMILIES = List.of("grpc", "grpc-tls");

  /** Names that {@code all} leaves out also while their provider is missing. */
  private static final List<String> NAMED_ONLY =
      List.of(
          ServletRows.NAME,
          "grpc/direct",
          "grpc/default",
          "grpc-tls/direct",
          "grpc-tls/default",
          "grpc",
          "grpc-loop");

  private final Map<String, ServerRow> servers = new LinkedHashMap<>();
  private final Map<String, ClientKindRow> clients = new LinkedHashMap<>();
  private final Map<String, String> missing = new LinkedHashMap<>();
  private final Set<String> missingServers = new HashSet<>();

  /** An empty registry, for tests. */
  Rows() {}

  /** Stock rows, plus every optional provider present in this build. */
  static Rows standard() {
    Rows rows = new Rows();
    new StockRows().register(rows);
    // Need no jar of their own on the class path: they say why where their peer cannot run.
    new DriftRows().register(rows);
    new ArmeriaRows().register(rows);
    for (Optional o : OPTIONAL) {
      // A provider whose own class is missing, or whose transport's jars are (a LinkageError
      // while it registers), leaves its names known and skipped with the reason.
      Rows staged = new Rows();
      try {
        RowProvider provider =
            (RowProvider) Class.forName(o.className()).getDeclaredConstructor().newInstance();
        provider.register(staged);
      } catch (ReflectiveOperationException | LinkageError e) {
        String why = o.className() + " is not in this build (" + e + ")";
        for (String s : o.servers()) {
          rows.missing.put(s, why);
          rows.missingServers.add(s);
        }
        for (String c : o.clients()) {
          rows.missing.put(c, why);
        }
        continue;
      }
      staged.servers.values().forEach(rows::server);
      staged.clients.values().forEach(rows::client);
    }
    return rows;
  }

  /** Adds a server row; a name is registered once. */
  void server(ServerRow row) {
    if (servers.putIfAbsent(row.name(), row) != null) {
      throw new IllegalStateException("server row " + row.name() + " registered twice");
    }
    missing.remove(row.name());
  }

  /** Adds a client kind; a name is registered once. */
  void client(ClientKindRow kind) {
    if (clients.putIfAbsent(kind.name(), kind) != null) {
      throw new IllegalStateException("client kind " + kind.name() + " registered twice");
    }
    missing.remove(kind.name());
  }

  /** The row named so, or null. */
  ServerRow server(String name) {
    return servers.get(name);
  }

  /** The kind named so, or null. */
  ClientKindRow client(String name) {
    return clients.get(name);
  }

  /** Why a known name has no row in this build, or null. */
  String missing(String name) {
    return missing.get(name);
  }

  /** Listed server rows, in registration order. */
  List<String> serverNames() {
    List<String> names = new ArrayList<>();
    servers.values().stream().filter(ServerRow::listed).forEach(r -> names.add(r.name()));
    return names;
  }

  /** Listed client kinds, in registration order. */
  List<String> clientNames() {
    List<String> names = new ArrayList<>();
    clients.values().stream().filter(ClientKindRow::listed).forEach(k -> names.add(k.name()));
    return names;
  }

  /** Every name that is known but missing from this build. */
  Map<String, String> missingNames() {
    return Collections.unmodifiableMap(missing);
  }

  /**
   * Expands server selectors: {@code all}, {@code ours} (Netty and Grizzly rows), {@code stock}
   * (the listed {@code thrift-*} rows; {@code thrift-servlet} is named only), {@code peers} (other
   * RPC stacks' plain rows, {@link #PEERS}), a family ({@code netty} means every {@code netty/...}
   * row; {@code grpc} and {@code grpc-tls} their named-only rows), or a row name. A known name
   * missing from the build is kept, so its cells are skipped with the reason.
   *
   * @throws IllegalArgumentException for an unknown name
   */
  List<String> expandServers(List<String> selectors) {
    List<String> out = new ArrayList<>();
    List<String> known = new ArrayList<>(servers.keySet());
    for (String m : missing.keySet()) {
      if (missingServers.contains(m)) {
        known.add(m);
      }
    }
    for (String sel : selectors) {
      List<String> hit = new ArrayList<>();
      switch (sel) {
        case "all":
          hit.addAll(serverNames());
          missing.keySet().stream()
              .filter(missingServers::contains)
              .filter(n -> !NAMED_ONLY.contains(n))
              .forEach(hit::add);
          break;
        case "peers":
          PEERS.stream().filter(known::contains).forEach(hit::add);
          break;
        case "ours":
          known.stream()
              .filter(n -> n.startsWith("netty/") || n.startsWith("grizzly/"))
              .filter(this::listedOrMissing)
              .forEach(hit::add);
          break;
        case "stock":
          known.stream()
              .filter(n -> n.startsWith("thrift-"))
              .filter(this::listedOrMissing)
              .forEach(hit::add);
          break;
        default:
          if (servers.containsKey(sel) || missing.containsKey(sel)) {
            hit.add(sel);
          } else {
            known.stream()
                .filter(n -> n.startsWith(sel + "/"))
                .filter(n -> listedOrMissing(n) || PEER_FAMILIES.contains(sel))
                .forEach(hit::add);
          }
      }
      if (hit.isEmpty()) {
        throw new IllegalArgumentException(
            "server: "
                + sel
                + " (expected: all, ours, stock, peers, netty, grizzly, grpc or one of "
                + known
                + ")");
      }
      hit.stream().filter(h -> !out.contains(h)).forEach(out::add);
    }
    return out;
  }

  private boolean listedOrMissing(String name) {
    ServerRow row = servers.get(name);
    // thrift-servlet and the peer rows are named only, also when their provider is missing.
    return row == null ? missing.containsKey(name) && !NAMED_ONLY.contains(name) : row.listed();
  }

  /**
   * Expands client selectors: {@code all} or a kind's name; known but missing kinds are kept.
   *
   * @throws IllegalArgumentException for an unknown name
   */
  List<String> expandClients(List<String> selectors) {
    List<String> out = new ArrayList<>();
    for (String sel : selectors) {
      List<String> hit = new ArrayList<>();
      if (sel.equals("all")) {
        hit.addAll(clientNames());
        missing.keySet().stream()
            .filter(n -> !missingServers.contains(n))
            .filter(n -> !NAMED_ONLY.contains(n))
            .forEach(hit::add);
      } else if (clients.containsKey(sel) || missing.containsKey(sel)) {
        hit.add(sel);
      } else {
        List<String> known = new ArrayList<>(clients.keySet());
        missing.keySet().stream().filter(n -> !missingServers.contains(n)).forEach(known::add);
        throw new IllegalArgumentException(
            "client: " + sel + " (expected: all or one of " + known + ")");
      }
      hit.stream().filter(h -> !out.contains(h)).forEach(out::add);
    }
    return out;
  }
}
