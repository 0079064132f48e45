package io.thriftnio.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.thrift.protocol.TMessage;

/**
 * Finds where an unframed Thrift message ends ({@code TSocket} without {@code TFramedTransport},
 * {@code TBufferedTransport}) by walking it with its protocol's encoding, without decoding values.
 * One instance per connection; it keeps its place between reads, so a message that arrives in many
 * reads is walked once, not again from its start on each read. Servers walk requests with it and
 * unframed clients walk replies: the grammar is the same. Not part of the API.
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
 * few bytes. Containers count their elements at their smallest encoding, so a list of a billion
 * structs is refused at once as well. Nesting is bounded by {@code maxDepth}.
 *
 * <p>Protocols: strict {@code TBinaryProtocol} (first bytes {@code 80 01}), {@code
 * TCompactProtocol} ({@code 82}), and {@code TJSONProtocol} ({@code [}), for which the walk matches
 * brackets outside strings. The caller reads nothing before {@link #next} says a message is whole,
 * and calls {@link #reset} once it has taken the message.
 */
public final class UnframedMessages {

  /** {@link #next}: the message is not whole yet. */
  public static final int NEED_MORE = -1;

  /** Read access to an IO library's buffer, by absolute index. */
  @FunctionalInterface
  public interface ByteSource {
    /** The byte at {@code index}. */
    byte get(int index);
  }

  /** The encodings the walk knows. */
  public enum Protocol {
    /** Strict {@code TBinaryProtocol}: a message starts {@code 80 01}. */
    BINARY,
    /** {@code TCompactProtocol}: a message starts {@code 82}. */
    COMPACT,
    /** {@code TJSONProtocol}: a message is a JSON array, {@code [1,"name",...]}. */
    JSON;

    /**
     * The encoding a message starting with {@code first} is in: {@code 80} binary, {@code 82}
     * compact, {@code [} JSON; {@code null} for any other byte.
     */
    public static Protocol of(byte first) {
      switch (first & 0xff) {
        case 0x80:
          return BINARY;
        case 0x82:
          return COMPACT;
        case '[':
          return JSON;
        default:
          return null;
      }
    }
  }

  /** A message that breaks the protocol's encoding or the limits; the stream cannot go on. */
  public static final class InvalidMessageException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient TMessage header;

    InvalidMessageException(String message, TMessage header) {
      super(message, null, false, false);
      this.header = header;
    }

    /**
     * A line for the log and the error reply: the protocol, the peer and what was wrong.
     *
     * @param peer the remote address, or whatever the IO library reports
     */
    public String describe(Protocol protocol, Object peer) {
      return "invalid unframed " + protocol + " message from " + peer + ": " + getMessage();
    }

    /** The message's header when it was read before the fault, for an answer; else null. */
    public TMessage header() {
      return header;
    }
  }

  // TBinaryProtocol and TType codes.
  private static final int T_STOP = 0;
  private static final int T_BOOL = 2;
  private static final int T_BYTE = 3;
  private static final int T_DOUBLE = 4;
  private static final int T_I16 = 6;
  private static final int T_I32 = 8;
  private static final int T_I64 = 10;
  private static final int T_STRING = 11;
  private static final int T_STRUCT = 12;
  private static final int T_MAP = 13;
  private static final int T_SET = 14;
  private static final int T_LIST = 15;
  private static final int T_UUID = 16;

  // TCompactProtocol codes.
  private static final int C_TRUE = 1;
  private static final int C_FALSE = 2;
  private static final int C_BYTE = 3;
  private static final int C_I16 = 4;
  private static final int C_I32 = 5;
  private static final int C_I64 = 6;
  private static final int C_DOUBLE = 7;
  private static final int C_BINARY = 8;
  private static final int C_LIST = 9;
  private static final int C_SET = 10;
  private static final int C_MAP = 11;
  private static final int C_STRUCT = 12;
  private static final int C_UUID = 13;

  /** Longest method name kept for an error reply; a longer one is skipped, not copied. */
  private static final int MAX_KEPT_NAME = 1024;

  private static final int INCOMPLETE = 0;

  private static final int NONE = -1;

  /** Stack entries allowed per struct level: a struct, a map, a list in it, and one more. */
  private static final int STACK_PER_LEVEL = 4;

  private static final int STRUCT = 0;
  private static final int LIST = 1;
  private static final int MAP = 2;

  private final Protocol protocol;
  private final int maxMessageSize;
  private final int maxDepth;

  // Walk state, relative to the message's first byte.
  private int pos;
  private long skip;
  private boolean headerDone;
  private boolean nameBegun;
  private int nameStart;
  private int nameLength;
  private TMessage header;
  private int pendingType = NONE;

  // The open structs and containers: kind, element types, elements left (a map counts keys and
  // values apart, so its count is twice its size).
  private int depth;

  /** The structs among the {@code depth} entries, the arguments struct included. */
  private int structs;

  private int[] kind;
  private int[] keyType;
  private int[] valueType;
  private long[] left;

  // JSON.
  private boolean inString;
  private boolean escaped;

  /**
   * @param protocol the encoding of the connection's messages
   * @param maxMessageSize the largest message accepted, in bytes ({@code maxFrameSize})
   * @param maxDepth the deepest nesting of structs below the arguments struct accepted (containers
   *     between them not counted); a JSON message's brackets are counted all together against it
   */
  public UnframedMessages(Protocol protocol, int maxMessageSize, int maxDepth) {
    this.protocol = protocol;
    this.maxMessageSize = maxMessageSize;
    this.maxDepth = maxDepth;
    int slots = Math.min(maxDepth, 16) + 1;
    this.kind = new int[slots];
    this.keyType = new int[slots];
    this.valueType = new int[slots];
    this.left = new long[slots];
  }

  /** The encoding walked. */
  public Protocol protocol() {
    return protocol;
  }

  /**
   * Goes on walking the message that starts at {@code start}.
   *
   * @param bytes the buffered bytes; not modified
   * @param start index of the message's first byte; it may differ between calls (the caller's
   *     buffer moved) as long as the same bytes are there
   * @param available bytes buffered from {@code start}
   * @return the message's length in bytes once it is whole, else {@link #NEED_MORE}
   * @throws InvalidMessageException if the bytes break the encoding or a limit
   */
  public int next(ByteSource bytes, int start, int available) throws InvalidMessageException {
    int end = Math.min(available, maxMessageSize);
    int result = protocol == Protocol.JSON ? walkJson(bytes, start, end) : walk(bytes, start, end);
    if (result == NEED_MORE && available > maxMessageSize) {
      throw invalid("the message is longer than maxMessageSize " + maxMessageSize + " bytes");
    }
    return result;
  }

  /** Forgets the message just delivered; the next starts at the caller's next index. */
  public void reset() {
    pos = 0;
    skip = 0;
    headerDone = false;
    nameBegun = false;
    header = null;
    pendingType = NONE;
    depth = 0;
    structs = 0;
    inString = false;
    escaped = false;
  }

  /** Bytes of the current message walked so far. */
  public int walked() {
    return pos;
  }

  /**
   * The header of the message being walked, once read; {@code null} before (and always for JSON).
   */
  public TMessage header() {
    return header;
  }

  private int walk(ByteSource b, int start, int end) throws InvalidMessageException {
    while (true) {
      if (skip > 0) {
        int n = (int) Math.min(skip, end - pos);
        pos += n;
        skip -= n;
        if (skip > 0) {
          return NEED_MORE;
        }
      }
      if (!headerDone) {
        if (!(protocol == Protocol.BINARY
            ? binaryHeader(b, start, end)
            : compactHeader(b, start, end))) {
          return NEED_MORE;
        }
        continue;
      }
      if (pendingType != NONE) {
        boolean done =
            protocol == Protocol.BINARY
                ? binaryValue(b, start, end, pendingType)
                : compactValue(b, start, end, pendingType);
        if (!done) {
          return NEED_MORE;
        }
        continue;
      }
      if (depth == 0) {
        return pos;
      }
      int top = depth - 1;
      if (kind[top] == STRUCT) {
        if (!(protocol == Protocol.BINARY
            ? binaryField(b, start, end)
            : compactField(b, start, end))) {
          return NEED_MORE;
        }
      } else if (left[top] == 0) {
        depth--;
      } else {
        left[top]--;
        pendingType = kind[top] == MAP && (left[top] & 1) == 1 ? keyType[top] : valueType[top];
      }
    }
  }

  // ---- TBinaryProtocol ----

  private boolean binaryHeader(ByteSource b, int start, int end) throws InvalidMessageException {
    if (!nameBegun) {
      if (end - pos < 8) {
        return false;
      }
      int version = int32(b, start + pos);
      if ((version & 0xffff0000) != 0x80010000) {
        throw invalid(
            String.format("strict binary version %08x (expected: 80010000 | type)", version));
      }
      int type = version & 0xff;
      checkMessageType(type);
      int length = int32(b, start + pos + 4);
      pos += 8;
      beginName(b, start, length);
      return true;
    }
    if (end - pos < 4) {
      return false;
    }
    int seqid = int32(b, start + pos);
    pos += 4;
    endHeader(b, start, (byte) (int32(b, start) & 0xff), seqid);
    return true;
  }

  private boolean binaryField(ByteSource b, int start, int end) throws InvalidMessageException {
    if (end - pos < 1) {
      return false;
    }
    int type = b.get(start + pos);
    if (type == T_STOP) {
      pos++;
      popStruct();
      return true;
    }
    if (end - pos < 3) {
      return false;
    }
    checkBinaryType(type);
    pos += 3;
    pendingType = type;
    return true;
  }

  private boolean binaryValue(ByteSource b, int start, int end, int type)
      throws InvalidMessageException {
    int at = start + pos;
    int have = end - pos;
    switch (type) {
      case T_BOOL:
      case T_BYTE:
        return fixed(have, 1);
      case T_I16:
        return fixed(have, 2);
      case T_I32:
        return fixed(have, 4);
      case T_I64:
      case T_DOUBLE:
        return fixed(have, 8);
      case T_UUID:
        return fixed(have, 16);
      case T_STRING:
        if (have < 4) {
          return false;
        }
        int length = int32(b, at);
        pos += 4;
        declareBytes("string", length);
        pendingType = NONE;
        return true;
      case T_STRUCT:
        push(STRUCT, NONE, NONE, 0);
        pendingType = NONE;
        return true;
      case T_LIST:
      case T_SET:
        if (have < 5) {
          return false;
        }
        int element = b.get(at);
        checkBinaryType(element);
        int size = int32(b, at + 1);
        pos += 5;
        declareElements(type == T_LIST ? "list" : "set", size, binaryMinSize(element));
        push(LIST, NONE, element, size);
        pendingType = NONE;
        return true;
      case T_MAP:
        if (have < 6) {
          return false;
        }
        int key = b.get(at);
        int value = b.get(at + 1);
        int entries = int32(b, at + 2);
        pos += 6;
        if (entries != 0) {
          checkBinaryType(key);
          checkBinaryType(value);
        }
        declareElements("map", entries, binaryMinSize(key) + binaryMinSize(value));
        push(MAP, key, value, 2L * entries);
        pendingType = NONE;
        return true;
      default:
        throw invalid("unknown field type " + type);
    }
  }

  private void checkBinaryType(int type) throws InvalidMessageException {
    switch (type) {
      case T_BOOL:
      case T_BYTE:
      case T_DOUBLE:
      case T_I16:
      case T_I32:
      case T_I64:
      case T_STRING:
      case T_STRUCT:
      case T_MAP:
      case T_SET:
      case T_LIST:
      case T_UUID:
        return;
      default:
        throw invalid("unknown field type " + type);
    }
  }

  private static int binaryMinSize(int type) {
    switch (type) {
      case T_I16:
        return 2;
      case T_I32:
      case T_STRING:
        return 4;
      case T_I64:
      case T_DOUBLE:
        return 8;
      case T_UUID:
        return 16;
      case T_SET:
      case T_LIST:
        return 5;
      case T_MAP:
        return 6;
      default:
        return 1;
    }
  }

  // ---- TCompactProtocol ----

  private boolean compactHeader(ByteSource b, int start, int end) throws InvalidMessageException {
    if (!nameBegun) {
      if (end - pos < 2) {
        return false;
      }
      int at = start + pos;
      int versionAndType = b.get(at + 1) & 0xff;
      if ((b.get(at) & 0xff) != 0x82 || (versionAndType & 0x1f) != 1) {
        throw invalid(
            String.format(
                "compact protocol id and version %02x %02x (expected: 82, then type << 5 | 01)",
                b.get(at) & 0xff, versionAndType));
      }
      checkMessageType(versionAndType >>> 5);
      int seqidBytes = varint(b, at + 2, end - pos - 2, 5, "sequence id");
      if (seqidBytes == INCOMPLETE) {
        return false;
      }
      int lengthBytes =
          varint(b, at + 2 + seqidBytes, end - pos - 2 - seqidBytes, 5, "name length");
      if (lengthBytes == INCOMPLETE) {
        return false;
      }
      int length = (int) varintValue(b, at + 2 + seqidBytes);
      pos += 2 + seqidBytes + lengthBytes;
      beginName(b, start, length);
      return true;
    }
    int seqid = (int) varintValue(b, start + 2);
    endHeader(b, start, (byte) ((b.get(start + 1) & 0xff) >>> 5), seqid);
    return true;
  }

  private boolean compactField(ByteSource b, int start, int end) throws InvalidMessageException {
    if (end - pos < 1) {
      return false;
    }
    int at = start + pos;
    int first = b.get(at) & 0xff;
    if (first == T_STOP) {
      pos++;
      popStruct();
      return true;
    }
    int type = first & 0x0f;
    int idBytes = 0;
    if ((first >>> 4) == 0) {
      idBytes = varint(b, at + 1, end - pos - 1, 3, "field id");
      if (idBytes == INCOMPLETE) {
        return false;
      }
    }
    checkCompactType(type);
    pos += 1 + idBytes;
    // A boolean field's value is its type.
    pendingType = type == C_TRUE || type == C_FALSE ? NONE : type;
    return true;
  }

  private boolean compactValue(ByteSource b, int start, int end, int type)
      throws InvalidMessageException {
    int at = start + pos;
    int have = end - pos;
    switch (type) {
      case C_TRUE:
      case C_FALSE:
      case C_BYTE:
        return fixed(have, 1); // a boolean in a container takes one byte
      case C_DOUBLE:
        return fixed(have, 8);
      case C_UUID:
        return fixed(have, 16);
      case C_I16:
      case C_I32:
      case C_I64:
        {
          int n = varint(b, at, have, type == C_I64 ? 10 : type == C_I32 ? 5 : 3, "integer");
          return n != INCOMPLETE && fixed(have, n);
        }
      case C_BINARY:
        {
          int n = varint(b, at, have, 5, "binary length");
          if (n == INCOMPLETE) {
            return false;
          }
          long length = varintValue(b, at);
          pos += n;
          declareBytes("binary", length > Integer.MAX_VALUE ? -1 : (int) length);
          pendingType = NONE;
          return true;
        }
      case C_STRUCT:
        push(STRUCT, NONE, NONE, 0);
        pendingType = NONE;
        return true;
      case C_LIST:
      case C_SET:
        {
          if (have < 1) {
            return false;
          }
          int first = b.get(at) & 0xff;
          int element = first & 0x0f;
          long size = first >>> 4;
          int n = 1;
          if (size == 15) {
            int sizeBytes = varint(b, at + 1, have - 1, 5, "container size");
            if (sizeBytes == INCOMPLETE) {
              return false;
            }
            size = varintValue(b, at + 1);
            n += sizeBytes;
          }
          checkCompactType(element);
          pos += n;
          int count = size > Integer.MAX_VALUE ? -1 : (int) size;
          declareElements(type == C_LIST ? "list" : "set", count, compactMinSize(element));
          push(LIST, NONE, element, count);
          pendingType = NONE;
          return true;
        }
      case C_MAP:
        {
          int sizeBytes = varint(b, at, have, 5, "map size");
          if (sizeBytes == INCOMPLETE) {
            return false;
          }
          long size = varintValue(b, at);
          if (size == 0) {
            pos += sizeBytes;
            pendingType = NONE;
            return true;
          }
          if (have < sizeBytes + 1) {
            return false;
          }
          int types = b.get(at + sizeBytes) & 0xff;
          int key = types >>> 4;
          int value = types & 0x0f;
          checkCompactType(key);
          checkCompactType(value);
          pos += sizeBytes + 1;
          int entries = size > Integer.MAX_VALUE ? -1 : (int) size;
          declareElements("map", entries, compactMinSize(key) + compactMinSize(value));
          push(MAP, key, value, 2L * entries);
          pendingType = NONE;
          return true;
        }
      default:
        throw invalid("unknown compact type " + type);
    }
  }

  private void checkCompactType(int type) throws InvalidMessageException {
    if (type < C_TRUE || type > C_UUID) {
      throw invalid("unknown compact type " + type);
    }
  }

  private static int compactMinSize(int type) {
    switch (type) {
      case C_DOUBLE:
        return 8;
      case C_UUID:
        return 16;
      default:
        return 1;
    }
  }

  /**
   * Length of the varint at {@code at}, or {@link #INCOMPLETE} if {@code have} bytes do not end it.
   *
   * @throws InvalidMessageException if it runs over {@code max} bytes
   */
  private int varint(ByteSource b, int at, int have, int max, String what)
      throws InvalidMessageException {
    for (int i = 0; i < max; i++) {
      if (i >= have) {
        return INCOMPLETE;
      }
      if ((b.get(at + i) & 0x80) == 0) {
        return i + 1;
      }
    }
    throw invalid("a " + what + " varint longer than " + max + " bytes");
  }

  /** The unsigned value of a varint already known to be whole (at most 10 bytes). */
  private static long varintValue(ByteSource b, int at) {
    long value = 0;
    for (int shift = 0; ; shift += 7) {
      int x = b.get(at++);
      value |= (long) (x & 0x7f) << shift;
      if ((x & 0x80) == 0 || shift >= 63) {
        return value;
      }
    }
  }

  // ---- TJSONProtocol ----

  private int walkJson(ByteSource b, int start, int end) throws InvalidMessageException {
    if (pos == 0 && end > 0 && b.get(start) != '[') {
      throw invalid(String.format("JSON message starting %02x (expected: '[')", b.get(start)));
    }
    while (pos < end) {
      byte c = b.get(start + pos++);
      if (inString) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '[' || c == '{') {
        if (++depth > STACK_PER_LEVEL * (maxDepth + 1)) {
          throw invalid("JSON brackets nested more than " + (depth - 1) + " levels");
        }
      } else if (c == ']' || c == '}') {
        if (--depth == 0) {
          return pos;
        }
      }
    }
    return NEED_MORE;
  }

  // ---- shared ----

  private void checkMessageType(int type) throws InvalidMessageException {
    if (type < 1 || type > 4) {
      throw invalid("message type " + type + " (expected: 1..4, CALL to ONEWAY)");
    }
  }

  private void beginName(ByteSource b, int start, int length) throws InvalidMessageException {
    declareBytes("method name", length);
    nameStart = pos;
    nameLength = length;
    nameBegun = true;
  }

  private void endHeader(ByteSource b, int start, byte type, int seqid)
      throws InvalidMessageException {
    String name;
    if (nameLength <= MAX_KEPT_NAME) {
      byte[] raw = new byte[nameLength];
      for (int i = 0; i < nameLength; i++) {
        raw[i] = b.get(start + nameStart + i);
      }
      name = new String(raw, StandardCharsets.UTF_8);
    } else {
      name = "(a name of " + nameLength + " bytes)";
    }
    header = new TMessage(name, type, seqid);
    headerDone = true;
    nameBegun = false;
    push(STRUCT, NONE, NONE, 0);
  }

  /** Consumes a value of {@code size} bytes if they are here. */
  private boolean fixed(int have, int size) {
    if (have < size) {
      return false;
    }
    pos += size;
    pendingType = NONE;
    return true;
  }

  /** A string or binary of {@code length} bytes follows: refused now if it cannot fit. */
  private void declareBytes(String what, int length) throws InvalidMessageException {
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
  private void declareElements(String what, int count, int minSize) throws InvalidMessageException {
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

  /**
   * Opens a struct or container. Structs count against {@code maxDepth} below the message's own
   * arguments struct, as libthrift's recursion limit counts them; containers do not, but the whole
   * stack is bounded at {@link #STACK_PER_LEVEL} entries per level, so that memory stays bounded.
   */
  private void push(int k, int key, int value, long elements) throws InvalidMessageException {
    if (k == STRUCT && structs > maxDepth) {
      throw invalid("structs nested more than " + maxDepth + " levels below the arguments");
    }
    if (depth == STACK_PER_LEVEL * (maxDepth + 1)) {
      throw invalid("containers and structs nested more than " + depth + " levels");
    }
    if (k == STRUCT) {
      structs++;
    }
    if (depth == kind.length) {
      int n = Math.min(kind.length * 2, STACK_PER_LEVEL * (maxDepth + 1));
      kind = Arrays.copyOf(kind, n);
      keyType = Arrays.copyOf(keyType, n);
      valueType = Arrays.copyOf(valueType, n);
      left = Arrays.copyOf(left, n);
    }
    kind[depth] = k;
    keyType[depth] = key;
    valueType[depth] = value;
    left[depth] = elements;
    depth++;
  }

  private void popStruct() {
    depth--;
    structs--;
  }

  private InvalidMessageException invalid(String what) {
    return new InvalidMessageException(what, header);
  }

  private static int int32(ByteSource b, int at) {
    return (b.get(at) & 0xff) << 24
        | (b.get(at + 1) & 0xff) << 16
        | (b.get(at + 2) & 0xff) << 8
        | (b.get(at + 3) & 0xff);
  }
}
