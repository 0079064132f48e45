package io.thriftnio.core.util.internal;

import java.nio.ByteBuffer;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * A read-only {@link org.apache.thrift.transport.TTransport} over exactly one frame's payload.
 *
 * <p>Each {@link #reset(ByteBuffer)} binds the transport's message-size budget to the frame's
 * length, so libthrift's container and string size checks (CVE-2020-13949 and later) compare a
 * declared size against the bytes actually present, and a long-lived connection never accumulates
 * toward a limit meant for one message. Reading past the frame fails with {@link
 * TTransportException#END_OF_FILE}; the transport never blocks.
 *
 * <p>The frame is read in place (no copy). When it is backed by an accessible array, the protocol's
 * direct-buffer fast path ({@link #getBuffer()}) is available. Not thread-safe: one transport per
 * frame in flight.
 */
public final class FrameInputTransport extends TEndpointTransport {

  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

  private ByteBuffer frame = EMPTY;

  /**
   * @param configuration the configuration handed to protocols (recursion limit, sizes); its {@code
   *     maxMessageSize} must be at least the largest frame that will be reset into this transport
   * @throws TTransportException never in practice; declared by the superclass constructor
   */
  public FrameInputTransport(TConfiguration configuration) throws TTransportException {
    super(configuration);
  }

  /**
   * Creates a transport over one frame.
   *
   * @param configuration see {@link #FrameInputTransport(TConfiguration)}
   * @param payload the frame's payload, from its position to its limit
   * @return the transport, positioned at the payload's first byte
   * @throws TTransportException if the payload is larger than the configuration's {@code
   *     maxMessageSize}
   */
  public static FrameInputTransport of(TConfiguration configuration, ByteBuffer payload)
      throws TTransportException {
    FrameInputTransport t = new FrameInputTransport(configuration);
    t.reset(payload);
    return t;
  }

  /**
   * Points this transport at another frame and resets the read budget to its length.
   *
   * @param payload the next frame's payload, read from its position to its limit; not copied, and
   *     its position is not changed by reads (the transport keeps its own view)
   * @throws TTransportException if the payload is larger than the configuration's {@code
   *     maxMessageSize}
   */
  public void reset(ByteBuffer payload) throws TTransportException {
    frame = payload.slice();
    resetConsumedMessageSize(-1);
    updateKnownMessageSize(frame.remaining());
  }

  /** Lets go of the frame: the transport reads nothing until the next {@link #reset}. */
  public void clear() {
    frame = EMPTY;
  }

  /**
   * The frame's unread bytes, from its position: the transport's own view, not a copy; its reader
   * must not move it (use {@link #consumeBuffer}).
   */
  public ByteBuffer unread() {
    return frame;
  }

  /** Bytes of the frame not yet read. */
  public int remaining() {
    return frame.remaining();
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void open() {}

  @Override
  public void close() {}

  @Override
  public int read(byte[] buf, int off, int len) throws TTransportException {
    int n = Math.min(len, frame.remaining());
    if (n <= 0) {
      if (len == 0) {
        return 0;
      }
      throw new TTransportException(
          TTransportException.END_OF_FILE,
          "read past the end of the frame (" + len + " bytes asked)");
    }
    frame.get(buf, off, n);
    consumed(n);
    return n;
  }

  @Override
  public void write(byte[] buf, int off, int len) throws TTransportException {
    throw new TTransportException(TTransportException.NOT_OPEN, "FrameInputTransport is read-only");
  }

  @Override
  public byte[] getBuffer() {
    return frame.hasArray() ? frame.array() : null;
  }

  @Override
  public int getBufferPosition() {
    return frame.hasArray() ? frame.arrayOffset() + frame.position() : 0;
  }

  @Override
  public int getBytesRemainingInBuffer() {
    return frame.hasArray() ? frame.remaining() : -1;
  }

  @Override
  public void consumeBuffer(int len) {
    frame.position(frame.position() + len);
    consumed(len);
  }

  /**
   * Refuses a declared size (a string's bytes, a container's least bytes) that the frame's unread
   * bytes cannot hold, before the protocol allocates for it ({@link
   * TTransportException#MESSAGE_SIZE_LIMIT}), with both numbers: libthrift's own text names its
   * {@code maxMessageSize}, which is not the bound here.
   */
  @Override
  public void checkReadBytesAvailable(long numBytes) throws TTransportException {
    if (numBytes > remainingMessageSize) {
      throw new TTransportException(
          TTransportException.MESSAGE_SIZE_LIMIT,
          "a size of "
              + numBytes
              + " bytes declared with "
              + Math.max(0, remainingMessageSize)
              + " bytes left in a frame of "
              + knownMessageSize);
    }
  }

  // Spend the read budget as bytes are read, so that libthrift's size checks compare a declared
  // size with the bytes left in the frame, not with the whole frame. Reads never pass the frame's
  // end, so the budget cannot go below zero.
  private void consumed(int n) {
    remainingMessageSize -= n;
  }
}
