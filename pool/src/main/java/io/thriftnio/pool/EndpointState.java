package io.thriftnio.pool;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Up or down, for one endpoint. Down after a connect failure, or when ejected after consecutive
 * call failures ({@link #eject}), for a back-off that doubles with each outage step; when the
 * back-off has passed, exactly one borrower at a time may probe it. After an ejection the outage
 * steps are kept until a call succeeds ({@link #callSucceeded()}), not only a borrow: an endpoint
 * that accepts connections but fails every call is ejected for longer each time.
 *
 * <p>The rule this class keeps: <em>whatever sequence of connect failures, timeouts and interrupts
 * came before, once the back-off has passed some borrower can probe</em>. So a pool serves again
 * within its back-off plus one connect after the endpoint comes back. Three things make it hold:
 *
 * <ul>
 *   <li>A borrower gets a {@link Lease} and ends it exactly once ({@link Lease#close()} in a {@code
 *       finally}). A probe lease that ends without a success frees the probe, whatever happened in
 *       between; nothing else frees it, so no path can forget to.
 *   <li>Leases are told apart by identity: ending a stale probe never frees a newer one.
 *   <li>Taking the probe, recording a failure and recording a success all hold the state's lock, so
 *       no probe is taken against a deadline that a concurrent failure has just moved.
 * </ul>
 *
 * <p>Only the probe brings a down endpoint back ({@link #succeeded(Lease)} with the probe in
 * flight). A borrow that took the shared up-lease before the endpoint went down, and then got a
 * connection (an idle one, or one freed while it waited), says nothing about the endpoint after it
 * went down: its success would undo an ejection, so it changes nothing. A probe that was taken over
 * is stale the same way.
 *
 * <p>A borrow that never connects (an async pool's fast path, or its dispatcher looking for a free
 * connection for a queued call) takes the probe as a peek; a borrow that may connect takes a peek's
 * probe over, so that a peek cannot fail the call a connector is serving ({@link
 * #tryAcquire(boolean)}).
 *
 * <p>A probe held longer than {@code probeTimeout} (a connect that never returns, a borrower thread
 * that died) is taken over by the next borrower: two probes at once cost one extra connect; a lost
 * probe would cost the endpoint.
 *
 * <p>Each back-off is drawn at random between {@value #JITTER_PERCENT}% below its step's value and
 * that value, never above it: clients that lost an endpoint together do not probe it in step, and
 * the maximum back-off still bounds the wait for the next probe.
 *
 * <p>Each change is logged once, never per call: down (WARN, with the failure and the back-off),
 * probing (INFO, once per back-off), a failed probe (INFO, with the failure and the next back-off),
 * back (INFO). The ejection itself is logged by {@link EndpointSelector}, which decides it. Lines
 * are logged after this object's lock is released.
 */
final class EndpointState {
  private static final Logger log = LoggerFactory.getLogger(EndpointState.class);

  /** How far below its step's value a back-off may be drawn, in percent. */
  static final int JITTER_PERCENT = 20;

  final InetSocketAddress address;
  private final long baseBackoffNanos;
  private final long maxBackoffNanos;
  private final long maxEjectionBackoffNanos;
  private final long probeTimeoutNanos;
  private final LongSupplier clock;
  private final DoubleSupplier random; // in [0, 1): where in its jitter range a back-off falls
  private final Lease upLease = new Lease(false, false);

  private final Object lock = new Object();
  private volatile boolean down; // written under the lock; read without it on the hot path

  /** Clock deadline. */
  @GuardedBy("lock")
  private long downUntil;

  /** Outage steps since the last success. */
  @GuardedBy("lock")
  private int failures;

  /** The probe in flight, or null. */
  @GuardedBy("lock")
  private Lease probe;

  @GuardedBy("lock")
  private long probeSince;

  @GuardedBy("lock")
  private Throwable lastFailure;

  @GuardedBy("lock")
  private long lastFailureAt;

  private final AtomicInteger callFailures = new AtomicInteger(); // in a row, since a success
  private volatile boolean ejected; // outage steps from ejections, kept until a call succeeds
  // Down because its server said it drains; written under the lock, until a probe succeeds.
  private volatile boolean draining;

  /** The outage step whose probe was logged. */
  @GuardedBy("lock")
  private int probeLogged;

  /**
   * @param maxBackoff the ceiling after connect failures
   * @param maxEjectionBackoff the ceiling while the endpoint's outage steps come from ejections
   * @param random where each back-off falls in its jitter range, in {@code [0, 1)}: 0 is the step's
   *     value, towards 1 up to {@value #JITTER_PERCENT}% less
   */
  EndpointState(
      InetSocketAddress address,
      Duration backoff,
      Duration maxBackoff,
      Duration maxEjectionBackoff,
      Duration probeTimeout,
      LongSupplier clock,
      DoubleSupplier random) {
    this.address = address;
    this.baseBackoffNanos = backoff.toNanos();
    this.maxBackoffNanos = maxBackoff.toNanos();
    this.maxEjectionBackoffNanos = maxEjectionBackoff.toNanos();
    this.probeTimeoutNanos = probeTimeout.toNanos();
    this.clock = clock;
    this.random = random;
  }

  /** A borrower's right to use this endpoint for one borrow attempt; close it exactly once. */
  final class Lease implements AutoCloseable {
    private final boolean probe;
    private final boolean peek; // taken by a borrow that never connects

    private Lease(boolean probe, boolean peek) {
      this.probe = probe;
      this.peek = peek;
    }

    EndpointState endpoint() {
      return EndpointState.this;
    }

    /** Whether this borrow probes a down endpoint. */
    boolean isProbe() {
      return probe;
    }

    /** Ends the attempt; a probe that did not succeed frees the probe for the next borrower. */
    @Override
    public void close() {
      if (probe) {
        endProbe(this);
      }
    }
  }

  boolean isUp() {
    return !down;
  }

  /**
   * A lease when a borrow may go to this endpoint now: the shared one while it is up, the probe
   * when it is down, its back-off has passed and nobody else probes; else {@code null}.
   *
   * @param peek whether the borrow only looks for a free connection and never connects (the async
   *     pools' fast path and their dispatcher). A borrow that may connect takes over a probe that a
   *     peek holds: the peek frees it a moment later anyway, and meanwhile the borrow that would
   *     really probe (a connector serving the very call the peek looked for) failed its call as if
   *     another probe were in flight.
   */
  Lease tryAcquire(boolean peek) {
    if (!down) {
      return upLease;
    }
    String line;
    Lease lease;
    synchronized (lock) {
      if (!down) {
        return upLease;
      }
      long now = clock.getAsLong();
      if (now - downUntil < 0) {
        return null;
      }
      if (probe != null && now - probeSince < probeTimeoutNanos && (peek || !probe.peek)) {
        return null;
      }
      probe = new Lease(true, peek);
      probeSince = now;
      if (peek || probeLogged == failures) {
        return probe;
      }
      probeLogged = failures; // once per back-off; a peek never connects, so never logs
      line = Names.endpoint(address) + ": probing after back-off (outage step " + failures + ")";
      lease = probe;
    }
    log.info(line);
    return lease;
  }

  /**
   * A borrow on {@code lease} got a connection. The probe in flight brings the endpoint back up;
   * any other lease changes nothing: while the endpoint is up there is nothing to change, and a
   * borrow that began before it went down (or a probe taken over) is no news of it since.
   */
  void succeeded(Lease lease) {
    if (down && lease.probe) {
      int steps;
      synchronized (lock) {
        if (probe != lease) {
          return; // taken over: the newer probe decides
        }
        steps = failures;
        if (!ejected) {
          failures = 0;
        }
        probe = null;
        draining = false;
        probeLogged = 0;
        down = false;
      }
      log.info(
          Names.endpoint(address)
              + ": back up, its probe connected (after "
              + steps
              + " outage step(s))");
    }
  }

  /** A call on this endpoint got its answer: the run of failures ends. */
  void callSucceeded() {
    if (callFailures.get() != 0) {
      callFailures.set(0);
    }
    if (ejected) {
      synchronized (lock) {
        if (!down) {
          ejected = false;
          failures = 0;
        }
      }
    }
  }

  /** A call on this endpoint failed in transport: the failures in a row, this one included. */
  int callFailed() {
    return callFailures.incrementAndGet();
  }

  /**
   * Takes the endpoint out after consecutive call failures, as a connect failure would (one more
   * outage step, the back-off, then a probe); {@code false} if it is down already. The probe is
   * untouched: its borrower frees it.
   */
  boolean eject(Throwable cause) {
    synchronized (lock) {
      if (down) {
        return false;
      }
      callFailures.set(0);
      ejected = true;
      lastFailure = cause;
      lastFailureAt = clock.getAsLong();
      failures++;
      markDown(clock.getAsLong());
      return true;
    }
  }

  /**
   * Takes the endpoint out because its server refused a call saying it drains: down as after a
   * connect failure (one more outage step, the back-off, then a probe, which must connect anew);
   * {@code false} if it is down already. Its connections take no new call meanwhile ({@link
   * #isDraining()}).
   */
  boolean drain(Throwable cause) {
    String line;
    synchronized (lock) {
      if (down) {
        return false;
      }
      lastFailure = cause;
      lastFailureAt = clock.getAsLong();
      failures++;
      draining = true;
      long now = clock.getAsLong();
      markDown(now);
      line =
          Names.endpoint(address)
              + ": out while its server drains (outage step "
              + failures
              + "), next probe in "
              + (downUntil - now) / 1_000_000
              + " ms: "
              + cause.getMessage();
    }
    log.info(line);
    return true;
  }

  /**
   * Whether the endpoint is out because its server drains: a connection to it that comes back is
   * closed rather than kept, and none takes a new call.
   */
  boolean isDraining() {
    return draining && down;
  }

  /**
   * A connect to this endpoint failed, from a borrow or from the pool's own top-up. Connects that
   * were started before the endpoint went down fail together: one outage, one back-off step. The
   * probe is not freed here: its borrower frees it by closing its lease.
   */
  void connectFailed(Throwable cause) {
    String line;
    boolean wasDown;
    synchronized (lock) {
      long now = clock.getAsLong();
      lastFailure = cause;
      lastFailureAt = clock.getAsLong();
      if (down && now - downUntil < 0) {
        return;
      }
      wasDown = down;
      failures++;
      markDown(now);
      line =
          Names.endpoint(address)
              + (wasDown ? ": probe failed, still down" : ": down after a connect failure")
              + " (outage step "
              + failures
              + "), next probe in "
              + (downUntil - now) / 1_000_000
              + " ms: "
              + cause;
    }
    if (wasDown) {
      log.info(line);
    } else {
      log.warn(line);
    }
  }

  /** Down for the back-off of the current outage step. */
  @GuardedBy("lock")
  private void markDown(long now) {
    downUntil = now + backoffNanos(failures, random.getAsDouble());
    down = true;
  }

  /**
   * The back-off of outage step {@code step} (1 the first): the base doubled per step up to the
   * maximum (the ejection maximum while the steps come from ejections), then up to {@value
   * #JITTER_PERCENT}% less as {@code random} goes from 0 towards 1.
   */
  long backoffNanos(int step, double random) {
    int shift = Math.min(step - 1, 30);
    long max = ejected ? maxEjectionBackoffNanos : maxBackoffNanos;
    long backoff = baseBackoffNanos << shift;
    if (backoff <= 0 || backoff > max) {
      backoff = max;
    }
    return backoff - (long) (backoff * (JITTER_PERCENT / 100.0) * random);
  }

  private void endProbe(Lease lease) {
    synchronized (lock) {
      if (probe == lease) {
        probe = null;
      }
    }
  }

  /** The last failure and when it came (on the pool's clock). */
  static final class Failure {
    final Throwable cause;
    final long at;

    Failure(Throwable cause, long at) {
      this.cause = cause;
      this.at = at;
    }
  }

  /** {@link #lastFailure} with its time, or {@code null}. */
  Failure lastFailureWithTime() {
    synchronized (lock) {
      return lastFailure == null ? null : new Failure(lastFailure, lastFailureAt);
    }
  }

  String describeDown() {
    synchronized (lock) {
      long left = Math.max(0, downUntil - clock.getAsLong()) / 1_000_000;
      return Names.endpoint(address)
          + " down for "
          + left
          + "ms more after "
          + failures
          + (ejected
              ? " outage(s), ejected after call failures"
              : draining ? " outage(s), its server draining" : " connect failure(s)")
          + (probe == null ? "" : ", probe in flight")
          + (lastFailure == null ? "" : " (last: " + lastFailure.getMessage() + ")");
    }
  }
}
