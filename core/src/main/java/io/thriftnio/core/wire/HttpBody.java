package io.thriftnio.core.wire;

import java.util.Arrays;

/**
 * Where an HTTP message's body lies in the bytes read: one run for a {@code Content-Length} body,
 * one per chunk for a chunked one, each an (offset, length) pair from the message's first byte.
 * Copied out in bulk, a run at a time.
 */
final class HttpBody {

  /** Runs as (offset, length) pairs; grows with the chunks received. */
  private int[] runs = new int[8];

  private int count;
  private int length;

  /** Adds a run of {@code size} bytes at {@code offset}. */
  void add(int offset, int size) {
    if (count * 2 == runs.length) {
      runs = Arrays.copyOf(runs, runs.length * 2);
    }
    runs[2 * count] = offset;
    runs[2 * count + 1] = size;
    count++;
    length += size;
  }

  /** The body's length so far, in bytes. */
  int length() {
    return length;
  }

  /** The offset of the first run; for a body of one run. */
  int start() {
    return count == 0 ? 0 : runs[0];
  }

  /** Copies the body's first {@code dst.length} bytes (at most {@link #length()}). */
  void copy(ByteSource in, int start, byte[] dst) {
    int at = 0;
    for (int i = 0; i < count && at < dst.length; i++) {
      int n = Math.min(runs[2 * i + 1], dst.length - at);
      in.getBytes(start + runs[2 * i], dst, at, n);
      at += n;
    }
  }

  void reset() {
    count = 0;
    length = 0;
  }
}
