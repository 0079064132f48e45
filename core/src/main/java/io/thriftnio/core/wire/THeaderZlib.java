package io.thriftnio.core.wire;

import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * THeader's zlib transform (id 1): a zlib stream (RFC 1950, what {@code zlib.compress} and C++'s
 * {@code deflate} write), inflated into an array that grows with what the stream yields and stops
 * at a limit, so a small stream that would inflate past {@code maxFrameSize} (a zlib bomb) is
 * refused having produced at most the limit.
 */
final class THeaderZlib {

  /** What broke the stream or the limit, with the numbers. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The first output array for an input of n bytes holds 4 n: text and Thrift structs compress
   * about so.
   */
  private static final int FIRST_RATIO = 4;

  private static final int MIN_CAPACITY = 256;

  private THeaderZlib() {}

  /**
   * Inflates {@code input}.
   *
   * @param input the whole zlib stream; bytes after its end are ignored
   * @param limit the largest inflated size accepted, in bytes
   * @return the inflated bytes, exactly
   * @throws Refused if the stream is corrupt or cut short, or inflates past {@code limit}
   */
  static byte[] inflate(byte[] input, int limit) throws Refused {
    Inflater inflater = new Inflater();
    try {
      inflater.setInput(input);
      int first = (int) Math.min(limit, Math.max(MIN_CAPACITY, (long) input.length * FIRST_RATIO));
      byte[] out = new byte[first];
      int n = 0;
      while (!inflater.finished()) {
        if (n == out.length) {
          if (n == limit) {
            // Full at the limit: one more byte out of the stream is one byte too many.
            if (inflater.inflate(new byte[1]) > 0) {
              throw new Refused(
                  "zlib payload of "
                      + input.length
                      + " bytes inflates past maxFrameSize "
                      + limit
                      + " (stopped at "
                      + limit
                      + ")");
            }
            if (inflater.finished()) {
              break;
            }
            throw cutShort(input.length, n);
          }
          out = Arrays.copyOf(out, (int) Math.min(limit, (long) out.length * 2));
        }
        int k = inflater.inflate(out, n, out.length - n);
        if (k == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw cutShort(input.length, n);
        }
        n += k;
      }
      return n == out.length ? out : Arrays.copyOf(out, n);
    } catch (DataFormatException e) {
      throw new Refused("zlib payload of " + input.length + " bytes is corrupt: " + e.getMessage());
    } finally {
      inflater.end();
    }
  }

  private static Refused cutShort(int inputLength, int inflated) {
    return new Refused(
        "zlib payload of "
            + inputLength
            + " bytes ends before its stream does (inflated "
            + inflated
            + " bytes)");
  }

  /**
   * Deflates {@code length} bytes of {@code input} from {@code offset} into a zlib stream.
   *
   * @return the stream, exactly
   */
  static byte[] deflate(byte[] input, int offset, int length) {
    Deflater deflater = new Deflater();
    try {
      deflater.setInput(input, offset, length);
      deflater.finish();
      // zlib's bound for one pass: the input, 0.1% more, and the stream's own bytes.
      byte[] out = new byte[length + (length >>> 10) + 64];
      int n = 0;
      while (!deflater.finished()) {
        if (n == out.length) {
          out = Arrays.copyOf(out, out.length * 2);
        }
        n += deflater.deflate(out, n, out.length - n);
      }
      return Arrays.copyOf(out, n);
    } finally {
      deflater.end();
    }
  }
}
