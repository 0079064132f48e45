package io.thriftnio.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.instrumentation.api.incubator.semconv.rpc.RpcClientAttributesExtractor;
import io.opentelemetry.instrumentation.api.incubator.semconv.rpc.RpcClientMetrics;
import io.opentelemetry.instrumentation.api.incubator.semconv.rpc.RpcMetricsContextCustomizers;
import io.opentelemetry.instrumentation.api.instrumenter.Instrumenter;
import io.opentelemetry.instrumentation.api.instrumenter.InstrumenterBuilder;
import io.opentelemetry.instrumentation.api.instrumenter.SpanKindExtractor;
import io.opentelemetry.instrumentation.api.semconv.network.NetworkAttributesExtractor;
import io.opentelemetry.instrumentation.api.semconv.network.ServerAttributesExtractor;
import io.thriftnio.core.CallKey;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientInterceptor;
import java.util.function.Supplier;
import org.apache.thrift.TApplicationException;

/**
 * A {@code CLIENT} span per call: started in {@code beforeCall} as a child of the caller's current
 * context and written into the request's headers, ended in {@code afterCall}; the caller's context
 * is current again around an asynchronous call's continuation through {@code attach}, and around a
 * pooled call's {@code beforeCall} sent from another thread through {@code capture}. See {@link
 * ThriftTracing#clientInterceptor()}.
 */
final class TracingClientInterceptor implements ClientInterceptor {

  /** The call's context, with its span, from {@code beforeCall} to {@code afterCall}. */
  private static final CallKey<Context> SPAN = CallKey.of("opentelemetry.span");

  /** The caller's context when it made the call, for its continuation. */
  private static final CallKey<Context> PARENT = CallKey.of("opentelemetry.parent");

  private final Instrumenter<ClientCallContext, CallOutcome> instrumenter;
  private final TextMapPropagator propagator;
  private final ClientRequests requests;
  private final FailureLog failures = new FailureLog();

  TracingClientInterceptor(OpenTelemetry openTelemetry, String version, RpcNames names) {
    this.requests = new ClientRequests(names);
    this.instrumenter = instrumenter(openTelemetry, version, names, requests);
    this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
  }

  /**
   * The client's {@code Instrumenter}: RPC client attributes and the {@code rpc.client.duration}
   * metric of OpenTelemetry's instrumentation API, as the Java agent's Thrift instrumentation
   * records them. It writes no headers: {@code beforeCall} does, so that a propagator's failure
   * leaves a span it can still end.
   */
  @SuppressWarnings("deprecation") // the customizer goes with the old RPC metrics, in 3.0
  private static Instrumenter<ClientCallContext, CallOutcome> instrumenter(
      OpenTelemetry openTelemetry, String version, RpcNames names, ClientRequests requests) {
    InstrumenterBuilder<ClientCallContext, CallOutcome> builder =
        Instrumenter.<ClientCallContext, CallOutcome>builder(
                openTelemetry,
                ThriftTracing.INSTRUMENTATION_NAME,
                call -> names.of(call.methodName()).spanName())
            .setSpanStatusExtractor(
                (status, call, outcome, error) -> {
                  if (outcome != null && errorType(outcome, error) != null) {
                    status.setStatus(StatusCode.ERROR, outcome.name());
                  }
                })
            .addAttributesExtractor(RpcClientAttributesExtractor.create(requests))
            .addAttributesExtractor(ServerAttributesExtractor.create(requests))
            .addAttributesExtractor(NetworkAttributesExtractor.create(requests))
            .addAttributesExtractor(requests)
            .addOperationMetrics(RpcClientMetrics.get())
            // As the agent's: the metric's rpc.method comes from this customizer's context.
            .addContextCustomizer(RpcMetricsContextCustomizers.dualEmitContextCustomizer(requests));
    if (version != null) {
      builder.setInstrumentationVersion(version);
    }
    return builder.buildInstrumenter(SpanKindExtractor.alwaysClient());
  }

  @Override
  public void beforeCall(ClientCallContext call) {
    try {
      Context parent = Context.current();
      call.setAttribute(PARENT, parent);
      if (instrumenter.shouldStart(parent, call)) {
        Context context = instrumenter.start(parent, call);
        call.setAttribute(SPAN, context);
        // Kept, and sent nowhere, on framed and unframed connections unless the options send
        // the headers in the arguments.
        propagator.inject(context, call, requests);
      }
    } catch (RuntimeException e) {
      failures.failed("client beforeCall", call, e);
    }
  }

  /**
   * The caller's context, for a call a pool sends from another thread (one that waited for a
   * connection, a retry, a hedge): current there around {@code beforeCall}, so that its span is the
   * caller's child.
   */
  @Override
  public Supplier<Runnable> capture() {
    Context caller = Context.current();
    return () -> ContextScopes.makeCurrent(caller);
  }

  @Override
  public Runnable attach(ClientCallContext call) {
    Context parent = call.attribute(PARENT);
    if (parent == null) {
      return () -> {}; // beforeCall failed: nothing to restore
    }
    try {
      return ContextScopes.makeCurrent(parent);
    } catch (RuntimeException e) {
      failures.failed("client attach", call, e);
      return () -> {};
    }
  }

  @Override
  public void afterCall(
      ClientCallContext call, CallOutcome outcome, Throwable failure, long nanos) {
    Context context = call.attribute(SPAN);
    if (context == null) {
      return;
    }
    try {
      // The failure is recorded on the span (an exception event) only if the call failed: the
      // TApplicationException of a reply among them, as the agent records it; a declared
      // exception is the service's answer.
      instrumenter.end(
          context, call, outcome, errorType(outcome, failure) != null ? failure : null);
    } catch (RuntimeException e) {
      failures.failed("client afterCall", call, e);
    }
  }

  /**
   * The {@code error.type} of a failed call: the class of what ended it, or of the {@code
   * TApplicationException} the reply carried; {@code null} if the call did not fail (a declared
   * exception is the service's answer).
   */
  static String errorType(CallOutcome outcome, Throwable failure) {
    switch (outcome) {
      case APPLICATION_EXCEPTION:
        return TApplicationException.class.getName();
      case TRANSPORT_FAILURE:
      case TIMED_OUT:
      case REFUSED:
        return failure != null ? failure.getClass().getName() : outcome.name();
      default:
        return null;
    }
  }

  @Override
  public String toString() {
    return "ThriftTracing.clientInterceptor";
  }
}
