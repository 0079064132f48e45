package io.thriftnio.testkit.fuzz;

import java.util.HexFormat;
import java.util.Random;

/**
 * Runs a seeded fuzz loop: one {@link Random} per input, derived from the run's seed and the
 * input's index, so that any failing input can be replayed alone. Budget and seed come from system
 * properties (surefire passes {@code -D} options of the Maven command line through):
 *
 * <ul>
 *   <li>{@value #SEED}: the run's seed (default: the test's fixed seed, so the normal build is
 *       reproducible);
 *   <li>{@value #SECONDS}: run for this many seconds instead of a fixed number of inputs;
 *   <li>{@value #INPUTS}: the number of inputs when no time is given (default: the test's);
 *   <li>{@value #CASE}: replay only the input with this index.
 * </ul>
 *
 * <p>Every failure names the seed, the input index, the property settings that replay it, what the
 * input was and its bytes in hex. Every run prints how many inputs it tried.
 */
public final class Fuzz {

  /** System property: the seed. */
  public static final String SEED = "thriftnio.fuzz.seed";

  /** System property: the time budget, in seconds. */
  public static final String SECONDS = "thriftnio.fuzz.seconds";

  /** System property: the number of inputs. */
  public static final String INPUTS = "thriftnio.fuzz.inputs";

  /** System property: the index of the one input to replay. */
  public static final String CASE = "thriftnio.fuzz.case";

  private static final HexFormat HEX = HexFormat.of();

  /** One fuzz input: what the body generated, for the failure message. */
  public static final class Input {
    private String description = "(not recorded)";
    private byte[] bytes = new byte[0];

    /**
     * Records the input under test, for the failure message.
     *
     * @param description what kind of input it is
     * @param bytes the bytes sent or fed
     */
    public void record(String description, byte[] bytes) {
      this.description = description;
      this.bytes = bytes;
    }
  }

  /** The body of a fuzz loop: generates one input from {@code random}, feeds it, checks it. */
  @FunctionalInterface
  public interface Body {
    /**
     * Runs one input.
     *
     * @param index the input's index in the run
     * @param random this input's generator
     * @param input where to record the input
     * @throws Exception on any failure
     */
    void run(int index, Random random, Input input) throws Exception;
  }

  private final String name;
  private final long seed;
  private final int inputs;
  private final long seconds;
  private final int onlyCase;

  private Fuzz(String name, long seed, int inputs, long seconds, int onlyCase) {
    this.name = name;
    this.seed = seed;
    this.inputs = inputs;
    this.seconds = seconds;
    this.onlyCase = onlyCase;
  }

  /**
   * A run configured from the system properties.
   *
   * @param name names the run in messages
   * @param defaultSeed the seed when {@value #SEED} is not set
   * @param defaultInputs the number of inputs when neither {@value #SECONDS} nor {@value #INPUTS}
   *     is set
   * @return the run
   */
  public static Fuzz of(String name, long defaultSeed, int defaultInputs) {
    return new Fuzz(
        name,
        Long.decode(property(SEED, Long.toString(defaultSeed))),
        Integer.parseInt(property(INPUTS, Integer.toString(defaultInputs))),
        Long.parseLong(property(SECONDS, "0")),
        Integer.parseInt(property(CASE, "-1")));
  }

  private static String property(String key, String fallback) {
    String value = System.getProperty(key);
    return value == null || value.isBlank() ? fallback : value.trim();
  }

  /** The run's seed. */
  public long seed() {
    return seed;
  }

  /** Whether the run is time-bound (a long run) rather than a fixed number of inputs. */
  public boolean timed() {
    return seconds > 0;
  }

  /**
   * Runs {@code body} once per input.
   *
   * @param body generates, feeds and checks one input
   * @return the number of inputs tried
   * @throws AssertionError for the first failing input, with the seed, the index and the input
   */
  public int run(Body body) {
    long start = System.nanoTime();
    long deadline = start + seconds * 1_000_000_000L;
    int tried = 0;
    for (int i = onlyCase >= 0 ? onlyCase : 0; ; i++) {
      if (onlyCase >= 0 ? i > onlyCase : seconds > 0 ? System.nanoTime() > deadline : i >= inputs) {
        break;
      }
      Input input = new Input();
      try {
        body.run(i, new Random(seedOf(i)), input);
      } catch (Throwable t) {
        throw new AssertionError(
            String.format(
                "fuzz %s failed on input %d (seed %d; replay with -D%s=%d -D%s=%d): %s%n"
                    + "input: %s, %d bytes%n%s%ncause: %s",
                name,
                i,
                seed,
                SEED,
                seed,
                CASE,
                i,
                t.getMessage(),
                input.description,
                input.bytes.length,
                HEX.formatHex(input.bytes),
                t),
            t);
      }
      tried++;
    }
    // stderr: a test may be capturing stdout, where the log goes, while it runs.
    System.err.printf(
        "fuzz %s: %d inputs in %.1f s (seed %d)%n",
        name, tried, (System.nanoTime() - start) / 1e9, seed);
    return tried;
  }

  private long seedOf(int index) {
    long z = seed + 0x9E3779B97F4A7C15L * (index + 1L); // SplitMix64: neighbours differ widely
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Bytes in hex, for messages. */
  public static String hex(byte[] bytes) {
    return HEX.formatHex(bytes);
  }
}
