package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A client shape of the {@code efficiency} command: which client kind calls the server, over how
 * many connections, with how many calls in flight on each.
 *
 * @param name the scenario as {@code efficiency --scenarios} spells it
 * @param client the client kind ({@code tsocket}, {@code netty-async}, ...)
 * @param connections connections the client opens
 * @param inFlight calls kept in flight per connection (1 for blocking clients)
 * @param onlyServer the one server row the scenario runs against, or {@code null} for every row
 */
record EfficiencyScenario(
    String name, String client, int connections, int inFlight, String onlyServer) {

  /** The scenario that compares sync client transports against one server. */
  static final String CLIENT_TRANSPORTS = "client-transports";

  /** The server every client transport is measured against. */
  static final String CLIENT_TRANSPORTS_SERVER = "thrift-threadpool";

  /** The scenario of 40 stock {@code THttpClient}s, against the rows that serve HTTP. */
  static final String HTTP_40 = "http-40";

  /** The scenario names, in run order. */
  static final List<String> NAMES =
      List.of("tsocket-40", "async-8x32", "seq-1", CLIENT_TRANSPORTS, HTTP_40);

  /**
   * 40 blocking Drift clients (the {@code drift} kind, Drift's own client, each on its own
   * connection), like {@code tsocket-40}; named only, since its load generator needs a JDK &gt;=
   * 21.
   */
  static final String DRIFT_40 = "drift-40";

  /** The scenarios that {@code all} leaves out: they run only when named. */
  static final List<String> NAMED_ONLY = List.of(DRIFT_40);

  /** The scenarios of framed clients alone: the main job's ({@code matrix --preset quick}). */
  static final List<String> FRAMED_NAMES =
      List.of("tsocket-40", "async-8x32", "seq-1", CLIENT_TRANSPORTS);

  /**
   * The scenarios that have a THeader twin and a SASL twin: their clients call the library's rows,
   * which serve both; {@code client-transports} calls a stock row and {@code http-40} speaks HTTP.
   */
  static final List<String> HEADER_NAMES = List.of("tsocket-40", "async-8x32", "seq-1");

  /**
   * {@link #resolve(List)} on each wire of {@code wires}, the shapes of one scenario side by side:
   * on {@code FRAMED}, the shapes as they are; on {@code HEADER}, a twin of each shape of {@link
   * #HEADER_NAMES}, named {@code <scenario>-header}, whose client is the kind's THeader twin
   * ({@code tsocket-header}, {@code netty-async-header}).
   *
   * @param wires {@code framed}, {@code header} and/or {@code sasl}, in any case; {@code sasl}
   *     twins are {@code <scenario>-sasl} over the kind's SASL twin (PLAIN, {@code auth})
   * @throws IllegalArgumentException for an unknown scenario or wire, or {@code header} without a
   *     scenario that has a twin
   */
  static List<EfficiencyScenario> resolve(List<String> names, List<String> wires) {
    List<WireKind> kinds = new ArrayList<>();
    for (String w : wires) {
      WireKind kind;
      try {
        kind = WireKind.valueOf(w.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        kind = null;
      }
      if (kind != WireKind.FRAMED && kind != WireKind.HEADER && kind != WireKind.SASL) {
        throw new IllegalArgumentException(
            "wire: " + w + " (expected: framed, header, sasl, comma-separated)");
      }
      kinds.add(kind);
    }
    if (kinds.isEmpty()) {
      throw new IllegalArgumentException("wire: none (expected: framed, header, sasl)");
    }
    List<EfficiencyScenario> out = new ArrayList<>();
    boolean twinned = false;
    for (EfficiencyScenario shape : resolve(names)) {
      if (kinds.contains(WireKind.FRAMED)) {
        out.add(shape);
      }
      for (WireKind twin : List.of(WireKind.HEADER, WireKind.SASL)) {
        if (kinds.contains(twin) && HEADER_NAMES.contains(shape.name())) {
          out.add(shape.over(twin));
          twinned = true;
        }
      }
    }
    if ((kinds.contains(WireKind.HEADER) || kinds.contains(WireKind.SASL)) && !twinned) {
      throw new IllegalArgumentException(
          "wire: "
              + String.join(",", wires)
              + " with scenarios "
              + names
              + " (expected: one of "
              + HEADER_NAMES
              + ", the scenarios that have THeader and SASL twins)");
    }
    return out;
  }

  /**
   * This shape's twin whose client speaks {@code wire}: {@code seq-1-header} over tsocket-header.
   */
  EfficiencyScenario over(WireKind wire) {
    String suffix = "-" + wire.name().toLowerCase(Locale.ROOT);
    return new EfficiencyScenario(
        name + suffix, ClientKindRow.named(client, wire), connections, inFlight, onlyServer);
  }

  /**
   * The cells' client shapes for the named scenarios, in run order: {@code client-transports}
   * becomes three shapes (stock {@code tsocket}, {@code netty-sync}, {@code grizzly-sync}); {@code
   * http-40} is 40 stock {@code THttpClient}s, each calling in sequence (rows that do not serve
   * HTTP skip it).
   *
   * @throws IllegalArgumentException for an unknown name
   */
  static List<EfficiencyScenario> resolve(List<String> names) {
    List<EfficiencyScenario> out = new ArrayList<>();
    for (String n : NAMES) {
      if (names.contains(n) || names.contains("all")) {
        switch (n) {
          case "tsocket-40":
            out.add(new EfficiencyScenario(n, "tsocket", 40, 1, null));
            break;
          case "async-8x32":
            out.add(new EfficiencyScenario(n, "netty-async", 8, 32, null));
            break;
          case "seq-1":
            out.add(new EfficiencyScenario(n, "tsocket", 1, 1, null));
            break;
          case HTTP_40:
            out.add(new EfficiencyScenario(n, "thttpclient", 40, 1, null));
            break;
          default:
            for (String client : List.of("tsocket", "netty-sync", "grizzly-sync")) {
              out.add(new EfficiencyScenario(n, client, 1, 1, CLIENT_TRANSPORTS_SERVER));
            }
        }
      }
    }
    if (names.contains(DRIFT_40)) {
      out.add(new EfficiencyScenario(DRIFT_40, DriftRows.NAME, 40, 1, null));
    }
    for (String n : names) {
      if (!n.equals("all") && !NAMES.contains(n) && !NAMED_ONLY.contains(n)) {
        throw new IllegalArgumentException(
            "scenario: "
                + n
                + " (expected: all or one of "
                + NAMES
                + ", or named only: "
                + NAMED_ONLY
                + ")");
      }
    }
    return out;
  }

  /**
   * This shape as {@code row} runs it: the shapes of {@link #HEADER_NAMES} against a row of another
   * stack than Thrift ({@link ServerRow#stack()}) run with that stack's client kind, named after it
   * (tsocket-40 against {@code grpc/direct} is 40 blocking {@code grpc} callers); every other shape
   * as it is (its Thrift client then skips the row with the reason).
   *
   * @param row the server row, or {@code null} for a row missing from this build
   */
  EfficiencyScenario on(ServerRow row) {
    return on(row, false);
  }

  /**
   * {@link #on(ServerRow)}, where {@code loop} runs the shapes of one call in flight per connection
   * with the stack's {@code -loop} kind ({@code grpc-loop}): each next call started from the
   * completion of the last on the client's event loop, no caller threads.
   */
  EfficiencyScenario on(ServerRow row, boolean loop) {
    if (row == null || row.stack().equals(ServerRow.THRIFT) || !HEADER_NAMES.contains(name)) {
      return this;
    }
    String kind = loop && inFlight == 1 ? row.stack() + "-loop" : row.stack();
    return new EfficiencyScenario(name, kind, connections, inFlight, onlyServer);
  }

  /** Whether this shape runs against {@code server}. */
  boolean runsOn(String server) {
    return onlyServer == null || onlyServer.equals(server);
  }

  /**
   * The scenario's name, followed by its client shape where a row of another stack ran it with its
   * own client kind ({@link #on}): {@code tsocket-40 (grpc x40)}.
   */
  String label() {
    String own =
        switch (name) {
          case "tsocket-40", "seq-1" -> "tsocket";
          case "async-8x32" -> "netty-async";
          default -> client;
        };
    return client.equals(own) ? name : name + " (" + shape() + ")";
  }

  /** {@code tsocket x40}, {@code netty-async 8x32}. */
  String shape() {
    return client + (inFlight > 1 ? " " + connections + "x" + inFlight : " x" + connections);
  }
}
