package io.thriftnio.opentelemetry.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.opentelemetry.ThriftTracing;
import io.thriftnio.opentelemetry.agent.AgentJvm.ExportedSpan;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TestInfo;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Traces that join OpenTelemetry's Java agent (its {@code thrift-0.13} instrumentation, which
 * carries the context in field 8888 of the arguments), both ways, with the real agent jar in a
 * child JVM ({@link AgentJvm}, one for all stock scenarios): (a) a stock client under the agent
 * calls a thrift-nio server; (b) a thrift-nio client calls a stock {@code TThreadPoolServer} under
 * the agent; on framed, unframed and THeader. Each prints the ids it saw.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AgentInteropTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private static AgentJvm stock;
  private static ThriftServer server;
  private static NettyClientIo io;
  private static ThriftTracing tracing;

  @BeforeAll
  static void start() throws Exception {
    tracing = ThriftTracing.create(otel.getOpenTelemetry(), "BenchService");
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .wireKinds(WireKind.FRAMED, WireKind.UNFRAMED, WireKind.HEADER)
            .addInterceptor(tracing.serverInterceptor())
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start();
    io = NettyClientIo.create(1);
    stock = new AgentJvm("stock");
  }

  @AfterAll
  static void stop() throws Exception {
    if (stock != null) {
      stock.close();
    }
    if (io != null) {
      io.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Waits up to 10 s for {@code count} spans of {@code kind} recorded in this JVM. */
  static List<SpanData> awaitOwn(SpanKind kind, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      List<SpanData> found = otel.getSpans().stream().filter(s -> s.getKind() == kind).toList();
      if (found.size() >= count || System.nanoTime() > deadline) {
        return found;
      }
      Thread.sleep(10); // spans end on the server's threads after the reply
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = WireKind.class,
      names = {"FRAMED", "UNFRAMED", "HEADER"})
  void aStockClientUnderTheAgentIsTheParentOfOurServerSpan(WireKind wire) throws Exception {
    int port = ((InetSocketAddress) server.localAddress()).getPort();
    stock.stockCall(wire.name(), port);

    List<SpanData> ours = awaitOwn(SpanKind.SERVER, 1);
    assertThat(ours).hasSize(1);
    SpanData serverSpan = ours.get(0);
    List<ExportedSpan> agentClients =
        stock.awaitSpans(
            s ->
                s.isClient()
                    && s.name().contains("get_last_sale")
                    && s.traceId().equals(serverSpan.getTraceId()),
            1);
    System.out.printf(
        "agent interop (a) %s: trace %s, agent CLIENT span %s, our SERVER span %s with parent %s%n",
        wire,
        serverSpan.getTraceId(),
        agentClients.isEmpty() ? "none in this trace" : agentClients.get(0).spanId(),
        serverSpan.getSpanId(),
        serverSpan.getParentSpanId());
    assertThat(agentClients)
        .as(
            "the agent's CLIENT span in our server span's trace; all the agent's: %s",
            stock.spans())
        .hasSize(1);
    assertThat(serverSpan.getParentSpanId()).isEqualTo(agentClients.get(0).spanId());
  }

  @ParameterizedTest
  @EnumSource(
      value = WireKind.class,
      names = {"FRAMED", "UNFRAMED", "HEADER"})
  void ourClientSpanIsTheParentOfTheAgentsServerSpan(WireKind wire) throws Exception {
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(io)
            .options(ClientOptions.builder().wireKind(wire).argumentHeaders(true).build())
            .endpoints(new InetSocketAddress("127.0.0.1", stock.port(wire.name())))
            .interceptors(List.of(tracing.clientInterceptor()))
            .build()) {
      pool.call(c -> c.send_get_last_sale("NIO"), BenchService.Client::recv_get_last_sale)
          .get(30, TimeUnit.SECONDS);
    }
    List<SpanData> ours = awaitOwn(SpanKind.CLIENT, 1);
    assertThat(ours).hasSize(1);
    SpanData clientSpan = ours.get(0);
    List<ExportedSpan> agentServers =
        stock.awaitSpans(s -> s.isServer() && s.traceId().equals(clientSpan.getTraceId()), 1);
    System.out.printf(
        "agent interop (b) %s: trace %s, our CLIENT span %s, agent SERVER span %s with parent %s%n",
        wire,
        clientSpan.getTraceId(),
        clientSpan.getSpanId(),
        agentServers.isEmpty() ? "none in this trace" : agentServers.get(0).spanId(),
        agentServers.isEmpty() ? "-" : agentServers.get(0).parentSpanId());
    assertThat(agentServers)
        .as(
            "the agent's SERVER span in our client span's trace; all the agent's: %s",
            stock.spans())
        .hasSize(1);
    assertThat(agentServers.get(0).parentSpanId()).isEqualTo(clientSpan.getSpanId());
  }

  /** The value of the string attribute {@code key} in an OTLP JSON span, or {@code null}. */
  static String jsonAttribute(String json, String key) {
    Matcher m =
        Pattern.compile(
                "\\{\"key\":\""
                    + Pattern.quote(key)
                    + "\",\"value\":\\{\"stringValue\":\"((?:[^\"\\\\]|\\\\.)*)\"")
            .matcher(json);
    return m.find() ? m.group(1) : null;
  }

  @Test
  void aFailedCallsExceptionOnOurServerSpanIsTheOneOnTheAgentsClientSpan() throws Exception {
    // A stock client under the agent calls a method whose handler throws an undeclared exception:
    // both sides record the TApplicationException that crossed the wire, under the same names.
    int port = ((InetSocketAddress) server.localAddress()).getPort();
    stock.stockFailingCall("FRAMED", port);

    SpanData serverSpan = awaitOwn(SpanKind.SERVER, 1).get(0);
    List<EventData> ours =
        serverSpan.getEvents().stream().filter(e -> e.getName().equals("exception")).toList();
    assertThat(ours).hasSize(1);
    List<ExportedSpan> agentClients =
        stock.awaitSpans(s -> s.isClient() && s.traceId().equals(serverSpan.getTraceId()), 1);
    assertThat(agentClients).as("all the agent's: %s", stock.spans()).hasSize(1);
    String agentJson = agentClients.get(0).json();
    System.out.printf(
        "agent interop, failed call: our SERVER span events %s; the agent's CLIENT span %s%n",
        ours, agentJson);
    assertThat(agentJson).contains("\"name\":\"exception\"");
    for (String key : List.of("exception.type", "exception.message")) {
      assertThat(ours.get(0).getAttributes().get(AttributeKey.stringKey(key)))
          .as(key)
          .isEqualTo(jsonAttribute(agentJson, key));
    }
    assertThat(jsonAttribute(agentJson, "exception.type"))
        .isEqualTo(TApplicationException.class.getName());
    assertThat(jsonAttribute(agentJson, "exception.stacktrace")).isNotNull();
    assertThat(ours.get(0).getAttributes().get(AttributeKey.stringKey("exception.stacktrace")))
        .isNotNull();
  }

  @Test
  void theAgentsSyncServerSpanOfAFailedCallHasTheStatusButNoExceptionEvent() throws Exception {
    // What the tracing chapter says of the agent: libthrift's processor catches the handler's
    // exception, so the agent's server span (a TBaseProcessor) sees no exception to record.
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(io)
            .options(ClientOptions.builder().argumentHeaders(true).build())
            .endpoints(new InetSocketAddress("127.0.0.1", stock.port("FRAMED")))
            .interceptors(List.of(tracing.clientInterceptor()))
            .build()) {
      CompletableFuture<List<TestInfo>> failed =
          pool.call(c -> c.send_db_work(-1), BenchService.Client::recv_db_work);
      assertThatThrownBy(() -> failed.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(TApplicationException.class);
    }
    SpanData clientSpan = awaitOwn(SpanKind.CLIENT, 1).get(0);
    List<ExportedSpan> agentServers =
        stock.awaitSpans(s -> s.isServer() && s.traceId().equals(clientSpan.getTraceId()), 1);
    assertThat(agentServers).as("all the agent's: %s", stock.spans()).hasSize(1);
    String json = agentServers.get(0).json();
    System.out.printf("agent interop, failed call: the agent's SERVER span %s%n", json);
    assertThat(json).contains("\"status\":{\"code\":2");
    assertThat(json).doesNotContain("\"name\":\"exception\"");
    assertThat(clientSpan.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }

  @Test
  void aFailedCallsExceptionOnOurClientSpanIsTheOneOnTheAgentsClientSpan() throws Exception {
    // The same failing call (db_work(-1): INTERNAL_ERROR from a stock server under the agent) made
    // by our client and by a stock client under the agent: both client spans record the
    // TApplicationException of the reply as an exception event, under the same names.
    int port = stock.port("FRAMED");
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(io)
            .options(ClientOptions.defaults())
            .endpoints(new InetSocketAddress("127.0.0.1", port))
            .interceptors(List.of(tracing.clientInterceptor()))
            .build()) {
      CompletableFuture<List<TestInfo>> failed =
          pool.call(c -> c.send_db_work(-1), BenchService.Client::recv_db_work);
      assertThatThrownBy(() -> failed.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(TApplicationException.class);
    }
    long clientsBefore = stock.spans().stream().filter(ExportedSpan::isClient).count();
    stock.stockFailingCall("FRAMED", port);

    SpanData clientSpan = awaitOwn(SpanKind.CLIENT, 1).get(0);
    List<EventData> ours =
        clientSpan.getEvents().stream().filter(e -> e.getName().equals("exception")).toList();
    List<ExportedSpan> agentClients =
        stock.awaitSpans(ExportedSpan::isClient, (int) clientsBefore + 1);
    assertThat(agentClients).hasSize((int) clientsBefore + 1);
    String agentJson = agentClients.get(agentClients.size() - 1).json();
    System.out.printf(
        "agent interop, failed call: our CLIENT span events %s; the agent's CLIENT span %s%n",
        ours, agentJson);
    assertThat(agentJson).contains("\"name\":\"exception\"");
    assertThat(ours).as("our client span's exception events").hasSize(1);
    for (String key : List.of("exception.type", "exception.message")) {
      assertThat(ours.get(0).getAttributes().get(AttributeKey.stringKey(key)))
          .as(key)
          .isEqualTo(jsonAttribute(agentJson, key));
    }
    assertThat(ours.get(0).getAttributes().get(AttributeKey.stringKey("exception.stacktrace")))
        .isNotNull();
    assertThat(clientSpan.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }

  @Test
  void withoutArgumentHeadersAFramedCallStartsANewTraceOnTheAgentsSide() throws Exception {
    long serversBefore = stock.spans().stream().filter(ExportedSpan::isServer).count();
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(io)
            .options(ClientOptions.defaults())
            .endpoints(new InetSocketAddress("127.0.0.1", stock.port("FRAMED")))
            .interceptors(List.of(tracing.clientInterceptor()))
            .build()) {
      pool.call(c -> c.send_get_last_sale("NIO"), BenchService.Client::recv_get_last_sale)
          .get(30, TimeUnit.SECONDS);
    }
    SpanData clientSpan = awaitOwn(SpanKind.CLIENT, 1).get(0);
    List<ExportedSpan> servers = stock.awaitSpans(ExportedSpan::isServer, (int) serversBefore + 1);
    assertThat(servers).hasSize((int) serversBefore + 1);
    assertThat(servers.get(servers.size() - 1).traceId()).isNotEqualTo(clientSpan.getTraceId());
  }
}
