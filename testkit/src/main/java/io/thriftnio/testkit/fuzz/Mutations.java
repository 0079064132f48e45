package io.thriftnio.testkit.fuzz;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;

/** Mutations of valid inputs: bit flips, byte overwrites, truncation, insertion, deletion. */
public final class Mutations {

  private static final byte[] INTERESTING = {0, 1, 0x7f, (byte) 0x80, (byte) 0xff, 0x0b, 0x0c};

  private Mutations() {}

  /**
   * Applies one to four random mutations to a copy of {@code input}.
   *
   * @param random the generator
   * @param input the valid input
   * @return the mutated copy
   */
  public static byte[] mutate(Random random, byte[] input) {
    byte[] b = input.clone();
    int count = 1 + random.nextInt(4);
    for (int i = 0; i < count; i++) {
      b = mutateOnce(random, b);
    }
    return b;
  }

  private static byte[] mutateOnce(Random random, byte[] b) {
    if (b.length == 0) {
      return FrameInputs.randomBytes(random, 1 + random.nextInt(8));
    }
    int at = random.nextInt(b.length);
    switch (random.nextInt(6)) {
      case 0: // bit flip
        b[at] ^= (byte) (1 << random.nextInt(8));
        return b;
      case 1: // interesting byte
        b[at] = INTERESTING[random.nextInt(INTERESTING.length)];
        return b;
      case 2: // truncation
        return Arrays.copyOf(b, at);
      case 3: // insertion
        {
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          out.write(b, 0, at);
          out.writeBytes(FrameInputs.randomBytes(random, 1 + random.nextInt(8)));
          out.write(b, at, b.length - at);
          return out.toByteArray();
        }
      case 4: // deletion
        {
          int n = Math.min(b.length - at, 1 + random.nextInt(8));
          byte[] out = new byte[b.length - n];
          System.arraycopy(b, 0, out, 0, at);
          System.arraycopy(b, at + n, out, at, b.length - at - n);
          return out;
        }
      default: // random byte
        b[at] = (byte) random.nextInt(256);
        return b;
    }
  }
}
