package io.thriftnio.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * Binds a server's {@link ServerStats} to a {@link MeterRegistry}. Every meter is read from {@link
 * ThriftServer#stats()} when the registry publishes, so binding costs the call path nothing.
 *
 * <pre>{@code
 * new ServerMeters(server, "quotes").bindTo(registry);
 * }</pre>
 *
 * <p>Meters, each tagged {@code server} (the name given) and {@code transport} ({@code netty},
 * {@code grizzly}, or the server class's simple name), plus any tags given:
 *
 * <table>
 *   <caption>meters</caption>
 *   <tr><th>name</th><th>type</th><th>{@link ServerStats} field</th></tr>
 *   <tr><td>{@code thrift.server.connections}</td><td>gauge</td><td>{@code openConnections}</td></tr>
 *   <tr><td>{@code thrift.server.connections.accepted}</td><td>counter</td>
 *       <td>{@code acceptedConnections}</td></tr>
 *   <tr><td>{@code thrift.server.connections.rejected}</td><td>counter</td>
 *       <td>{@code rejectedConnections}</td></tr>
 *   <tr><td>{@code thrift.server.connections.timed.out}</td><td>counter</td>
 *       <td>{@code timedOutConnections}</td></tr>
 *   <tr><td>{@code thrift.server.connections.aged}</td><td>counter</td>
 *       <td>{@code agedConnections}</td></tr>
 *   <tr><td>{@code thrift.server.tls.failures}</td><td>counter</td><td>{@code tlsFailures}</td></tr>
 *   <tr><td>{@code thrift.server.sasl.failures}</td><td>counter</td><td>{@code saslFailures}</td></tr>
 *   <tr><td>{@code thrift.server.calls}</td><td>counter, tag {@code outcome}</td>
 *       <td>{@code completed}: {@code completedCalls} (failed calls included), {@code failed}:
 *       {@code failedCalls}, {@code overloaded}: {@code overloadedCalls}, {@code timed_out}:
 *       {@code timedOutCalls} (also counted as failed)</td></tr>
 *   <tr><td>{@code thrift.server.responses.dropped}</td><td>counter</td>
 *       <td>{@code droppedResponses}</td></tr>
 *   <tr><td>{@code thrift.server.frames.bad}</td><td>counter</td><td>{@code badFrames}</td></tr>
 *   <tr><td>{@code thrift.server.frames.truncated}</td><td>counter</td>
 *       <td>{@code truncatedFrames}</td></tr>
 * </table>
 *
 * <p>Per-method timers come from a server interceptor, {@link #methodTimers(MeterRegistry,
 * Iterable)}, given to the server's builder.
 *
 * <p>The registry holds the server weakly, as Micrometer does for function meters: keep a reference
 * to the server while it runs (a running server is referenced by its threads anyway).
 */
public final class ServerMeters implements MeterBinder {

  private final ThriftServer server;
  private final Tags tags;

  /**
   * @param server the server to observe
   * @param name the {@code server} tag's value, e.g. the service name
   */
  public ServerMeters(ThriftServer server, String name) {
    this(server, name, Tags.empty());
  }

  /**
   * @param server the server to observe
   * @param name the {@code server} tag's value, e.g. the service name
   * @param tags further tags on every meter
   */
  public ServerMeters(ThriftServer server, String name, Iterable<Tag> tags) {
    this.server = Objects.requireNonNull(server, "server");
    this.tags =
        Tags.of(tags)
            .and("server", Objects.requireNonNull(name, "name"))
            .and("transport", transportOf(server));
  }

  /**
   * A {@link ServerInterceptor} that times every call into {@code thrift.server.requests}, tagged
   * {@code method} and {@code outcome} ({@code success}, {@code declared_exception}, {@code
   * application_exception}, {@code undeclared_failure}, {@code refused}, {@code oneway}, {@code
   * timed_out}: {@link io.thriftnio.core.CallOutcome}'s names in lower case), plus the tags given.
   * A call that timed out ({@code ServerBuilder.handlerTimeout}) is timed up to its timeout. Each
   * call's queue time ({@link io.thriftnio.core.ServerCallContext#queueTime()}: from its arrival to
   * its start, the wait for a worker) goes into {@code thrift.server.queue}, tagged {@code method}
   * and the tags given; calls the server shed without running them (an overload) reach no
   * interceptor and are counted by the server meters ({@code thrift.server.calls}).
   *
   * <pre>{@code
   * NettyThriftServer.builder()
   *     .processor(processor)
   *     .addInterceptor(ServerMeters.methodTimers(registry, Tags.of("server", "quotes")))
   *     .build();
   * }</pre>
   *
   * <p>The method tag takes the method names the server's processor answers; a caller that sends
   * unknown names can add at most one timer per name it invents, so put a limit on the registry
   * ({@code MeterFilter.maximumAllowableTags}) when the port faces untrusted peers.
   *
   * @param registry where the timers go
   * @param tags further tags on every timer
   * @return the interceptor; one serves any number of servers
   */
  public static ServerInterceptor methodTimers(MeterRegistry registry, Iterable<Tag> tags) {
    return new MethodTimers(registry, tags);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("thrift.server.connections", server, s -> s.stats().openConnections())
        .description("connections open now")
        .tags(tags)
        .register(registry);
    counter(
        registry,
        "thrift.server.connections.accepted",
        "connections accepted",
        Tags.empty(),
        ServerStats::acceptedConnections);
    counter(
        registry,
        "thrift.server.connections.rejected",
        "connections refused at maxConnections",
        Tags.empty(),
        ServerStats::rejectedConnections);
    counter(
        registry,
        "thrift.server.connections.timed.out",
        "connections closed by the idle or frame timeout",
        Tags.empty(),
        ServerStats::timedOutConnections);
    counter(
        registry,
        "thrift.server.connections.aged",
        "connections closed for their age (maxConnectionAge)",
        Tags.empty(),
        ServerStats::agedConnections);
    counter(
        registry,
        "thrift.server.tls.failures",
        "failed or timed-out TLS handshakes",
        Tags.empty(),
        ServerStats::tlsFailures);
    counter(
        registry,
        "thrift.server.sasl.failures",
        "failed or timed-out SASL negotiations",
        Tags.empty(),
        ServerStats::saslFailures);
    counter(
        registry,
        "thrift.server.calls",
        "calls by outcome",
        Tags.of("outcome", "completed"),
        ServerStats::completedCalls);
    counter(
        registry,
        "thrift.server.calls",
        "calls by outcome",
        Tags.of("outcome", "failed"),
        ServerStats::failedCalls);
    counter(
        registry,
        "thrift.server.calls",
        "calls by outcome",
        Tags.of("outcome", "overloaded"),
        ServerStats::overloadedCalls);
    counter(
        registry,
        "thrift.server.calls",
        "calls by outcome",
        Tags.of("outcome", "timed_out"),
        ServerStats::timedOutCalls);
    counter(
        registry,
        "thrift.server.responses.dropped",
        "responses whose connection closed first",
        Tags.empty(),
        ServerStats::droppedResponses);
    counter(
        registry,
        "thrift.server.frames.bad",
        "connections closed for a bad frame",
        Tags.empty(),
        ServerStats::badFrames);
    counter(
        registry,
        "thrift.server.frames.truncated",
        "connections the peer ended inside a frame",
        Tags.empty(),
        ServerStats::truncatedFrames);
  }

  private void counter(
      MeterRegistry registry,
      String name,
      String description,
      Tags extra,
      ToLongFunction<ServerStats> field) {
    FunctionCounter.builder(name, server, s -> field.applyAsLong(s.stats()))
        .description(description)
        .tags(tags.and(extra))
        .register(registry);
  }

  /**
   * The {@code transport} tag: {@code netty} or {@code grizzly} for this library's servers, which
   * describe themselves as {@code NettyThriftServer{...}} or {@code GrizzlyThriftServer{...}} (the
   * object a builder returns is core's, not of the transport's class); else the server's class
   * name.
   */
  private static String transportOf(ThriftServer server) {
    String name = server.getClass().getSimpleName();
    String described = String.valueOf(server);
    if (name.startsWith("Netty") || described.startsWith("NettyThriftServer{")) {
      return "netty";
    }
    if (name.startsWith("Grizzly") || described.startsWith("GrizzlyThriftServer{")) {
      return "grizzly";
    }
    return name;
  }
}
