package io.thriftnio.core.util.internal;

import io.thriftnio.core.settings.SettingException;
import org.apache.thrift.TConfiguration;

/**
 * The wire rules of Thrift's framed transport ({@code TFramedTransport}), shared by every codec in
 * this library so that Netty and Grizzly, server and client, accept and reject the same bytes.
 *
 * <pre>
 * +----------------------------+-----------------------------------------+
 * | length: int32, big-endian  | payload: one Thrift message             |
 * | (signed; excludes itself)  | (TMessage header + args/result struct)  |
 * +----------------------------+-----------------------------------------+
 *
 *  00 00 00 0B | 80 01 00 01 00 00 00 04 'e' 'c' 'h' ...
 *  length = 11   payload (11 bytes)
 * </pre>
 *
 * <p>Rules:
 *
 * <ul>
 *   <li>The length is a <em>signed</em> 32-bit big-endian integer that does not count itself.
 *   <li>{@code length <= 0} or {@code length > maxFrameSize} is a corrupt or hostile peer: the
 *       decoder rejects it before allocating anything ({@code
 *       io.thriftnio.core.internal.FrameLength#check}) and the connection is closed. An empty frame
 *       carries no message, so it is never valid.
 *   <li>The default limit is {@link #DEFAULT_MAX_FRAME_SIZE}, libthrift's own default, which every
 *       Thrift implementation shares. It is configurable and never silently raised or lowered.
 * </ul>
 *
 * <p>Not an API: the user-facing settings ({@code maxFrameSize} on the server and client builders)
 * say the same rules in their own javadoc.
 */
public final class Framing {

  /** Size of the length prefix, in bytes. */
  public static final int HEADER_SIZE = 4;

  /**
   * The default largest payload accepted, in bytes: {@value}, equal to libthrift's {@link
   * TConfiguration#DEFAULT_MAX_FRAME_SIZE}.
   */
  public static final int DEFAULT_MAX_FRAME_SIZE = TConfiguration.DEFAULT_MAX_FRAME_SIZE;

  private Framing() {}

  /**
   * Validates a configured frame size limit.
   *
   * @param maxFrameSize the candidate limit, in bytes
   * @return {@code maxFrameSize}
   * @throws SettingException if it is not positive
   */
  public static int checkMaxFrameSize(int maxFrameSize) {
    if (maxFrameSize <= 0) {
      throw new SettingException("maxFrameSize", maxFrameSize, "> 0");
    }
    return maxFrameSize;
  }

  /** Reads the signed big-endian length at {@code offset}. */
  public static int decodeLength(byte[] buf, int offset) {
    return (buf[offset] & 0xff) << 24
        | (buf[offset + 1] & 0xff) << 16
        | (buf[offset + 2] & 0xff) << 8
        | (buf[offset + 3] & 0xff);
  }

  /** Writes {@code length} big-endian into {@code buf} at {@code offset}. */
  public static void encodeLength(int length, byte[] buf, int offset) {
    buf[offset] = (byte) (length >>> 24);
    buf[offset + 1] = (byte) (length >>> 16);
    buf[offset + 2] = (byte) (length >>> 8);
    buf[offset + 3] = (byte) length;
  }

  /**
   * Names well-known non-Thrift protocols from the four bytes read as a length, so that a log line
   * can say what arrived on the port.
   *
   * @param header the four bytes read as a length, big-endian
   * @return a description such as {@code "an HTTP request"}, or {@code null} if nothing is
   *     recognised
   */
  public static String describeForeignBytes(int header) {
    int b0 = header >>> 24;
    int b1 = (header >>> 16) & 0xff;
    String ascii = asciiOf(header);
    if (ascii != null) {
      switch (ascii) {
        case "GET ":
        case "POST":
        case "PUT ":
        case "HEAD":
        case "DELE":
        case "OPTI":
        case "PATC":
        case "CONN":
        case "PRI ":
          return "an HTTP request (\"" + ascii.trim() + "\")";
        case "SSH-":
          return "an SSH banner";
        default:
          break;
      }
    }
    // RESP: "*<count>\r\n" or "$<len>\r\n"; a short count puts CR LF inside the first four bytes,
    // so this cannot require printable ASCII like the checks above.
    int b2 = (header >>> 8) & 0xff;
    int b3 = header & 0xff;
    if ((b0 == '*' || b0 == '$') && isDigit(b1) && isRespTail(b2) && isRespTail(b3)) {
      return "a Redis (RESP) command (\"" + escaped(header) + "\")";
    }
    // TLS record: content type 22 (handshake), version major 3.
    if (b0 == 0x16 && b1 == 0x03) {
      return "a TLS handshake (ClientHello?): is the client using TLS against a plaintext port?";
    }
    return null;
  }

  private static boolean isDigit(int b) {
    return b >= '0' && b <= '9';
  }

  private static boolean isRespTail(int b) {
    return isDigit(b) || b == '\r' || b == '\n';
  }

  private static String escaped(int header) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      int b = (header >>> (24 - 8 * i)) & 0xff;
      if (b == '\r') {
        sb.append("\\r");
      } else if (b == '\n') {
        sb.append("\\n");
      } else {
        sb.append((char) b);
      }
    }
    return sb.toString();
  }

  private static String asciiOf(int header) {
    char[] c = new char[4];
    for (int i = 0; i < 4; i++) {
      int b = (header >>> (24 - 8 * i)) & 0xff;
      if (b < 0x20 || b > 0x7e) {
        return null;
      }
      c[i] = (char) b;
    }
    return new String(c);
  }
}
