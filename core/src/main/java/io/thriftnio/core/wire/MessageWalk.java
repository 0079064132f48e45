package io.thriftnio.core.wire;

import java.nio.charset.StandardCharsets;
import org.apache.thrift.protocol.TMessage;

/**
 * Finds where an unframed Thrift message ends by walking its encoding, without decoding values: the
 * cursor the binary, compact and JSON walks share. One instance per connection; it keeps its place
 * between reads, so a message that arrives in many reads is walked once, not again from its start
 * on each read. Servers walk requests with it and unframed clients walk replies.
 *
 * <pre>
 * bytes received:  | 80 01 00 01 | 00 00 00 04 'e' 'c' 'h' 'o' | 00 00 00 07 | 0b 00 01 ... 00 | 80 01 ...
 *                    version+type  name                          seqid         args struct, STOP  next message
 * next(...)     =&gt;  the length of the first message, once its STOP byte has arrived; NEED_MORE before
 * </pre>
 *
 * <p>Every size a message declares (a string, a binary, a container's element count) is checked
 * against what is left of {@code maxMessageSize} as soon as it is read, before anything waits for
 * or is allocated for those bytes: a message declaring a 2 GB string is refused with the header's
 * few bytes. Bytes are read through a small window filled by bulk copies from the {@link
 * ByteSource}; a string or binary is skipped, never copied.
 */
abstract class MessageWalk {

  /** {@link #next}: the message is not whole yet. */
  static final int NEED_MORE = -1;

  /** Longest method name kept for an error reply; a longer one is skipped, not copied. */
  private static final int MAX_KEPT_NAME = 1024;

  /** Bytes copied from the source at a time; a walk reads field headers from it. */
  private static final int WINDOW = 256;

  /** The protocol's name in messages: BINARY, COMPACT or JSON. */
  final String protocol;

  final int maxMessageSize;
  final int maxDepth;

  private ByteSource source;
  private int base;
  private int end;
  private final byte[] window = new byte[WINDOW];
  private int windowFrom;
  private int windowTo;

  /** Bytes of the current message walked so far. */
  int pos;

  private long skip;
  private TMessage header;

  MessageWalk(String protocol, int maxMessageSize, int maxDepth) {
    this.protocol = protocol;
    this.maxMessageSize = maxMessageSize;
    this.maxDepth = maxDepth;
  }

  /**
   * The walk for a message whose first byte is {@code first}: {@code 80} strict binary, {@code 82}
   * compact, {@code [} JSON.
   *
   * @return the walk, or {@code null} for any other byte
   */
  static MessageWalk forFirstByte(byte first, int maxMessageSize, int maxDepth) {
    switch (first & 0xff) {
      case 0x80:
        return new BinaryWalk(maxMessageSize, maxDepth);
      case 0x82:
        return new CompactWalk(maxMessageSize, maxDepth);
      case '[':
        return new JsonWalk(maxMessageSize, maxDepth);
      default:
        return null;
    }
  }

  /**
   * Goes on walking the message that starts at {@code start}.
   *
   * @param bytes the buffered bytes; not modified
   * @param start index of the message's first byte; it may differ between calls (the caller's
   *     buffer moved) as long as the same bytes are there
   * @param available bytes buffered from {@code start}
   * @return the message's length in bytes once it is whole, else {@link #NEED_MORE}
   * @throws Invalid if the bytes break the encoding or a limit
   */
  final int next(ByteSource bytes, int start, int available) throws Invalid {
    source = bytes;
    base = start;
    end = Math.min(available, maxMessageSize);
    windowFrom = 0;
    windowTo = 0;
    try {
      int result = walk();
      if (result == NEED_MORE && available > maxMessageSize) {
        throw invalid("the message is longer than maxMessageSize " + maxMessageSize + " bytes");
      }
      return result;
    } finally {
      source = null; // the adapter's buffer is not kept past the call
    }
  }

  /** Forgets the message just delivered; the next starts at the caller's next index. */
  final void reset() {
    pos = 0;
    skip = 0;
    header = null;
    resetWalk();
  }

  /** Bytes of the current message walked so far. */
  final int walked() {
    return pos;
  }

  /** The header of the message being walked, once read; {@code null} before, and for JSON. */
  final TMessage header() {
    return header;
  }

  /** Walks from {@link #pos}: the message's length once whole, else {@link #NEED_MORE}. */
  abstract int walk() throws Invalid;

  /** Forgets the walk's own state. */
  abstract void resetWalk();

  // ---- reading ----

  /** Bytes buffered from {@link #pos} (within {@code maxMessageSize}). */
  final int have() {
    return end - pos;
  }

  /** The unsigned byte at {@code at} bytes into the message; buffered, as the caller checked. */
  final int u8(int at) {
    if (at < windowFrom || at >= windowTo) {
      fill(at);
    }
    return window[at - windowFrom] & 0xff;
  }

  /** The big-endian int32 at {@code at}; its four bytes are buffered, as the caller checked. */
  final int int32(int at) {
    if (at < windowFrom || at + 4 > windowTo) {
      fill(at);
    }
    int i = at - windowFrom;
    return (window[i] & 0xff) << 24
        | (window[i + 1] & 0xff) << 16
        | (window[i + 2] & 0xff) << 8
        | (window[i + 3] & 0xff);
  }

  private void fill(int at) {
    int n = Math.min(WINDOW, end - at);
    source.getBytes(base + at, window, 0, n);
    windowFrom = at;
    windowTo = at + n;
  }

  /** Goes past what a declared string or binary left to skip; whether all of it is here. */
  final boolean skipped() {
    if (skip > 0) {
      int n = (int) Math.min(skip, end - pos);
      pos += n;
      skip -= n;
    }
    return skip == 0;
  }

  /** Consumes a value of {@code size} bytes if they are here. */
  final boolean fixed(int size) {
    if (have() < size) {
      return false;
    }
    pos += size;
    return true;
  }

  // ---- the limits ----

  /** A string or binary of {@code length} bytes follows: refused now if it cannot fit. */
  final void declareBytes(String what, int length) throws Invalid {
    if (length < 0 || length > maxMessageSize - pos) {
      throw invalid(
          "a "
              + what
              + " of "
              + Integer.toUnsignedString(length)
              + " bytes at byte "
              + pos
              + " would exceed maxMessageSize "
              + maxMessageSize);
    }
    skip = length;
  }

  /** A container of {@code count} elements, each at least {@code minSize} bytes, follows. */
  final void declareElements(String what, int count, int minSize) throws Invalid {
    if (count < 0 || (long) count * minSize > maxMessageSize - pos) {
      throw invalid(
          "a "
              + what
              + " of "
              + Integer.toUnsignedString(count)
              + " elements at byte "
              + pos
              + " would exceed maxMessageSize "
              + maxMessageSize);
    }
  }

  final void checkMessageType(int type) throws Invalid {
    if (type < 1 || type > 4) {
      throw invalid("message type " + type + " (expected: 1..4, CALL to ONEWAY)");
    }
  }

  /** The header is read: its name is {@code nameLength} bytes at {@code nameStart}. */
  final void readHeader(int nameStart, int nameLength, byte type, int seqid) {
    String name;
    if (nameLength <= MAX_KEPT_NAME) {
      byte[] raw = new byte[nameLength];
      source.getBytes(base + nameStart, raw, 0, nameLength);
      name = new String(raw, StandardCharsets.UTF_8);
    } else {
      name = "(a name of " + nameLength + " bytes)";
    }
    header = new TMessage(name, type, seqid);
  }

  final Invalid invalid(String what) {
    return new Invalid(what, header);
  }

  /** A message that breaks the protocol's encoding or the limits; the stream cannot go on. */
  static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient TMessage header;

    Invalid(String message, TMessage header) {
      super(message, null, false, false);
      this.header = header;
    }

    /** The message's header when it was read before the fault, for an answer; else null. */
    TMessage header() {
      return header;
    }
  }
}
