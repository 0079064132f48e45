package io.thriftnio.core.util.internal;

import java.lang.invoke.MethodHandles;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Live counters behind the API's {@code ServerStats}; shared by the transports. The stats class has
 * no public constructor: it installs how it is made from these counters when it is initialized, and
 * {@link #snapshot(Class)} makes sure it is. Not part of the API.
 */
public final class ServerCounters {
  private static volatile Function<ServerCounters, ?> snapshots;

  public final LongAdder acceptedConnections = new LongAdder();
  public final LongAdder rejectedConnections = new LongAdder();
  public final LongAdder openConnections = new LongAdder();
  public final LongAdder badFrames = new LongAdder();
  public final LongAdder timedOutConnections = new LongAdder();
  public final LongAdder completedCalls = new LongAdder();
  public final LongAdder failedCalls = new LongAdder();
  public final LongAdder overloadedCalls = new LongAdder();
  public final LongAdder truncatedFrames = new LongAdder();
  public final LongAdder droppedResponses = new LongAdder();
  public final LongAdder tlsFailures = new LongAdder();
  public final LongAdder timedOutCalls = new LongAdder();
  public final LongAdder agedConnections = new LongAdder();
  public final LongAdder saslFailures = new LongAdder();

  /** Installed once, by the stats class's static initializer. */
  public static void install(Function<ServerCounters, ?> snapshot) {
    snapshots = snapshot;
  }

  /**
   * A snapshot of the counts now.
   *
   * @param type {@code ServerStats.class}
   * @return the snapshot
   */
  public <T> T snapshot(Class<T> type) {
    try {
      MethodHandles.lookup().ensureInitialized(type); // its initializer installs the snapshot
    } catch (IllegalAccessException impossible) {
      throw new IllegalStateException(impossible);
    }
    return type.cast(snapshots.apply(this));
  }
}
