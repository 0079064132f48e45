package io.thriftnio.core.wire;

import io.thriftnio.core.util.internal.Framing;
import java.net.SocketAddress;
import java.util.List;

/**
 * Picks the kind a server connection speaks from its first bytes, among the kinds the server
 * accepts. The kinds are asked in the order of {@link #KINDS}: the first accepted one that
 * recognises the bytes wins, and one that needs more bytes to tell holds the decision back.
 *
 * <pre>
 * first bytes  kind              when
 * 80           UNFRAMED_BINARY   UNFRAMED accepted (strict binary: 80 01 = version 1)
 * 82           UNFRAMED_COMPACT  UNFRAMED accepted (compact protocol id)
 * 5b '['       UNFRAMED_JSON     UNFRAMED accepted (a JSON message is an array)
 * 41..5a A-Z   HTTP              HTTP accepted (a request line starts with a method name)
 * 01           SASL              SASL accepted (the status byte START); a frame of 16 MiB or more
 *                                starts with 01 too, so a server that accepts SASL and FRAMED or
 *                                HEADER must keep maxFrameSize below 16 MiB (checked at build)
 * 00 .. 7f     HEADER            HEADER accepted and bytes 4-5 are 0f ff (a THeader frame); until
 *                                six bytes are here it holds the decision back, unless the length
 *                                is below THeader's fixed part (10)
 * 00 .. 7f     HEADER            HEADER accepted, bytes 4-7 are the length less 4 and bytes 8-9 are
 *                                0f ff (THeader inside a framed frame); holds back until ten bytes
 * 00 .. 7f     FRAMED            FRAMED accepted (a positive length prefix)
 * other        none: the connection is refused, counted and closed
 * </pre>
 *
 * <p>A frame starting with {@code 5b} would declare at least 1,526,726,656 bytes, above any
 * sensible {@code maxFrameSize}, so with both kinds accepted {@code [} means JSON; in the same way
 * an upper-case letter would declare at least 1,090,519,040 bytes, so with HTTP accepted it starts
 * a request line. A new kind is a line in {@link #KINDS}, before the kinds whose bytes it shares.
 */
public final class Sniffer {

  /** Every kind of this package, in the order they are asked. */
  static final List<WireFormat> KINDS =
      List.of(
          UnframedDecoder.BINARY,
          UnframedDecoder.COMPACT,
          UnframedDecoder.JSON,
          HttpRequestDecoder.KIND,
          SaslServerDecoder.KIND,
          THeaderDecoder.KIND,
          THeaderDecoder.FRAMED_KIND,
          FramedDecoder.KIND);

  private final WireSettings settings;
  private boolean undecided;

  /**
   * A sniffer for one connection.
   *
   * @param settings the kinds, and which are accepted
   */
  public Sniffer(WireSettings settings) {
    this.settings = settings;
  }

  /**
   * The kind the connection speaks.
   *
   * @param in the buffered bytes
   * @param start the index of the connection's first byte
   * @param available the bytes buffered from {@code start}, at least 1
   * @return the kind, or {@code null} when none is accepted for these bytes or, if {@link
   *     #undecided()}, when more bytes are needed to tell
   */
  public WireFormat detect(ByteSource in, int start, int available) {
    undecided = false;
    for (WireFormat kind : settings.kinds()) {
      if (!settings.accepted().contains(kind.wireKind())) {
        continue;
      }
      int match = kind.detect(in, start, available);
      if (match == WireFormat.YES) {
        return kind;
      }
      if (match == WireFormat.UNDECIDED) {
        undecided = true;
        return null;
      }
    }
    return null;
  }

  /** Whether the last {@link #detect} needed more bytes. */
  public boolean undecided() {
    return undecided;
  }

  /**
   * Why a connection's first bytes were refused, for the log line: the peer, the bytes, the
   * transports accepted and, when recognised, what they look like.
   *
   * @param in the buffered bytes
   * @param start the index of the connection's first byte
   * @param available the bytes buffered from {@code start}, at least 1
   * @param peer the remote address, or whatever the IO library reports
   */
  public String describeRefusal(ByteSource in, int start, int available, SocketAddress peer) {
    byte[] first = FirstBytes.copy(in, start, available, FirstBytes.ENOUGH);
    String hint = FirstBytes.serverHint(first, first.length, settings.accepted());
    if (hint != null) {
      return "connection from "
          + peer
          + " refused (accepted: "
          + settings.accepted()
          + "): "
          + hint;
    }
    int count = Math.min(4, available);
    StringBuilder sb =
        new StringBuilder("connection from ")
            .append(peer)
            .append(" refused: first bytes ")
            .append(FirstBytes.hex(first, count, 4))
            .append(" match no accepted transport (accepted: ")
            .append(settings.accepted())
            .append(')');
    String foreign =
        count == 4 ? Framing.describeForeignBytes(Framing.decodeLength(first, 0)) : null;
    if (foreign != null) {
      return sb.append("; they look like ").append(foreign).toString();
    }
    for (WireFormat kind : settings.kinds()) {
      if (kind.detect(in, start, available) == WireFormat.YES) {
        return sb.append("; they look like ")
            .append(kind.looksLike())
            .append(" (WireKind.")
            .append(kind.wireKind())
            .append("): ")
            .append(FirstBytes.acceptAdvice(kind.wireKind(), settings.accepted()))
            .toString();
      }
    }
    return sb.toString();
  }
}
