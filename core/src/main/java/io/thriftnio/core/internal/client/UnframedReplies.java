package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.WireEvent;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.Arrays;
import org.apache.thrift.transport.TTransportException;

/**
 * Cuts unframed replies ({@code WireKind.UNFRAMED}) out of a blocking stream for {@link
 * SocketFramedTransport}: each reply's end is found by core's wire ({@link ClientCodec}), the walk
 * resumed where it stopped on each read, so a large reply is walked once. The encoding is told by
 * the first reply's first byte ({@code 80} strict binary, {@code 82} compact, {@code [} JSON) and
 * kept for the connection.
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
 * or container that cannot fit, as soon as its size is read. Not thread-safe. Not part of the API.
 */
final class UnframedReplies {

  private static final int INITIAL_CAPACITY = 8 * 1024;
  private static final int GROWTH_STEP = 64 * 1024;

  /** The largest array a JVM reliably allocates. */
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  private final InputStream in;
  private final InetSocketAddress peer;
  private final int maxFrameSize;
  private final ClientCodec codec;
  private final String shape;
  private boolean repliesSeen;

  private byte[] buffer = new byte[0];
  private ByteSource source = ByteSource.of(buffer);

  /** Bytes of the reply delivered last, still at the buffer's head until the next call. */
  private int delivered;

  /** Bytes buffered, from index 0. */
  private int end;

  UnframedReplies(InputStream in, InetSocketAddress peer, ClientOptions options) {
    this.in = in;
    this.peer = peer;
    this.maxFrameSize = options.maxFrameSize();
    this.codec = ClientCodec.of(options, peer, ClientErrors.peer(peer));
    this.shape = ClientErrors.shape(options);
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
      if (end > 0 && found(codec.next(source, 0, end))) {
        delivered = codec.decoded().consumed();
        repliesSeen = true;
        return delivered;
      }
      if (end == buffer.length) {
        grow();
      }
      int n = in.read(buffer, end, buffer.length - end);
      if (n < 0) {
        if (end == 0) {
          throw ClientErrors.closedByPeer(peer, repliesSeen ? null : shape);
        }
        found(codec.endOfStream(source, 0, end)); // a reply cut short is refused, saying where
        throw ClientErrors.closedByPeer(peer, repliesSeen ? null : shape);
      }
      end += n;
    }
  }

  /** Whether a whole reply was found; a refusal is thrown. */
  private boolean found(WireEvent event) throws TTransportException {
    if (event == WireEvent.REFUSED) {
      Exception refused = codec.decoded().refusal().exception();
      throw refused instanceof TTransportException
          ? (TTransportException) refused
          : new TTransportException(TTransportException.CORRUPTED_DATA, refused);
    }
    return event == WireEvent.MESSAGE;
  }

  /**
   * Grown by doubling, in steps of at most 64 KiB, to at most {@code maxFrameSize + 1} bytes: one
   * byte past the limit is how the walk learns that a reply has not ended within it.
   */
  private void grow() throws TTransportException {
    long limit = Math.min((long) maxFrameSize + 1, MAX_ARRAY);
    if (buffer.length >= limit) { // only with maxFrameSize near Integer.MAX_VALUE
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "invalid unframed reply from "
              + ClientErrors.peer(peer)
              + ": not ended within "
              + buffer.length
              + " bytes (maxFrameSize "
              + maxFrameSize
              + "); connection closed");
    }
    long grown =
        Math.min(limit, Math.max(INITIAL_CAPACITY, Math.min(2L * end, (long) end + GROWTH_STEP)));
    buffer = Arrays.copyOf(buffer, (int) grown);
    source = ByteSource.of(buffer);
  }

  /** Drops the buffered bytes, for a transport that closes. */
  void clear() {
    buffer = new byte[0];
    source = ByteSource.of(buffer);
    delivered = 0;
    end = 0;
  }
}
