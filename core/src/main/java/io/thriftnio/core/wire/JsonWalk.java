package io.thriftnio.core.wire;

/**
 * Walks {@code TJSONProtocol} messages: a message is one JSON array, {@code [1,"name",...]}, whole
 * once its brackets balance outside strings. Every bracket, {@code [} or <code>{</code>, counts
 * against the nesting bound of the binary and compact walks' stack.
 */
final class JsonWalk extends MessageWalk {

  private int depth;
  private boolean inString;
  private boolean escaped;

  JsonWalk(int maxMessageSize, int maxDepth) {
    super("JSON", maxMessageSize, maxDepth);
  }

  @Override
  int walk() throws Invalid {
    int end = pos + have();
    if (pos == 0 && end > 0 && u8(0) != '[') {
      throw invalid(String.format("JSON message starting %02x (expected: '[')", u8(0)));
    }
    while (pos < end) {
      int c = u8(pos++);
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
        if (++depth > StructWalk.maxStack(maxDepth)) {
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

  @Override
  void resetWalk() {
    depth = 0;
    inString = false;
    escaped = false;
  }
}
