package io.thriftnio.pool.internal;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Up or down, for one endpoint. Down after a connect failure, for a back-off that doubles with each
 * consecutive failure; when the back-off has passed, exactly one borrower at a time may probe it.
 */
final class EndpointState {
  final InetSocketAddress address;
  private final long baseBackoffNanos;
  private final long maxBackoffNanos;
  private final AtomicBoolean probing = new AtomicBoolean();
  private volatile long downUntil; // System.nanoTime() deadline; 0 = up
  private volatile boolean down;
  private int failures; // guarded by this
  private volatile Throwable lastFailure;

  EndpointState(InetSocketAddress address, Duration backoff, Duration maxBackoff) {
    this.address = address;
    this.baseBackoffNanos = backoff.toNanos();
    this.maxBackoffNanos = maxBackoff.toNanos();
  }

  boolean isUp() {
    return !down;
  }

  /** Whether a borrow may go to this endpoint now; if it is a probe, the caller holds the probe. */
  boolean tryAcquire(long now) {
    if (!down) {
      return true;
    }
    return now - downUntil >= 0 && probing.compareAndSet(false, true);
  }

  /** A borrow succeeded: the endpoint is up. */
  void succeeded() {
    if (down || probing.get()) {
      synchronized (this) {
        failures = 0;
        down = false;
        probing.set(false);
      }
    }
  }

  /** A borrow ended without telling whether the endpoint is up: let another borrower probe. */
  void releaseProbe() {
    probing.set(false);
  }

  synchronized void connectFailed(Throwable cause) {
    long now = System.nanoTime();
    lastFailure = cause;
    if (down && now - downUntil < 0) {
      // Connects started before the endpoint went down fail together; one outage, one step.
      return;
    }
    failures++;
    int shift = Math.min(failures - 1, 30);
    long backoff = baseBackoffNanos << shift;
    if (backoff <= 0 || backoff > maxBackoffNanos) {
      backoff = maxBackoffNanos;
    }
    downUntil = now + backoff;
    down = true;
    probing.set(false);
  }

  String describeDown(long now) {
    long left = Math.max(0, downUntil - now) / 1_000_000;
    Throwable last = lastFailure;
    synchronized (this) {
      return Names.endpoint(address)
          + " down for "
          + left
          + "ms more after "
          + failures
          + " connect failure(s)"
          + (last == null ? "" : " (last: " + last.getMessage() + ")");
    }
  }
}
