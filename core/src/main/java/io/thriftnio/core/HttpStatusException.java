package io.thriftnio.core;

import java.net.SocketAddress;
import org.apache.thrift.transport.TTransportException;

/**
 * An HTTP server answered a Thrift call with a status other than {@code 200}: the call has no
 * reply. The message carries the status, the reason phrase, the peer and the start of the body (at
 * most {@value #MAX_BODY_PREFIX} characters, read as ISO-8859-1), which is where servlet containers
 * and proxies put their explanation. Its {@linkplain #getType() type} is {@code UNKNOWN}. Whether
 * the connection stays usable follows the response ({@code Connection: close} ends it).
 */
public final class HttpStatusException extends TTransportException {
  private static final long serialVersionUID = 1L;

  /** The most characters of the body the message and {@link #bodyPrefix()} keep. */
  public static final int MAX_BODY_PREFIX = 256;

  private final int status;
  private final String reason;
  private final String bodyPrefix;
  private final transient SocketAddress peer;

  /**
   * @param status the HTTP status code, e.g. {@code 500}
   * @param reason the reason phrase, possibly empty
   * @param bodyPrefix the start of the body, at most {@value #MAX_BODY_PREFIX} characters
   * @param peer the server
   * @param peerText the server as every message of this library writes it
   */
  public HttpStatusException(
      int status, String reason, String bodyPrefix, SocketAddress peer, String peerText) {
    super(UNKNOWN, message(status, reason, bodyPrefix, peerText));
    this.status = status;
    this.reason = reason;
    this.bodyPrefix = bodyPrefix;
    this.peer = peer;
  }

  private static String message(int status, String reason, String body, String peer) {
    StringBuilder sb = new StringBuilder("HTTP status ").append(status);
    if (!reason.isEmpty()) {
      sb.append(' ').append(reason);
    }
    sb.append(" from ").append(peer).append(" (expected: 200)");
    if (!body.isEmpty()) {
      sb.append(": ").append(body);
    }
    return sb.toString();
  }

  /** The HTTP status code. */
  public int status() {
    return status;
  }

  /** The reason phrase, possibly empty. */
  public String reason() {
    return reason;
  }

  /** The start of the body, at most {@value #MAX_BODY_PREFIX} characters, possibly empty. */
  public String bodyPrefix() {
    return bodyPrefix;
  }

  /** The server, or {@code null} if unknown. */
  public SocketAddress peer() {
    return peer;
  }
}
