package io.thriftnio.core.wire;

/**
 * The bytes an IO adapter has buffered for one connection, read by absolute index: what every
 * decoder of this package reads. Each adapter implements it over its own buffer type (Netty's
 * {@code ByteBuf}, Grizzly's {@code Buffer}); core's blocking transports use {@link #of(byte[])}.
 *
 * <p>Reads are bulk: a decoder takes a frame's length with one {@link #getInt} and copies a line, a
 * name or a chunk with one {@link #getBytes}, never a byte at a time through this interface on the
 * hot path. No method moves a position: the adapter alone consumes what a decoder reports as
 * consumed.
 */
public interface ByteSource {

  /**
   * The byte at {@code index}.
   *
   * @param index an index the caller was told holds a byte
   * @return the byte
   */
  byte getByte(int index);

  /**
   * The signed 32-bit big-endian integer at {@code index}.
   *
   * @param index the index of its first byte; four bytes must be buffered from there
   * @return the integer
   */
  int getInt(int index);

  /**
   * Copies {@code length} bytes from {@code index} into {@code dst} at {@code offset}.
   *
   * @param index the index of the first byte copied
   * @param dst where the bytes go
   * @param offset the index in {@code dst} of the first byte written
   * @param length how many bytes; all must be buffered
   */
  void getBytes(int index, byte[] dst, int offset, int length);

  /**
   * The bytes of an array, by their index in it.
   *
   * @param array the bytes; read, never copied or changed
   * @return a source over {@code array}
   */
  static ByteSource of(byte[] array) {
    return new ArrayBytes(array);
  }
}
