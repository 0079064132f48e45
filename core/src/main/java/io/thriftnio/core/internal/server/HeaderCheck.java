package io.thriftnio.core.internal.server;

import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.wire.FirstBytes;
import java.nio.ByteBuffer;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * Tells, before a request is handed to a worker, whether its message header can be read: a request
 * that cannot be answered closes the connection, and the requests after it must not start meanwhile
 * on other workers. Strict binary and compact headers are checked in place; other protocols are
 * parsed. Not part of the API.
 */
final class HeaderCheck {
  private HeaderCheck() {}

  /**
   * @param payload a request message, from position to limit; not changed
   * @return {@code null} if its header can be read, else why not
   */
  static Throwable unreadable(
      ByteBuffer payload, TProtocolFactory protocol, TConfiguration configuration) {
    int p = payload.position();
    int end = payload.limit();
    if (end - p >= 2) {
      int b0 = payload.get(p) & 0xff;
      int b1 = payload.get(p + 1) & 0xff;
      if (b0 == 0x80 && b1 == 0x01 && end - p >= 8) {
        // 80 01 00 type | name length (i32) | name | seqid (i32)
        long nameLength = payload.getInt(p + 4);
        if (nameLength >= 0 && p + 8 + nameLength + 4 <= end) {
          return null;
        }
      } else if (b0 == 0x82 && (b1 & 0x1f) == 1) {
        // 82 | type << 5 | version | seqid (varint) | name length (varint) | name
        int i = skipVarint(payload, p + 2, end);
        if (i > 0) {
          long nameLength = readVarint(payload, i, end);
          int after = skipVarint(payload, i, end);
          if (after > 0 && nameLength >= 0 && after + nameLength <= end) {
            return null;
          }
        }
      }
    }
    try {
      protocol
          .getProtocol(FrameInputTransport.of(configuration, payload.duplicate()))
          .readMessageBegin();
      return null;
    } catch (TException | RuntimeException unreadable) {
      // A request in another protocol than the server's (JSON on a binary server) is readable in
      // its own: the invoker answers it so, naming both (issue 38).
      TProtocolFactory own = end > p ? FirstBytes.protocolFactory(payload.get(p)) : null;
      if (own != null) {
        try {
          own.getProtocol(FrameInputTransport.of(configuration, payload.duplicate()))
              .readMessageBegin();
          return null;
        } catch (TException | RuntimeException alsoUnreadable) {
          return unreadable;
        }
      }
      return unreadable;
    }
  }

  /** The index after a varint of at most 5 bytes starting at {@code i}, or -1. */
  private static int skipVarint(ByteBuffer b, int i, int end) {
    for (int n = 0; n < 5 && i < end; n++, i++) {
      if ((b.get(i) & 0x80) == 0) {
        return i + 1;
      }
    }
    return -1;
  }

  /** The varint at {@code i} (at most 5 bytes), or -1. */
  private static long readVarint(ByteBuffer b, int i, int end) {
    long value = 0;
    for (int shift = 0; shift < 35 && i < end; shift += 7, i++) {
      int x = b.get(i) & 0xff;
      value |= (long) (x & 0x7f) << shift;
      if ((x & 0x80) == 0) {
        return value;
      }
    }
    return -1;
  }
}
