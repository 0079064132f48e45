package io.thriftnio.opentelemetry;

import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.instrumentation.api.incubator.semconv.rpc.RpcAttributesGetter;
import io.opentelemetry.instrumentation.api.instrumenter.AttributesExtractor;
import io.opentelemetry.instrumentation.api.semconv.network.NetworkAttributesGetter;
import io.opentelemetry.instrumentation.api.semconv.network.ServerAttributesGetter;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import java.net.InetSocketAddress;

/**
 * What the client {@code Instrumenter} reads from a call: the RPC attributes (through {@link
 * RpcNames}), the endpoint's address, where the context goes (the request's headers), and {@code
 * error.type} from the outcome.
 */
// getSystem and getMethod are deprecated in the incubating getter, but still abstract: the
// extractors read them until the stable RPC conventions replace them.
@SuppressWarnings("deprecation")
final class ClientRequests
    implements RpcAttributesGetter<ClientCallContext, CallOutcome>,
        ServerAttributesGetter<ClientCallContext>,
        NetworkAttributesGetter<ClientCallContext, CallOutcome>,
        TextMapSetter<ClientCallContext>,
        AttributesExtractor<ClientCallContext, CallOutcome> {

  private final RpcNames names;

  ClientRequests(RpcNames names) {
    this.names = names;
  }

  @Override
  public String getSystem(ClientCallContext call) {
    return ThriftTracing.RPC_SYSTEM;
  }

  @Override
  public String getService(ClientCallContext call) {
    return names.of(call.methodName()).service();
  }

  @Override
  public String getMethod(ClientCallContext call) {
    String method = names.of(call.methodName()).method();
    return method.isEmpty() ? null : method;
  }

  @Override
  public String getServerAddress(ClientCallContext call) {
    return call.remoteAddress() instanceof InetSocketAddress remote ? remote.getHostString() : null;
  }

  @Override
  public Integer getServerPort(ClientCallContext call) {
    return call.remoteAddress() instanceof InetSocketAddress remote ? remote.getPort() : null;
  }

  @Override
  public InetSocketAddress getNetworkPeerInetSocketAddress(
      ClientCallContext call, CallOutcome outcome) {
    return Conventions.resolved(call.remoteAddress());
  }

  @Override
  public void set(ClientCallContext call, String key, String value) {
    if (call != null) {
      call.setRequestHeader(key, value);
    }
  }

  @Override
  public void onStart(AttributesBuilder attributes, Context parent, ClientCallContext call) {}

  @Override
  public void onEnd(
      AttributesBuilder attributes,
      Context context,
      ClientCallContext call,
      CallOutcome outcome,
      Throwable error) {
    String errorType = outcome == null ? null : TracingClientInterceptor.errorType(outcome, error);
    if (errorType != null) {
      attributes.put(Conventions.ERROR_TYPE, errorType);
    }
  }
}
