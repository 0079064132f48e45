package io.thriftnio.it.bench;

import java.util.ArrayList;
import java.util.List;

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

  /** The scenarios of framed clients alone: the main job's ({@code matrix --preset quick}). */
  static final List<String> FRAMED_NAMES =
      List.of("tsocket-40", "async-8x32", "seq-1", CLIENT_TRANSPORTS);

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
    for (String n : names) {
      if (!n.equals("all") && !NAMES.contains(n)) {
        throw new IllegalArgumentException(
            "scenario: " + n + " (expected: all or one of " + NAMES + ")");
      }
    }
    return out;
  }

  /** Whether this shape runs against {@code server}. */
  boolean runsOn(String server) {
    return onlyServer == null || onlyServer.equals(server);
  }

  /** {@code tsocket x40}, {@code netty-async 8x32}. */
  String shape() {
    return client + (inFlight > 1 ? " " + connections + "x" + inFlight : " x" + connections);
  }
}
