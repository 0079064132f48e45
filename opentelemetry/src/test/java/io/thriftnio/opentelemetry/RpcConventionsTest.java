package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The spans and metrics of the {@code Instrumenter}s: the attribute names OpenTelemetry's Java
 * agent (2.31.1, {@code thrift-0.13}) emits for the same call, {@code rpc.server.duration} and
 * {@code rpc.client.duration}, and a failed call's exception recorded on its client span.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RpcConventionsTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  /** The agent's server span attributes for a stock TThreadPoolServer call (thread.* left out). */
  private static final Set<String> AGENT_SERVER_KEYS =
      Set.of(
          "rpc.system",
          "rpc.service",
          "rpc.method",
          "server.address",
          "server.port",
          "network.type",
          "network.peer.address",
          "network.peer.port",
          "network.local.address",
          "network.local.port");

  /** The agent's client span attributes for a stock client's call (thread.* left out). */
  private static final Set<String> AGENT_CLIENT_KEYS =
      Set.of(
          "rpc.system",
          "rpc.service",
          "rpc.method",
          "server.address",
          "server.port",
          "network.type",
          "network.peer.address",
          "network.peer.port");

  /**
   * Made in each test, after the extension has reset its meter provider (which drops instruments
   * made before).
   */
  private static ThriftTracing tracing() {
    return ThriftTracing.create(otel.getOpenTelemetry(), "BenchService");
  }

  private static Set<String> keys(SpanData span) {
    return span.getAttributes().asMap().keySet().stream()
        .map(AttributeKey::getKey)
        .collect(Collectors.toSet());
  }

  private static SpanData await(SpanKind kind) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      List<SpanData> found = otel.getSpans().stream().filter(s -> s.getKind() == kind).toList();
      if (!found.isEmpty() || System.nanoTime() > deadline) {
        assertThat(found).hasSize(1);
        return found.get(0);
      }
      Thread.sleep(10); // the server span ends after the reply is written
    }
  }

  @Test
  void aCallHasTheAgentsAttributeNamesAndBothDurationMetrics() throws Exception {
    ThriftTracing tracing = tracing();
    try (ThriftServer server =
            NettyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .addInterceptor(tracing.serverInterceptor())
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .build()
                .start();
        NettyClientIo io = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(io)
                .options(ClientOptions.defaults())
                .endpoints(server.localAddress())
                .interceptors(List.of(tracing.clientInterceptor()))
                .build()) {
      pool.call(c -> c.send_get_last_sale("IBM"), BenchService.Client::recv_get_last_sale)
          .get(10, TimeUnit.SECONDS);
    }
    SpanData server = await(SpanKind.SERVER);
    SpanData client = await(SpanKind.CLIENT);
    assertThat(keys(server)).containsAll(AGENT_SERVER_KEYS);
    assertThat(keys(client)).containsAll(AGENT_CLIENT_KEYS);
    assertThat(server.getAttributes().get(AttributeKey.stringKey("rpc.system")))
        .isEqualTo("apache_thrift");
    assertThat(client.getAttributes().get(AttributeKey.stringKey("network.type")))
        .isEqualTo("ipv4");

    Set<String> metrics =
        otel.getMetrics().stream().map(MetricData::getName).collect(Collectors.toSet());
    assertThat(metrics).contains("rpc.server.duration", "rpc.client.duration");
  }

  @Test
  void aFailedCallsExceptionIsRecordedADeclaredOneIsNot() throws Exception {
    ClientInterceptor interceptor = tracing().clientInterceptor();
    ClientCallContext failed =
        new ClientCallContext(
            "echo", 1, TMessageType.CALL, new InetSocketAddress("127.0.0.1", 9090));
    interceptor.beforeCall(failed);
    interceptor.afterCall(
        failed,
        CallOutcome.TRANSPORT_FAILURE,
        new TTransportException(TTransportException.END_OF_FILE, "the server closed"),
        1_000);
    ClientCallContext declared =
        new ClientCallContext(
            "echo", 2, TMessageType.CALL, new InetSocketAddress("127.0.0.1", 9090));
    interceptor.beforeCall(declared);
    interceptor.afterCall(
        declared, CallOutcome.DECLARED_EXCEPTION, new IllegalStateException("declared"), 1);

    List<SpanData> spans = otel.getSpans();
    assertThat(spans).hasSize(2);
    SpanData failedSpan = spans.get(0);
    assertThat(failedSpan.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failedSpan.getEvents()).extracting(EventData::getName).containsExactly("exception");
    assertThat(
            failedSpan
                .getEvents()
                .get(0)
                .getAttributes()
                .get(AttributeKey.stringKey("exception.type")))
        .isEqualTo(TTransportException.class.getName());
    assertThat(failedSpan.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo(TTransportException.class.getName());
    SpanData declaredSpan = spans.get(1);
    assertThat(declaredSpan.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(declaredSpan.getEvents()).isEmpty();
  }
}
