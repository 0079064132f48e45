package io.thriftnio.grizzly;

import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.ConnectionRegistry;
import io.thriftnio.core.internal.server.ReadActivity;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.core.internal.server.TimeoutPolicy;
import io.thriftnio.core.wire.ServerCodec;
import java.util.function.Consumer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timeouts of a {@link GrizzlyThriftServer}: a timer thread reads every connection's clocks,
 * asks core's {@link TimeoutPolicy}, and closes what it says. The reads run on other threads
 * meanwhile, so an idle close is committed with {@link ReadActivity#claimIdle}: a read in progress,
 * or one begun since the sweep looked, keeps the connection open; so is the close of a quiet aged
 * connection ({@code maxConnectionAge}), which is closed after its write queue has drained. An aged
 * connection is marked so (an HTTP reply may close it cleanly) and closed by the first sweep that
 * finds it quiet (nothing read or answered for {@link TimeoutPolicy}'s quiet period), or at its age
 * plus the grace.
 */
final class TimeoutSweep implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(TimeoutSweep.class);

  /** When the sweep first found a connection's write queue full; absent while it is not. */
  private static final Attribute<Long> UNWRITABLE_SINCE =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(
          TimeoutSweep.class.getName() + ".unwritableSince");

  /** When a connection passes its age ({@link TimeoutPolicy#ageDeadline}); set at first sight. */
  private static final Attribute<Long> AGED_AT =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(TimeoutSweep.class.getName() + ".agedAt");

  private final ConnectionRegistry<ConnectionHandle> registry;
  private final TimeoutPolicy policy;
  private final boolean tls;

  /** Runs between the sweep finding a connection idle and committing it; tests widen the race. */
  volatile Consumer<Connection<?>> beforeIdleClose = c -> {};

  TimeoutSweep(ConnectionRegistry<ConnectionHandle> registry, TimeoutPolicy policy, boolean tls) {
    this.registry = registry;
    this.policy = policy;
    this.tls = tls;
  }

  /** How often the sweep runs, in milliseconds: a quarter of the shortest timeout, 5 to 1000. */
  long periodMillis() {
    long shortest = policy.shortestNanos() / 1_000_000;
    return Math.max(5, Math.min(1000, shortest / 4));
  }

  @Override
  public void run() {
    sweep(System.nanoTime());
  }

  /** One sweep as of {@code now}; tests run it with a clock set ahead. */
  void sweep(long now) {
    try {
      for (RegisteredConnection<ConnectionHandle> r : registry.connections()) {
        check(r, now);
      }
    } catch (RuntimeException e) {
      log.warn("Timeout sweep failed; will retry", e);
    }
  }

  private void check(RegisteredConnection<ConnectionHandle> r, long now) {
    Connection<?> c = ((GrizzlyConnectionHandle) r.handle()).connection(); // the guard's kind
    long handshakingSince =
        tls && TlsFilters.handshaking(c) ? r.acceptedAtNanos() : TimeoutPolicy.NONE;
    GrizzlyServerConnection served = ThriftServerFilter.peek(c);
    if (served == null) {
      return; // accepted and not yet served: the guard's accept makes this state at once
    }
    ReadActivity reads = served.reads;
    // The snapshot comes before the calls are counted: a read that ended in between has its
    // call counted, one that began in between fails the claim below.
    long seen = reads.snapshot();
    if (seen == ReadActivity.CLAIMED) {
      return; // closed as idle meanwhile
    }
    int pending = served.calls.pendingCalls();
    if (ReadActivity.isReading(seen)) {
      pending++; // a request on its way to the call path
    }
    long last = later(r.acceptedAtNanos(), ReadActivity.lastRead(seen));
    last = later(last, served.calls.lastActivityNanos());
    ServerCodec wire = served.codec();
    TimeoutPolicy.Decision decision =
        policy.decide(
            now,
            new TimeoutPolicy.Clocks(
                last,
                wire == null ? TimeoutPolicy.NONE : wire.partialSinceNanos(),
                unwritableSince(c, now),
                pending,
                handshakingSince,
                agedAt(c, r)));
    if (decision.aged()) {
      served.calls.markAged(); // idempotent; a sweep's cost, not a call's
    }
    TimeoutPolicy.Verdict verdict = decision.verdict();
    if (verdict == null || !c.isOpen()) {
      return;
    }
    switch (verdict.kind()) {
      case AGED:
        if (served.calls.isClosing() || !reads.claimIdle(seen)) {
          return; // closing already (an HTTP reply said so), or a read began since: not idle
        }
        registry.aged(r, verdict);
        return;
      case IDLE:
        beforeIdleClose.accept(c);
        if (!reads.claimIdle(seen)) {
          return; // a read began since: the peer is not idle
        }
        break;
      case PARTIAL_REQUEST:
        wire.discardRest(); // the partial request is the server's doing now, not the peer's
        break;
      default:
        break;
    }
    registry.timedOut(r, verdict);
  }

  /**
   * When {@code c} passes its age, drawn at the first sweep that sees it (from its accept time);
   * {@link TimeoutPolicy#NONE} if connections never age.
   */
  private long agedAt(Connection<?> c, RegisteredConnection<ConnectionHandle> r) {
    if (!policy.agesConnections()) {
      return TimeoutPolicy.NONE; // no attribute on any connection
    }
    Long agedAt = AGED_AT.get(c);
    if (agedAt == null) {
      agedAt = policy.ageDeadline(r.acceptedAtNanos());
      AGED_AT.set(c, agedAt);
    }
    return agedAt;
  }

  /** Since when {@code c}'s write queue has been full, as the sweeps saw it; NONE if it is not. */
  private static long unwritableSince(Connection<?> c, long now) {
    if (c.canWrite()) {
      UNWRITABLE_SINCE.remove(c);
      return TimeoutPolicy.NONE;
    }
    Long since = UNWRITABLE_SINCE.get(c);
    if (since == null) {
      UNWRITABLE_SINCE.set(c, TimeoutPolicy.stamp(now));
      return TimeoutPolicy.NONE;
    }
    return since;
  }

  /** The later of two clock stamps, either of which may be {@link TimeoutPolicy#NONE}. */
  private static long later(long a, long b) {
    if (a == TimeoutPolicy.NONE) {
      return b;
    }
    return b == TimeoutPolicy.NONE || a - b >= 0 ? a : b;
  }
}
