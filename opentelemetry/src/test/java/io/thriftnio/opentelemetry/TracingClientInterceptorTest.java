package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The client interceptor on contexts built directly, as a channel or pool would run it: the span's
 * parent, the headers it writes, its status per outcome, and the caller's context made current
 * again by {@code attach} on another thread.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TracingClientInterceptorTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private static final AttributeKey<String> SERVER_ADDRESS =
      AttributeKey.stringKey("server.address");
  private static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
  private static final AttributeKey<String> PEER_ADDRESS =
      AttributeKey.stringKey("network.peer.address");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  private static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
  private static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");

  private final ExecutorService otherThread = Executors.newSingleThreadExecutor();
  private final ClientInterceptor interceptor =
      ThriftTracing.create(otel.getOpenTelemetry(), "BenchService").clientInterceptor();

  @AfterEach
  void stopThread() {
    otherThread.shutdownNow();
  }

  private static ClientCallContext call(String method) {
    return new ClientCallContext(
        method, 1, TMessageType.CALL, new InetSocketAddress("127.0.0.1", 9090));
  }

  private static SpanData only(List<SpanData> spans, SpanKind kind) {
    List<SpanData> of = spans.stream().filter(s -> s.getKind() == kind).toList();
    assertThat(of).hasSize(1);
    return of.get(0);
  }

  @Test
  void theSpanIsAChildOfTheCallersAndItsContextGoesInTheHeaders() throws Exception {
    ClientCallContext call = call("echo");
    Span parent = otel.getOpenTelemetry().getTracer("test").spanBuilder("caller").startSpan();
    try (Scope ignored = parent.makeCurrent()) {
      interceptor.beforeCall(call);
    }
    interceptor.afterCall(call, CallOutcome.SUCCESS, null, 1_000);
    parent.end();

    SpanData client = only(otel.getSpans(), SpanKind.CLIENT);
    assertThat(client.getName()).isEqualTo("BenchService/echo");
    assertThat(client.getParentSpanId()).isEqualTo(parent.getSpanContext().getSpanId());
    assertThat(client.getTraceId()).isEqualTo(parent.getSpanContext().getTraceId());
    assertThat(call.requestHeaders())
        .containsEntry(
            "traceparent",
            "00-"
                + client.getTraceId()
                + "-"
                + client.getSpanId()
                + "-"
                + client.getSpanContext().getTraceFlags().asHex());
    assertThat(client.getAttributes().get(RPC_SERVICE)).isEqualTo("BenchService");
    assertThat(client.getAttributes().get(RPC_METHOD)).isEqualTo("echo");
    assertThat(client.getAttributes().get(SERVER_ADDRESS)).isEqualTo("127.0.0.1");
    assertThat(client.getAttributes().get(SERVER_PORT)).isEqualTo(9090L);
    assertThat(client.getAttributes().get(PEER_ADDRESS)).isEqualTo("127.0.0.1");
    assertThat(client.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
  }

  @Test
  void withoutACurrentSpanTheCallStartsATrace() throws Exception {
    ClientCallContext call =
        new ClientCallContext(
            "Quotes:get_last_sale",
            1,
            TMessageType.CALL,
            InetSocketAddress.createUnresolved("quotes.example", 9090));
    interceptor.beforeCall(call);
    interceptor.afterCall(call, CallOutcome.SUCCESS, null, 1_000);

    SpanData client = only(otel.getSpans(), SpanKind.CLIENT);
    assertThat(client.getParentSpanContext().isValid()).isFalse();
    assertThat(client.getName()).isEqualTo("Quotes/get_last_sale");
    assertThat(client.getAttributes().get(SERVER_ADDRESS)).isEqualTo("quotes.example");
    assertThat(client.getAttributes().get(PEER_ADDRESS)).as("not resolved").isNull();
    assertThat(call.requestHeaders().get("traceparent")).contains(client.getSpanId());
  }

  @ParameterizedTest
  @CsvSource({
    "SUCCESS, ",
    "DECLARED_EXCEPTION, ",
    "ONEWAY, ",
    "APPLICATION_EXCEPTION, org.apache.thrift.TApplicationException",
    "TRANSPORT_FAILURE, org.apache.thrift.transport.TTransportException",
    "TIMED_OUT, org.apache.thrift.transport.TTransportException",
    "REFUSED, org.apache.thrift.transport.TTransportException",
  })
  void theOutcomeSetsTheStatus(CallOutcome outcome, String errorType) throws Exception {
    ClientCallContext call = call("echo");
    interceptor.beforeCall(call);
    Throwable failure =
        errorType == null
            ? null
            : outcome.equals(CallOutcome.APPLICATION_EXCEPTION)
                ? new TApplicationException(TApplicationException.INTERNAL_ERROR, "x")
                : new TTransportException("x");
    interceptor.afterCall(call, outcome, failure, 1_000);

    SpanData client = only(otel.getSpans(), SpanKind.CLIENT);
    assertThat(client.hasEnded()).isTrue();
    assertThat(client.getEvents())
        .extracting(e -> e.getAttributes().get(AttributeKey.stringKey("exception.type")))
        .containsExactlyElementsOf(errorType == null ? List.of() : List.of(errorType));
    assertThat(client.getAttributes().get(ERROR_TYPE)).isEqualTo(errorType);
    assertThat(client.getStatus().getStatusCode())
        .isEqualTo(errorType == null ? StatusCode.UNSET : StatusCode.ERROR);
  }

  @Test
  void attachMakesTheCallersContextCurrentInTheContinuation() throws Exception {
    ClientCallContext call = call("echo");
    Span parent = otel.getOpenTelemetry().getTracer("test").spanBuilder("caller").startSpan();
    try (Scope ignored = parent.makeCurrent()) {
      interceptor.beforeCall(call);
    }
    // The continuation runs on another thread, as an async call's completion does.
    CompletableFuture<List<String>> seen =
        CompletableFuture.supplyAsync(
            () -> {
              String before = Span.current().getSpanContext().getSpanId();
              String inside;
              Runnable scope = interceptor.attach(call);
              try {
                interceptor.afterCall(call, CallOutcome.SUCCESS, null, 1_000);
                inside = Span.current().getSpanContext().getSpanId();
              } finally {
                scope.run();
              }
              String after = Span.current().getSpanContext().getSpanId();
              return List.of(before, inside, after);
            },
            otherThread);
    String invalid = Span.getInvalid().getSpanContext().getSpanId();
    assertThat(seen.get(10, TimeUnit.SECONDS))
        .containsExactly(invalid, parent.getSpanContext().getSpanId(), invalid);
    assertThat(only(otel.getSpans(), SpanKind.CLIENT).hasEnded()).isTrue();
  }

  @Test
  void theConfiguredPropagatorWritesTheHeaders() throws Exception {
    TextMapPropagator traceIdOnly =
        new TextMapPropagator() {
          @Override
          public Collection<String> fields() {
            return List.of("x-trace-id");
          }

          @Override
          public <C> void inject(Context context, C carrier, TextMapSetter<C> setter) {
            setter.set(
                carrier, "x-trace-id", Span.fromContext(context).getSpanContext().getTraceId());
          }

          @Override
          public <C> Context extract(Context context, C carrier, TextMapGetter<C> getter) {
            return context;
          }
        };
    OpenTelemetry custom =
        new OpenTelemetry() {
          @Override
          public io.opentelemetry.api.trace.TracerProvider getTracerProvider() {
            return otel.getOpenTelemetry().getTracerProvider();
          }

          @Override
          public ContextPropagators getPropagators() {
            return ContextPropagators.create(traceIdOnly);
          }
        };
    ClientInterceptor b3Like = ThriftTracing.create(custom).clientInterceptor();
    ClientCallContext call = call("echo");
    b3Like.beforeCall(call);
    b3Like.afterCall(call, CallOutcome.SUCCESS, null, 1_000);

    assertThat(call.requestHeaders())
        .containsOnlyKeys("x-trace-id")
        .containsEntry("x-trace-id", only(otel.getSpans(), SpanKind.CLIENT).getTraceId());
  }

  @Test
  void aBrokenPropagatorNeverFailsTheCall() {
    TextMapPropagator broken =
        new TextMapPropagator() {
          @Override
          public Collection<String> fields() {
            return List.of();
          }

          @Override
          public <C> void inject(Context context, C carrier, TextMapSetter<C> setter) {
            throw new IllegalStateException("broken propagator");
          }

          @Override
          public <C> Context extract(Context context, C carrier, TextMapGetter<C> getter) {
            throw new IllegalStateException("broken propagator");
          }
        };
    OpenTelemetry custom =
        new OpenTelemetry() {
          @Override
          public io.opentelemetry.api.trace.TracerProvider getTracerProvider() {
            return otel.getOpenTelemetry().getTracerProvider();
          }

          @Override
          public ContextPropagators getPropagators() {
            return ContextPropagators.create(broken);
          }
        };
    ClientInterceptor client = ThriftTracing.create(custom).clientInterceptor();
    ClientCallContext call = call("echo");
    assertThatCode(() -> client.beforeCall(call)).doesNotThrowAnyException();
    client.afterCall(call, CallOutcome.SUCCESS, null, 1_000);

    assertThat(call.requestHeaders()).isEmpty();
    // The span was started before the propagator failed: it still ends.
    assertThat(only(otel.getSpans(), SpanKind.CLIENT).hasEnded()).isTrue();
  }
}
