package io.thriftnio.grizzly;

import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.Decoded;
import org.glassfish.grizzly.Buffer;

/**
 * A Grizzly {@link Buffer} as core's wire decoders read it: by absolute index, a run at a time. One
 * per connection, pointed at each buffer in turn ({@link #of}), so decoding allocates nothing; used
 * on the reading thread only: a bulk read moves the buffer's position and puts it back.
 */
final class GrizzlyBytes implements ByteSource {

  private Buffer buffer;

  /** This source, over {@code buffer} until the next call. */
  GrizzlyBytes of(Buffer buffer) {
    this.buffer = buffer;
    return this;
  }

  @Override
  public byte getByte(int index) {
    return buffer.get(index);
  }

  @Override
  public int getInt(int index) {
    return buffer.getInt(index);
  }

  @Override
  public void getBytes(int index, byte[] dst, int offset, int length) {
    int position = buffer.position();
    buffer.position(index); // Buffer has no absolute bulk read; the position is restored below
    try {
      buffer.get(dst, offset, length);
    } finally {
      buffer.position(position);
    }
  }

  /** The bytes of {@code input} from {@code end}, split off; {@code null} if none. */
  static Buffer after(Buffer input, int end) {
    return input.limit() > end ? input.split(end) : null;
  }

  /** {@code input} narrowed to the payload of the message decoded at {@code start}. */
  static Buffer view(Buffer input, int start, Decoded d) {
    input.limit(start + d.payloadOffset() + d.payloadLength());
    input.position(start + d.payloadOffset());
    return input;
  }
}
