package io.thriftnio.opentelemetry;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.settings.SettingException;
import java.util.Objects;

/**
 * OpenTelemetry tracing for thrift-nio servers and clients: a {@code SERVER} span for every call a
 * server serves, a {@code CLIENT} span for every call a channel or pool makes, and the trace
 * context carried from caller to server in the request's headers.
 *
 * <pre>{@code
 * ThriftTracing tracing = ThriftTracing.create(openTelemetry);
 * NettyThriftServer.builder()
 *     .processor(processor)
 *     .wireKinds(WireKind.FRAMED, WireKind.HEADER, WireKind.HTTP)
 *     .addInterceptor(tracing.serverInterceptor())
 *     ...
 * ThriftChannelPool.builder(BenchService.Client::new).io(io)
 *     .interceptors(List.of(tracing.clientInterceptor()))
 *     ...
 * }</pre>
 *
 * <p>What crosses the wire: the client interceptor writes the context with the {@link
 * OpenTelemetry#getPropagators() configured} {@link TextMapPropagator} (W3C {@code traceparent} and
 * {@code tracestate} by default; B3 or another if the application configured one) into the
 * request's headers, and the server interceptor reads it from {@link
 * io.thriftnio.core.ServerCallContext#headers()}: THeader info headers, or HTTP header fields; or,
 * when those carry none, from {@link io.thriftnio.core.ServerCallContext#argumentHeaders()}, field
 * 8888 of the arguments, where OpenTelemetry's Java agent sends it on every wire kind. Framed and
 * unframed connections carry no headers: the server's span starts a new trace unless the caller
 * runs under the agent or its options set {@code ClientOptions.Builder.argumentHeaders(true)}.
 *
 * <p>Spans follow OpenTelemetry's RPC semantic conventions (the experimental ones of semantic
 * conventions 1.37): name {@code Service/method}, attributes {@code rpc.system} = {@value
 * #RPC_SYSTEM}, {@code rpc.service}, {@code rpc.method}, {@code server.address} and {@code
 * server.port}, {@code network.peer.address} and {@code network.peer.port}. The service is the part
 * before {@code ':'} of a multiplexed call's name ({@code TMultiplexedProtocol}), else the
 * {@linkplain #create(OpenTelemetry, String) configured} one, else none: the span is then named
 * after the method alone. A call that fails (an undeclared exception, a {@code
 * TApplicationException}, a refusal, a timeout, a broken connection) ends with status {@code ERROR}
 * and an {@code error.type}, and records an {@code exception} event: on a client span the exception
 * that ended a call without a reply, or the {@code TApplicationException} a reply carried (as the
 * OpenTelemetry Java agent's client span records it), on a server span {@code
 * ServerCallContext.failure()} (the handler's own throwable where it reached the server, else the
 * {@code TApplicationException} the caller was sent). A declared IDL exception is the service's
 * answer, not a failure: the status stays unset, with no event.
 *
 * <p>The interceptors never throw into a call: a failure of the OpenTelemetry API or of a
 * propagator leaves the call untraced, logged once at WARN (then at DEBUG). Thread-safe; one
 * instance serves any number of servers and pools.
 */
public final class ThriftTracing {

  /** The instrumentation scope name of the tracer: {@value}. */
  public static final String INSTRUMENTATION_NAME = "io.thriftnio.opentelemetry";

  /** The value of the {@code rpc.system} attribute: {@value}, as the conventions name Thrift. */
  public static final String RPC_SYSTEM = "apache_thrift";

  private final ServerInterceptor serverInterceptor;
  private final ClientInterceptor clientInterceptor;
  private final String serviceName;

  private ThriftTracing(OpenTelemetry openTelemetry, String serviceName) {
    String version = ThriftTracing.class.getPackage().getImplementationVersion();
    this.serviceName = serviceName;
    this.serverInterceptor =
        new TracingServerInterceptor(
            TracingServerInterceptor.instrumenter(
                openTelemetry, version, new RpcNames(serviceName)));
    this.clientInterceptor =
        new TracingClientInterceptor(openTelemetry, version, new RpcNames(serviceName));
  }

  /**
   * Tracing with {@code openTelemetry}'s tracer provider and propagators, and no service name
   * beyond what multiplexed calls carry.
   *
   * @param openTelemetry the application's OpenTelemetry (its SDK, or the agent's: {@code
   *     GlobalOpenTelemetry.get()}); not {@code null}
   * @return the tracing
   */
  public static ThriftTracing create(OpenTelemetry openTelemetry) {
    return create(openTelemetry, null);
  }

  /**
   * Tracing with {@code openTelemetry}'s tracer provider, whose text-map propagator reads and
   * writes the headers, and a service name for calls whose method name carries none (every call
   * that is not multiplexed): the {@code rpc.service} attribute and the first half of the span
   * name, e.g. {@code "Calculator"} gives spans named {@code Calculator/add}. Without one such
   * spans are named after the method alone and have no {@code rpc.service}. Use one {@code
   * ThriftTracing} per service name; they may share one OpenTelemetry.
   *
   * <p>Under OpenTelemetry's Java agent, or with an SDK installed globally, pass {@link
   * GlobalOpenTelemetry#get()}, after the SDK is installed: with nothing installed, {@code get()}
   * fixes a no-op instance, and a later {@code GlobalOpenTelemetry.set} fails.
   *
   * @param openTelemetry the application's OpenTelemetry; not {@code null}
   * @param serviceName not empty, without {@code '/'} or {@code ':'}; {@code null} for none
   * @return the tracing
   * @throws IllegalArgumentException if the service name is empty or holds {@code '/'} or {@code
   *     ':'}
   */
  public static ThriftTracing create(OpenTelemetry openTelemetry, String serviceName) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    if (serviceName != null
        && (serviceName.isEmpty()
            || serviceName.indexOf('/') >= 0
            || serviceName.indexOf(':') >= 0)) {
      throw new SettingException(
          "serviceName", "\"" + serviceName + "\"", "not empty, without '/' or ':'");
    }
    return new ThriftTracing(openTelemetry, serviceName);
  }

  /**
   * The server side: give it to {@code ServerBuilder.addInterceptor} (or {@code interceptors}),
   * first in the list so that its span covers the other interceptors. It reads the caller's trace
   * context from the request's headers, starts a {@code SERVER} span in {@code beforeCall} (dated
   * from the request's arrival, so that a wait for a worker is inside it), makes it current around
   * the handler (and an asynchronous handler's completion) in {@code attach}, so that spans and
   * calls the handler makes are its children, and ends it in {@code afterCall} with the call's
   * {@link io.thriftnio.core.CallOutcome}.
   *
   * @return the server interceptor, the same instance on every call
   */
  public ServerInterceptor serverInterceptor() {
    return serverInterceptor;
  }

  /**
   * The client side: give it to {@code ClientOptions.Builder.interceptors} or a pool's {@code
   * interceptors}. It starts a {@code CLIENT} span in {@code beforeCall}, a child of the context
   * current on the calling thread, writes that span's context into the request's headers, makes the
   * caller's context current again around an asynchronous call's continuation in {@code attach},
   * and ends the span in {@code afterCall} with the call's {@link io.thriftnio.core.CallOutcome}.
   *
   * @return the client interceptor, the same instance on every call
   */
  public ClientInterceptor clientInterceptor() {
    return clientInterceptor;
  }

  @Override
  public String toString() {
    return "ThriftTracing{serviceName=" + serviceName + '}';
  }
}
