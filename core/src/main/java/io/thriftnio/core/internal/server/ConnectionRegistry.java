package io.thriftnio.core.internal.server;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ConnectionInfo;
import io.thriftnio.core.internal.EveryPowerOfTwo;
import io.thriftnio.core.internal.ServerCounters;
import java.net.SocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open connections of one server: admits each accepted connection or refuses it over {@code
 * maxConnections}, counts them ({@code acceptedConnections}, {@code openConnections}, {@code
 * rejectedConnections}, {@code tlsFailures}), logs refusals and TLS failures at the 1st, 2nd, 4th,
 * 8th ... occurrence, and gives the {@link ServerLifecycle} the connections to drain and a way to
 * wait until all are closed. Thread-safe. Not part of the API.
 *
 * <pre>
 *  accept --admit--&gt; open set --closed--&gt; gone
 *            |  over maxConnections, or the server closing: refused (the adapter closes it)
 * </pre>
 *
 * <p>Connection listeners ({@link ConnectionEvents}, when the server has any): a connection opens
 * for them when admitted, or on a TLS server once its handshake completes ({@link
 * RegisteredConnection#tlsEstablished}); it closes for them in {@link #closed}, before it leaves
 * the open set, so that {@link #awaitAllClosed} (the server's close) returns after its {@code
 * onClose}. The cause is the one noted by whoever decided the close (this registry notes {@link
 * CloseCause#TLS_FAILURE}, the timeouts, {@link CloseCause#SERVER_CLOSING}; the adapters note
 * errors and bad requests), else {@link CloseCause#PEER_CLOSED}. A refused connection is reported
 * as refused, with {@link CloseCause#LIMIT} or {@link CloseCause#SERVER_CLOSING}.
 *
 * @param <H> the adapter's connection handle
 */
public final class ConnectionRegistry<H extends ConnectionHandle> {

  private static final Logger log = LoggerFactory.getLogger(ConnectionRegistry.class);

  private final int maxConnections;
  private final ServerCounters counters;
  private final ConnectionEvents events;
  private final Set<RegisteredConnection<H>> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger admitted = new AtomicInteger();
  private final EveryPowerOfTwo rejectedLog = new EveryPowerOfTwo();
  private final EveryPowerOfTwo tlsFailuresLog = new EveryPowerOfTwo();
  private final Object changed = new Object();
  private volatile boolean closing;

  /**
   * @param maxConnections connections open at once, at most
   * @param counters the server's counters
   */
  public ConnectionRegistry(int maxConnections, ServerCounters counters) {
    this(maxConnections, counters, null);
  }

  /**
   * @param maxConnections connections open at once, at most
   * @param counters the server's counters
   * @param events the server's connection listeners; {@code null} if it has none
   */
  public ConnectionRegistry(int maxConnections, ServerCounters counters, ConnectionEvents events) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections: " + maxConnections + " (expected: > 0)");
    }
    this.maxConnections = maxConnections;
    this.counters = counters;
    this.events = events;
  }

  /** The server's connection listeners; {@code null} if it has none. */
  public ConnectionEvents events() {
    return events;
  }

  /**
   * A connection was accepted. Over {@code maxConnections} it is refused, counted and (thinned out)
   * logged; while the server closes it is refused quietly. The caller closes a refused connection,
   * and calls {@link #closed} once an admitted one closes.
   *
   * @param handle the adapter's handle
   * @param remote the peer's address, for log lines; may be {@code null}
   * @param local the server's side; may be {@code null}
   * @param now {@link System#nanoTime()} of the accept
   * @return the registration, or {@code null} if refused
   */
  public RegisteredConnection<H> admit(
      H handle, SocketAddress remote, SocketAddress local, long now) {
    if (closing) {
      refused(remote, local, CloseCause.SERVER_CLOSING);
      return null; // accepted while the listening socket was closing
    }
    if (admitted.incrementAndGet() > maxConnections) {
      admitted.decrementAndGet();
      counters.rejectedConnections.increment();
      long rejected = rejectedLog.record();
      if (rejected != 0) { // the 1st, 2nd, 4th, 8th ...: a flood of connections, not of log lines
        log.warn(
            "Rejected connection from {}: maxConnections {} reached ({} rejected so far)",
            remote,
            maxConnections,
            rejected);
      }
      refused(remote, local, CloseCause.LIMIT);
      return null;
    }
    RegisteredConnection<H> c =
        new RegisteredConnection<>(ConnectionIds.next(), handle, remote, local, now, this, events);
    counters.acceptedConnections.increment();
    counters.openConnections.increment();
    open.add(c);
    if (events != null && !events.opensAfterTls()) {
      c.open();
    }
    return c;
  }

  private void refused(SocketAddress remote, SocketAddress local, CloseCause cause) {
    if (events != null) {
      events.refused(
          new ConnectionInfo(ConnectionIds.next(), remote, local, Instant.now(), null, List.of()),
          cause);
    }
  }

  /**
   * {@code c} closed: tells the listeners (with the noted cause), then forgets it. Idempotent;
   * called once per connection by its adapter's close notification.
   */
  public void closed(RegisteredConnection<H> c) {
    if (c == null || !open.contains(c)) {
      return;
    }
    CloseCause cause = c.closeCause();
    if (cause == null) {
      cause = closing ? CloseCause.SERVER_CLOSING : CloseCause.PEER_CLOSED;
    }
    c.close(cause); // before it leaves the set: the server's close waits for its onClose
    if (!open.remove(c)) {
      return;
    }
    admitted.decrementAndGet();
    counters.openConnections.decrement();
    synchronized (changed) {
      changed.notifyAll();
    }
  }

  /**
   * The TLS handshake of {@code c} failed or timed out: counts it once per connection in {@code
   * tlsFailures}, logs it (thinned out) with the peer and {@code reason}, and closes it.
   */
  public void tlsFailed(RegisteredConnection<H> c, String reason) {
    c.noteClose(CloseCause.TLS_FAILURE);
    if (c.markTlsFailed()) {
      counters.tlsFailures.increment();
      long n = tlsFailuresLog.record();
      if (n != 0) { // the 1st, 2nd, 4th, 8th ...: a scan, not a flood of lines
        log.warn(
            "TLS handshake with {} failed: {} ({} TLS failures so far)",
            c.remoteAddress(),
            reason,
            n);
      }
    }
    c.handle().closeNow();
  }

  /**
   * Closes {@code c} for a timeout: a TLS handshake one is a {@linkplain #tlsFailed TLS failure},
   * any other counts in {@code timedOutConnections}.
   */
  public void timedOut(RegisteredConnection<H> c, TimeoutPolicy.Verdict verdict) {
    if (verdict.kind() == TimeoutPolicy.Kind.TLS_HANDSHAKE) {
      tlsFailed(c, verdict.reason());
      return;
    }
    c.noteClose(verdict.kind().closeCause());
    TimeoutPolicy.reportTimedOut(verdict, c.remoteAddress(), counters);
    c.handle().closeNow();
  }

  /**
   * Closes {@code c}, quiet past its {@code maxConnectionAge}, once what was written to it has been
   * sent: noted {@link CloseCause#AGED}, counted in {@code agedConnections}.
   */
  public void aged(RegisteredConnection<H> c, TimeoutPolicy.Verdict verdict) {
    if (c.noteClose(CloseCause.AGED)) { // else closing already, for the age or another cause
      TimeoutPolicy.reportTimedOut(verdict, c.remoteAddress(), counters);
    }
    c.handle().closeAfterWrites();
  }

  /** The open connections, a live view; iterating it sees those open throughout. */
  public Set<RegisteredConnection<H>> connections() {
    return open;
  }

  /** Open connections. */
  public int size() {
    return open.size();
  }

  /** Calls received and not yet answered, over all open connections. */
  public int pendingCalls() {
    int calls = 0;
    for (RegisteredConnection<H> c : open) {
      calls += c.handle().pendingCalls();
    }
    return calls;
  }

  /** Refuses every connection accepted from now on. */
  public void refuseNew() {
    closing = true;
  }

  /** Whether {@link #refuseNew} was called: a connection admitted just before must drain. */
  public boolean isClosing() {
    return closing;
  }

  /** Drains every open connection ({@link ConnectionHandle#startDrain}). */
  public void drainAll() {
    for (RegisteredConnection<H> c : open) {
      c.noteClose(CloseCause.SERVER_CLOSING);
      c.handle().startDrain();
    }
  }

  /** Closes every open connection now ({@link ConnectionHandle#closeNow}). */
  public void closeAll() {
    List<RegisteredConnection<H>> left = new ArrayList<>(open);
    for (RegisteredConnection<H> c : left) {
      c.noteClose(CloseCause.SERVER_CLOSING);
      c.handle().closeNow();
    }
  }

  /**
   * Waits until every connection is closed, or {@code deadlineNanos} ({@link System#nanoTime()})
   * passes.
   *
   * @return whether all are closed
   */
  public boolean awaitAllClosed(long deadlineNanos) throws InterruptedException {
    synchronized (changed) {
      while (!open.isEmpty()) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.wait(Math.max(1, left / 1_000_000));
      }
      return true;
    }
  }
}
