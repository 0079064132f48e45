package io.thriftnio.opentelemetry.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.opentelemetry.ThriftTracing;
import io.thriftnio.opentelemetry.agent.AgentJvm.ExportedSpan;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * (c) A thrift-nio server with this module in a JVM that runs OpenTelemetry's Java agent: the agent
 * instruments the generated processor too, so each call gets two {@code SERVER} spans, unless the
 * agent's Thrift instrumentation is turned off ({@code otel.instrumentation.thrift.enabled=false}),
 * as the guide says: then one, ours.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AgentServerTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private static NettyClientIo io;
  private static ThriftTracing tracing;
  private static AgentJvm withoutAgentThrift;
  private static AgentJvm withAgentThrift;

  @BeforeAll
  static void start() throws Exception {
    tracing = ThriftTracing.create(otel.getOpenTelemetry(), "BenchService");
    io = NettyClientIo.create(1);
    withoutAgentThrift = new AgentJvm("nio", "otel.instrumentation.thrift.enabled=false");
    withAgentThrift = new AgentJvm("nio");
  }

  @AfterAll
  static void stop() throws Exception {
    if (withoutAgentThrift != null) {
      withoutAgentThrift.close();
    }
    if (withAgentThrift != null) {
      withAgentThrift.close();
    }
    if (io != null) {
      io.close();
    }
  }

  /** Our traced call of {@code get_last_sale} on the child's thrift-nio server; our client span. */
  private static SpanData call(AgentJvm child, WireKind wire) throws Exception {
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(io)
            .options(ClientOptions.builder().wireKind(wire).argumentHeaders(true).build())
            .endpoints(new InetSocketAddress("127.0.0.1", child.port("nio")))
            .interceptors(List.of(tracing.clientInterceptor()))
            .build()) {
      pool.call(c -> c.send_get_last_sale("NIO"), BenchService.Client::recv_get_last_sale)
          .get(30, TimeUnit.SECONDS);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      List<SpanData> clients =
          otel.getSpans().stream().filter(s -> s.getKind() == SpanKind.CLIENT).toList();
      if (!clients.isEmpty() || System.nanoTime() > deadline) {
        assertThat(clients).hasSize(1);
        otel.clearSpans();
        return clients.get(0);
      }
      Thread.sleep(10); // the client span ends as the reply completes the call
    }
  }

  /**
   * The {@code SERVER} spans the child exported in {@code call}'s trace, counted once a later
   * call's server span has been exported too: the agent exports spans in the order they ended, so a
   * second span of the first call would have come out by then.
   */
  private static List<ExportedSpan> serverSpansOf(AgentJvm child, SpanData call, WireKind wire)
      throws Exception {
    SpanData fence = call(child, wire);
    List<ExportedSpan> fenced =
        child.awaitSpans(s -> s.isServer() && s.traceId().equals(fence.getTraceId()), 1);
    assertThat(fenced).as("the later call's server span").isNotEmpty();
    return child.spans().stream()
        .filter(s -> s.isServer() && s.traceId().equals(call.getTraceId()))
        .toList();
  }

  @ParameterizedTest
  @EnumSource(
      value = WireKind.class,
      names = {"FRAMED", "UNFRAMED", "HEADER"})
  void withTheAgentsThriftInstrumentationOffACallHasOneServerSpanOurs(WireKind wire)
      throws Exception {
    SpanData client = call(withoutAgentThrift, wire);
    List<ExportedSpan> servers = serverSpansOf(withoutAgentThrift, client, wire);
    System.out.printf(
        "agent server (c) %s, agent's thrift off: trace %s, our CLIENT span %s, SERVER spans %s%n",
        wire, client.getTraceId(), client.getSpanId(), servers);
    assertThat(servers).hasSize(1);
    assertThat(servers.get(0).name()).isEqualTo("BenchService/get_last_sale");
    assertThat(servers.get(0).parentSpanId()).isEqualTo(client.getSpanId());
  }

  @ParameterizedTest
  @EnumSource(
      value = WireKind.class,
      names = {"FRAMED", "UNFRAMED", "HEADER"})
  void withTheAgentsThriftInstrumentationOnACallHasOneServerSpanOurs(WireKind wire)
      throws Exception {
    SpanData client = call(withAgentThrift, wire);
    List<ExportedSpan> servers = serverSpansOf(withAgentThrift, client, wire);
    System.out.printf(
        "agent server (c) %s, agent's thrift on: trace %s, our CLIENT span %s, SERVER spans %s%n",
        wire, client.getTraceId(), client.getSpanId(), servers);
    assertThat(servers).hasSize(1);
    assertThat(servers.get(0).name()).isEqualTo("BenchService/get_last_sale");
    assertThat(servers.get(0).parentSpanId()).isEqualTo(client.getSpanId());
  }
}
