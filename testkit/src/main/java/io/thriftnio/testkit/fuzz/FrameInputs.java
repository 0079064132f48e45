package io.thriftnio.testkit.fuzz;

import io.thriftnio.core.util.internal.Framing;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Byte streams for frame decoders, and the model that says what a decoder must make of them.
 *
 * <p>Kinds of stream, mixed at random: random bytes; valid frames with random payloads (lengths up
 * to the limit, exactly the limit included); valid frames then a bad length ({@code 0}, {@code -1},
 * {@code Integer.MIN_VALUE}, {@code Integer.MAX_VALUE}, {@code max + 1}, random negative, random
 * above the limit) and random bytes; valid frames cut anywhere; valid frames with bit flips,
 * insertions or deletions.
 */
public final class FrameInputs {

  /** A generated stream and what it is. */
  public record Stream(String kind, byte[] bytes) {}

  /**
   * What a conforming decoder makes of a stream: the frames it emits, then either a rejected length
   * (after which it emits nothing) or a partial frame left waiting.
   *
   * @param frames the payloads of the complete valid frames, in order
   * @param rejectedLength the first invalid length, or {@code null} if every length is valid
   * @param partialBytes the bytes of an incomplete frame at the end (0 when rejected)
   */
  public record Expected(List<byte[]> frames, Integer rejectedLength, int partialBytes) {}

  private FrameInputs() {}

  /**
   * A random stream.
   *
   * @param random the generator
   * @param maxFrameSize the decoder's limit
   * @return the stream
   */
  public static Stream next(Random random, int maxFrameSize) {
    switch (random.nextInt(6)) {
      case 0:
        return new Stream("random bytes", randomBytes(random, random.nextInt(64)));
      case 1:
        return new Stream("valid frames", validFrames(random, maxFrameSize, 1 + random.nextInt(5)));
      case 2:
        {
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          out.writeBytes(validFrames(random, maxFrameSize, random.nextInt(3)));
          int length = badLength(random, maxFrameSize);
          byte[] header = new byte[4];
          Framing.encodeLength(length, header, 0);
          out.writeBytes(header);
          out.writeBytes(randomBytes(random, random.nextInt(32)));
          return new Stream("valid frames then length " + length, out.toByteArray());
        }
      case 3:
        {
          byte[] frames = validFrames(random, maxFrameSize, 1 + random.nextInt(3));
          return new Stream(
              "valid frames cut", Arrays.copyOf(frames, random.nextInt(frames.length)));
        }
      default:
        return new Stream(
            "valid frames mutated",
            Mutations.mutate(random, validFrames(random, maxFrameSize, 1 + random.nextInt(3))));
    }
  }

  /** A length the frame rules reject. */
  public static int badLength(Random random, int maxFrameSize) {
    switch (random.nextInt(7)) {
      case 0:
        return 0;
      case 1:
        return -1;
      case 2:
        return Integer.MIN_VALUE;
      case 3:
        return maxFrameSize == Integer.MAX_VALUE ? -2 : Integer.MAX_VALUE;
      case 4:
        return maxFrameSize == Integer.MAX_VALUE ? -3 : maxFrameSize + 1;
      case 5:
        return Integer.MIN_VALUE + random.nextInt(Integer.MAX_VALUE);
      default:
        return maxFrameSize == Integer.MAX_VALUE
            ? -4
            : maxFrameSize + 1 + random.nextInt(Integer.MAX_VALUE - maxFrameSize);
    }
  }

  /** {@code count} well-formed frames; payload lengths mostly small, sometimes the limit. */
  public static byte[] validFrames(Random random, int maxFrameSize, int count) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < count; i++) {
      int length =
          random.nextInt(8) == 0
              ? Math.min(maxFrameSize, 4096)
              : 1 + random.nextInt(Math.min(maxFrameSize, 300));
      byte[] payload = randomBytes(random, length);
      byte[] header = new byte[4];
      Framing.encodeLength(length, header, 0);
      out.writeBytes(header);
      out.writeBytes(payload);
    }
    return out.toByteArray();
  }

  /** {@code length} random bytes. */
  public static byte[] randomBytes(Random random, int length) {
    byte[] b = new byte[length];
    random.nextBytes(b);
    return b;
  }

  /**
   * Split points for feeding {@code length} bytes in pieces: sometimes one byte at a time,
   * sometimes all at once, mostly random cuts.
   *
   * @return the sizes of the pieces, summing to {@code length}
   */
  public static List<Integer> pieces(Random random, int length) {
    List<Integer> sizes = new ArrayList<>();
    int mode = random.nextInt(4);
    int left = length;
    while (left > 0) {
      int n = mode == 0 ? 1 : mode == 1 ? left : 1 + random.nextInt(Math.min(left, 64));
      sizes.add(n);
      left -= n;
    }
    return sizes;
  }

  /**
   * What a decoder with {@code maxFrameSize} must make of {@code stream}.
   *
   * @param stream the bytes fed
   * @param maxFrameSize the decoder's limit
   * @return the expected frames and ending
   */
  public static Expected expected(byte[] stream, int maxFrameSize) {
    List<byte[]> frames = new ArrayList<>();
    int at = 0;
    while (stream.length - at >= Framing.HEADER_SIZE) {
      int length = Framing.decodeLength(stream, at);
      if (length <= 0 || length > maxFrameSize) {
        return new Expected(frames, length, 0);
      }
      if (stream.length - at - Framing.HEADER_SIZE < length) {
        break;
      }
      at += Framing.HEADER_SIZE;
      frames.add(Arrays.copyOfRange(stream, at, at + length));
      at += length;
    }
    return new Expected(frames, null, stream.length - at);
  }
}
