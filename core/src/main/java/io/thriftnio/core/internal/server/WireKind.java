package io.thriftnio.core.internal.server;

import io.thriftnio.core.Framing;
import io.thriftnio.core.WireTransport;
import io.thriftnio.core.internal.UnframedMessages;
import java.util.Set;

/**
 * What a server connection speaks, told from its first bytes ({@link #detect}); both IO adapters
 * ask this, once per connection, before they split its bytes into requests. Not part of the API.
 *
 * <pre>
 * first byte   kind              when
 * 00 .. 7f     FRAMED            FRAMED accepted (a positive length prefix); not '[' if UNFRAMED is
 * 80           UNFRAMED_BINARY   UNFRAMED accepted (strict binary: 80 01 = version 1)
 * 82           UNFRAMED_COMPACT  UNFRAMED accepted (compact protocol id)
 * 5b '['       UNFRAMED_JSON     UNFRAMED accepted (a JSON message is an array)
 * 41..5a A-Z   HTTP              HTTP accepted (a request line starts with a method name)
 * other        none: the connection is refused, counted and closed
 * </pre>
 *
 * <p>A frame starting with {@code 5b} would declare at least 1,526,726,656 bytes, above any
 * sensible {@code maxFrameSize}, so with both kinds accepted {@code [} means JSON; in the same way
 * an upper-case letter would declare at least 1,090,519,040 bytes, so with HTTP accepted it starts
 * a request line. A new kind adds a row here and a splitter in the adapters, nothing else.
 */
public enum WireKind {
  /** A 4-byte length prefix, then the message. Replies are framed. */
  FRAMED(null),
  /** Strict {@code TBinaryProtocol} messages back to back. Replies unframed. */
  UNFRAMED_BINARY(UnframedMessages.Protocol.BINARY),
  /** {@code TCompactProtocol} messages back to back. Replies unframed. */
  UNFRAMED_COMPACT(UnframedMessages.Protocol.COMPACT),
  /** {@code TJSONProtocol} messages back to back. Replies unframed. */
  UNFRAMED_JSON(UnframedMessages.Protocol.JSON),
  /** HTTP/1.1 requests ({@link HttpRequestReader}). Replies are HTTP responses. */
  HTTP(null);

  /** Nesting accepted by an unframed walk: libthrift's default recursion limit. */
  public static final int MAX_DEPTH = 64;

  private final UnframedMessages.Protocol protocol;

  WireKind(UnframedMessages.Protocol protocol) {
    this.protocol = protocol;
  }

  /** Whether replies go out without the length prefix the call path reserves in them. */
  public boolean unframed() {
    return protocol != null;
  }

  /** Whether requests and replies are HTTP messages. */
  public boolean http() {
    return this == HTTP;
  }

  /**
   * A walker for this kind's messages, limited to {@code maxMessageSize} bytes each.
   *
   * @throws IllegalStateException for {@link #FRAMED} and {@link #HTTP}
   */
  public UnframedMessages newWalk(int maxMessageSize) {
    if (protocol == null) {
      throw new IllegalStateException(this + " has no message walk");
    }
    return new UnframedMessages(protocol, maxMessageSize, MAX_DEPTH);
  }

  /**
   * The kind a connection speaks.
   *
   * @param first the connection's first byte
   * @param accepted the server's transports
   * @return the kind, or {@code null} if the byte matches no accepted transport
   */
  public static WireKind detect(byte first, Set<WireTransport> accepted) {
    int b = first & 0xff;
    boolean unframed = accepted.contains(WireTransport.UNFRAMED);
    if (unframed) {
      if (b == 0x80) {
        return UNFRAMED_BINARY;
      }
      if (b == 0x82) {
        return UNFRAMED_COMPACT;
      }
      if (b == '[') {
        return UNFRAMED_JSON;
      }
    }
    if (b >= 'A' && b <= 'Z' && accepted.contains(WireTransport.HTTP)) {
      return HTTP;
    }
    if (b < 0x80 && accepted.contains(WireTransport.FRAMED)) {
      return FRAMED;
    }
    return null;
  }

  /**
   * Why a connection's first bytes were refused, for the log line and the error: the peer, the
   * bytes, the transports accepted and, when recognised, what they look like.
   *
   * @param bytes the buffered bytes
   * @param start index of the connection's first byte
   * @param available bytes buffered from {@code start}, at least 1
   * @param peer the remote address, or whatever the IO library reports
   */
  public static String describeRefusal(
      UnframedMessages.ByteSource bytes,
      int start,
      int available,
      Set<WireTransport> accepted,
      Object peer) {
    int count = Math.min(4, available);
    int first = 0;
    StringBuilder sb =
        new StringBuilder("connection from ").append(peer).append(" refused: first bytes");
    for (int i = 0; i < count; i++) {
      int b = bytes.get(start + i) & 0xff;
      first = first << 8 | b;
      sb.append(String.format(" %02x", b));
    }
    sb.append(" match no accepted transport (accepted: ").append(accepted).append(')');
    String foreign = count == 4 ? Framing.describeForeignBytes(first) : null;
    int lead = first >>> (8 * (count - 1));
    if (foreign != null) {
      sb.append("; they look like ").append(foreign);
    } else if (lead == 0x80 || lead == 0x82 || lead == '[') {
      sb.append("; they look like an unframed Thrift message (WireTransport.UNFRAMED)");
    } else if (lead >= 'A' && lead <= 'Z') {
      sb.append("; they look like an HTTP request (WireTransport.HTTP)");
    } else if (lead < 0x80) {
      sb.append("; they look like a frame length (WireTransport.FRAMED)");
    }
    return sb.toString();
  }
}
