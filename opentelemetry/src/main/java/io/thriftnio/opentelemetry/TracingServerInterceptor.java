package io.thriftnio.opentelemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.CallScope;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A {@code SERVER} span per call: started in {@code beforeCall} as a child of the context the
 * request's headers carry, dated from the request's arrival, current around the handler through
 * {@code attach}, ended in {@code afterCall}. See {@link ThriftTracing#serverInterceptor()}.
 */
final class TracingServerInterceptor implements ServerInterceptor {

  /** The call's context: the caller's, extracted, with the server span in it. */
  private static final ServerCallContext.Key<Context> CONTEXT =
      ServerCallContext.Key.of("opentelemetry.context");

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final RpcNames names;
  private final FailureLog failures = new FailureLog();

  /** The header names the propagator reads, to tell whether the request's headers carry them. */
  private final List<String> fields;

  TracingServerInterceptor(Tracer tracer, TextMapPropagator propagator, RpcNames names) {
    this.tracer = tracer;
    this.propagator = propagator;
    this.names = names;
    this.fields = List.copyOf(propagator.fields());
  }

  @Override
  public void beforeCall(ServerCallContext call) {
    try {
      // A call is an entry point: its parent is what the caller sent, never whatever an IO or
      // worker thread happens to have current.
      Map<String, String> carrier = carrierOf(call);
      Context parent =
          carrier.isEmpty()
              ? Context.root()
              : propagator.extract(Context.root(), carrier, MapGetter.INSTANCE);
      RpcNames.Name name = names.of(call.methodName());
      SpanBuilder span =
          tracer
              .spanBuilder(name.spanName())
              .setParent(parent)
              .setSpanKind(SpanKind.SERVER)
              .setStartTimestamp(arrivedEpochNanos(call), TimeUnit.NANOSECONDS)
              .setAttribute(Conventions.RPC_SYSTEM, ThriftTracing.RPC_SYSTEM);
      name.addTo(span);
      Conventions.peer(span, call.remoteAddress());
      Conventions.server(span, call.localAddress());
      call.setAttribute(CONTEXT, parent.with(span.startSpan()));
    } catch (RuntimeException e) {
      failures.failed("server beforeCall", call, e);
    }
  }

  /**
   * Where the caller's context is: the request's headers (THeader, HTTP) when they hold a field of
   * the propagator, else the headers in the request's arguments (field 8888, as OpenTelemetry's
   * Java agent sends them, on every wire kind), else the request's headers, likely empty.
   */
  private Map<String, String> carrierOf(ServerCallContext call) {
    Map<String, String> headers = call.headers();
    for (String field : fields) {
      if (headers.containsKey(field)) {
        return headers;
      }
    }
    Map<String, String> inArguments = call.argumentHeaders();
    return inArguments.isEmpty() ? headers : inArguments;
  }

  /**
   * When the request arrived, in nanoseconds since the epoch: the span covers the wait for a worker
   * too, so that a saturated worker pool shows in the trace (as the gap before the handler's first
   * span) rather than in no span at all.
   */
  private static long arrivedEpochNanos(ServerCallContext call) {
    Instant now = Instant.now();
    long waited = Math.max(0, System.nanoTime() - call.receivedAtNanos());
    return now.getEpochSecond() * 1_000_000_000L + now.getNano() - waited;
  }

  @Override
  public CallScope attach(ServerCallContext call) {
    Context context = call.attribute(CONTEXT);
    if (context == null) {
      return CallScope.NONE; // beforeCall failed: the call runs untraced
    }
    try {
      return ContextScopes.makeCurrent(context);
    } catch (RuntimeException e) {
      failures.failed("server attach", call, e);
      return CallScope.NONE;
    }
  }

  @Override
  public void afterCall(ServerCallContext call, CallOutcome outcome, long nanos) {
    Context context = call.attribute(CONTEXT);
    if (context == null) {
      return;
    }
    try {
      Span span = Span.fromContext(context);
      if (isFailure(outcome)) {
        span.setAttribute(Conventions.ERROR_TYPE, outcome.name());
        span.setStatus(StatusCode.ERROR, outcome.name());
      }
      span.end();
    } catch (RuntimeException e) {
      failures.failed("server afterCall", call, e);
    }
  }

  /**
   * Whether the call failed. A declared exception is the service's answer, and a oneway call's fate
   * is unknown (libthrift's processors do not report it): neither is a failure.
   */
  static boolean isFailure(CallOutcome outcome) {
    switch (outcome) {
      case APPLICATION_EXCEPTION:
      case UNDECLARED_FAILURE:
      case REFUSED:
      case TIMED_OUT:
        return true;
      default:
        return false;
    }
  }

  @Override
  public String toString() {
    return "ThriftTracing.serverInterceptor";
  }

  /**
   * Reads the caller's headers: THeader info headers, HTTP fields (names lower-cased), or those of
   * the arguments.
   */
  private enum MapGetter implements TextMapGetter<Map<String, String>> {
    INSTANCE;

    // Deprecated in the API, but still what propagators that read keys by prefix (Jaeger's
    // baggage) call: without it they would see no header.
    @SuppressWarnings("deprecation")
    @Override
    public Iterable<String> keys(Map<String, String> headers) {
      return headers.keySet();
    }

    @Override
    public String get(Map<String, String> headers, String key) {
      return headers == null ? null : headers.get(key);
    }
  }
}
