package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.ArgumentHeaders;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.Nested;
import io.thriftnio.testkit.gen.TestInfo;
import io.thriftnio.testkit.gen.TradeReport;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TMultiplexedProcessor;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The server interceptor on calls run by a {@link ProcessorInvoker}, outside any server: span
 * names, attributes, status per outcome, the span made current by {@code attach}, and a broken
 * tracer that leaves the call untouched.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TracingServerInterceptorTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
  private static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
  private static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  private static final AttributeKey<String> EXCEPTION_TYPE =
      AttributeKey.stringKey("exception.type");
  private static final AttributeKey<String> EXCEPTION_MESSAGE =
      AttributeKey.stringKey("exception.message");
  private static final AttributeKey<String> EXCEPTION_STACKTRACE =
      AttributeKey.stringKey("exception.stacktrace");
  private static final TBinaryProtocol.Factory BINARY = new TBinaryProtocol.Factory();

  private final ThriftTracing tracing =
      ThriftTracing.create(otel.getOpenTelemetry(), "BenchService");

  /** What the handler saw as current, inside the scope {@code attach} opened. */
  private final AtomicReference<SpanContext> seenInHandler = new AtomicReference<>();

  private final class Handler extends BenchHandler {
    @Override
    public TradeReport get_last_sale(String symbol) {
      // The invoker runs the interceptor's attach around the handler: the server span is current.
      seenInHandler.set(Span.current().getSpanContext());
      otel.getOpenTelemetry().getTracer("test").spanBuilder("lookup").startSpan().end();
      return super.get_last_sale(symbol);
    }

    @Override
    public List<TestInfo> db_work(int count) {
      throw new IllegalStateException("database down");
    }

    @Override
    public Nested get_nested(int depth) {
      throw new AssertionError("broken invariant at depth " + depth);
    }
  }

  private ProcessorInvoker asyncInvoker() {
    return ProcessorInvoker.ofAsync(
            new BenchService.AsyncProcessor<>(new AsyncBenchHandler(new Handler())),
            BINARY,
            BINARY,
            1 << 20)
        .withInterceptors(List.of(tracing.serverInterceptor()));
  }

  /** The span's exception events, as {@code Span.recordException} writes them. */
  private static List<EventData> exceptions(SpanData span) {
    return span.getEvents().stream().filter(e -> e.getName().equals("exception")).toList();
  }

  private ProcessorInvoker invoker(TProcessor processor, ServerInterceptor interceptor) {
    return ProcessorInvoker.of(processor, BINARY, BINARY, 1 << 20)
        .withInterceptors(List.of(interceptor));
  }

  private ProcessorInvoker invoker() {
    return invoker(new BenchService.Processor<>(new Handler()), tracing.serverInterceptor());
  }

  private static SpanData only(List<SpanData> spans) {
    assertThat(spans).hasSize(1);
    return spans.get(0);
  }

  private static SpanData server(List<SpanData> spans) {
    List<SpanData> servers = spans.stream().filter(s -> s.getKind() == SpanKind.SERVER).toList();
    assertThat(servers).hasSize(1);
    return servers.get(0);
  }

  @Test
  void aCallIsOneServerSpanNamedServiceSlashMethod() throws Exception {
    Requests echo = Requests.of(c -> c.send_echo(ByteBuffer.wrap(new byte[] {7})));
    ByteBuffer reply = invoker().invoke(echo.payload()).get();
    assertThat(echo.reply(reply, BenchService.Client::recv_echo).array()).containsExactly(7);

    SpanData span = only(otel.getSpans());
    assertThat(span.getName()).isEqualTo("BenchService/echo");
    assertThat(span.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(span.getParentSpanContext().isValid()).as("a new trace: no headers").isFalse();
    assertThat(span.getAttributes().get(RPC_SYSTEM)).isEqualTo("apache_thrift");
    assertThat(span.getAttributes().get(RPC_SERVICE)).isEqualTo("BenchService");
    assertThat(span.getAttributes().get(RPC_METHOD)).isEqualTo("echo");
    // An invoker outside a server knows no addresses.
    assertThat(span.getAttributes().get(AttributeKey.stringKey("network.peer.address"))).isNull();
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(span.hasEnded()).isTrue();
  }

  @Test
  void theContextInTheArgumentsAsTheAgentSendsItIsTheParentAndTheHandlerSeesItsArguments()
      throws Exception {
    String traceId = "0af7651916cd43dd8448eb211c80319c";
    String parentId = "b7ad6b7169203331";
    Requests sale = Requests.of(c -> c.send_get_last_sale("IBM"));
    ByteBuffer request =
        ArgumentHeaders.write(
            sale.payload(), Map.of("traceparent", "00-" + traceId + "-" + parentId + "-01"));
    ByteBuffer reply = invoker().invoke(request).get();
    assertThat(sale.reply(reply, BenchService.Client::recv_get_last_sale).getSymbol())
        .isEqualTo("IBM");

    SpanData span = server(otel.getSpans());
    assertThat(span.getTraceId()).isEqualTo(traceId);
    assertThat(span.getParentSpanId()).isEqualTo(parentId);
  }

  @Test
  void theRequestsHeadersWinOverTheArgumentsWhenBothCarryAContext() throws Exception {
    String headerTrace = "0af7651916cd43dd8448eb211c80319c";
    String headerParent = "b7ad6b7169203331";
    Requests sale = Requests.of(c -> c.send_get_last_sale("IBM"));
    ByteBuffer request =
        ArgumentHeaders.write(
            sale.payload(),
            Map.of("traceparent", "00-11111111111111111111111111111111-2222222222222222-01"));
    CompletableFuture<ByteBuffer> reply = new CompletableFuture<>();
    invoker()
        .invoke(
            request,
            new ProcessorInvoker.Completion() {
              @Override
              public void replied(ByteBuffer frame, boolean failed) {
                reply.complete(frame);
              }

              @Override
              public void unreadable(Throwable cause) {
                reply.completeExceptionally(cause);
              }

              @Override
              public Map<String, String> requestHeaders() {
                // As a THeader request's info headers arrive.
                return Map.of("traceparent", "00-" + headerTrace + "-" + headerParent + "-01");
              }
            });
    assertThat(
            sale.reply(reply.get(10, TimeUnit.SECONDS), BenchService.Client::recv_get_last_sale)
                .getSymbol())
        .isEqualTo("IBM");

    SpanData span = server(otel.getSpans());
    assertThat(span.getTraceId()).isEqualTo(headerTrace);
    assertThat(span.getParentSpanId()).isEqualTo(headerParent);
  }

  @Test
  void aContextFieldOverItsBoundsIsIgnoredAndTheCallGoesOn() throws Exception {
    Requests sale = Requests.of(c -> c.send_get_last_sale("IBM"));
    Map<String, String> large = new LinkedHashMap<>();
    large.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    large.put("padding", "x".repeat(ArgumentHeaders.MAX_BYTES));
    ByteBuffer reply = invoker().invoke(ArgumentHeaders.write(sale.payload(), large)).get();
    assertThat(sale.reply(reply, BenchService.Client::recv_get_last_sale).getSymbol())
        .isEqualTo("IBM");

    assertThat(server(otel.getSpans()).getParentSpanContext().isValid()).isFalse();
  }

  @Test
  void withoutAServiceNameTheSpanIsNamedAfterTheMethod() throws Exception {
    ThriftTracing plain = ThriftTracing.create(otel.getOpenTelemetry());
    invoker(new BenchService.Processor<>(new Handler()), plain.serverInterceptor())
        .invoke(Requests.of(c -> c.send_get_last_sale("X")).payload())
        .get();

    SpanData span = server(otel.getSpans());
    assertThat(span.getName()).isEqualTo("get_last_sale");
    assertThat(span.getAttributes().get(RPC_SERVICE)).isNull();
    assertThat(span.getAttributes().get(RPC_METHOD)).isEqualTo("get_last_sale");
  }

  @Test
  void aMultiplexedCallNamesItsOwnService() throws Exception {
    TMultiplexedProcessor multiplexed = new TMultiplexedProcessor();
    multiplexed.registerProcessor("Quotes", new BenchService.Processor<>(new Handler()));
    Requests sale = Requests.of("Quotes", c -> c.send_get_last_sale("IBM"));
    ByteBuffer reply =
        invoker(multiplexed, tracing.serverInterceptor()).invoke(sale.payload()).get();
    assertThat(sale.reply(reply, BenchService.Client::recv_get_last_sale).getSymbol())
        .isEqualTo("IBM");

    SpanData server = server(otel.getSpans());
    assertThat(server.getName()).isEqualTo("Quotes/get_last_sale");
    assertThat(server.getAttributes().get(RPC_SERVICE)).isEqualTo("Quotes");
    assertThat(server.getAttributes().get(RPC_METHOD)).isEqualTo("get_last_sale");
  }

  @Test
  void attachMakesTheServerSpanCurrentForTheHandler() throws Exception {
    invoker().invoke(Requests.of(c -> c.send_get_last_sale("IBM")).payload()).get();

    List<SpanData> spans = otel.getSpans();
    SpanData server = server(spans);
    SpanData lookup = spans.stream().filter(s -> s.getName().equals("lookup")).findFirst().get();
    assertThat(seenInHandler.get().getSpanId()).isEqualTo(server.getSpanId());
    assertThat(lookup.getParentSpanId()).isEqualTo(server.getSpanId());
    assertThat(lookup.getTraceId()).isEqualTo(server.getTraceId());
    assertThat(Span.current().getSpanContext().isValid())
        .as("the scope is closed once the call is over")
        .isFalse();
  }

  @Test
  void aDeclaredExceptionIsAnAnswerNotAnError() throws Exception {
    Requests fail = Requests.of(c -> c.send_fail(42, "declared"));
    ByteBuffer reply = invoker().invoke(fail.payload()).get();
    assertThatThrownBy(
            () ->
                fail.reply(
                    reply,
                    c -> {
                      c.recv_fail();
                      return null;
                    }))
        .isInstanceOf(BenchError.class);

    SpanData span = only(otel.getSpans());
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(span.getAttributes().get(ERROR_TYPE)).isNull();
    assertThat(exceptions(span)).as("a declared exception is the service's answer").isEmpty();
  }

  @Test
  void anAsyncHandlersDeclaredExceptionIsAnAnswerNotAnError() throws Exception {
    Requests fail = Requests.of(c -> c.send_fail(42, "declared"));
    ByteBuffer reply = asyncInvoker().invoke(fail.payload()).get(10, TimeUnit.SECONDS);
    assertThatThrownBy(
            () ->
                fail.reply(
                    reply,
                    c -> {
                      c.recv_fail();
                      return null;
                    }))
        .isInstanceOf(BenchError.class);

    SpanData span = only(otel.getSpans());
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(exceptions(span)).isEmpty();
  }

  @Test
  void anUndeclaredFailureRecordsTheExceptionTheCallerWasSent() throws Exception {
    // libthrift's ProcessFunction catches the handler's exception and answers INTERNAL_ERROR: the
    // server sees that answer, not the handler's exception.
    Requests dbWork = Requests.of(c -> c.send_db_work(3));
    invoker().invoke(dbWork.payload()).get();

    SpanData span = only(otel.getSpans());
    assertThat(exceptions(span)).hasSize(1);
    assertThat(exceptions(span).get(0).getAttributes().get(EXCEPTION_TYPE))
        .isEqualTo(TApplicationException.class.getName());
    assertThat(exceptions(span).get(0).getAttributes().get(EXCEPTION_MESSAGE))
        .isEqualTo("Internal error processing db_work");
  }

  @Test
  void anAsyncHandlersUndeclaredFailureRecordsTheExceptionTheCallerWasSent() throws Exception {
    Requests dbWork = Requests.of(c -> c.send_db_work(3));
    ByteBuffer reply = asyncInvoker().invoke(dbWork.payload()).get(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> dbWork.reply(reply, BenchService.Client::recv_db_work))
        .isInstanceOf(TApplicationException.class);

    SpanData span = only(otel.getSpans());
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(exceptions(span)).hasSize(1);
    // The generated async code answers INTERNAL_ERROR with the handler's message.
    assertThat(exceptions(span).get(0).getAttributes().get(EXCEPTION_TYPE))
        .isEqualTo(TApplicationException.class.getName());
    assertThat(exceptions(span).get(0).getAttributes().get(EXCEPTION_MESSAGE))
        .isEqualTo("database down");
  }

  @Test
  void aHandlersErrorReachesTheServerAndIsRecordedItself() throws Exception {
    Requests nested = Requests.of(c -> c.send_get_nested(3));
    ByteBuffer reply = invoker().invoke(nested.payload()).get();
    assertThatThrownBy(() -> nested.reply(reply, BenchService.Client::recv_get_nested))
        .isInstanceOf(TApplicationException.class);

    SpanData span = only(otel.getSpans());
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(exceptions(span)).hasSize(1);
    assertThat(exceptions(span).get(0).getAttributes().get(EXCEPTION_TYPE))
        .isEqualTo(AssertionError.class.getName());
    assertThat(exceptions(span).get(0).getAttributes().get(EXCEPTION_MESSAGE))
        .isEqualTo("broken invariant at depth 3");
    assertThat(exceptions(span).get(0).getAttributes().get(EXCEPTION_STACKTRACE))
        .contains("get_nested");
  }

  @Test
  void anAsyncHandlersErrorReachesTheServerAndIsRecordedItself() throws Exception {
    Requests nested = Requests.of(c -> c.send_get_nested(3));
    ByteBuffer reply = asyncInvoker().invoke(nested.payload()).get(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> nested.reply(reply, BenchService.Client::recv_get_nested))
        .isInstanceOf(TApplicationException.class);

    SpanData span = only(otel.getSpans());
    assertThat(exceptions(span)).hasSize(1);
    assertThat(exceptions(span).get(0).getAttributes().get(EXCEPTION_TYPE))
        .isEqualTo(AssertionError.class.getName());
  }

  @Test
  void anUndeclaredFailureIsAnError() throws Exception {
    Requests dbWork = Requests.of(c -> c.send_db_work(3));
    ByteBuffer reply = invoker().invoke(dbWork.payload()).get();
    assertThatThrownBy(() -> dbWork.reply(reply, BenchService.Client::recv_db_work))
        .isInstanceOf(TApplicationException.class);

    SpanData span = only(otel.getSpans());
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("UNDECLARED_FAILURE");
  }

  @Test
  void anUnknownMethodIsAnError() throws Exception {
    invoker().invoke(Requests.unknownMethod("no_such_method")).get();

    SpanData span = only(otel.getSpans());
    assertThat(span.getName()).isEqualTo("BenchService/no_such_method");
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("APPLICATION_EXCEPTION");
  }

  @Test
  void aBrokenTracerLeavesTheCallUntraced() throws Exception {
    Tracer broken =
        name -> {
          throw new IllegalStateException("broken tracer");
        };
    TracerProvider provider =
        new TracerProvider() {
          @Override
          public Tracer get(String name) {
            return broken;
          }

          @Override
          public Tracer get(String name, String version) {
            return broken;
          }
        };
    OpenTelemetry brokenOtel =
        new OpenTelemetry() {
          @Override
          public TracerProvider getTracerProvider() {
            return provider;
          }

          @Override
          public ContextPropagators getPropagators() {
            return ContextPropagators.noop();
          }
        };
    ThriftTracing untraced = ThriftTracing.create(brokenOtel);
    Requests sale = Requests.of(c -> c.send_get_last_sale("IBM"));
    ByteBuffer reply =
        invoker(new BenchService.Processor<>(new BenchHandler()), untraced.serverInterceptor())
            .invoke(sale.payload())
            .get();

    assertThat(sale.reply(reply, BenchService.Client::recv_get_last_sale).getSymbol())
        .isEqualTo("IBM");
    assertThat(otel.getSpans()).isEmpty();
  }
}
