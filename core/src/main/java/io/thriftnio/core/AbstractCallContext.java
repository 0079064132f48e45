package io.thriftnio.core;

import java.util.Map;
import java.util.Objects;
import org.apache.thrift.protocol.TMessageType;

/**
 * What the server's and the client's call contexts share: the request's message header (method,
 * sequence id, type) and the attributes that interceptors of one call set, in a small map created
 * on the first set and guarded by a lock of their own (never the context, which user code holds),
 * since those interceptors may run on different threads.
 */
abstract class AbstractCallContext {
  private final String methodName;
  private final int seqId;
  private final byte messageType;

  /** Guarded by their own monitor, which no user code reaches (see CallAttributes). */
  private final CallAttributes attributes = new CallAttributes();

  AbstractCallContext(String methodName, int seqId, byte messageType) {
    this.methodName = methodName;
    this.seqId = seqId;
    this.messageType = messageType;
  }

  /**
   * The method called, as the request's message header names it ({@code "Service:method"} for a
   * service multiplexed with {@code TMultiplexedProtocol} / {@code TMultiplexedProcessor}).
   */
  public String methodName() {
    return methodName;
  }

  /** The request's sequence id, which its reply carries. */
  public int seqId() {
    return seqId;
  }

  /** The request's message type: {@link TMessageType#CALL} or {@link TMessageType#ONEWAY}. */
  public byte messageType() {
    return messageType;
  }

  /** Whether the call is oneway: the caller awaits no reply. */
  public boolean isOneway() {
    return messageType == TMessageType.ONEWAY;
  }

  final Object get(CallKey<?> key) {
    return attributes.get(Objects.requireNonNull(key, "key"));
  }

  /** Sets {@code key} to {@code value}; {@code null} removes it. */
  final void set(CallKey<?> key, Object value) {
    attributes.set(Objects.requireNonNull(key, "key"), value);
  }

  /**
   * Sets a header this side sends with its message (the server's reply, the client's request);
   * {@code null} removes it.
   */
  final void putOutgoing(String name, String value) {
    attributes.putOutgoing(Objects.requireNonNull(name, "name"), value);
  }

  /**
   * Sets a header of the server's reply once {@link ResponseHeaderRules} accept it; the check and
   * the set are one step.
   */
  final void putResponseHeader(String name, String value) {
    attributes.putResponseHeader(name, value);
  }

  /** The headers this side sends, a read-only copy in the order they were first set. */
  final Map<String, String> outgoing() {
    return attributes.outgoing();
  }

  /** {@code "method=echo, seqId=3"}, and {@code ", oneway"} for a oneway call. */
  final String describeMessage() {
    return "method=" + methodName + ", seqId=" + seqId + (isOneway() ? ", oneway" : "");
  }
}
