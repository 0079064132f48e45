package io.thriftnio.testkit;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Checkable payloads for the benchmark sizes: byte {@code i} of a payload made with {@code seed} is
 * a function of {@code i} and {@code seed}, so a receiver can verify every byte without keeping a
 * copy.
 */
public final class Payloads {

  /** 300 bytes. */
  public static final int SMALL = 300;

  /** 3 KiB. */
  public static final int MEDIUM = 3 * 1024;

  /** 3 MiB. */
  public static final int LARGE = 3 * 1024 * 1024;

  private Payloads() {}

  /** A payload of {@code size} bytes derived from {@code seed}, as a heap buffer. */
  public static ByteBuffer of(int size, long seed) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = byteAt(i, seed);
    }
    return ByteBuffer.wrap(b);
  }

  /**
   * Whether {@code payload} (position to limit) is exactly the payload {@code of(size, seed)}. Does
   * not move the buffer's position.
   */
  public static boolean check(ByteBuffer payload, int size, long seed) {
    if (payload == null || payload.remaining() != size) {
      return false;
    }
    int p = payload.position();
    for (int i = 0; i < size; i++) {
      if (payload.get(p + i) != byteAt(i, seed)) {
        return false;
      }
    }
    return true;
  }

  private static byte byteAt(int i, long seed) {
    long x = (i + 1) * 0x9E3779B97F4A7C15L ^ seed;
    x ^= x >>> 29;
    return (byte) x;
  }

  /**
   * Parses a size as the bench CLI writes it: {@code 300}, {@code 3k} (3 KiB), {@code 3m} (3 MiB).
   *
   * @throws IllegalArgumentException for anything else, or a size that is negative or above 1 GiB
   */
  public static int parseSize(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    int unit = 1;
    if (s.endsWith("k")) {
      unit = 1024;
      s = s.substring(0, s.length() - 1);
    } else if (s.endsWith("m")) {
      unit = 1024 * 1024;
      s = s.substring(0, s.length() - 1);
    }
    long value;
    try {
      value = Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "size: " + text + " (expected: bytes, or a number followed by k or m, e.g. 300, 3k, 3m)");
    }
    // Range-check before scaling: "18014398509481985k" would otherwise wrap around to 1 KiB.
    if (value < 0 || value > (1 << 30) / unit) {
      throw new IllegalArgumentException("size: " + text + " (expected: 0..1g)");
    }
    return (int) (value * unit);
  }

  /** Formats a size the way {@link #parseSize} reads it: 300, 3k, 3m. */
  public static String formatSize(int size) {
    if (size >= 1024 * 1024 && size % (1024 * 1024) == 0) {
      return size / (1024 * 1024) + "m";
    }
    if (size >= 1024 && size % 1024 == 0) {
      return size / 1024 + "k";
    }
    return Integer.toString(size);
  }
}
