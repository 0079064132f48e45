package io.thriftnio.core.internal.server;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.internal.ServerCounters;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a server connection is closed for taking too long: one decision for every transport, which
 * only keeps the clocks of each connection and runs {@link #check} when its timer or sweep fires.
 * Not part of the API.
 *
 * <ul>
 *   <li>TLS handshake: not complete {@code handshakeTimeout} after accept.
 *   <li>Stalled reader: responses above {@code maxPendingWriteBytes} have waited unread for {@code
 *       frameTimeout} in a row. Such a peer is no longer read from, so no other clock would end it.
 *   <li>Partial request: a request started arriving and is not complete {@code frameTimeout} later.
 *   <li>Idle: no call in flight, no request started, and nothing received or answered for {@code
 *       idleTimeout}.
 * </ul>
 *
 * <p>Times are {@link System#nanoTime()} values; {@link #NONE} (0) stands for "no such moment", and
 * clocks are stamped with {@link #stamp}, which is never 0. A timeout of zero is off.
 */
public final class TimeoutPolicy {

  private static final Logger log = LoggerFactory.getLogger(TimeoutPolicy.class);

  /** A clock that is not running. */
  public static final long NONE = 0;

  /** Why a connection is closed. */
  public enum Kind {
    TLS_HANDSHAKE,
    STALLED_READER,
    PARTIAL_REQUEST,
    IDLE;

    /** What connection listeners are told of a close for this timeout. */
    public CloseCause closeCause() {
      switch (this) {
        case TLS_HANDSHAKE:
          return CloseCause.TLS_FAILURE;
        case IDLE:
          return CloseCause.IDLE;
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
    this.idleNanos = idleTimeout.toNanos();
    this.frameNanos = frameTimeout.toNanos();
    this.handshakeNanos = handshakeTimeout == null ? 0 : handshakeTimeout.toNanos();
    this.maxPendingWriteBytes = maxPendingWriteBytes;
  }

  /** The policy of a server's settings. */
  public static TimeoutPolicy of(ServerConfig config) {
    return new TimeoutPolicy(
        config.idleTimeout(),
        config.frameTimeout(),
        config.tls() == null ? null : config.tls().handshakeTimeout(),
        config.maxPendingWriteBytes());
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
    return idleNanos > 0 || frameNanos > 0 || handshakeNanos > 0;
  }

  /** The shortest timeout that is on, in nanoseconds; {@link Long#MAX_VALUE} if none is. */
  public long shortestNanos() {
    long shortest = Long.MAX_VALUE;
    for (long t : new long[] {idleNanos, frameNanos, handshakeNanos}) {
      if (t > 0) {
        shortest = Math.min(shortest, t);
      }
    }
    return shortest;
  }

  /**
   * Decides about one connection as of {@code now}.
   *
   * @param lastActivity when a request last arrived or a reply was last sent, or the connection was
   *     accepted
   * @param partialSince when the request being received started to arrive; {@link #NONE} if none
   * @param unwritableSince since when its responses have been above {@code maxPendingWriteBytes};
   *     {@link #NONE} if they are not
   * @param pendingCalls calls received and not yet answered
   * @param handshakingSince when its TLS handshake began (accept); {@link #NONE} if it is done or
   *     there is no TLS
   * @return what to close it for, or {@code null} to keep it
   */
  public Verdict check(
      long now,
      long lastActivity,
      long partialSince,
      long unwritableSince,
      int pendingCalls,
      long handshakingSince) {
    if (handshakingSince != NONE) {
      if (handshakeNanos > 0 && now - handshakingSince >= handshakeNanos) {
        return new Verdict(
            Kind.TLS_HANDSHAKE, "handshake timed out after " + millis(handshakeNanos) + " ms");
      }
      return null; // nothing else runs before the handshake is done
    }
    if (frameNanos > 0 && unwritableSince != NONE && now - unwritableSince >= frameNanos) {
      return new Verdict(
          Kind.STALLED_READER,
          "its responses have waited unread for "
              + millis(now - unwritableSince)
              + " ms (frameTimeout "
              + millis(frameNanos)
              + " ms, above maxPendingWriteBytes "
              + maxPendingWriteBytes
              + "): stalled reader");
    }
    if (frameNanos > 0 && partialSince != NONE && now - partialSince >= frameNanos) {
      return new Verdict(
          Kind.PARTIAL_REQUEST,
          "a frame started "
              + millis(now - partialSince)
              + " ms ago is not complete (frameTimeout "
              + millis(frameNanos)
              + " ms): slow or stalled sender");
    }
    if (idleNanos > 0
        && partialSince == NONE
        && pendingCalls == 0
        && now - lastActivity >= idleNanos) {
      return new Verdict(
          Kind.IDLE,
          "no request for "
              + millis(now - lastActivity)
              + " ms (idleTimeout "
              + millis(idleNanos)
              + " ms)");
    }
    return null;
  }

  /**
   * When {@link #check} could next close the connection, for a transport that arms one timer per
   * connection; {@link Long#MAX_VALUE} if no clock runs. Same arguments as {@link #check}. While
   * calls are in flight, the idle clock is rechecked {@code idleTimeout} from {@code now}.
   */
  public long nextDeadline(
      long now,
      long lastActivity,
      long partialSince,
      long unwritableSince,
      int pendingCalls,
      long handshakingSince) {
    long deadline = Long.MAX_VALUE;
    if (handshakingSince != NONE) {
      return handshakeNanos > 0 ? handshakingSince + handshakeNanos : deadline;
    }
    if (frameNanos > 0 && unwritableSince != NONE) {
      deadline = earlier(deadline, unwritableSince + frameNanos);
    }
    if (frameNanos > 0 && partialSince != NONE) {
      deadline = earlier(deadline, partialSince + frameNanos);
    }
    if (idleNanos > 0) {
      boolean idle = partialSince == NONE && pendingCalls == 0;
      deadline = earlier(deadline, idle ? lastActivity + idleNanos : now + idleNanos);
    }
    return deadline;
  }

  /**
   * Counts a connection closed for {@code verdict} in {@code timedOutConnections} and logs it with
   * its peer. A TLS handshake timeout is a TLS failure instead: see {@link
   * ConnectionRegistry#tlsFailed}.
   */
  public static void reportTimedOut(Verdict verdict, SocketAddress peer, ServerCounters counters) {
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
