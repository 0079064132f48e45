package io.thriftnio.core;

import io.thriftnio.core.util.internal.ServerCounters;
import java.util.Objects;

/**
 * A snapshot of a server's counters since it started. Every count is cumulative except {@link
 * #openConnections()}.
 *
 * <p>Read it by its accessors: a later release may add a counter without breaking a caller. Only a
 * server makes one ({@link ThriftServer#stats()}).
 */
public final class ServerStats {
  private final long acceptedConnections;
  private final long rejectedConnections;
  private final long openConnections;
  private final long badFrames;
  private final long timedOutConnections;
  private final long completedCalls;
  private final long failedCalls;
  private final long overloadedCalls;
  private final long truncatedFrames;
  private final long droppedResponses;
  private final long tlsFailures;
  private final long timedOutCalls;
  private final long agedConnections;
  private final long saslFailures;

  static {
    ServerCounters.install(ServerStats::new);
  }

  private ServerStats(ServerCounters c) {
    this.acceptedConnections = c.acceptedConnections.sum();
    this.rejectedConnections = c.rejectedConnections.sum();
    this.openConnections = c.openConnections.sum();
    this.badFrames = c.badFrames.sum();
    this.timedOutConnections = c.timedOutConnections.sum();
    this.completedCalls = c.completedCalls.sum();
    this.failedCalls = c.failedCalls.sum();
    this.overloadedCalls = c.overloadedCalls.sum();
    this.truncatedFrames = c.truncatedFrames.sum();
    this.droppedResponses = c.droppedResponses.sum();
    this.tlsFailures = c.tlsFailures.sum();
    this.timedOutCalls = c.timedOutCalls.sum();
    this.agedConnections = c.agedConnections.sum();
    this.saslFailures = c.saslFailures.sum();
  }

  /** Connections accepted and served. */
  public long acceptedConnections() {
    return acceptedConnections;
  }

  /** Connections closed at once because {@link ServerConfig#maxConnections()} was reached. */
  public long rejectedConnections() {
    return rejectedConnections;
  }

  /** Connections open now. */
  public long openConnections() {
    return openConnections;
  }

  /**
   * Connections closed for breaking the frame rules (a length {@code <= 0} or above {@link
   * ServerConfig#maxFrameSize()}, or a message header that cannot be read), for first bytes that
   * match no transport of {@link ServerConfig#wireKinds()}, or for an unframed message that breaks
   * its protocol's encoding or would exceed {@code maxFrameSize}; and HTTP requests refused with a
   * {@code 4xx} or {@code 5xx} status (malformed, over a limit, another method or path), whether or
   * not their connection stays open.
   */
  public long badFrames() {
    return badFrames;
  }

  /**
   * Connections closed by the idle timeout or the frame timeout (a slow sender, or a stalled reader
   * whose responses do not drain).
   */
  public long timedOutConnections() {
    return timedOutConnections;
  }

  /**
   * Requests the processor ran, oneway calls included, calls that failed included (a call that
   * timed out after the processor started it counts once, when it timed out); refused calls ({@code
   * overloadedCalls}) are not.
   */
  public long completedCalls() {
    return completedCalls;
  }

  /**
   * Calls that ended in a {@code TApplicationException}: the reply is an {@code EXCEPTION} message
   * (an undeclared handler exception answered {@code INTERNAL_ERROR}, a malformed request answered
   * {@code PROTOCOL_ERROR}, an unknown method, a handler's own {@code TApplicationException}, a
   * call answered as timed out), or a oneway call failed or timed out and nothing was sent; also
   * frames above {@code maxFrameSize} whose header could be read and was answered {@code
   * PROTOCOL_ERROR}. Declared IDL exceptions are successful calls. The same on every transport and
   * strategy.
   */
  public long failedCalls() {
    return failedCalls;
  }

  /**
   * Requests refused because the worker executor rejected them (its queue was full), or did not
   * start them within {@link ServerConfig#workerStartTimeout()} (a long queue, or an executor that
   * dropped the task), or because their caller's deadline (the {@link
   * ServerCallContext#CLIENT_TIMEOUT_HEADER} header) passed while they waited to start, or because
   * the server's {@linkplain ServerBuilder#adaptiveLimit(int) adaptive limit} was reached; each is
   * answered {@code TApplicationException(INTERNAL_ERROR)} "not run: server overloaded", never
   * reaches the interceptors, and is counted here only.
   */
  public long overloadedCalls() {
    return overloadedCalls;
  }

  /**
   * Connections that the peer ended (closed or reset) in the middle of a frame; the partial frame
   * is dropped without a reply, as there is no one left to answer. A frame cut short by the frame
   * timeout counts in {@code timedOutConnections} instead.
   */
  public long truncatedFrames() {
    return truncatedFrames;
  }

  /**
   * Responses never delivered because their connection closed while the call ran or before the
   * response could be written (the peer left, or the connection timed out); oneway calls, which
   * have no response, are not counted.
   */
  public long droppedResponses() {
    return droppedResponses;
  }

  /**
   * Connections of a TLS server closed because their handshake failed (a plain-text or otherwise
   * non-TLS client, an untrusted or missing client certificate, no common protocol or cipher suite)
   * or did not complete within the handshake timeout; they are counted here only, not in {@code
   * badFrames} or {@code timedOutConnections}. A peer that closes before any TLS error (a TCP
   * health check, say) is not counted.
   */
  public long tlsFailures() {
    return tlsFailures;
  }

  /**
   * Calls not answered within {@link ServerConfig#handlerTimeout()} of their request being read,
   * each answered {@code TApplicationException(INTERNAL_ERROR)} (a oneway call: nothing sent) when
   * its time was up; each also counts in {@code failedCalls}, and in {@code completedCalls} if the
   * processor had started it. The handler's late result is not counted again. Also calls whose
   * caller's deadline (the {@link ServerCallContext#CLIENT_TIMEOUT_HEADER} header of a THeader or
   * HTTP request) passed while their interceptors' {@code beforeCall} ran: each answered "not run"
   * without running its handler, and counted in {@code failedCalls} and {@code completedCalls} too,
   * as a call an interceptor refused (one whose deadline passed while it waited to start counts in
   * {@code overloadedCalls}). Always 0 while {@code handlerTimeout} is off, its default, and no
   * caller sends a deadline.
   */
  public long timedOutCalls() {
    return timedOutCalls;
  }

  /**
   * Connections the server closed for being older than {@link ServerConfig#maxConnectionAge()}:
   * idle, after an HTTP reply that said {@code Connection: close}, or busy past the grace; not
   * counted in {@code timedOutConnections}. Always 0 while {@code maxConnectionAge} is unset, its
   * default.
   */
  public long agedConnections() {
    return agedConnections;
  }

  /**
   * Connections of {@link WireKind#SASL} closed because their negotiation failed (a wrong
   * credential, a mechanism not offered, a mechanism's error, a negotiation message above {@code
   * maxNegotiationMessageSize} or with a bad status byte, no completion within {@code
   * negotiationTimeout}); each was sent {@code BAD} or {@code ERROR} with the reason, and is
   * counted here only, not in {@code badFrames}. A peer that leaves mid-negotiation is not counted
   * here (mid-message, it counts in {@code truncatedFrames}).
   */
  public long saslFailures() {
    return saslFailures;
  }

  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof ServerStats s)) {
      return false;
    }
    return acceptedConnections == s.acceptedConnections
        && rejectedConnections == s.rejectedConnections
        && openConnections == s.openConnections
        && badFrames == s.badFrames
        && timedOutConnections == s.timedOutConnections
        && completedCalls == s.completedCalls
        && failedCalls == s.failedCalls
        && overloadedCalls == s.overloadedCalls
        && truncatedFrames == s.truncatedFrames
        && droppedResponses == s.droppedResponses
        && tlsFailures == s.tlsFailures
        && timedOutCalls == s.timedOutCalls
        && agedConnections == s.agedConnections
        && saslFailures == s.saslFailures;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        acceptedConnections,
        rejectedConnections,
        openConnections,
        badFrames,
        timedOutConnections,
        completedCalls,
        failedCalls,
        overloadedCalls,
        truncatedFrames,
        droppedResponses,
        tlsFailures,
        timedOutCalls,
        agedConnections,
        saslFailures);
  }

  /** Every count by name, e.g. {@code ServerStats[acceptedConnections=3, ...]}. */
  @Override
  public String toString() {
    return "ServerStats["
        + "acceptedConnections="
        + acceptedConnections
        + ", rejectedConnections="
        + rejectedConnections
        + ", openConnections="
        + openConnections
        + ", badFrames="
        + badFrames
        + ", timedOutConnections="
        + timedOutConnections
        + ", completedCalls="
        + completedCalls
        + ", failedCalls="
        + failedCalls
        + ", overloadedCalls="
        + overloadedCalls
        + ", truncatedFrames="
        + truncatedFrames
        + ", droppedResponses="
        + droppedResponses
        + ", tlsFailures="
        + tlsFailures
        + ", timedOutCalls="
        + timedOutCalls
        + ", agedConnections="
        + agedConnections
        + ", saslFailures="
        + saslFailures
        + "]";
  }
}
