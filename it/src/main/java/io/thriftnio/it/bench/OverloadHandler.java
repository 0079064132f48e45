package io.thriftnio.it.bench;

import io.thriftnio.testkit.BenchHandler;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The handler of {@code serve --handler}: {@code echo} with real work behind it, for the {@code
 * overload} command. Every other method is {@link BenchHandler}'s.
 *
 * <p>An {@code echo} payload of at least {@value #PAYLOAD_BYTES} bytes carries the caller's
 * absolute deadline in its first 8 bytes (big-endian, microseconds since the epoch, {@link
 * #wallMicros()}): the handler counts each run that starts after it ({@link #lateRuns()}), so that
 * a report can say how many calls the server ran for a caller that had already given up. Client and
 * server share the machine's wall clock. A shorter payload carries no deadline.
 *
 * <p>The work: {@code cpu:100us} computes for about 100 microseconds of one CPU (a fixed number of
 * rounds of a 64-bit mix, calibrated when the handler is made); {@code sleep:5ms} sleeps 5 ms, so
 * that the worker threads, not the CPU, bound the server; {@code echo} does nothing (the plain
 * {@link BenchHandler}).
 */
final class OverloadHandler extends BenchHandler {

  /** The payload of an overload call: the deadline, then the caller's sequence number. */
  static final int PAYLOAD_BYTES = 16;

  /** What the handler does per call. */
  enum Kind {
    ECHO,
    CPU,
    SLEEP
  }

  /**
   * A {@code --handler} value.
   *
   * @param kind the work
   * @param micros the work's length, microseconds (0 for {@code echo})
   */
  record Spec(Kind kind, long micros) {

    /** {@code echo}, {@code cpu:100us}, {@code sleep:5ms}. */
    static Spec parse(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      if (v.equals("echo")) {
        return new Spec(Kind.ECHO, 0);
      }
      int colon = v.indexOf(':');
      String kind = colon < 0 ? v : v.substring(0, colon);
      if (colon < 0 || !(kind.equals("cpu") || kind.equals("sleep"))) {
        throw new IllegalArgumentException(
            "handler: "
                + value
                + " (expected: echo, cpu:DURATION or sleep:DURATION, e.g. cpu:100us)");
      }
      long micros = micros(v.substring(colon + 1), value);
      if (micros < 1 || micros > TimeUnit.SECONDS.toMicros(10)) {
        throw new IllegalArgumentException(
            "handler: " + value + " (expected: a duration of 1us..10s)");
      }
      return new Spec(kind.equals("cpu") ? Kind.CPU : Kind.SLEEP, micros);
    }

    private static long micros(String d, String whole) {
      try {
        if (d.endsWith("us")) {
          return Long.parseLong(d.substring(0, d.length() - 2).trim());
        }
        return TimeUnit.NANOSECONDS.toMicros(Cli.parseDuration(d).toNanos());
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "handler: " + whole + " (expected: a duration such as 100us, 5ms, 1s)", e);
      }
    }

    /** The value as {@link #parse} reads it: {@code cpu:100us}. */
    String label() {
      if (kind == Kind.ECHO) {
        return "echo";
      }
      String name = kind == Kind.CPU ? "cpu:" : "sleep:";
      return micros % 1000 == 0 ? name + micros / 1000 + "ms" : name + micros + "us";
    }
  }

  private final Spec spec;
  private final long rounds;
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong lateRuns = new AtomicLong();
  private volatile long sink;

  /** A handler doing {@code spec}'s work; a CPU handler calibrates itself here (about 0.3 s). */
  OverloadHandler(Spec spec) {
    this.spec = spec;
    this.rounds = spec.kind() == Kind.CPU ? calibrate(spec.micros()) : 0;
  }

  Spec spec() {
    return spec;
  }

  /** The rounds of the mix one CPU call computes; 0 for the other kinds. */
  long rounds() {
    return rounds;
  }

  /** {@code echo} calls run so far. */
  long runs() {
    return runs.get();
  }

  /** {@code echo} calls that started after the deadline their payload carried. */
  long lateRuns() {
    return lateRuns.get();
  }

  @Override
  public ByteBuffer echo(ByteBuffer payload) {
    runs.incrementAndGet();
    if (payload.remaining() >= PAYLOAD_BYTES
        && wallMicros() > payload.getLong(payload.position())) {
      lateRuns.incrementAndGet();
    }
    switch (spec.kind()) {
      case CPU -> sink = mix(rounds, payload.remaining());
      case SLEEP -> {
        try {
          TimeUnit.MICROSECONDS.sleep(spec.micros());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      case ECHO -> {}
    }
    return payload;
  }

  /** Microseconds since the epoch on the wall clock: what a caller's deadline is written in. */
  static long wallMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
  }

  /** {@code rounds} rounds of a 64-bit mix, each depending on the last: work the JIT must do. */
  static long mix(long rounds, long seed) {
    long x = seed ^ 0x9E3779B97F4A7C15L;
    for (long i = 0; i < rounds; i++) {
      x ^= x >>> 33;
      x *= 0xFF51AFD7ED558CCDL;
      x ^= x >>> 29;
      x += i;
    }
    return x;
  }

  /** The rounds that take about {@code micros} of this CPU, after the mix is compiled. */
  private long calibrate(long micros) {
    // Many short calls first, so that the method itself is compiled as echo will call it (a long
    // loop alone would compile only an on-stack replacement of it).
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < 1000; i++) {
        sink = mix(1000, i);
      }
    }
    // The fastest of many probes: a preempted probe would make the work too short.
    long probe = 10_000;
    double best = Double.MAX_VALUE;
    for (int i = 0; i < 200; i++) {
      long t0 = System.nanoTime();
      sink = mix(probe, t0);
      best = Math.min(best, Math.max(1e-3, (double) (System.nanoTime() - t0) / probe));
    }
    return Math.max(1, Math.round(micros * 1000 / best));
  }
}
