package io.thriftnio.core.wire;

import java.util.Arrays;

/**
 * The walk of a message made of typed fields (binary and compact): the loop over the header, the
 * fields of each open struct and the elements of each open container, and the nesting stack they
 * are kept on. A protocol supplies how its header, a field header and a value are encoded.
 *
 * <p>Nesting: structs count against {@code maxDepth} below the message's own arguments struct, as
 * libthrift's recursion limit counts them; containers do not, but the whole stack is bounded at
 * {@value #STACK_PER_LEVEL} entries per level, so that memory stays bounded.
 */
abstract class StructWalk extends MessageWalk {

  /** No value is pending, or no type. */
  static final int NONE = -1;

  /** Stack entries allowed per struct level: a struct, a map, a list in it, and one more. */
  private static final int STACK_PER_LEVEL = 4;

  private static final int STRUCT = 0;
  private static final int LIST = 1;
  private static final int MAP = 2;

  /** The header has been read, and the arguments struct opened. */
  private boolean headerDone;

  /** The header's name length has been read: the name is being skipped. */
  boolean nameBegun;

  private int nameStart;
  private int nameLength;
  private byte messageType;

  /** The type of the value whose bytes come next (a field's or an element's), or NONE. */
  int pendingType = NONE;

  // The open structs and containers: kind, element types, elements left (a map counts keys and
  // values apart, so its count is twice its size).
  private int depth;

  /** The structs among the {@code depth} entries, the arguments struct included. */
  private int structs;

  private int[] kind;
  private int[] keyType;
  private int[] valueType;
  private long[] left;

  StructWalk(String protocol, int maxMessageSize, int maxDepth) {
    super(protocol, maxMessageSize, maxDepth);
    int slots = Math.min(maxDepth, 16) + 1;
    this.kind = new int[slots];
    this.keyType = new int[slots];
    this.valueType = new int[slots];
    this.left = new long[slots];
  }

  @Override
  final int walk() throws Invalid {
    while (true) {
      if (!skipped()) {
        return NEED_MORE;
      }
      if (!headerDone) {
        if (!headerStep()) {
          return NEED_MORE;
        }
        continue;
      }
      if (pendingType != NONE) {
        if (!value(pendingType)) {
          return NEED_MORE;
        }
        continue;
      }
      if (depth == 0) {
        return pos;
      }
      int top = depth - 1;
      if (kind[top] == STRUCT) {
        if (!field()) {
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

  @Override
  void resetWalk() {
    headerDone = false;
    nameBegun = false;
    pendingType = NONE;
    depth = 0;
    structs = 0;
  }

  /** Reads on in the message header; true once it is whole (then {@link #headerRead} ran). */
  abstract boolean headerStep() throws Invalid;

  /**
   * Reads a field header of the innermost struct, or its STOP ({@link #endStruct}); sets {@link
   * #pendingType} to the field's type when a value follows. False if its bytes are not all here.
   */
  abstract boolean field() throws Invalid;

  /**
   * Reads on in a value of {@code type}: a fixed-size one whole, or the size of a string or a
   * container (then {@link #declareBytes} or {@link #openList} / {@link #openMap}). Clears {@link
   * #pendingType} when done. False if its bytes are not all here.
   */
  abstract boolean value(int type) throws Invalid;

  /**
   * The header up to its name is read: the name's {@code length} bytes follow (skipped, then read
   * by {@link #headerRead}); {@code type} is the message type.
   */
  final void nameFollows(int length, int type) throws Invalid {
    declareBytes("method name", length);
    nameStart = pos;
    nameLength = length;
    messageType = (byte) type;
    nameBegun = true;
  }

  /** The header is read, its sequence id last: the arguments struct opens. */
  final void headerRead(int seqid) throws Invalid {
    readHeader(nameStart, nameLength, messageType, seqid);
    nameBegun = false;
    headerDone = true;
    openStruct();
  }

  /** A value of {@code size} bytes, if here; it ends the pending value. */
  final boolean fixedValue(int size) {
    if (!fixed(size)) {
      return false;
    }
    pendingType = NONE;
    return true;
  }

  final void openStruct() throws Invalid {
    push(STRUCT, NONE, NONE, 0);
    pendingType = NONE;
  }

  final void openList(int element, int size) throws Invalid {
    push(LIST, NONE, element, size);
    pendingType = NONE;
  }

  final void openMap(int key, int value, int entries) throws Invalid {
    push(MAP, key, value, 2L * entries);
    pendingType = NONE;
  }

  /** The innermost struct's STOP byte was read. */
  final void endStruct() {
    depth--;
    structs--;
  }

  private void push(int k, int key, int value, long elements) throws Invalid {
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

  /** Stack entries allowed in all, for the JSON walk's bracket count. */
  static int maxStack(int maxDepth) {
    return STACK_PER_LEVEL * (maxDepth + 1);
  }
}
