package io.thriftnio.core.wire;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The variable header section of one THeader frame, read from a copy of its bytes: the inner
 * protocol id, the transforms, the key/value info headers. Every varint and every length is bounded
 * by the section's end, and the info headers by {@link #MAX_INFO_HEADERS} and {@link
 * #MAX_INFO_HEADER_BYTES}, before anything is allocated for them.
 *
 * <pre>
 * | PROTOCOL ID | NUM TRANSFORMS | TRANSFORM ID ... | INFO ID | INFO DATA ... | 00 padding |
 *   varints; INFO_KEYVALUE (1) data: varint count, then count x (varint length, key bytes,
 *   varint length, value bytes)
 * </pre>
 *
 * <p>An info id of 0 is padding; an unknown info id ends the info headers, as the spec says (ids
 * come oldest first, so nothing after one we do not know is known either).
 */
final class THeaderSection {

  /** The binary protocol's id. */
  static final int BINARY = 0;

  /** The compact protocol's id. */
  static final int COMPACT = 2;

  /** The zlib transform's id, the one transform served. */
  static final int ZLIB = 1;

  /** The HMAC transform's id: MAC data after the payload that no stock library verifies. */
  static final int HMAC = 2;

  /** The snappy transform's id (fbthrift's). */
  static final int SNAPPY = 3;

  /** The key/value info header's id. */
  static final int INFO_KEYVALUE = 1;

  /**
   * Transforms one frame may list: each is a pass over up to {@code maxFrameSize} bytes on the IO
   * thread, and no library applies a transform twice.
   */
  static final int MAX_TRANSFORMS = 4;

  /**
   * Info headers one frame may carry: the bound of an HTTP request's header fields on the same port
   * ({@code HttpParser.MAX_HEADER_COUNT}), so a peer gains no room by switching kind; each header
   * costs two strings and a map entry.
   */
  static final int MAX_INFO_HEADERS = 100;

  /**
   * Bytes of info header keys and values in one frame: the bound of an HTTP request's header
   * section ({@code HttpParser.MAX_HEADER_BYTES}), for the same reason.
   */
  static final int MAX_INFO_HEADER_BYTES = 65_536;

  /** What broke the section's rules, with the numbers. */
  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    /** The protocol id when it was read and is served (the refusal can be answered), else -1. */
    final int protocolId;

    Malformed(String message, int protocolId) {
      super(message, null, false, false);
      this.protocolId = protocolId;
    }
  }

  private final byte[] bytes;
  private int pos;

  int protocolId = -1;
  int[] transforms;
  Map<String, String> headers = Map.of();

  private THeaderSection(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Reads a header section.
   *
   * @param bytes the section, padding included ({@code HEADER_SIZE * 4} bytes)
   * @throws Malformed if it breaks the rules or a bound
   */
  static THeaderSection read(byte[] bytes) throws Malformed {
    THeaderSection s = new THeaderSection(bytes);
    s.protocolId = s.varint("protocol id");
    if (s.protocolId != BINARY && s.protocolId != COMPACT) {
      throw new Malformed("protocol id " + s.protocolId + " (expected: 0 binary or 2 compact)", -1);
    }
    int count = s.varint("transform count");
    if (count > MAX_TRANSFORMS) {
      throw new Malformed(count + " transforms (limit " + MAX_TRANSFORMS + ")", s.protocolId);
    }
    s.transforms = new int[count];
    for (int i = 0; i < count; i++) {
      int id = s.varint("transform id");
      if (id != ZLIB) {
        throw new Malformed(
            "transform "
                + id
                + (id == HMAC ? " (HMAC)" : id == SNAPPY ? " (snappy)" : " (unknown)")
                + " not supported (supported: 1 zlib)",
            s.protocolId);
      }
      s.transforms[i] = id;
    }
    s.readInfoHeaders();
    return s;
  }

  private void readInfoHeaders() throws Malformed {
    Map<String, String> read = null;
    long total = 0;
    int seen = 0;
    while (pos < bytes.length) {
      int id = varint("info id");
      if (id != INFO_KEYVALUE) {
        break; // 0 is padding; an unknown id ends what we can read, and the payload follows
      }
      int count = varint("info header count");
      if (count > MAX_INFO_HEADERS - seen) {
        throw new Malformed(
            "info headers: "
                + count
                + " declared after "
                + seen
                + " (limit "
                + MAX_INFO_HEADERS
                + ")",
            protocolId);
      }
      seen += count;
      if (read == null) {
        read = new LinkedHashMap<>();
      }
      for (int i = 0; i < count; i++) {
        int keyLength = varint("info header key length");
        total += keyLength;
        String key = string(keyLength, total);
        int valueLength = varint("info header value length");
        total += valueLength;
        read.put(key, string(valueLength, total)); // a repeated key: the last one wins, as in C++
      }
    }
    if (read != null) {
      headers = Collections.unmodifiableMap(read);
    }
  }

  private String string(int length, long total) throws Malformed {
    if (total > MAX_INFO_HEADER_BYTES) {
      throw new Malformed(
          "info headers: "
              + total
              + " bytes of keys and values (limit "
              + MAX_INFO_HEADER_BYTES
              + ")",
          protocolId);
    }
    if (length > bytes.length - pos) {
      throw new Malformed(
          "info header string of "
              + length
              + " bytes at byte "
              + pos
              + " runs past the header section's "
              + bytes.length
              + " bytes",
          protocolId);
    }
    String s = new String(bytes, pos, length, StandardCharsets.UTF_8);
    pos += length;
    return s;
  }

  /** An unsigned varint of at most 5 bytes whose value fits an {@code int}. */
  private int varint(String what) throws Malformed {
    int start = pos;
    int value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (pos >= bytes.length) {
        throw new Malformed(
            what + " runs past the header section's end (" + bytes.length + " bytes)", protocolId);
      }
      int b = bytes[pos++];
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        if (value < 0 || (shift == 28 && (b & 0x70) != 0)) {
          break; // above Integer.MAX_VALUE
        }
        return value;
      }
    }
    throw new Malformed(
        what + ": varint at byte " + start + " overflows 31 bits (at most 5 bytes)", protocolId);
  }
}
