package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.thriftnio.core.wire.ByteSource;

/** A {@link ByteBuf} as core's wire decoders read it: by absolute index, in bulk. */
final class NettyBytes implements ByteSource {

  private ByteBuf buf;

  /** This source, over {@code buf} until the next call. */
  NettyBytes of(ByteBuf buf) {
    this.buf = buf;
    return this;
  }

  @Override
  public byte getByte(int index) {
    return buf.getByte(index);
  }

  @Override
  public int getInt(int index) {
    return buf.getInt(index);
  }

  @Override
  public void getBytes(int index, byte[] dst, int offset, int length) {
    buf.getBytes(index, dst, offset, length);
  }
}
