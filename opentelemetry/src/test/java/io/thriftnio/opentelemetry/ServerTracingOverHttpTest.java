package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.THttpClient;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The server interceptor on a Netty server: a stock {@code THttpClient} sends a W3C {@code
 * traceparent} and {@code tracestate}, and the server span joins that trace; a framed call, which
 * carries no headers, starts its own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerTracingOverHttpTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String CALLER_SPAN_ID = "b7ad6b7169203331";

  private ThriftServer server;

  /** Opens a span of its own in {@code get_last_sale}, as a handler doing traced work would. */
  private static final class LookupHandler extends BenchHandler {
    @Override
    public TradeReport get_last_sale(String symbol) {
      otel.getOpenTelemetry().getTracer("test").spanBuilder("lookup").startSpan().end();
      return super.get_last_sale(symbol);
    }
  }

  @BeforeEach
  void startServer() throws Exception {
    ThriftTracing tracing = ThriftTracing.create(otel.getOpenTelemetry(), "BenchService");
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new LookupHandler()))
            .wireKinds(WireKind.FRAMED, WireKind.HTTP)
            .ioStrategy(IoStrategy.WORKER)
            .addInterceptor(tracing.serverInterceptor())
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start();
  }

  @AfterEach
  void closeServer() {
    server.close();
  }

  private SpanData serverSpan() {
    // The span ends in afterCall, before the reply is queued: exported once the reply is read.
    List<SpanData> spans = otel.getSpans();
    assertThat(spans).hasSize(1);
    assertThat(spans.get(0).getKind()).isEqualTo(SpanKind.SERVER);
    return spans.get(0);
  }

  @Test
  void anHttpCallWithATraceparentJoinsTheCallersTrace() throws Exception {
    int port = server.localAddress().getPort();
    THttpClient http = new THttpClient("http://127.0.0.1:" + port + "/");
    http.setCustomHeader("traceparent", "00-" + TRACE_ID + "-" + CALLER_SPAN_ID + "-01");
    http.setCustomHeader("tracestate", "vendor=opaque");
    try (TTransport transport = http) {
      new BenchService.Client(new TBinaryProtocol(transport)).echo(ByteBuffer.wrap(new byte[3]));
    }

    SpanData span = serverSpan();
    assertThat(span.getName()).isEqualTo("BenchService/echo");
    assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(span.getParentSpanId()).isEqualTo(CALLER_SPAN_ID);
    assertThat(span.getParentSpanContext().isRemote()).isTrue();
    assertThat(span.getSpanContext().getTraceState().get("vendor")).isEqualTo("opaque");
    assertThat(span.getAttributes().get(AttributeKey.stringKey("network.peer.address")))
        .isEqualTo("127.0.0.1");
    assertThat(span.getAttributes().get(AttributeKey.longKey("network.peer.port"))).isPositive();
    assertThat(span.getAttributes().get(AttributeKey.stringKey("server.address")))
        .isEqualTo("127.0.0.1");
    assertThat(span.getAttributes().get(AttributeKey.longKey("server.port")))
        .isEqualTo((long) port);
  }

  // Needs the server to call attach around the handler (branch hdr-server): fails before.
  @Test
  void theHandlersSpansAreChildrenOfTheServerSpan() throws Exception {
    int port = server.localAddress().getPort();
    THttpClient http = new THttpClient("http://127.0.0.1:" + port + "/");
    http.setCustomHeader("traceparent", "00-" + TRACE_ID + "-" + CALLER_SPAN_ID + "-01");
    try (TTransport transport = http) {
      new BenchService.Client(new TBinaryProtocol(transport)).get_last_sale("IBM");
    }

    List<SpanData> spans = otel.getSpans();
    SpanData call = spans.stream().filter(s -> s.getKind() == SpanKind.SERVER).findFirst().get();
    SpanData lookup = spans.stream().filter(s -> s.getName().equals("lookup")).findFirst().get();
    assertThat(lookup.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(lookup.getParentSpanId()).isEqualTo(call.getSpanId());
  }

  @Test
  void aFramedCallCarriesNoHeadersAndStartsATrace() throws Exception {
    InetSocketAddress address = server.localAddress();
    TSocket socket = new TSocket(address.getHostString(), address.getPort(), 10_000);
    try (TTransport transport = new TFramedTransport(socket)) {
      transport.open();
      new BenchService.Client(new TBinaryProtocol(transport)).echo(ByteBuffer.wrap(new byte[3]));
      SpanData span = serverSpan();
      assertThat(span.getParentSpanContext().isValid()).isFalse();
      assertThat(span.getAttributes().get(AttributeKey.longKey("network.peer.port")))
          .isEqualTo((long) socket.getSocket().getLocalPort());
    }
  }
}
