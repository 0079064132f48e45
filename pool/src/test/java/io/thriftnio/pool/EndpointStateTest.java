package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.conformance.LogCapture;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The probe of a down endpoint, driven by a hand-moved clock. The rule under test: after any
 * sequence of connect failures, timeouts and interrupts, once the back-off has passed a borrower
 * can probe. Each case below is a path that once left the probe held for good.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EndpointStateTest {
  private static final long MS = 1_000_000L;
  private static final Duration BACKOFF = Duration.ofMillis(100);
  private static final Duration MAX_BACKOFF = Duration.ofMillis(800);
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

  private final AtomicLong clock = new AtomicLong(1_000 * MS);
  private final EndpointState state =
      new EndpointState(
          new InetSocketAddress("127.0.0.1", 9),
          BACKOFF,
          MAX_BACKOFF,
          MAX_BACKOFF,
          PROBE_TIMEOUT,
          clock::get,
          () -> 0); // no jitter: every back-off is its step's value

  private static ConnectException refused() {
    return new ConnectException("Connection refused");
  }

  private void advance(Duration d) {
    clock.addAndGet(d.toNanos());
  }

  /**
   * Moves the clock until a probe is granted; fails when none comes within the longest back-off.
   */
  private EndpointState.Lease probeWithinMaxBackoff() {
    long limit = clock.get() + MAX_BACKOFF.toNanos();
    while (clock.get() - limit <= 0) {
      EndpointState.Lease lease = state.tryAcquire(false);
      if (lease != null) {
        assertThat(lease.isProbe()).isTrue();
        return lease;
      }
      advance(Duration.ofMillis(1));
    }
    throw new AssertionError("no probe within " + MAX_BACKOFF + ": " + state.describeDown());
  }

  /**
   * The lines {@link EndpointState} logs, as {@code LEVEL text}, read from {@code System.out} where
   * slf4j-simple writes in tests (the pom sets {@code logFile=System.out} and this class's level to
   * INFO), passed on as they come. Close it to stop.
   */
  static final class RecordingLog implements AutoCloseable {
    private static final String PREFIX = " " + EndpointState.class.getName() + " - ";
    private final LogCapture capture = new LogCapture();

    /** {@code [main] WARN io.thriftnio.pool.EndpointState - text} as {@code WARN text}. */
    List<String> lines() {
      List<String> lines = new ArrayList<>();
      for (String line : capture.linesContaining(PREFIX)) {
        int at = line.indexOf(PREFIX);
        String head = line.substring(0, at);
        lines.add(
            head.substring(head.lastIndexOf(' ') + 1) + " " + line.substring(at + PREFIX.length()));
      }
      return lines;
    }

    @Override
    public void close() {
      capture.close();
    }
  }

  @Test
  void eachStateChangeIsLoggedOnceNeverPerCall() {
    try (RecordingLog log = new RecordingLog()) {
      loggedOnce(log);
    }
  }

  private void loggedOnce(RecordingLog log) {
    for (int i = 0; i < 100; i++) {
      state.tryAcquire(false).close(); // calls while up: nothing to log
    }
    assertThat(log.lines()).isEmpty();

    state.connectFailed(refused());
    state.connectFailed(refused()); // the same outage: no second line
    for (int i = 0; i < 100; i++) {
      assertThat(state.tryAcquire(false)).isNull(); // refused within the back-off: no line
    }
    assertThat(log.lines())
        .containsExactly(
            "WARN 127.0.0.1:9: down after a connect failure (outage step 1), next probe in 100"
                + " ms: java.net.ConnectException: Connection refused");

    advance(BACKOFF);
    EndpointState.Lease peek = state.tryAcquire(true); // a peek never connects: no line
    peek.close();
    EndpointState.Lease probe = state.tryAcquire(false);
    assertThat(state.tryAcquire(false)).isNull(); // one probe at a time
    state.connectFailed(refused());
    probe.close();
    advance(Duration.ofMillis(200));
    EndpointState.Lease second = state.tryAcquire(false);
    state.succeeded(second);
    second.close();
    for (int i = 0; i < 100; i++) {
      state.tryAcquire(false).close();
    }

    assertThat(log.lines())
        .containsExactly(
            "WARN 127.0.0.1:9: down after a connect failure (outage step 1), next probe in 100"
                + " ms: java.net.ConnectException: Connection refused",
            "INFO 127.0.0.1:9: probing after back-off (outage step 1)",
            "INFO 127.0.0.1:9: probe failed, still down (outage step 2), next probe in 200 ms:"
                + " java.net.ConnectException: Connection refused",
            "INFO 127.0.0.1:9: probing after back-off (outage step 2)",
            "INFO 127.0.0.1:9: back up, its probe connected (after 2 outage step(s))");
  }

  @Test
  void upEndpointLendsWithoutAProbe() {
    EndpointState.Lease lease = state.tryAcquire(false);
    assertThat(lease).isNotNull();
    assertThat(lease.isProbe()).isFalse();
    lease.close();
    assertThat(state.describeDown()).doesNotContain("probe in flight");
  }

  @Test
  void downEndpointLendsNothingUntilItsBackoffHasPassedThenExactlyOneProbe() {
    state.connectFailed(refused());
    assertThat(state.isUp()).isFalse();
    assertThat(state.tryAcquire(false)).isNull();
    advance(BACKOFF.minusMillis(1));
    assertThat(state.tryAcquire(false)).isNull();
    advance(Duration.ofMillis(1));
    EndpointState.Lease probe = state.tryAcquire(false);
    assertThat(probe).isNotNull();
    assertThat(probe.isProbe()).isTrue();
    assertThat(state.tryAcquire(false)).as("a second probe while the first runs").isNull();
    state.succeeded(probe);
    probe.close();
    assertThat(state.isUp()).isTrue();
    assertThat(state.tryAcquire(false).isProbe()).isFalse();
  }

  @Test
  void aBorrowThatMayConnectTakesOverAPeeksProbeAndNothingTakesItsOwn() {
    state.connectFailed(refused());
    advance(BACKOFF);
    EndpointState.Lease peek = state.tryAcquire(true);
    assertThat(peek.isProbe()).isTrue();
    assertThat(state.tryAcquire(true)).as("a second peek while the first looks").isNull();
    EndpointState.Lease probe = state.tryAcquire(false);
    assertThat(probe).as("a borrow that may connect takes the peek's probe over").isNotNull();
    assertThat(state.tryAcquire(false)).as("another borrow that may connect").isNull();
    assertThat(state.tryAcquire(true)).as("a peek").isNull();
    state.succeeded(peek); // the peek found a connection after all: stale, it changes nothing
    peek.close();
    assertThat(state.isUp()).isFalse();
    assertThat(state.describeDown())
        .as("the peek's end leaves the new probe")
        .contains("probe in flight");
    state.succeeded(probe);
    probe.close();
    assertThat(state.isUp()).isTrue();
  }

  @Test
  void probeWhoseConnectFailsAfterATopUpMovedTheDeadlineIsFreedByItsLease() {
    // The probe's connect fails after the pool's own top-up connect failed and moved the deadline:
    // connectFailed then returns early ("one outage, one step"). Before the fix that early return
    // skipped freeing the probe, and no borrower could probe again.
    state.connectFailed(refused());
    advance(BACKOFF);
    EndpointState.Lease probe = state.tryAcquire(false);
    assertThat(probe).isNotNull();
    state.connectFailed(refused()); // the top-up: a new outage step, deadline moved
    state.connectFailed(refused()); // the probe's own connect: returns early
    probe.close();
    assertThat(state.describeDown()).doesNotContain("probe in flight");
    probeWithinMaxBackoff().close();
  }

  @Test
  void interruptedProbeConnectFreesTheProbe() {
    // An interrupted connect says nothing about the endpoint, so connectFailed is not called;
    // before
    // the fix nothing else freed the probe either.
    state.connectFailed(refused());
    advance(BACKOFF);
    EndpointState.Lease probe = state.tryAcquire(false);
    assertThat(probe).isNotNull();
    probe.close(); // the borrow ended by the interrupt
    EndpointState.Lease next = state.tryAcquire(false);
    assertThat(next).as("the deadline has not moved: the next borrower probes at once").isNotNull();
    assertThat(next.isProbe()).isTrue();
  }

  @Test
  void noProbeIsTakenAgainstADeadlineThatAConcurrentFailureHasMoved() {
    // Before the fix the deadline was read, then the probe taken, with no lock between: a failure
    // landing in between left a probe taken against a deadline already in the future.
    state.connectFailed(refused());
    advance(BACKOFF);
    state.connectFailed(refused()); // moves the deadline a step further
    assertThat(state.tryAcquire(false)).isNull();
    assertThat(state.describeDown()).doesNotContain("probe in flight");
    probeWithinMaxBackoff();
  }

  @Test
  void closingAStaleProbeLeaseDoesNotFreeANewerProbe() {
    state.connectFailed(refused());
    advance(BACKOFF);
    EndpointState.Lease first = state.tryAcquire(false);
    advance(PROBE_TIMEOUT); // the first probe is presumed lost and taken over
    EndpointState.Lease second = state.tryAcquire(false);
    assertThat(second).isNotNull().isNotSameAs(first);
    first.close();
    assertThat(state.describeDown()).as("the newer probe still runs").contains("probe in flight");
    assertThat(state.tryAcquire(false)).isNull();
    second.close();
    assertThat(state.describeDown()).doesNotContain("probe in flight");
  }

  @Test
  void aProbeHeldPastItsTimeoutIsTakenOver() {
    state.connectFailed(refused());
    advance(BACKOFF);
    assertThat(state.tryAcquire(false)).isNotNull(); // never closed: a borrower thread that died
    advance(PROBE_TIMEOUT.minusMillis(1));
    assertThat(state.tryAcquire(false)).isNull();
    advance(Duration.ofMillis(1));
    assertThat(state.tryAcquire(false)).isNotNull();
  }

  @Test
  void backoffDoublesPerOutageStepUpToTheMaximumAndASuccessResetsIt() {
    long[] expectedMillis = {100, 200, 400, 800, 800};
    for (long expected : expectedMillis) {
      state.connectFailed(refused());
      advance(Duration.ofMillis(expected - 1));
      assertThat(state.tryAcquire(false)).as("still backing off at %d ms", expected - 1).isNull();
      advance(Duration.ofMillis(1));
      EndpointState.Lease probe = state.tryAcquire(false);
      assertThat(probe).as("probe after %d ms", expected).isNotNull();
      probe.close();
    }
    state.connectFailed(refused());
    advance(MAX_BACKOFF);
    EndpointState.Lease probe = state.tryAcquire(false);
    state.succeeded(probe);
    probe.close();
    state.connectFailed(refused());
    assertThat(state.describeDown()).contains("down for 100ms more after 1 connect failure(s)");
  }

  @Test
  void describeDownNamesTheEndpointTheBackoffTheCountAndTheLastCause() {
    state.connectFailed(refused());
    assertThat(state.describeDown())
        .isEqualTo(
            "127.0.0.1:9 down for 100ms more after 1 connect failure(s) (last: Connection refused)");
    advance(BACKOFF);
    state.tryAcquire(false);
    assertThat(state.describeDown()).contains(", probe in flight");
  }

  /**
   * Random sequences of what borrowers and the pool's top-ups do during an outage: the probe is
   * always back within the longest back-off once failures stop.
   */
  @Test
  void afterAnySequenceOfFailuresInterruptsAndTimeoutsAProbeComesWithinTheMaximumBackoff() {
    // Thousands of state changes, each logged: kept out of the build's output.
    PrintStream out = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
    try {
      randomSequences();
    } finally {
      System.setOut(out);
    }
  }

  private void randomSequences() {
    Random random = new Random(20261124L);
    for (int run = 0; run < 2_000; run++) {
      EndpointState s =
          new EndpointState(
              new InetSocketAddress("127.0.0.1", 9),
              BACKOFF,
              MAX_BACKOFF,
              MAX_BACKOFF,
              PROBE_TIMEOUT,
              clock::get,
              () -> 0);
      List<EndpointState.Lease> open = new ArrayList<>();
      for (int step = 0; step < 40; step++) {
        switch (random.nextInt(5)) {
          case 0 -> s.connectFailed(refused()); // a borrow's or a top-up's connect failed
          case 1 -> {
            EndpointState.Lease lease = s.tryAcquire(false);
            if (lease != null) {
              open.add(lease);
            }
          }
          case 2 -> { // an attempt ends: failed connect, interrupt, borrow timeout, error
            if (!open.isEmpty()) {
              EndpointState.Lease lease = open.remove(random.nextInt(open.size()));
              if (random.nextBoolean()) {
                s.connectFailed(refused());
              }
              lease.close();
            }
          }
          case 3 -> advance(Duration.ofMillis(random.nextInt(300)));
          default -> {
            // another borrower looks and goes away: nothing happens
          }
        }
      }
      // The endpoint is back; the borrowers still running finish without a success.
      for (EndpointState.Lease lease : open) {
        lease.close();
      }
      long limit = clock.get() + MAX_BACKOFF.toNanos();
      EndpointState.Lease probe = null;
      while (probe == null && clock.get() - limit <= 0) {
        probe = s.tryAcquire(false);
        if (probe == null) {
          advance(Duration.ofMillis(1));
        }
      }
      assertThat(probe).as("run %d: %s", run, s.describeDown()).isNotNull();
      s.succeeded(probe);
      probe.close();
      assertThat(s.isUp()).isTrue();
    }
  }

  @Test
  void onlyTheProbeInFlightBringsTheEndpointBack() {
    EndpointState.Lease up =
        state.tryAcquire(false); // a borrow that began while the endpoint was up
    state.connectFailed(refused());
    state.succeeded(up);
    up.close();
    assertThat(state.isUp()).as("a borrow from before the outage says nothing of it").isFalse();
    advance(BACKOFF);
    EndpointState.Lease first = state.tryAcquire(false);
    advance(PROBE_TIMEOUT); // the first probe is presumed lost and taken over
    EndpointState.Lease second = state.tryAcquire(false);
    state.succeeded(first);
    first.close();
    assertThat(state.isUp()).as("a probe taken over is stale: the newer one decides").isFalse();
    assertThat(state.describeDown()).contains("probe in flight");
    state.succeeded(second);
    second.close();
    assertThat(state.isUp()).isTrue();
    assertThat(state.describeDown()).doesNotContain("probe in flight");
  }

  @Test
  void afterAnyNumberOfOutageStepsTheNextProbeComesNoLaterThanTheDefaultCeiling() {
    // The default ceiling bounds how long a pool refuses calls after its endpoint is back.
    Duration ceiling = Duration.ofSeconds(2);
    for (double random : new double[] {0, 0.5, 0.999_999}) {
      EndpointState s = withDefaults(random);
      for (int step = 1; step <= 40; step++) {
        s.connectFailed(refused());
        long downAt = clock.get();
        EndpointState.Lease probe = s.tryAcquire(false);
        while (probe == null && clock.get() - downAt < ceiling.toNanos()) {
          advance(Duration.ofMillis(1));
          probe = s.tryAcquire(false);
        }
        assertThat(probe)
            .as(
                "step %d, jitter %s, at %d ms: %s",
                step, random, ceiling.toMillis(), s.describeDown())
            .isNotNull();
        probe.close(); // the probe's connect was refused too: the next step follows
      }
    }
  }

  @Test
  void eachBackoffIsDrawnFromTheFifthBelowItsStepValueUpToIt() {
    EndpointState s = withDefaults(0);
    long second = EndpointHealthConfig.DEFAULT_BACKOFF.toNanos();
    assertThat(s.backoffNanos(1, 0)).isEqualTo(second);
    assertThat(s.backoffNanos(1, 0.5)).isEqualTo(second * 9 / 10);
    assertThat(s.backoffNanos(1, 0.999_999)).isGreaterThan(second * 8 / 10);
    assertThat(s.backoffNanos(2, 0)).isEqualTo(2 * second);
    assertThat(s.backoffNanos(3, 0)).as("the ceiling").isEqualTo(2 * second);
    assertThat(s.backoffNanos(60, 0.999_999)).isBetween(2 * second * 8 / 10, 2 * second);
  }

  @Test
  void ejectionsBackOffToTheirOwnLongerCeiling() {
    EndpointState s = withDefaults(0);
    long second = EndpointHealthConfig.DEFAULT_BACKOFF.toNanos();
    assertThat(s.eject(new java.io.IOException("reset"))).isTrue();
    assertThat(s.backoffNanos(5, 0))
        .as("ejected: 16 s, past the 2 s outage ceiling")
        .isEqualTo(16 * second);
    assertThat(s.backoffNanos(60, 0))
        .isEqualTo(EndpointHealthConfig.DEFAULT_MAX_EJECTION_BACKOFF.toNanos());
    EndpointState dead = withDefaults(0);
    dead.connectFailed(refused());
    assertThat(dead.backoffNanos(5, 0))
        .as("a dead endpoint: the 2 s ceiling")
        .isEqualTo(2 * second);
  }

  @Test
  void clientsThatLostAnEndpointTogetherProbeItApart() {
    EndpointState early = withDefaults(0.9);
    EndpointState late = withDefaults(0.1);
    early.connectFailed(refused());
    late.connectFailed(refused());
    advance(EndpointHealthConfig.DEFAULT_BACKOFF.multipliedBy(9).dividedBy(10));
    assertThat(early.tryAcquire(false)).as("jittered 18%% short").isNotNull();
    assertThat(late.tryAcquire(false)).as("jittered 2%% short").isNull();
  }

  private EndpointState withDefaults(double random) {
    PoolConfig d = PoolConfig.defaults();
    return new EndpointState(
        new InetSocketAddress("127.0.0.1", 9),
        d.endpointHealth().backoff(),
        d.endpointHealth().maxBackoff(),
        d.endpointHealth().maxEjectionBackoff(),
        EndpointSelector.probeTimeout(d),
        clock::get,
        () -> random);
  }
}
