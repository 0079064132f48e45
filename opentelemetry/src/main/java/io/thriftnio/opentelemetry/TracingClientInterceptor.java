package io.thriftnio.opentelemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.thriftnio.core.CallScope;
import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientCallOutcome;
import io.thriftnio.core.ClientInterceptor;
import org.apache.thrift.TApplicationException;

/**
 * A {@code CLIENT} span per call: started in {@code beforeCall} as a child of the caller's current
 * context and written into the request's headers, ended in {@code afterCall}; the caller's context
 * is current again around an asynchronous call's continuation through {@code attach}, and around a
 * pooled call's {@code beforeCall} sent from another thread through {@code capture}. See {@link
 * ThriftTracing#clientInterceptor()}.
 */
final class TracingClientInterceptor implements ClientInterceptor {

  private static final ClientCallContext.Key<Span> SPAN =
      ClientCallContext.Key.of("opentelemetry.span");

  /** The caller's context when it made the call, for its continuation. */
  private static final ClientCallContext.Key<Context> PARENT =
      ClientCallContext.Key.of("opentelemetry.parent");

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final RpcNames names;
  private final FailureLog failures = new FailureLog();

  TracingClientInterceptor(Tracer tracer, TextMapPropagator propagator, RpcNames names) {
    this.tracer = tracer;
    this.propagator = propagator;
    this.names = names;
  }

  @Override
  public void beforeCall(ClientCallContext call) {
    try {
      Context parent = Context.current();
      RpcNames.Name name = names.of(call.methodName());
      SpanBuilder builder =
          tracer
              .spanBuilder(name.spanName())
              .setParent(parent)
              .setSpanKind(SpanKind.CLIENT)
              .setAttribute(Conventions.RPC_SYSTEM, ThriftTracing.RPC_SYSTEM);
      name.addTo(builder);
      Conventions.server(builder, call.remoteAddress());
      Conventions.peer(builder, call.remoteAddress());
      Span span = builder.startSpan();
      call.setAttribute(SPAN, span);
      call.setAttribute(PARENT, parent);
      // Kept, and sent nowhere, on framed and unframed connections.
      propagator.inject(parent.with(span), call, RequestHeaders.INSTANCE);
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
  public CallScope.Captured capture() {
    Context caller = Context.current();
    return () -> ContextScopes.makeCurrent(caller);
  }

  @Override
  public CallScope attach(ClientCallContext call) {
    Context parent = call.attribute(PARENT);
    if (parent == null) {
      return CallScope.NONE; // beforeCall failed: nothing to restore
    }
    try {
      return ContextScopes.makeCurrent(parent);
    } catch (RuntimeException e) {
      failures.failed("client attach", call, e);
      return CallScope.NONE;
    }
  }

  @Override
  public void afterCall(
      ClientCallContext call, ClientCallOutcome outcome, Throwable failure, long nanos) {
    Span span = call.attribute(SPAN);
    if (span == null) {
      return;
    }
    try {
      String errorType = errorType(outcome, failure);
      if (errorType != null) {
        span.setAttribute(Conventions.ERROR_TYPE, errorType);
        span.setStatus(StatusCode.ERROR, outcome.name());
      }
      span.end();
    } catch (RuntimeException e) {
      failures.failed("client afterCall", call, e);
    }
  }

  /**
   * The {@code error.type} of a failed call: the class of what ended it, or of the {@code
   * TApplicationException} the reply carried; {@code null} if the call did not fail (a declared
   * exception is the service's answer).
   */
  static String errorType(ClientCallOutcome outcome, Throwable failure) {
    switch (outcome) {
      case APPLICATION_EXCEPTION:
        return TApplicationException.class.getName();
      case TRANSPORT_FAILURE:
      case TIMEOUT:
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

  /** Writes the request's headers: THeader info headers, or HTTP fields. */
  private enum RequestHeaders implements TextMapSetter<ClientCallContext> {
    INSTANCE;

    @Override
    public void set(ClientCallContext call, String key, String value) {
      if (call != null) {
        call.setRequestHeader(key, value);
      }
    }
  }
}
