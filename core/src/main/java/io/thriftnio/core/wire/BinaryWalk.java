package io.thriftnio.core.wire;

/**
 * Walks strict {@code TBinaryProtocol} messages ({@code 80 01 00 type}): fixed-size values, and
 * strings and containers whose sizes are big-endian int32s.
 */
final class BinaryWalk extends StructWalk {

  // TType codes.
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

  BinaryWalk(int maxMessageSize, int maxDepth) {
    super("BINARY", maxMessageSize, maxDepth);
  }

  @Override
  boolean headerStep() throws Invalid {
    if (!nameBegun) {
      // 80 01 00 type | name length (i32) | name | seqid (i32)
      if (have() < 8) {
        return false;
      }
      int version = int32(pos);
      if ((version & 0xffff0000) != 0x80010000) {
        throw invalid(
            String.format("strict binary version %08x (expected: 80010000 | type)", version));
      }
      int type = version & 0xff;
      checkMessageType(type);
      int length = int32(pos + 4);
      pos += 8;
      nameFollows(length, type);
      return true;
    }
    if (have() < 4) {
      return false;
    }
    int seqid = int32(pos);
    pos += 4;
    headerRead(seqid);
    return true;
  }

  @Override
  boolean field() throws Invalid {
    if (have() < 1) {
      return false;
    }
    int type = (byte) u8(pos);
    if (type == T_STOP) {
      pos++;
      endStruct();
      return true;
    }
    if (have() < 3) {
      return false;
    }
    checkType(type);
    pos += 3;
    pendingType = type;
    return true;
  }

  @Override
  boolean value(int type) throws Invalid {
    int have = have();
    switch (type) {
      case T_BOOL:
      case T_BYTE:
        return fixedValue(1);
      case T_I16:
        return fixedValue(2);
      case T_I32:
        return fixedValue(4);
      case T_I64:
      case T_DOUBLE:
        return fixedValue(8);
      case T_UUID:
        return fixedValue(16);
      case T_STRING:
        {
          if (have < 4) {
            return false;
          }
          int length = int32(pos);
          pos += 4;
          declareBytes("string", length);
          pendingType = NONE;
          return true;
        }
      case T_STRUCT:
        openStruct();
        return true;
      case T_LIST:
      case T_SET:
        {
          if (have < 5) {
            return false;
          }
          int element = (byte) u8(pos);
          checkType(element);
          int size = int32(pos + 1);
          pos += 5;
          declareElements(type == T_LIST ? "list" : "set", size, minSize(element));
          openList(element, size);
          return true;
        }
      case T_MAP:
        {
          if (have < 6) {
            return false;
          }
          int key = (byte) u8(pos);
          int value = (byte) u8(pos + 1);
          int entries = int32(pos + 2);
          pos += 6;
          if (entries != 0) {
            checkType(key);
            checkType(value);
          }
          declareElements("map", entries, minSize(key) + minSize(value));
          openMap(key, value, entries);
          return true;
        }
      default:
        throw invalid("unknown field type " + type);
    }
  }

  private void checkType(int type) throws Invalid {
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

  private static int minSize(int type) {
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
}
