package io.thriftnio.core.wire;

/**
 * Walks {@code TCompactProtocol} messages ({@code 82}, then type and version): varint integers and
 * sizes, field ids as deltas, booleans in the field header.
 */
final class CompactWalk extends StructWalk {

  private static final int STOP = 0;
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

  /** {@link #varint}: its bytes are not all here. */
  private static final int INCOMPLETE = 0;

  private int seqid;

  CompactWalk(int maxMessageSize, int maxDepth) {
    super("COMPACT", maxMessageSize, maxDepth);
  }

  @Override
  boolean headerStep() throws Invalid {
    if (nameBegun) {
      headerRead(seqid);
      return true;
    }
    // 82 | type << 5 | version | seqid (varint) | name length (varint) | name
    if (have() < 2) {
      return false;
    }
    int versionAndType = u8(pos + 1);
    if (u8(pos) != 0x82 || (versionAndType & 0x1f) != 1) {
      throw invalid(
          String.format(
              "compact protocol id and version %02x %02x (expected: 82, then type << 5 | 01)",
              u8(pos), versionAndType));
    }
    int type = versionAndType >>> 5;
    checkMessageType(type);
    int seqidBytes = varint(pos + 2, have() - 2, 5, "sequence id");
    if (seqidBytes == INCOMPLETE) {
      return false;
    }
    int lengthAt = pos + 2 + seqidBytes;
    int lengthBytes = varint(lengthAt, have() - 2 - seqidBytes, 5, "name length");
    if (lengthBytes == INCOMPLETE) {
      return false;
    }
    seqid = (int) varintValue(pos + 2);
    int length = (int) varintValue(lengthAt);
    pos = lengthAt + lengthBytes;
    nameFollows(length, type);
    return true;
  }

  @Override
  boolean field() throws Invalid {
    if (have() < 1) {
      return false;
    }
    int first = u8(pos);
    if (first == STOP) {
      pos++;
      endStruct();
      return true;
    }
    int type = first & 0x0f;
    int idBytes = 0;
    if ((first >>> 4) == 0) {
      idBytes = varint(pos + 1, have() - 1, 3, "field id");
      if (idBytes == INCOMPLETE) {
        return false;
      }
    }
    checkType(type);
    pos += 1 + idBytes;
    // A boolean field's value is its type.
    pendingType = type == C_TRUE || type == C_FALSE ? NONE : type;
    return true;
  }

  @Override
  boolean value(int type) throws Invalid {
    int have = have();
    switch (type) {
      case C_TRUE:
      case C_FALSE:
      case C_BYTE:
        return fixedValue(1); // a boolean in a container takes one byte
      case C_DOUBLE:
        return fixedValue(8);
      case C_UUID:
        return fixedValue(16);
      case C_I16:
      case C_I32:
      case C_I64:
        {
          int n = varint(pos, have, type == C_I64 ? 10 : type == C_I32 ? 5 : 3, "integer");
          return n != INCOMPLETE && fixedValue(n);
        }
      case C_BINARY:
        {
          int n = varint(pos, have, 5, "binary length");
          if (n == INCOMPLETE) {
            return false;
          }
          long length = varintValue(pos);
          pos += n;
          declareBytes("binary", length > Integer.MAX_VALUE ? -1 : (int) length);
          pendingType = NONE;
          return true;
        }
      case C_STRUCT:
        openStruct();
        return true;
      case C_LIST:
      case C_SET:
        return list(type, have);
      case C_MAP:
        return map(have);
      default:
        throw invalid("unknown compact type " + type);
    }
  }

  private boolean list(int type, int have) throws Invalid {
    if (have < 1) {
      return false;
    }
    int first = u8(pos);
    int element = first & 0x0f;
    long size = first >>> 4;
    int n = 1;
    if (size == 15) {
      int sizeBytes = varint(pos + 1, have - 1, 5, "container size");
      if (sizeBytes == INCOMPLETE) {
        return false;
      }
      size = varintValue(pos + 1);
      n += sizeBytes;
    }
    checkType(element);
    pos += n;
    int count = size > Integer.MAX_VALUE ? -1 : (int) size;
    declareElements(type == C_LIST ? "list" : "set", count, minSize(element));
    openList(element, count);
    return true;
  }

  private boolean map(int have) throws Invalid {
    int sizeBytes = varint(pos, have, 5, "map size");
    if (sizeBytes == INCOMPLETE) {
      return false;
    }
    long size = varintValue(pos);
    if (size == 0) {
      pos += sizeBytes;
      pendingType = NONE;
      return true;
    }
    if (have < sizeBytes + 1) {
      return false;
    }
    int types = u8(pos + sizeBytes);
    int key = types >>> 4;
    int value = types & 0x0f;
    checkType(key);
    checkType(value);
    pos += sizeBytes + 1;
    int entries = size > Integer.MAX_VALUE ? -1 : (int) size;
    declareElements("map", entries, minSize(key) + minSize(value));
    openMap(key, value, entries);
    return true;
  }

  private void checkType(int type) throws Invalid {
    if (type < C_TRUE || type > C_UUID) {
      throw invalid("unknown compact type " + type);
    }
  }

  private static int minSize(int type) {
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
   * @throws Invalid if it runs over {@code max} bytes
   */
  private int varint(int at, int have, int max, String what) throws Invalid {
    for (int i = 0; i < max; i++) {
      if (i >= have) {
        return INCOMPLETE;
      }
      if ((u8(at + i) & 0x80) == 0) {
        return i + 1;
      }
    }
    throw invalid("a " + what + " varint longer than " + max + " bytes");
  }

  /** The unsigned value of a varint already known to be whole (at most 10 bytes). */
  private long varintValue(int at) {
    long value = 0;
    for (int shift = 0; ; shift += 7) {
      int x = u8(at++);
      value |= (long) (x & 0x7f) << shift;
      if ((x & 0x80) == 0 || shift >= 63) {
        return value;
      }
    }
  }
}
