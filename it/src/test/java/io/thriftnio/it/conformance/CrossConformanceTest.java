package io.thriftnio.it.conformance;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.it.Rows;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance suite for the server x client cells that no single module runs: each transport's
 * servers against the other transport's clients, and every server against the pooled clients.
 * Together with the modules' own runs (each transport's servers against stock {@code TSocket} and
 * its own sync and async clients) every server row meets every client kind.
 *
 * <p>It runs the {@link ConformanceSuite}, the cases that go through the client kind, and not the
 * {@code ServerConformanceSuite}'s cases that reach the server over raw connections or stock
 * sockets: those do not depend on the client kind, and the transports' own matrices run them on
 * these server rows (the same Grizzly builders; for Netty's default builder, epoll or NIO with
 * either strategy, plain and TLS). Here they would repeat once per client kind.
 */
@ParameterizedClass(name = "{0} <- {1}")
@MethodSource("cells")
class CrossConformanceTest extends ConformanceSuite {

  @Parameter(0)
  Rows.Server server;

  @Parameter(1)
  ClientKind client;

  static Stream<Arguments> cells() {
    List<Arguments> cells = new ArrayList<>();
    for (Rows.Server s : Rows.NETTY_SERVERS) {
      for (ClientKind c :
          List.of(Rows.GRIZZLY_SYNC, Rows.GRIZZLY_ASYNC, Rows.POOLED_SYNC, Rows.POOLED_ASYNC)) {
        cells.add(Arguments.of(s, c));
      }
    }
    for (Rows.Server s : Rows.GRIZZLY_SERVERS) {
      for (ClientKind c :
          List.of(Rows.NETTY_SYNC, Rows.NETTY_ASYNC, Rows.POOLED_SYNC, Rows.POOLED_ASYNC)) {
        cells.add(Arguments.of(s, c));
      }
    }
    // The pools over this library's own transports, once per transport's server.
    for (Rows.Server s : List.of(Rows.NETTY_WORKER, Rows.GRIZZLY_WORKER)) {
      for (ClientKind c :
          List.of(
              Rows.POOLED_NETTY_SYNC,
              Rows.POOLED_GRIZZLY_SYNC,
              Rows.POOLED_NETTY_CHANNEL,
              Rows.POOLED_GRIZZLY_CHANNEL)) {
        cells.add(Arguments.of(s, c));
      }
    }
    return cells.stream();
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return server.builder().get();
  }

  @Override
  protected IoStrategy strategy() {
    return server.strategy();
  }

  @Override
  protected ClientKind clientKind() {
    return client;
  }
}
