package io.thriftnio.opentelemetry;

import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.instrumentation.api.incubator.semconv.rpc.RpcAttributesGetter;
import io.opentelemetry.instrumentation.api.instrumenter.AttributesExtractor;
import io.opentelemetry.instrumentation.api.semconv.network.NetworkAttributesGetter;
import io.opentelemetry.instrumentation.api.semconv.network.ServerAttributesGetter;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ServerCallContext;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

/**
 * What the server {@code Instrumenter} reads from a call: the RPC attributes (through {@link
 * RpcNames}), the server's and the peer's addresses, the caller's context (from the request's
 * headers, else from the arguments' field 8888), and {@code error.type} from the outcome.
 */
// getSystem and getMethod are deprecated in the incubating getter, but still abstract: the
// extractors read them until the stable RPC conventions replace them.
@SuppressWarnings("deprecation")
final class ServerRequests
    implements RpcAttributesGetter<ServerCallContext, CallOutcome>,
        ServerAttributesGetter<ServerCallContext>,
        NetworkAttributesGetter<ServerCallContext, CallOutcome>,
        TextMapGetter<ServerCallContext>,
        AttributesExtractor<ServerCallContext, CallOutcome> {

  private final RpcNames names;

  /** The header names the propagator reads, to tell whether the request's headers carry them. */
  private final List<String> fields;

  ServerRequests(RpcNames names, List<String> fields) {
    this.names = names;
    this.fields = fields;
  }

  @Override
  public String getSystem(ServerCallContext call) {
    return ThriftTracing.RPC_SYSTEM;
  }

  @Override
  public String getService(ServerCallContext call) {
    return names.of(call.methodName()).service();
  }

  @Override
  public String getMethod(ServerCallContext call) {
    String method = names.of(call.methodName()).method();
    return method.isEmpty() ? null : method;
  }

  @Override
  public String getServerAddress(ServerCallContext call) {
    return call.localAddress() instanceof InetSocketAddress local ? local.getHostString() : null;
  }

  @Override
  public Integer getServerPort(ServerCallContext call) {
    return call.localAddress() instanceof InetSocketAddress local ? local.getPort() : null;
  }

  @Override
  public InetSocketAddress getNetworkPeerInetSocketAddress(
      ServerCallContext call, CallOutcome outcome) {
    return Conventions.resolved(call.remoteAddress());
  }

  @Override
  public InetSocketAddress getNetworkLocalInetSocketAddress(
      ServerCallContext call, CallOutcome outcome) {
    return Conventions.resolved(call.localAddress());
  }

  /**
   * Where the caller's context is: the request's headers (THeader, HTTP) when they hold a field of
   * the propagator, else the headers in the request's arguments (field 8888, as OpenTelemetry's
   * Java agent sends them, on every wire kind), else the request's headers, likely empty.
   */
  Map<String, String> carrierOf(ServerCallContext call) {
    Map<String, String> headers = call.headers();
    for (String field : fields) {
      if (headers.containsKey(field)) {
        return headers;
      }
    }
    Map<String, String> inArguments = call.argumentHeaders();
    return inArguments.isEmpty() ? headers : inArguments;
  }

  // Deprecated in the API, but still what propagators that read keys by prefix (Jaeger's
  // baggage) call: without it they would see no header.
  @SuppressWarnings("deprecation")
  @Override
  public Iterable<String> keys(ServerCallContext call) {
    return carrierOf(call).keySet();
  }

  @Override
  public String get(ServerCallContext call, String key) {
    return call == null ? null : carrierOf(call).get(key);
  }

  @Override
  public void onStart(AttributesBuilder attributes, Context parent, ServerCallContext call) {}

  @Override
  public void onEnd(
      AttributesBuilder attributes,
      Context context,
      ServerCallContext call,
      CallOutcome outcome,
      Throwable error) {
    if (outcome != null && TracingServerInterceptor.isFailure(outcome)) {
      attributes.put(Conventions.ERROR_TYPE, outcome.name());
    }
  }
}
