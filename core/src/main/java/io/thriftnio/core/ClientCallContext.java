package io.thriftnio.core;

import io.thriftnio.core.util.internal.ContextAccess;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Objects;
import org.apache.thrift.protocol.TMessageType;

/**
 * The call a client is making, as {@link ClientInterceptor}s see it: which method with which
 * sequence id, call or oneway, to which endpoint; plus attributes that an interceptor's {@code
 * beforeCall} sets for its {@code afterCall}.
 *
 * <p>One context per Thrift message sent. The method name and sequence id are read from the
 * request's own message header, so they are what the server sees ({@code "Service:method"} through
 * a {@code TMultiplexedProtocol}); a channel whose request bytes hold no header it can read gives
 * the name {@code ""}. Thread-safe: {@code beforeCall} and {@code afterCall} may run on different
 * threads.
 */
public final class ClientCallContext extends AbstractCallContext {

  static {
    // The channels and transports set the reply's headers through core's internal route.
    ContextAccess.install(
        (context, headers) -> ((ClientCallContext) context).responseHeaders(headers));
  }

  private final SocketAddress remoteAddress;
  private volatile Map<String, String> responseHeaders = Map.of();

  /**
   * A context. The channels and pools of this library make one per call; the constructor is public
   * so that an interceptor can be tested on its own, and a {@link ThriftChannel} of one's own can
   * run interceptors with the same contract.
   *
   * @param methodName the method, as the request's message header names it; not {@code null}
   * @param seqId the request's sequence id
   * @param messageType {@link TMessageType#CALL} or {@link TMessageType#ONEWAY}
   * @param remoteAddress the endpoint the call goes to; {@code null} if unknown
   */
  public ClientCallContext(
      String methodName, int seqId, byte messageType, SocketAddress remoteAddress) {
    super(Objects.requireNonNull(methodName, "methodName"), seqId, messageType);
    this.remoteAddress = remoteAddress;
  }

  /**
   * The endpoint the call goes to: the address a channel was opened to, or the pool endpoint chosen
   * for this call; {@code null} if unknown.
   */
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }

  /**
   * Sets a header of the request: a THeader info header, or an HTTP request header field. On framed
   * and unframed connections, which carry no headers, it is kept here and sent nowhere, never an
   * error. Set in {@link ClientInterceptor#beforeCall}: the request leaves after the last one.
   *
   * @param name the header's name; not {@code null}
   * @param value its value; {@code null} removes it
   * @return this context
   */
  public ClientCallContext setRequestHeader(String name, String value) {
    putOutgoing(name, value);
    return this;
  }

  /**
   * The headers set for the request so far, a read-only copy in the order they were first set.
   *
   * @return the headers; never {@code null}
   */
  public Map<String, String> requestHeaders() {
    return outgoing();
  }

  /**
   * The headers the reply came with, read-only: THeader info headers, or HTTP response header
   * fields (names lower-cased). Empty before the reply, for a oneway call, and on framed and
   * unframed connections.
   *
   * @return the headers; never {@code null}
   */
  public Map<String, String> responseHeaders() {
    return responseHeaders;
  }

  /** Records the reply's headers, before {@link ClientInterceptor#afterCall} runs. */
  void responseHeaders(Map<String, String> headers) {
    this.responseHeaders = headers;
  }

  /**
   * An attribute an interceptor has set.
   *
   * @return its value, or {@code null} if not set
   */
  @SuppressWarnings("unchecked")
  public <T> T attribute(CallKey<T> key) {
    return (T) get(key);
  }

  /**
   * Sets an attribute, for the interceptors of this call only.
   *
   * @param value the value; {@code null} removes it
   * @return this context
   */
  public <T> ClientCallContext setAttribute(CallKey<T> key, T value) {
    set(key, value);
    return this;
  }

  @Override
  public String toString() {
    return "ClientCallContext{" + describeMessage() + ", remote=" + remoteAddress + '}';
  }
}
