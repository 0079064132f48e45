package io.thriftnio.core.util.internal;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * Which Thrift protocol a message's first byte belongs to, and the words for a message in another
 * protocol than its reader's: pure functions over bytes, for the call path and the clients (the
 * wire kinds' recognition of first bytes builds on them). Not part of the API.
 */
public final class ProtocolBytes {

  private ProtocolBytes() {}

  /**
   * The protocol a message starting with {@code firstByte} is in ({@code TBinaryProtocol} for
   * {@code 0x80}, {@code TCompactProtocol} for {@code 0x82}, {@code TJSONProtocol} for {@code [}),
   * or {@code null}.
   */
  public static String protocolOf(int firstByte) {
    switch (firstByte & 0xff) {
      case 0x80:
        return "TBinaryProtocol";
      case 0x82:
        return "TCompactProtocol";
      case '[':
        return "TJSONProtocol";
      default:
        return null;
    }
  }

  /** A factory of the protocol a message starting with {@code firstByte} is in, or {@code null}. */
  public static TProtocolFactory protocolFactory(int firstByte) {
    switch (firstByte & 0xff) {
      case 0x80:
        return new TBinaryProtocol.Factory();
      case 0x82:
        return new TCompactProtocol.Factory();
      case '[':
        return new TJSONProtocol.Factory();
      default:
        return null;
    }
  }

  /**
   * The name of the Thrift protocol {@code protocol} is, or of its family ({@code TBinaryProtocol}
   * for a subclass), or {@code null} when it is none of the three.
   */
  public static String protocolName(Object protocol) {
    if (protocol instanceof TBinaryProtocol) {
      return "TBinaryProtocol";
    }
    if (protocol instanceof TCompactProtocol) {
      return "TCompactProtocol";
    }
    if (protocol instanceof TJSONProtocol) {
      return "TJSONProtocol";
    }
    return null;
  }

  /** The bytes in hex, space separated: {@code 80 01 00 01}; at most {@code max} of them. */
  public static String hex(byte[] b, int count, int max) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(count, max); i++) {
      sb.append(i == 0 ? "" : " ").append(String.format("%02x", b[i] & 0xff));
    }
    return sb.toString();
  }

  /**
   * {@code TCompactProtocol (first bytes 82 21 01 04)} when a message whose first bytes are {@code
   * first} is in another protocol than {@code readerProtocol}; {@code null} when it is in the
   * reader's, in none of the three, or the reader's is unknown.
   */
  public static String otherProtocol(byte[] first, int count, String readerProtocol) {
    if (count < 1 || readerProtocol == null) {
      return null;
    }
    String theirs = protocolOf(first[0]);
    if (theirs == null || theirs.equals(readerProtocol)) {
      return null;
    }
    return theirs + " (first bytes " + hex(first, count, 4) + ")";
  }

  /**
   * A client's words for a reply in another protocol than its own: {@code reply from P is in
   * TBinaryProtocol (first bytes 80 01 00 02); this client uses TCompactProtocol: ...}; {@code
   * null} when the reply is not recognisably in another protocol.
   */
  public static String replyInOtherProtocol(
      SocketAddress address, byte[] first, int count, String clientProtocol) {
    String theirs = otherProtocol(first, count, clientProtocol);
    if (theirs == null) {
      return null;
    }
    return "reply from "
        + peer(address)
        + " is in "
        + theirs
        + "; this client uses "
        + clientProtocol
        + ": the server answered in another protocol; give the server (ServerBuilder.protocol)"
        + " and the client the same one";
  }

  private static String peer(SocketAddress address) {
    if (address instanceof InetSocketAddress && ((InetSocketAddress) address).isUnresolved()) {
      InetSocketAddress a = (InetSocketAddress) address;
      return a.getHostString() + ":" + a.getPort();
    }
    return String.valueOf(address);
  }
}
