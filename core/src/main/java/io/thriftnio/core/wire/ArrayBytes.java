package io.thriftnio.core.wire;

/** A byte array as a {@link ByteSource}, indexed as the array is. */
final class ArrayBytes implements ByteSource {
  private final byte[] array;

  ArrayBytes(byte[] array) {
    this.array = array;
  }

  @Override
  public byte getByte(int index) {
    return array[index];
  }

  @Override
  public int getInt(int index) {
    return (array[index] & 0xff) << 24
        | (array[index + 1] & 0xff) << 16
        | (array[index + 2] & 0xff) << 8
        | (array[index + 3] & 0xff);
  }

  @Override
  public void getBytes(int index, byte[] dst, int offset, int length) {
    System.arraycopy(array, index, dst, offset, length);
  }
}
