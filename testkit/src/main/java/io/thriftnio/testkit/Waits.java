package io.thriftnio.testkit;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * The one way the tests wait for a condition that another thread changes: Awaitility, polling every
 * 10 ms (the first poll at once), failing with what was awaited after at most 10 s unless the
 * caller says otherwise with {@code atMost}. A wait for a moment in time (a sleep) is never a
 * test's way to see that something happened.
 */
public final class Waits {

  /** How long a wait lasts unless the caller sets {@code atMost}. */
  public static final Duration DEFAULT_WITHIN = Duration.ofSeconds(10);

  private static final Duration POLL = Duration.ofMillis(10);

  private Waits() {}

  /**
   * A wait named {@code what} (the name is in the failure): then {@code until(() -> condition)}, or
   * {@code untilAsserted(() -> assertThat(..))} to fail with the last assertion's message.
   */
  public static ConditionFactory await(String what) {
    return Awaitility.await(what)
        .atMost(DEFAULT_WITHIN)
        .pollDelay(Duration.ZERO)
        .pollInterval(POLL)
        .pollInSameThread();
  }
}
