package io.thriftnio.core.util.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * A write-only {@link org.apache.thrift.transport.TTransport} that builds one frame in one growing
 * array: four placeholder bytes for the length, then the payload. {@link #toFrame()} patches the
 * length in place, so the finished frame leaves without another copy.
 *
 * <pre>
 *  [ ? ? ? ? | payload written by the protocol ... ]   while writing
 *  [ length  | payload                             ]   after toFrame()
 * </pre>
 *
 * <p>Writing more than {@code maxFrameSize} payload bytes fails with the exception its {@link
 * Overflow} makes (the API's {@code FrameSizeException}: {@code
 * io.thriftnio.core.internal.FrameLength#output}) rather than producing a frame no peer would
 * accept. {@link #flush()} does nothing: the caller decides when the frame is done. Not
 * thread-safe. Not an API.
 */
public final class FrameOutputTransport extends TEndpointTransport {

  /**
   * Makes the failure of a write past the limit: the API's {@code FrameSizeException}, a type this
   * package may not name.
   */
  @FunctionalInterface
  public interface Overflow {
    /**
     * The failure.
     *
     * @param payloadSize the payload's size, had the write gone through
     * @param maxFrameSize the limit
     * @return the exception to throw
     */
    TTransportException tooLarge(int payloadSize, int maxFrameSize);
  }

  private static final int DEFAULT_INITIAL_CAPACITY = 256;
  // With a maxFrameSize near Integer.MAX_VALUE (AsyncClients' buffers), growth would overflow the
  // int array length; this is the JDK's own soft limit on array sizes.
  private static final long MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

  private final int maxFrameSize;
  private final Overflow overflow;
  private byte[] buf;
  private int size;

  /**
   * @param configuration the configuration handed to protocols; its {@code maxFrameSize} bounds the
   *     payload (at most {@code Integer.MAX_VALUE - 12} bytes, the largest array a JVM allocates
   *     less the length prefix)
   * @param initialCapacity the initial payload capacity in bytes; the array grows as needed
   * @param overflow makes the failure of a write past the limit
   * @throws TTransportException never in practice; declared by the superclass constructor
   */
  public FrameOutputTransport(TConfiguration configuration, int initialCapacity, Overflow overflow)
      throws TTransportException {
    super(configuration);
    this.overflow = Objects.requireNonNull(overflow, "overflow");
    if (initialCapacity < 0) {
      throw new IllegalArgumentException(
          "initialCapacity: " + initialCapacity + " (expected: >= 0)");
    }
    this.maxFrameSize =
        (int)
            Math.min(getConfiguration().getMaxFrameSize(), MAX_ARRAY_LENGTH - Framing.HEADER_SIZE);
    this.buf = new byte[Framing.HEADER_SIZE + initialCapacity];
    this.size = Framing.HEADER_SIZE;
  }

  /**
   * A transport with a 256-byte initial capacity.
   *
   * @param configuration see {@link #FrameOutputTransport(TConfiguration, int, Overflow)}
   * @param overflow makes the failure of a write past the limit
   * @throws TTransportException never in practice; declared by the superclass constructor
   */
  public FrameOutputTransport(TConfiguration configuration, Overflow overflow)
      throws TTransportException {
    this(configuration, DEFAULT_INITIAL_CAPACITY, overflow);
  }

  /** Payload bytes written so far (the length prefix not counted). */
  public int payloadSize() {
    return size - Framing.HEADER_SIZE;
  }

  /** Discards the payload written so far, keeping the array for reuse. */
  public void reset() {
    size = Framing.HEADER_SIZE;
  }

  /**
   * Starts the next frame in a new array, leaving the current one to whoever holds a buffer from
   * {@link #toFrame()}: lets one transport (and the protocol over it) build many frames that each
   * leave on their own.
   *
   * @param initialCapacity the new array's payload capacity in bytes; it grows as needed
   */
  public void renew(int initialCapacity) {
    if (initialCapacity < 0) {
      throw new IllegalArgumentException(
          "initialCapacity: " + initialCapacity + " (expected: >= 0)");
    }
    buf = new byte[Framing.HEADER_SIZE + initialCapacity];
    size = Framing.HEADER_SIZE;
  }

  /**
   * Finishes the frame: writes the payload length into the placeholder.
   *
   * @return a buffer over the whole frame (prefix and payload), backed by this transport's array;
   *     {@link #reset()} or further writes invalidate it
   */
  public ByteBuffer toFrame() {
    Framing.encodeLength(size - Framing.HEADER_SIZE, buf, 0);
    return ByteBuffer.wrap(buf, 0, size);
  }

  /**
   * The payload written so far, without the length prefix, backed by this transport's array.
   *
   * @return a buffer positioned at the payload's first byte
   */
  public ByteBuffer payload() {
    return ByteBuffer.wrap(buf, Framing.HEADER_SIZE, size - Framing.HEADER_SIZE);
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
    throw new TTransportException(
        TTransportException.NOT_OPEN, "FrameOutputTransport is write-only");
  }

  /**
   * Copies {@code src}'s remaining bytes straight into the frame (libthrift's default goes through
   * a temporary array), advancing its position as the default does.
   */
  @Override
  public int write(ByteBuffer src) throws TTransportException {
    int len = src.remaining();
    ensureRoom(len);
    src.get(buf, size, len);
    size += len;
    return len;
  }

  @Override
  public void write(byte[] src, int off, int len) throws TTransportException {
    ensureRoom(len);
    System.arraycopy(src, off, buf, size, len);
    size += len;
  }

  private void ensureRoom(int len) throws TTransportException {
    int newSize = size + len;
    if (newSize - Framing.HEADER_SIZE > maxFrameSize || newSize < 0) {
      throw overflow.tooLarge(newSize - Framing.HEADER_SIZE, maxFrameSize);
    }
    if (newSize > buf.length) {
      long grown = Math.max((long) buf.length << 1, newSize);
      buf = Arrays.copyOf(buf, (int) Math.min(grown, (long) maxFrameSize + Framing.HEADER_SIZE));
    }
  }
}
