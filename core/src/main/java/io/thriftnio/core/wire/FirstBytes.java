package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.ProtocolBytes;
import java.util.Set;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * What a connection's first bytes look like, when they are not what the reader expected: the one
 * place that tells a peer of the wrong shape, for the server's refusals and log lines and for the
 * client's errors alike. Pure functions over the bytes; nothing is read or kept.
 *
 * <pre>
 * first bytes                        look like                                  served by
 * 80 01 00 tt                        an unframed TBinaryProtocol message        UNFRAMED
 * 82 (tt&lt;&lt;5|01)                      an unframed TCompactProtocol message       UNFRAMED
 * 5b 31 '[1'                         an unframed TJSONProtocol message          UNFRAMED
 * ll ll ll ll 80 01 | 82 | 5b         a framed message of that protocol          FRAMED
 * ll ll ll ll 0f ff                  a THeader frame                            HEADER
 * ll ll ll ll ll-4 .. 0f ff          a THeader frame inside a framed frame      HEADER
 * 01 00 00 00 nn 'A'-'Z'             a SASL START message                       SASL
 * 'GET ', 'POST', ...                an HTTP request                            HTTP
 * 'HTTP/'                            an HTTP response (a client reads it)       HTTP
 * 16 03                              a TLS handshake record (a ClientHello)     TLS
 * 15 03                              a TLS alert                                TLS
 * 'SSH-', '*1\r\n'                   an SSH banner, a Redis command             nothing here
 * </pre>
 *
 * <p>The message type ({@code tt}) is named where it tells who sent the bytes: a call or a oneway
 * call from a client, a reply or an exception from a server.
 */
public final class FirstBytes {

  /**
   * What a TLS server says of a connection whose first bytes are no TLS record; its TLS engine
   * tells, not this class, since the bytes never reach the wire codecs.
   */
  public static final String PLAINTEXT_ON_TLS =
      "not a TLS record: a plaintext client on a TLS port? Connect it with ClientOptions.tls(..)";

  /**
   * What a TLS client adds when the server closed during the handshake: the likely cause, a
   * plaintext server (which logs that the bytes look like a TLS handshake record).
   */
  public static final String TLS_ON_PLAINTEXT =
      "the server closed the connection during the handshake: is the server's port plaintext?"
          + " (ServerBuilder.tls(..))";

  /** How many first bytes are enough to tell every shape. */
  public static final int ENOUGH = 10;

  private FirstBytes() {}

  /** A recognised shape of first bytes. */
  public enum Shape {
    /** Strict {@code TBinaryProtocol}, no length prefix. */
    UNFRAMED_BINARY("an unframed TBinaryProtocol message", WireKind.UNFRAMED, "TBinaryProtocol"),
    /** {@code TCompactProtocol}, no length prefix. */
    UNFRAMED_COMPACT("an unframed TCompactProtocol message", WireKind.UNFRAMED, "TCompactProtocol"),
    /** {@code TJSONProtocol}, no length prefix. */
    UNFRAMED_JSON("an unframed TJSONProtocol message", WireKind.UNFRAMED, "TJSONProtocol"),
    /** A length prefix, then strict binary. */
    FRAMED_BINARY("a framed TBinaryProtocol message", WireKind.FRAMED, "TBinaryProtocol"),
    /** A length prefix, then compact. */
    FRAMED_COMPACT("a framed TCompactProtocol message", WireKind.FRAMED, "TCompactProtocol"),
    /** A length prefix, then JSON. */
    FRAMED_JSON("a framed TJSONProtocol message", WireKind.FRAMED, "TJSONProtocol"),
    /** A THeader frame: length, {@code 0f ff}. */
    THEADER("a THeader frame", WireKind.HEADER, null),
    /** A THeader frame wrapped in a framed frame. */
    THEADER_IN_FRAMED("a THeader frame inside a framed frame", WireKind.HEADER, null),
    /** libthrift's SASL negotiation, its first message. */
    SASL_START("a SASL START message", WireKind.SASL, null),
    /** An HTTP request line. */
    HTTP_REQUEST("an HTTP request", WireKind.HTTP, null),
    /** An HTTP status line. */
    HTTP_RESPONSE("an HTTP response", WireKind.HTTP, null),
    /** A TLS handshake record: a ClientHello from a client, a ServerHello from a server. */
    TLS_HANDSHAKE("a TLS handshake record", null, null),
    /** A TLS alert record. */
    TLS_ALERT("a TLS alert", null, null),
    /** An SSH banner. */
    SSH("an SSH banner", null, null),
    /** A Redis (RESP) command. */
    REDIS("a Redis (RESP) command", null, null);

    private final String looksLike;
    private final WireKind wireKind;
    private final String protocol;

    Shape(String looksLike, WireKind wireKind, String protocol) {
      this.looksLike = looksLike;
      this.wireKind = wireKind;
      this.protocol = protocol;
    }

    /** What the bytes look like: {@code an unframed TBinaryProtocol message}. */
    public String looksLike() {
      return looksLike;
    }

    /** The wire kind that serves such bytes, or {@code null} (TLS, foreign protocols). */
    public WireKind wireKind() {
      return wireKind;
    }

    /** The Thrift protocol the message is in ({@code TBinaryProtocol}), or {@code null}. */
    public String protocol() {
      return protocol;
    }

    /** Whether the bytes are TLS records. */
    public boolean tls() {
      return this == TLS_HANDSHAKE || this == TLS_ALERT;
    }
  }

  /**
   * The shape of {@code count} first bytes, or {@code null} when none is recognised (or more bytes
   * are needed to tell: a shape that needs bytes past {@code count} is not reported).
   */
  public static Shape shape(byte[] b, int count) {
    if (count < 2) {
      return null;
    }
    int b0 = b[0] & 0xff;
    int b1 = b[1] & 0xff;
    Shape inMessage = messageShape(b, 0, count, false);
    if (inMessage != null) {
      return inMessage;
    }
    if (b0 == 0x16 && b1 == 0x03) {
      return Shape.TLS_HANDSHAKE;
    }
    if (b0 == 0x15 && b1 == 0x03) {
      return Shape.TLS_ALERT;
    }
    if (count >= 4) {
      String ascii = ascii(b, 0, Math.min(count, 5));
      if (ascii != null) {
        if (ascii.startsWith("HTTP/") || ascii.equals("HTTP")) {
          return Shape.HTTP_RESPONSE;
        }
        if (ascii.startsWith("SSH-")) {
          return Shape.SSH;
        }
        if (isMethodToken(b)) {
          return Shape.HTTP_REQUEST;
        }
      }
      int b2 = b[2] & 0xff;
      int b3 = b[3] & 0xff;
      if ((b0 == '*' || b0 == '$') && isDigit(b1) && isRespTail(b2) && isRespTail(b3)) {
        return Shape.REDIS;
      }
    }
    if (count >= 6 && b0 == 0x01) {
      int length = int32(b, 1);
      int c = b[5] & 0xff;
      if (length > 0 && length < 256 && c >= 'A' && c <= 'Z') {
        return Shape.SASL_START;
      }
    }
    if (count >= 6 && b0 < 0x80) {
      int length = int32(b, 0);
      if ((b[4] & 0xff) == 0x0f && (b[5] & 0xff) == 0xff) {
        return Shape.THEADER;
      }
      if (count >= 10
          && int32(b, 4) == length - 4
          && (b[8] & 0xff) == 0x0f
          && (b[9] & 0xff) == 0xff) {
        return Shape.THEADER_IN_FRAMED;
      }
      Shape inner = messageShape(b, 4, count, true);
      if (length > 0 && inner != null) {
        return inner;
      }
    }
    return null;
  }

  /**
   * The Thrift protocol a message starting with {@code firstByte} is in: {@code TBinaryProtocol}
   * ({@code 80}), {@code TCompactProtocol} ({@code 82}), {@code TJSONProtocol} ({@code [}); else
   * {@code null}.
   */
  public static String protocolOf(int firstByte) {
    return ProtocolBytes.protocolOf(firstByte);
  }

  /**
   * A factory of the protocol a message starting with {@code firstByte} is in ({@link
   * #protocolOf}), to read its header or answer it in its own protocol; {@code null} for none.
   */
  public static TProtocolFactory protocolFactory(int firstByte) {
    return ProtocolBytes.protocolFactory(firstByte);
  }

  /**
   * The name of the Thrift protocol {@code protocol} is, or of its family ({@code TBinaryProtocol}
   * for a subclass), or {@code null} when it is none of the three.
   */
  public static String protocolName(Object protocol) {
    return ProtocolBytes.protocolName(protocol);
  }

  /** The bytes in hex, space separated: {@code 80 01 00 01}; at most {@code max} of them. */
  public static String hex(byte[] b, int count, int max) {
    return ProtocolBytes.hex(b, count, max);
  }

  /** Up to {@code max} bytes from {@code start}, copied. */
  static byte[] copy(ByteSource in, int start, int available, int max) {
    byte[] b = new byte[Math.max(0, Math.min(available, max))];
    in.getBytes(start, b, 0, b.length);
    return b;
  }

  /**
   * A server's hint for first bytes it refused: {@code first bytes 80 01 00 01 look like an
   * unframed TBinaryProtocol message (a call): to serve them, accept WireKind.UNFRAMED on this
   * server (ServerBuilder.wireKinds(FRAMED, UNFRAMED))}; {@code null} when the bytes are not
   * recognised.
   *
   * @param b the first bytes
   * @param count how many of them are here
   * @param accepted the kinds the server accepts
   */
  public static String serverHint(byte[] b, int count, Set<WireKind> accepted) {
    Shape shape = shape(b, count);
    if (shape == null || (shape.wireKind() != null && accepted.contains(shape.wireKind()))) {
      return null; // nothing to say, or nothing to advise: the kind's own rules refused them
    }
    StringBuilder sb =
        new StringBuilder("first bytes ")
            .append(hex(b, count, 4))
            .append(" look like ")
            .append(shape.looksLike())
            .append(method(b, count, shape))
            .append(messageType(b, count, shape, false));
    WireKind kind = shape.wireKind();
    if (shape == Shape.TLS_HANDSHAKE) {
      sb.append(": a TLS client on a plaintext port? Serve TLS with ServerBuilder.tls(..), or")
          .append(" connect without ClientOptions.tls(..)");
    } else if (shape == Shape.HTTP_RESPONSE || shape == Shape.TLS_ALERT) {
      sb.append(": the peer is a server, not a client");
    } else if (kind != null) {
      sb.append(": ").append(acceptAdvice(kind, accepted));
    } else if (kind == null) {
      sb.append(": not a Thrift client");
    }
    return sb.toString();
  }

  /**
   * A client's hint for a reply whose first bytes broke its wire kind's rules: {@code the first
   * bytes 80 01 00 02 look like an unframed TBinaryProtocol message (a reply): is the server
   * unframed? (ClientOptions.wireKind(WireKind.UNFRAMED))}; {@code null} when the bytes are not
   * recognised.
   *
   * @param b the reply's first bytes
   * @param count how many of them are here
   * @param clientKind the wire kind the client speaks
   */
  public static String replyHint(byte[] b, int count, WireKind clientKind) {
    Shape shape = shape(b, count);
    if (shape == null || shape.wireKind() == clientKind) {
      return null; // nothing to say, or nothing to advise: the kind's own rules refused them
    }
    StringBuilder sb =
        new StringBuilder("the first bytes ")
            .append(hex(b, count, 4))
            .append(" look like ")
            .append(shape.looksLike())
            .append(method(b, count, shape))
            .append(messageType(b, count, shape, true));
    WireKind kind = shape.wireKind();
    if (shape.tls()) {
      sb.append(": is the server TLS-only? (ClientOptions.tls(..))");
    } else if (shape == Shape.HTTP_REQUEST || shape == Shape.SASL_START) {
      sb.append(": the peer is not a Thrift server");
    } else if (kind != null && kind != clientKind) {
      sb.append(": is the server ")
          .append(
              kind == WireKind.HEADER ? "THeader" : kind.name().toLowerCase(java.util.Locale.ROOT))
          .append("? (ClientOptions.wireKind(WireKind.")
          .append(kind)
          .append("); this client's is ")
          .append(clientKind)
          .append(')');
    } else if (kind == null) {
      sb.append(": not a Thrift server");
    }
    return sb.toString();
  }

  /**
   * Both sides' words for a message in another protocol than the reader's: {@code the request is in
   * TCompactProtocol (first bytes 82 21 00 04), this server reads TBinaryProtocol}. {@code null}
   * when the message's protocol cannot be told or is the reader's own.
   *
   * @param first the message's first bytes
   * @param count how many
   * @param readerProtocol the reader's protocol name ({@link #protocolName}), or {@code null}
   */
  public static String otherProtocol(byte[] first, int count, String readerProtocol) {
    return ProtocolBytes.otherProtocol(first, count, readerProtocol);
  }

  /**
   * {@code to serve them, accept WireKind.UNFRAMED on this server (ServerBuilder.wireKinds(FRAMED,
   * UNFRAMED))}: the setting that serves a kind.
   */
  public static String acceptAdvice(WireKind kind, Set<WireKind> accepted) {
    StringBuilder sb =
        new StringBuilder("to serve them, accept WireKind.")
            .append(kind)
            .append(" on this server (ServerBuilder.wireKinds(")
            .append(kindsWith(accepted, kind))
            .append(')');
    if (kind == WireKind.SASL) {
      sb.append(" with ServerBuilder.sasl(..)");
    }
    return sb.append(')').toString();
  }

  private static String kindsWith(Set<WireKind> accepted, WireKind added) {
    StringBuilder sb = new StringBuilder();
    for (WireKind k : WireKind.values()) {
      if (accepted.contains(k) || k == added) {
        sb.append(sb.length() == 0 ? "" : ", ").append(k);
      }
    }
    return sb.toString();
  }

  /** An HTTP request's method: {@code ("POST")}; else the empty string. */
  private static String method(byte[] b, int count, Shape shape) {
    if (shape != Shape.HTTP_REQUEST) {
      return "";
    }
    int end = 0;
    while (end < count && end < 10 && b[end] >= 'A' && b[end] <= 'Z') {
      end++;
    }
    return " (\"" + new String(b, 0, end, java.nio.charset.StandardCharsets.US_ASCII) + "\")";
  }

  private static String messageType(byte[] b, int count, Shape shape, boolean fromServer) {
    int at;
    int type;
    switch (shape) {
      case UNFRAMED_BINARY:
      case FRAMED_BINARY:
        at = shape == Shape.UNFRAMED_BINARY ? 0 : 4;
        if (count < at + 4) {
          return "";
        }
        type = b[at + 3] & 0xff;
        break;
      case UNFRAMED_COMPACT:
      case FRAMED_COMPACT:
        at = shape == Shape.UNFRAMED_COMPACT ? 0 : 4;
        type = (b[at + 1] & 0xff) >>> 5;
        break;
      default:
        return "";
    }
    switch (type) {
      case 1:
        return " (a call)";
      case 2:
        return " (a reply)";
      case 3:
        return " (an exception)";
      case 4:
        return " (a oneway call)";
      default:
        return "";
    }
  }

  /** A message's shape at {@code at}: strict binary, compact, JSON; {@code null} otherwise. */
  private static Shape messageShape(byte[] b, int at, int count, boolean framed) {
    if (count < at + 2) {
      return null;
    }
    int c0 = b[at] & 0xff;
    int c1 = b[at + 1] & 0xff;
    if (c0 == 0x80 && c1 == 0x01) {
      return framed ? Shape.FRAMED_BINARY : Shape.UNFRAMED_BINARY;
    }
    if (c0 == 0x82 && (c1 & 0x1f) == 0x01 && (c1 >>> 5) >= 1 && (c1 >>> 5) <= 4) {
      return framed ? Shape.FRAMED_COMPACT : Shape.UNFRAMED_COMPACT;
    }
    if (c0 == '[' && c1 == '1') {
      return framed ? Shape.FRAMED_JSON : Shape.UNFRAMED_JSON;
    }
    return null;
  }

  private static int int32(byte[] b, int at) {
    return (b[at] & 0xff) << 24
        | (b[at + 1] & 0xff) << 16
        | (b[at + 2] & 0xff) << 8
        | b[at + 3] & 0xff;
  }

  /** Four bytes of an upper-case method name, or a shorter one and its space: {@code GET }. */
  private static boolean isMethodToken(byte[] b) {
    for (int i = 0; i < 4; i++) {
      int c = b[i] & 0xff;
      boolean letter = c >= 'A' && c <= 'Z';
      if (!letter && !(c == ' ' && i > 0)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isDigit(int c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isRespTail(int c) {
    return isDigit(c) || c == '\r' || c == '\n';
  }

  private static String ascii(byte[] b, int at, int count) {
    char[] c = new char[count - at];
    for (int i = at; i < count; i++) {
      int x = b[i] & 0xff;
      if (x < 0x20 || x > 0x7e) {
        return i - at >= 4 ? new String(c, 0, i - at) : null;
      }
      c[i - at] = (char) x;
    }
    return new String(c);
  }
}
