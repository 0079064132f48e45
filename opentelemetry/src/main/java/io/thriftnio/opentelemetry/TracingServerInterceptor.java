package io.thriftnio.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.instrumentation.api.incubator.semconv.rpc.RpcMetricsContextCustomizers;
import io.opentelemetry.instrumentation.api.incubator.semconv.rpc.RpcServerAttributesExtractor;
import io.opentelemetry.instrumentation.api.incubator.semconv.rpc.RpcServerMetrics;
import io.opentelemetry.instrumentation.api.instrumenter.Instrumenter;
import io.opentelemetry.instrumentation.api.instrumenter.InstrumenterBuilder;
import io.opentelemetry.instrumentation.api.semconv.network.NetworkAttributesExtractor;
import io.opentelemetry.instrumentation.api.semconv.network.ServerAttributesExtractor;
import io.thriftnio.core.CallKey;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import java.util.List;

/**
 * A {@code SERVER} span per call: started in {@code beforeCall} as a child of the context the
 * request's headers carry, dated from the request's arrival, current around the handler through
 * {@code attach}, ended in {@code afterCall}. See {@link ThriftTracing#serverInterceptor()}.
 */
final class TracingServerInterceptor implements ServerInterceptor {

  /** The call's context: the caller's, extracted, with the server span in it. */
  private static final CallKey<Context> CONTEXT = CallKey.of("opentelemetry.context");

  private final Instrumenter<ServerCallContext, CallOutcome> instrumenter;
  private final FailureLog failures = new FailureLog();

  TracingServerInterceptor(Instrumenter<ServerCallContext, CallOutcome> instrumenter) {
    this.instrumenter = instrumenter;
  }

  /**
   * The server's {@code Instrumenter}: RPC server attributes and the {@code rpc.server.duration}
   * metric of OpenTelemetry's instrumentation API, as the Java agent's Thrift instrumentation
   * records them, spans dated from the request's arrival (see {@link ArrivalTimes}).
   */
  @SuppressWarnings("deprecation") // the customizer goes with the old RPC metrics, in 3.0
  static Instrumenter<ServerCallContext, CallOutcome> instrumenter(
      OpenTelemetry openTelemetry, String version, RpcNames names) {
    ServerRequests requests =
        new ServerRequests(
            names, List.copyOf(openTelemetry.getPropagators().getTextMapPropagator().fields()));
    InstrumenterBuilder<ServerCallContext, CallOutcome> builder =
        Instrumenter.<ServerCallContext, CallOutcome>builder(
                ArrivalTimes.wrap(openTelemetry),
                ThriftTracing.INSTRUMENTATION_NAME,
                call -> names.of(call.methodName()).spanName())
            .setSpanStatusExtractor(
                (status, call, outcome, error) -> {
                  if (outcome != null && isFailure(outcome)) {
                    status.setStatus(StatusCode.ERROR, outcome.name());
                  }
                })
            .addAttributesExtractor(RpcServerAttributesExtractor.create(requests))
            .addAttributesExtractor(ServerAttributesExtractor.create(requests))
            .addAttributesExtractor(NetworkAttributesExtractor.create(requests))
            .addAttributesExtractor(requests)
            .addOperationMetrics(RpcServerMetrics.get())
            // As the agent's: the metric's rpc.method comes from this customizer's context.
            .addContextCustomizer(RpcMetricsContextCustomizers.dualEmitContextCustomizer(requests));
    if (version != null) {
      builder.setInstrumentationVersion(version);
    }
    return builder.buildServerInstrumenter(requests);
  }

  @Override
  public void beforeCall(ServerCallContext call) {
    try {
      // A call is an entry point: its parent is what the caller sent (in the request's headers or
      // its arguments), never whatever an IO or worker thread happens to have current.
      Context root = Context.root();
      if (instrumenter.shouldStart(root, call)) {
        Context context =
            ArrivalTimes.startingAt(
                ArrivalTimes.epochNanos(call.receivedAtNanos()),
                () -> instrumenter.start(root, call));
        Span.fromContext(context)
            .setAttribute(Conventions.QUEUE_DURATION, call.queueTime().toNanos() / 1e9);
        call.setAttribute(CONTEXT, context);
      }
    } catch (RuntimeException e) {
      failures.failed("server beforeCall", call, e);
    }
  }

  @Override
  public Runnable attach(ServerCallContext call) {
    Context context = call.attribute(CONTEXT);
    if (context == null) {
      return () -> {}; // beforeCall failed: the call runs untraced
    }
    try {
      return ContextScopes.makeCurrent(context);
    } catch (RuntimeException e) {
      failures.failed("server attach", call, e);
      return () -> {};
    }
  }

  @Override
  public void afterCall(ServerCallContext call, CallOutcome outcome, long nanos) {
    Context context = call.attribute(CONTEXT);
    if (context == null) {
      return;
    }
    try {
      // The exception event: the handler's own when it reached the server, else the
      // TApplicationException its caller was sent (ServerCallContext.failure()).
      instrumenter.end(context, call, outcome, call.failure().orElse(null));
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
}
