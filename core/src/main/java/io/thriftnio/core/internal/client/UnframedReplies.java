package io.thriftnio.core.internal.client;

import io.thriftnio.core.internal.UnframedMessages;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketAddress;
import java.util.Arrays;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TTransportException;

/**
 * Cuts unframed replies ({@code WireTransport.UNFRAMED}) out of a blocking stream for {@link
 * SocketFramedTransport}: each reply's end is found by walking it with core's {@link
 * UnframedMessages}, the walk resumed where it stopped on each read, so a large reply is walked
 * once. The encoding is told by the first reply's first byte ({@code 80} strict binary, {@code 82}
 * compact, {@code [} JSON) and kept for the connection.
 *
 * <pre>
 * buffer:  | reply 1 (whole)          | start of reply 2 ... |
 *          0                          length                 end
 * next()   =&gt; length; reply 1 is buffer[0, length), exposed as the transport's frame
 * next()   the caller consumed reply 1: reply 2's bytes move to index 0, the walk goes on
 * </pre>
 *
 * <p>The buffer grows with the bytes received, never with a size declared, and holds at most {@code
 * maxFrameSize + 1} bytes: a reply that has not ended by then is refused, as is a declared string
 * or container that cannot fit, as soon as its size is read. Its static methods word the errors
 * every unframed client reports. Not thread-safe. Not part of the API.
 */
public final class UnframedReplies {

  private static final int INITIAL_CAPACITY = 8 * 1024;
  private static final int GROWTH_STEP = 64 * 1024;

  /** The largest array a JVM reliably allocates. */
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  private final InputStream in;
  private final SocketAddress peer;
  private final int maxFrameSize;
  private final UnframedMessages.ByteSource source = this::byteAt;

  private UnframedMessages walk;
  private byte[] buffer = new byte[0];

  /** Bytes of the reply delivered last, still at the buffer's head until the next call. */
  private int delivered;

  /** Bytes buffered, from index 0. */
  private int end;

  UnframedReplies(InputStream in, SocketAddress peer, int maxFrameSize) {
    this.in = in;
    this.peer = peer;
    this.maxFrameSize = maxFrameSize;
  }

  /** The buffer holding the reply {@link #next} found, from index 0. */
  byte[] buffer() {
    return buffer;
  }

  /**
   * Reads until the next reply is whole; the one delivered before must have been consumed.
   *
   * @return the reply's length; it occupies {@code buffer()[0, length)}
   * @throws TTransportException {@code END_OF_FILE} if the stream ends first, {@code
   *     CORRUPTED_DATA} if the bytes are no reply or break a limit
   * @throws IOException if the stream fails
   */
  int next() throws IOException, TTransportException {
    if (delivered > 0) {
      System.arraycopy(buffer, delivered, buffer, 0, end - delivered);
      end -= delivered;
      delivered = 0;
    }
    while (true) {
      if (end > 0) {
        int length = walk(end);
        if (length != UnframedMessages.NEED_MORE) {
          walk.reset();
          delivered = length;
          return length;
        }
      }
      if (end == buffer.length) {
        grow();
      }
      int n = in.read(buffer, end, buffer.length - end);
      if (n < 0) {
        throw end == 0 ? ClientErrors.closedByPeer(peer) : truncated(peer, end, maxFrameSize);
      }
      end += n;
    }
  }

  private int walk(int available) throws TTransportException {
    if (walk == null) {
      UnframedMessages.Protocol protocol = UnframedMessages.Protocol.of(buffer[0]);
      if (protocol == null) {
        throw notAReply(peer, buffer[0]);
      }
      walk = new UnframedMessages(protocol, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH);
    }
    try {
      return walk.next(source, 0, available);
    } catch (UnframedMessages.InvalidMessageException e) {
      throw invalid(e.describe(walk.protocol(), ClientErrors.peer(peer)));
    }
  }

  private byte byteAt(int index) {
    return buffer[index];
  }

  /**
   * Grown by doubling, in steps of at most 64 KiB, to at most {@code maxFrameSize + 1} bytes: one
   * byte past the limit is how the walk learns that a reply has not ended within it.
   */
  private void grow() throws TTransportException {
    long limit = Math.min((long) maxFrameSize + 1, MAX_ARRAY);
    if (buffer.length >= limit) { // only with maxFrameSize near Integer.MAX_VALUE
      throw invalid(
          "invalid unframed reply from "
              + ClientErrors.peer(peer)
              + ": not ended within "
              + buffer.length
              + " bytes (maxFrameSize "
              + maxFrameSize
              + ")");
    }
    long grown =
        Math.min(limit, Math.max(INITIAL_CAPACITY, Math.min(2L * end, (long) end + GROWTH_STEP)));
    buffer = Arrays.copyOf(buffer, (int) grown);
  }

  /** Drops the buffered bytes, for a transport that closes. */
  void clear() {
    buffer = new byte[0];
    delivered = 0;
    end = 0;
  }

  // ---- the errors every unframed client reports, on every transport ----

  /**
   * The first byte of a reply is no unframed message start: the peer is no unframed Thrift server
   * (a framed one, say, whose length prefix starts {@code 00}).
   */
  public static TTransportException notAReply(SocketAddress peer, byte first) {
    return invalid(notAReplyReason(peer, first));
  }

  /** {@link #notAReply}'s text, for an IO adapter that reports it its own way first. */
  public static String notAReplyReason(Object peer, byte first) {
    return String.format(
        "invalid unframed reply from %s: first byte %02x (expected: 80 strict binary, 82 compact or"
            + " 5b '[' JSON; a framed server's replies start with a length)",
        peer instanceof SocketAddress ? ClientErrors.peer((SocketAddress) peer) : peer,
        first & 0xff);
  }

  /** A reply that breaks its encoding or the size limit; {@code reason} says which and where. */
  public static TTransportException invalid(String reason) {
    return new TTransportException(
        TTransportException.CORRUPTED_DATA, reason + "; connection closed");
  }

  /** The stream ended {@code received} bytes into a reply. */
  public static TTransportException truncated(SocketAddress peer, int received, int maxFrameSize) {
    return new TTransportException(
        TTransportException.END_OF_FILE,
        "connection to "
            + ClientErrors.peer(peer)
            + " closed by the peer "
            + received
            + " bytes into an unframed reply (maxFrameSize "
            + maxFrameSize
            + ")");
  }
}
