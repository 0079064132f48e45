package io.thriftnio.core.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One SASL negotiation message of libthrift's framing ({@code TSaslTransport}): a status byte, a
 * 4-byte big-endian payload length, the payload. The client's first message is {@link Status#START}
 * with the mechanism's name; challenges and responses travel as {@link Status#OK}; the server ends
 * with {@link Status#COMPLETE} (its last challenge as payload), or refuses with {@link Status#BAD}
 * or {@link Status#ERROR} and a reason in UTF-8. Immutable; both roles read and write it.
 *
 * @param status the status byte
 * @param payload the payload; read-only by convention, never changed after construction
 */
public record SaslMessage(Status status, byte[] payload) {

  /** The bytes before the payload: the status and the length. */
  public static final int HEADER_SIZE = 5;

  /** The status byte of a negotiation message. */
  public enum Status {
    /** The client's first message: the mechanism's name. */
    START(0x01),
    /** A challenge or a response; negotiation goes on. */
    OK(0x02),
    /** The peer refused: the payload says why. */
    BAD(0x03),
    /** The peer failed: the payload says why. */
    ERROR(0x04),
    /** Negotiation completed: the payload is the last challenge, often empty. */
    COMPLETE(0x05);

    private final int code;

    Status(int code) {
      this.code = code;
    }

    /** The byte on the wire. */
    public int code() {
      return code;
    }

    /** The status of {@code b}, or {@code null} if it names none. */
    public static Status of(int b) {
      int i = (b & 0xff) - 1;
      return i >= 0 && i < VALUES.length ? VALUES[i] : null;
    }

    private static final Status[] VALUES = values();
  }

  /** Checks that neither is {@code null}. */
  public SaslMessage {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(payload, "payload");
  }

  /** A message whose payload is {@code text} in UTF-8: a mechanism's name, a refusal's reason. */
  public static SaslMessage of(Status status, String text) {
    return new SaslMessage(status, text.getBytes(StandardCharsets.UTF_8));
  }

  /** The payload read as UTF-8 text. */
  public String text() {
    return new String(payload, StandardCharsets.UTF_8);
  }

  /** The message as it goes on the wire, in a new buffer ready to read. */
  public ByteBuffer encode() {
    ByteBuffer out = ByteBuffer.allocate(HEADER_SIZE + payload.length);
    out.put((byte) status.code).putInt(payload.length).put(payload);
    return out.flip();
  }

  /**
   * Reads the message at {@code start} when it is all buffered.
   *
   * @param in the buffered bytes
   * @param start the index of its status byte
   * @param available the bytes buffered from {@code start}
   * @param maxPayload the largest payload accepted; a larger declared length is refused before
   *     anything is allocated or waited for
   * @return the message, or {@code null} if more bytes are needed
   * @throws IllegalArgumentException if the status byte names no status, or the length is negative
   *     or above {@code maxPayload}; the message says which and the numbers
   */
  public static SaslMessage read(ByteSource in, int start, int available, int maxPayload) {
    if (available < 1) {
      return null;
    }
    int code = in.getByte(start) & 0xff;
    Status status = Status.of(code);
    if (status == null) {
      throw new IllegalArgumentException(
          String.format("SASL status byte: 0x%02x (expected: 0x01 to 0x05)", code));
    }
    if (available < HEADER_SIZE) {
      return null;
    }
    int length = in.getInt(start + 1);
    if (length < 0 || length > maxPayload) {
      throw new IllegalArgumentException(
          "SASL "
              + status
              + " message length: "
              + Integer.toUnsignedString(length)
              + " (expected: <= "
              + maxPayload
              + ")");
    }
    if (available < HEADER_SIZE + length) {
      return null;
    }
    byte[] payload = new byte[length];
    in.getBytes(start + HEADER_SIZE, payload, 0, length);
    return new SaslMessage(status, payload);
  }
}
