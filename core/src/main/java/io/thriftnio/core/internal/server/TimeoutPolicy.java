package io.thriftnio.core.internal.server;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.util.internal.ServerCounters;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a server connection is closed for taking too long: one decision for every transport, which
 * only keeps the {@linkplain Clocks clocks} of each connection and asks for a {@link #decide
 * decision} when its timer or sweep fires. Not part of the API.
 *
 * <ul>
 *   <li>TLS handshake: not complete {@code handshakeTimeout} after accept.
 *   <li>Stalled reader: responses above {@code maxPendingWriteBytes} have waited unread for {@code
 *       frameTimeout} in a row. Such a peer is no longer read from, so no other clock would end it.
 *   <li>Partial request: a request started arriving and is not complete {@code frameTimeout} later.
 *   <li>Idle: no call in flight, no request started, and nothing received or answered for {@code
 *       idleTimeout}.
 *   <li>Aged: older than its {@linkplain #ageDeadline age} ({@code maxConnectionAge}, jittered per
 *       connection) and quiet: no call in flight, no request started, and nothing received or
 *       answered for {@link #AGED_QUIET} (or {@code idleTimeout}, if shorter); or not quiet at its
 *       age plus {@code maxConnectionAgeGrace}, when a grace is set.
 * </ul>
 *
 * <p>Why an aged connection waits to be quiet, not just idle: a client calling back to back is idle
 * only between a reply and its next request, already on its way; framed Thrift cannot tell it to
 * stop sending. What stays is every idle timeout's race: a request sent as the close happens.
 *
 * <p>Times are {@link System#nanoTime()} values; {@link #NONE} (0) stands for "no such moment", and
 * clocks are stamped with {@link #stamp}, which is never 0. A timeout of zero is off.
 */
public final class TimeoutPolicy {

  private static final Logger log = LoggerFactory.getLogger(TimeoutPolicy.class);

  /** A clock that is not running. */
  public static final long NONE = 0;

  /** How far a connection's age may be from {@code maxConnectionAge}, either way: 10%. */
  static final double AGE_JITTER = 0.1;

  /**
   * How long an aged connection must have been quiet (nothing received or answered, no call in
   * flight) before it is closed, unless {@code idleTimeout} is shorter: far above a busy client's
   * pause between a reply and its next request, short against any useful age.
   */
  static final Duration AGED_QUIET = Duration.ofSeconds(1);

  /** Why a connection is closed. */
  public enum Kind {
    TLS_HANDSHAKE,
    STALLED_READER,
    PARTIAL_REQUEST,
    IDLE,
    /** Past its age and quiet: closed between calls, after what was written has been sent. */
    AGED,
    /** Past its age plus the grace and not quiet: closed with its calls in flight. */
    AGE_GRACE;

    /** What connection listeners are told of a close for this timeout. */
    public CloseCause closeCause() {
      switch (this) {
        case TLS_HANDSHAKE:
          return CloseCause.TLS_FAILURE;
        case IDLE:
          return CloseCause.IDLE;
        case AGED:
        case AGE_GRACE:
          return CloseCause.AGED;
        default:
          return CloseCause.FRAME_TIMEOUT;
      }
    }
  }

  /**
   * A decision to close a connection.
   *
   * @param kind which timeout passed
   * @param reason what happened, with the numbers, for the log line
   */
  public record Verdict(Kind kind, String reason) {}

  private final long idleNanos;
  private final long frameNanos;
  private final long handshakeNanos;
  private final int maxPendingWriteBytes;
  private final long ageNanos; // 0: never
  private final long graceNanos; // -1: never forced
  private final long agedQuietNanos;

  /**
   * @param idleTimeout zero for none
   * @param frameTimeout for a partial request and a stalled reader; zero for none
   * @param handshakeTimeout zero (or {@code null}) for none: no TLS
   * @param maxPendingWriteBytes the write queue limit, for the stalled reader's message
   */
  public TimeoutPolicy(
      Duration idleTimeout,
      Duration frameTimeout,
      Duration handshakeTimeout,
      int maxPendingWriteBytes) {
    this(idleTimeout, frameTimeout, handshakeTimeout, maxPendingWriteBytes, null, null);
  }

  /**
   * As {@link #TimeoutPolicy(Duration, Duration, Duration, int)}, with a connection age.
   *
   * @param maxConnectionAge {@code null} for never
   * @param maxConnectionAgeGrace {@code null} for never forced
   */
  public TimeoutPolicy(
      Duration idleTimeout,
      Duration frameTimeout,
      Duration handshakeTimeout,
      int maxPendingWriteBytes,
      Duration maxConnectionAge,
      Duration maxConnectionAgeGrace) {
    this.ageNanos = maxConnectionAge == null ? 0 : maxConnectionAge.toNanos();
    this.graceNanos = maxConnectionAgeGrace == null ? -1 : maxConnectionAgeGrace.toNanos();
    this.idleNanos = idleTimeout.toNanos();
    this.frameNanos = frameTimeout.toNanos();
    this.handshakeNanos = handshakeTimeout == null ? 0 : handshakeTimeout.toNanos();
    this.maxPendingWriteBytes = maxPendingWriteBytes;
    long quiet = AGED_QUIET.toNanos();
    this.agedQuietNanos = idleNanos > 0 ? Math.min(quiet, idleNanos) : quiet;
  }

  /** The policy of a server's settings. */
  public static TimeoutPolicy of(ServerConfig config) {
    return new TimeoutPolicy(
        config.idleTimeout(),
        config.frameTimeout(),
        config.tls() == null ? null : config.tls().handshakeTimeout(),
        config.maxPendingWriteBytes(),
        config.maxConnectionAge(),
        config.maxConnectionAgeGrace());
  }

  /** No timeout at all: for connections outside a server (a user's own pipeline). */
  public static TimeoutPolicy off() {
    return new TimeoutPolicy(Duration.ZERO, Duration.ZERO, null, 0);
  }

  /** {@code now} as a clock stamp: never {@link #NONE}. */
  public static long stamp(long now) {
    return now == NONE ? 1 : now;
  }

  /** Whether any timeout is on. */
  public boolean isEnabled() {
    return idleNanos > 0 || frameNanos > 0 || handshakeNanos > 0 || ageNanos > 0;
  }

  /** Whether connections age ({@code maxConnectionAge} is set). */
  public boolean agesConnections() {
    return ageNanos > 0;
  }

  /**
   * When a connection accepted at {@code acceptedAt} passes its age: {@code maxConnectionAge}
   * varied by up to 10% either way ({@link #jittered}), so that connections opened together (a pool
   * filling up, every client reconnecting after a restart) do not all close together.
   *
   * @return a clock stamp, or {@link #NONE} if connections never age
   */
  public long ageDeadline(long acceptedAt) {
    if (ageNanos == 0) {
      return NONE;
    }
    return stamp(acceptedAt + jittered(ageNanos, ThreadLocalRandom.current().nextDouble()));
  }

  /**
   * {@code ageNanos} varied by up to 10% either way: {@code random} 0 gives 90%, 0.5 the age
   * itself, values towards 1 towards 110%; never below 1 ns.
   *
   * @param random uniform in [0, 1)
   */
  static long jittered(long ageNanos, double random) {
    long spread = (long) (ageNanos * AGE_JITTER * (2 * random - 1));
    return Math.max(1, ageNanos + spread);
  }

  /** Whether a connection that ages at {@code agedAt} ({@link #NONE}: never) is past it. */
  static boolean isAged(long now, long agedAt) {
    return agedAt != NONE && now - agedAt >= 0;
  }

  /** The shortest timeout that is on, in nanoseconds; {@link Long#MAX_VALUE} if none is. */
  public long shortestNanos() {
    long shortest = Long.MAX_VALUE;
    for (long t : new long[] {idleNanos, frameNanos, handshakeNanos, ageNanos, graceNanos}) {
      if (t > 0) {
        shortest = Math.min(shortest, t);
      }
    }
    return shortest;
  }

  /**
   * The clocks of one connection, as its transport keeps them: what {@link #decide} looks at.
   *
   * @param lastActivity when a request last arrived or a reply was last sent, or the connection was
   *     accepted
   * @param partialSince when the request being received started to arrive; {@link #NONE} if none
   * @param unwritableSince since when its responses have been above {@code maxPendingWriteBytes};
   *     {@link #NONE} if they are not
   * @param pendingCalls calls received and not yet answered
   * @param handshakingSince when its TLS handshake began (accept); {@link #NONE} if it is done or
   *     there is no TLS
   * @param agedAt when it passes its age ({@link #ageDeadline}); {@link #NONE} for never
   */
  public record Clocks(
      long lastActivity,
      long partialSince,
      long unwritableSince,
      int pendingCalls,
      long handshakingSince,
      long agedAt) {

    /** A connection last active at {@code lastActivity}, with no other clock running. */
    public static Clocks lastActive(long lastActivity) {
      return new Clocks(lastActivity, NONE, NONE, 0, NONE, NONE);
    }

    /** These clocks with a request arriving since {@code since}. */
    public Clocks withPartialSince(long since) {
      return new Clocks(
          lastActivity, since, unwritableSince, pendingCalls, handshakingSince, agedAt);
    }

    /** These clocks with its responses unread since {@code since}. */
    public Clocks withUnwritableSince(long since) {
      return new Clocks(lastActivity, partialSince, since, pendingCalls, handshakingSince, agedAt);
    }

    /** These clocks with {@code calls} calls in flight. */
    public Clocks withPendingCalls(int calls) {
      return new Clocks(
          lastActivity, partialSince, unwritableSince, calls, handshakingSince, agedAt);
    }

    /** These clocks with a TLS handshake running since {@code since}. */
    public Clocks withHandshakingSince(long since) {
      return new Clocks(lastActivity, partialSince, unwritableSince, pendingCalls, since, agedAt);
    }

    /** These clocks with the connection aging at {@code at}. */
    public Clocks withAgedAt(long at) {
      return new Clocks(
          lastActivity, partialSince, unwritableSince, pendingCalls, handshakingSince, at);
    }

    /** No call in flight and no request started. */
    boolean idle() {
      return partialSince == NONE && pendingCalls == 0;
    }
  }

  /**
   * What {@link #decide} says about a connection as of a moment.
   *
   * @param verdict what to close it for, or {@code null} to keep it
   * @param next when to decide again, for a transport that arms one timer per connection; {@link
   *     Long#MAX_VALUE} if no clock runs. While the clocks stand still, every decision before
   *     {@code next} keeps the connection and says the same about its age; the one at {@code next}
   *     closes it, or finds it past its age, or (calls in flight or a request started, with an idle
   *     timeout) the idle clock is looked at again, {@code idleTimeout} after the decision.
   * @param aged whether it is past its age (its calls are told so: an HTTP reply may then close
   *     it); not while its TLS handshake runs
   */
  public record Decision(Verdict verdict, long next, boolean aged) {}

  /**
   * Decides about one connection as of {@code now}, in one pass over the rules: each running rule
   * has the moment it closes the connection (if its clocks stand still); the first rule whose
   * moment has come gives the verdict, and the earliest moment is when to decide again. A pure
   * function of its arguments.
   */
  public Decision decide(long now, Clocks clocks) {
    Pass pass = new Pass(now, clocks);
    if (clocks.handshakingSince() != NONE) {
      if (handshakeNanos > 0) {
        pass.rule(clocks.handshakingSince() + handshakeNanos, Kind.TLS_HANDSHAKE);
      }
      // Nothing else runs before the handshake is done, not even the age.
      return pass.decision(false);
    }
    if (frameNanos > 0 && clocks.unwritableSince() != NONE) {
      pass.rule(clocks.unwritableSince() + frameNanos, Kind.STALLED_READER);
    }
    if (frameNanos > 0 && clocks.partialSince() != NONE) {
      pass.rule(clocks.partialSince() + frameNanos, Kind.PARTIAL_REQUEST);
    }
    boolean aged = isAged(now, clocks.agedAt());
    if (clocks.agedAt() != NONE && !aged) {
      pass.lookAt(clocks.agedAt()); // the rules of an aged connection start then
    }
    if (aged) { // before the idle clock: a connection quiet past its age closes for its age
      if (clocks.idle()) {
        pass.rule(clocks.lastActivity() + agedQuietNanos, Kind.AGED);
      }
      // Not quiet (a call in flight, or the next likely on its way): only the grace ends it.
      if (graceNanos >= 0) {
        pass.rule(clocks.agedAt() + graceNanos, Kind.AGE_GRACE);
      }
    }
    if (idleNanos > 0) {
      if (clocks.idle()) {
        pass.rule(clocks.lastActivity() + idleNanos, Kind.IDLE);
      } else {
        pass.lookAt(now + idleNanos); // busy: look again a whole timeout from now
      }
    }
    return pass.decision(aged);
  }

  /** One decision being made: the first rule due, and the earliest moment of all. */
  private final class Pass {
    private final long now;
    private final Clocks clocks;
    private Verdict verdict;
    private long next = Long.MAX_VALUE;

    Pass(long now, Clocks clocks) {
      this.now = now;
      this.clocks = clocks;
    }

    /** A rule that closes the connection for {@code kind} from {@code at} on. */
    void rule(long at, Kind kind) {
      lookAt(at);
      if (verdict == null && now - at >= 0) {
        verdict = verdict(kind);
      }
    }

    /** A moment to decide again at, when no rule closes the connection. */
    void lookAt(long at) {
      next = earlier(next, at);
    }

    Decision decision(boolean aged) {
      return new Decision(verdict, next, aged);
    }

    private Verdict verdict(Kind kind) {
      switch (kind) {
        case TLS_HANDSHAKE:
          return new Verdict(kind, "handshake timed out after " + millis(handshakeNanos) + " ms");
        case STALLED_READER:
          return new Verdict(
              kind,
              "its responses have waited unread for "
                  + millis(now - clocks.unwritableSince())
                  + " ms (frameTimeout "
                  + millis(frameNanos)
                  + " ms, above maxPendingWriteBytes "
                  + maxPendingWriteBytes
                  + "): stalled reader");
        case PARTIAL_REQUEST:
          return new Verdict(
              kind,
              "a frame started "
                  + millis(now - clocks.partialSince())
                  + " ms ago is not complete (frameTimeout "
                  + millis(frameNanos)
                  + " ms): slow or stalled sender");
        case AGED:
          return new Verdict(
              kind,
              "quiet for "
                  + millis(now - clocks.lastActivity())
                  + " ms, "
                  + millis(now - clocks.agedAt())
                  + " ms past its age (maxConnectionAge "
                  + millis(ageNanos)
                  + " ms, varied by up to 10% per connection)");
        case AGE_GRACE:
          return new Verdict(
              kind,
              "not quiet ("
                  + clocks.pendingCalls()
                  + " calls in flight) "
                  + millis(now - clocks.agedAt())
                  + " ms past its age (maxConnectionAge "
                  + millis(ageNanos)
                  + " ms, maxConnectionAgeGrace "
                  + millis(graceNanos)
                  + " ms): closed with its calls in flight");
        case IDLE:
          return new Verdict(
              kind,
              "no request for "
                  + millis(now - clocks.lastActivity())
                  + " ms (idleTimeout "
                  + millis(idleNanos)
                  + " ms)");
        default:
          throw new AssertionError(kind);
      }
    }
  }

  /**
   * Counts a connection closed for {@code verdict} in {@code timedOutConnections} and logs it with
   * its peer; an aged one counts in {@code agedConnections} instead, and is logged at DEBUG, as
   * every connection of a server with {@code maxConnectionAge} ends so. A TLS handshake timeout is
   * a TLS failure instead: see {@link ConnectionRegistry#tlsFailed}.
   */
  public static void reportTimedOut(Verdict verdict, SocketAddress peer, ServerCounters counters) {
    if (verdict.kind().closeCause() == CloseCause.AGED) {
      counters.agedConnections.increment();
      log.debug("Closing connection from {}: {}", peer, verdict.reason());
      return;
    }
    counters.timedOutConnections.increment();
    log.info("Closing connection from {}: {}", peer, verdict.reason());
  }

  private static long earlier(long deadline, long candidate) {
    return deadline == Long.MAX_VALUE || candidate - deadline < 0 ? candidate : deadline;
  }

  private static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
