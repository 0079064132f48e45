package io.thriftnio.it.bench;

import io.thriftnio.testkit.BenchHandler;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
 * <p>The work: {@code cpu:100us} computes until its thread has had 100 microseconds of CPU (its
 * thread's CPU time; rounds of a 64-bit mix, a chunk at a time), so that a call's work does not
 * depend on the JIT or on a calibration made while the JVM was starting; {@code sleep:5ms} sleeps 5
 * ms, so that the worker threads, not the CPU, bound the server; {@code echo} does nothing (the
 * plain {@link BenchHandler}).
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

  /** Rounds of the mix between two reads of the thread's CPU time: about a microsecond. */
  private static final int CHUNK = 1024;

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final Spec spec;
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong lateRuns = new AtomicLong();
  private volatile long sink;

  /** A handler doing {@code spec}'s work. */
  OverloadHandler(Spec spec) {
    this.spec = spec;
  }

  Spec spec() {
    return spec;
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
      case CPU -> sink = compute(spec.micros(), payload.remaining());
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

  /** Mixes until this thread has had {@code micros} more of CPU time. */
  static long compute(long micros, long seed) {
    long until = THREADS.getCurrentThreadCpuTime() + TimeUnit.MICROSECONDS.toNanos(micros);
    long x = seed;
    do {
      x = mix(CHUNK, x);
    } while (THREADS.getCurrentThreadCpuTime() < until);
    return x;
  }
}
