package io.thriftnio.it.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.thriftnio.core.CallKey;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An OpenTelemetry server span per call, built on {@link ServerInterceptor} and {@link
 * ServerCallContext} alone: the interceptor opens the span before the handler runs and ends it with
 * the call's outcome; the handler finds the span in the context and parents its own spans on it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenTelemetrySpansTest {

  private static final CallKey<Span> SPAN = CallKey.of("otel.span");
  private static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
  private static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
  private static final AttributeKey<String> PEER = AttributeKey.stringKey("network.peer.address");
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("thrift.outcome");

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final Tracer tracer = provider.get("thrift-nio-test");

  @AfterEach
  void closeProvider() {
    provider.close();
  }

  /** The span per call: what a tracing integration would ship, written against the public API. */
  private final class SpanPerCall implements ServerInterceptor {
    @Override
    public void beforeCall(ServerCallContext call) {
      Span span =
          tracer
              .spanBuilder("BenchService/" + call.methodName())
              .setSpanKind(SpanKind.SERVER)
              .setAttribute(RPC_SYSTEM, "apache_thrift")
              .setAttribute(RPC_METHOD, call.methodName())
              .setAttribute(PEER, String.valueOf(call.remoteAddress()))
              .startSpan();
      call.setAttribute(SPAN, span);
    }

    @Override
    public void afterCall(ServerCallContext call, CallOutcome outcome, long nanos) {
      Span span = call.attribute(SPAN);
      span.setAttribute(OUTCOME, outcome.name());
      if (outcome == CallOutcome.UNDECLARED_FAILURE
          || outcome == CallOutcome.APPLICATION_EXCEPTION
          || outcome == CallOutcome.REFUSED) {
        span.setStatus(StatusCode.ERROR, outcome.name());
      }
      span.end();
    }
  }

  /** Opens a child span of the call's span, as a handler doing traced work would. */
  private final class TracedHandler extends BenchHandler {
    @Override
    public TradeReport get_last_sale(String symbol) {
      Span parent = ServerCallContext.current().attribute(SPAN);
      tracer.spanBuilder("lookup").setParent(Context.root().with(parent)).startSpan().end();
      return super.get_last_sale(symbol);
    }

    @Override
    public List<TestInfo> db_work(int count) {
      throw new IllegalStateException("database down");
    }
  }

  enum Row {
    NETTY_WORKER(NettyThriftServer::builder, IoStrategy.WORKER),
    NETTY_SAME_THREAD(NettyThriftServer::builder, IoStrategy.SAME_THREAD),
    GRIZZLY_LEADER_FOLLOWER(GrizzlyThriftServer::builder, IoStrategy.LEADER_FOLLOWER);

    final java.util.function.Supplier<? extends ServerBuilder<?>> builder;
    final IoStrategy strategy;

    Row(java.util.function.Supplier<? extends ServerBuilder<?>> builder, IoStrategy strategy) {
      this.builder = builder;
      this.strategy = strategy;
    }
  }

  @ParameterizedTest
  @EnumSource(Row.class)
  void eachCallIsOneServerSpanWithItsOutcomeAndTheHandlersChildSpan(Row row) throws Exception {
    try (ThriftServer server =
        row.builder
            .get()
            .processor(new BenchService.Processor<>(new TracedHandler()))
            .ioStrategy(row.strategy)
            .addInterceptor(new SpanPerCall())
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start()) {
      String local;
      TSocket raw = new TSocket("127.0.0.1", server.localAddress().getPort(), 5_000);
      try (TTransport socket = new TFramedTransport(raw)) {
        socket.open();
        local = "/127.0.0.1:" + raw.getSocket().getLocalPort();
        BenchService.Client client = new BenchService.Client(new TBinaryProtocol(socket));
        client.echo(ByteBuffer.wrap(new byte[] {7}));
        assertThat(client.get_last_sale("OTEL").getSymbol()).isEqualTo("OTEL");
        assertThatThrownBy(() -> client.fail(42, "declared"))
            .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(42));
        assertThatThrownBy(() -> client.db_work(3))
            .isInstanceOfSatisfying(
                TApplicationException.class,
                e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
      }

      // A span ends in afterCall, before its reply is queued: all are exported by now.
      Map<String, SpanData> byName =
          exporter.getFinishedSpanItems().stream()
              .collect(Collectors.toMap(SpanData::getName, Function.identity()));
      assertThat(byName)
          .containsOnlyKeys(
              "BenchService/echo",
              "BenchService/get_last_sale",
              "BenchService/fail",
              "BenchService/db_work",
              "lookup");

      SpanData echo = byName.get("BenchService/echo");
      assertThat(echo.getKind()).isEqualTo(SpanKind.SERVER);
      assertThat(echo.getAttributes().get(RPC_SYSTEM)).isEqualTo("apache_thrift");
      assertThat(echo.getAttributes().get(RPC_METHOD)).isEqualTo("echo");
      assertThat(echo.getAttributes().get(PEER)).isEqualTo(local);
      assertThat(echo.getAttributes().get(OUTCOME)).isEqualTo("SUCCESS");
      assertThat(echo.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
      assertThat(echo.getEndEpochNanos()).isGreaterThanOrEqualTo(echo.getStartEpochNanos());

      SpanData sale = byName.get("BenchService/get_last_sale");
      SpanData lookup = byName.get("lookup");
      assertThat(lookup.getParentSpanId()).isEqualTo(sale.getSpanId());
      assertThat(lookup.getTraceId()).isEqualTo(sale.getTraceId());
      assertThat(sale.getTraceId()).isNotEqualTo(echo.getTraceId());

      // A declared exception is the service's answer, not a failure of the call.
      SpanData fail = byName.get("BenchService/fail");
      assertThat(fail.getAttributes().get(OUTCOME)).isEqualTo("DECLARED_EXCEPTION");
      assertThat(fail.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

      SpanData db = byName.get("BenchService/db_work");
      assertThat(db.getAttributes().get(OUTCOME)).isEqualTo("UNDECLARED_FAILURE");
      assertThat(db.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    }
  }
}
