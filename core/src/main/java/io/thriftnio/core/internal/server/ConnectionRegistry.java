package io.thriftnio.core.internal.server;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ConnectionInfo;
import io.thriftnio.core.internal.EveryPowerOfTwo;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.ServerCounters;
import java.net.SocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * <p>What a new connection gets, as the server's close goes on:
 *
 * <pre>
 *  ACCEPTING --admitDraining--&gt; DRAINING     --refuseNew--&gt; REFUSING
 *  admitted     (the drain)         admitted and drained    refused (the listener
 *                                   at once                 closes: the drain's end)
 *           --admitProbesOnly--&gt; PROBES_ONLY  --refuseNew--&gt; REFUSING
 *             (the drain, with    admitted for the
 *             a health path)      health probe only
 * </pre>
 *
 * <p>A connection admitted draining is served as any other but drains from the start: the calls it
 * sends are answered {@code not run} and it closes once quiet. The listening socket stays open for
 * it during the drain (issue 38): a connection the kernel had accepted and the server refused or
 * left in the listen backlog would be reset, and the call its client had already written lost
 * without a word.
 *
 * <p>A probe connection ({@link RegisteredConnection#probeOnly()}) counts as any other against
 * {@code maxConnections} and in the counters, is not drained ({@link #drainAll}) and is not waited
 * for ({@link #awaitDrained}): it answers its probe and closes, and the drain's end closes the
 * rest.
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

  /**
   * Modes: new connections are admitted, admitted draining, admitted for the probe only, refused.
   */
  private static final int ACCEPTING = 0;

  private static final int DRAINING = 1;
  private static final int PROBES_ONLY = 2;
  private static final int REFUSING = 3;

  private final int maxConnections;
  private final ServerCounters counters;
  private final ConnectionEvents events;
  private final Set<RegisteredConnection<H>> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger admitted = new AtomicInteger();
  private final EveryPowerOfTwo rejectedLog = new EveryPowerOfTwo();
  private final EveryPowerOfTwo tlsFailuresLog = new EveryPowerOfTwo();
  private final Object changed = new Object();

  /** Open connections that are not probe connections: those the drain waits for. */
  private final AtomicInteger served = new AtomicInteger();

  /**
   * Open connections admitted draining ({@link #admitDraining}): the first wait of the drain
   * ({@link #awaitEarlierDrained}) does not count them, so that clients that keep connecting cannot
   * hold the listening socket open for the whole drain timeout.
   */
  private final Set<RegisteredConnection<H>> bornDraining = ConcurrentHashMap.newKeySet();

  /**
   * Connections the transport took off its listening socket that have not reached {@link #admit}
   * (or its refusal) yet: the close waits for them before it drains (issue 38).
   */
  private final AtomicInteger arriving = new AtomicInteger();

  /** {@link System#nanoTime()} of the last connection admitted. */
  private volatile long lastAdmittedNanos = System.nanoTime();

  /** ACCEPTING, DRAINING, PROBES_ONLY or REFUSING; only ever goes up. */
  private final AtomicInteger mode = new AtomicInteger(ACCEPTING);

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
      throw new SettingException("maxConnections", maxConnections, "> 0");
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
   * logged; during the drain it is admitted draining, or (during a drain that serves probes)
   * admitted as a {@linkplain RegisteredConnection#probeOnly() probe connection}; once the
   * listening socket closes it is refused quietly. The caller closes a refused connection, calls
   * {@link #settle} once it has set an admitted one up, and {@link #closed} once it closes.
   *
   * @param handle the adapter's handle
   * @param remote the peer's address, for log lines; may be {@code null}
   * @param local the server's side; may be {@code null}
   * @param now {@link System#nanoTime()} of the accept
   * @return the registration, or {@code null} if refused
   */
  public RegisteredConnection<H> admit(
      H handle, SocketAddress remote, SocketAddress local, long now) {
    int m = mode.get();
    if (m == REFUSING) {
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
    boolean probe = m == PROBES_ONLY;
    RegisteredConnection<H> c =
        new RegisteredConnection<>(
            ConnectionIds.next(), handle, remote, local, now, this, events, probe);
    if (!probe) {
      served.incrementAndGet();
      if (m == DRAINING) {
        bornDraining.add(c);
      }
    }
    lastAdmittedNanos = System.nanoTime();
    counters.acceptedConnections.increment();
    counters.openConnections.increment();
    open.add(c);
    if (events != null && !events.opensAfterTls()) {
      c.open();
    }
    return c;
  }

  /**
   * The transport took a connection off its listening socket and hands it to {@link #admit} later,
   * on another thread (Grizzly registers it with a selector first). Until the returned arrival is
   * {@linkplain Arrival#arrived() settled}, the server's close cannot see the connection; it waits
   * for it ({@link #awaitArrivals}) before draining, so that a connection accepted as the listening
   * socket closes is admitted and drained, or refused and closed, and never left open unseen.
   */
  public Arrival arriving() {
    arriving.incrementAndGet();
    return new Arrival();
  }

  /** One connection on its way from the transport's accept to {@link #admit}. */
  public final class Arrival {
    private final AtomicBoolean settled = new AtomicBoolean();

    private Arrival() {}

    /**
     * The connection reached the registry (admitted, or refused and closed), or closed before it
     * could: call it after {@link #admit} and after closing a refused connection. Idempotent.
     */
    public void arrived() {
      if (settled.compareAndSet(false, true)) {
        arriving.decrementAndGet();
        synchronized (changed) {
          changed.notifyAll();
        }
      }
    }
  }

  /**
   * Waits until every connection the transport accepted has reached the registry ({@link
   * Arrival#arrived()}), or {@code deadlineNanos} ({@link System#nanoTime()}) passes. Called by the
   * close once the listening socket is closed: the drain's view of the open connections is then
   * complete.
   *
   * @return whether none is still on its way
   */
  public boolean awaitArrivals(long deadlineNanos) throws InterruptedException {
    synchronized (changed) {
      while (arriving.get() > 0) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.wait(Math.max(1, left / 1_000_000));
      }
      return true;
    }
  }

  /** Connections accepted by the transport and not yet admitted or refused. */
  public int arrivingConnections() {
    return arriving.get();
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
      cause = isClosing() ? CloseCause.SERVER_CLOSING : CloseCause.PEER_CLOSED;
    }
    c.close(cause); // before it leaves the set: the server's close waits for its onClose
    if (!open.remove(c)) {
      return;
    }
    admitted.decrementAndGet();
    if (!c.probeOnly()) {
      bornDraining.remove(c);
      served.decrementAndGet();
    }
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
    mode.accumulateAndGet(REFUSING, Math::max);
  }

  /**
   * Admits every connection accepted from now on (until {@link #refuseNew}) draining: {@link
   * #settle} starts its drain, and the drain waits for it. The drain of a server without a health
   * path, whose listening socket stays open until the drain ends (issue 38). Does nothing once
   * {@link #admitProbesOnly} or {@link #refuseNew} was called.
   */
  public void admitDraining() {
    mode.accumulateAndGet(DRAINING, Math::max);
  }

  /**
   * Admits every connection accepted from now on (until {@link #refuseNew}) as a {@linkplain
   * RegisteredConnection#probeOnly() probe connection}: the drain of a server with a health path,
   * whose listening socket stays open so that a probe reads {@code 503} (issue 28). Does nothing
   * once {@link #refuseNew} was called.
   */
  public void admitProbesOnly() {
    mode.accumulateAndGet(PROBES_ONLY, Math::max);
  }

  /**
   * Whether the server's close began ({@link #admitDraining}, {@link #admitProbesOnly} or {@link
   * #refuseNew}): a connection admitted just before must drain.
   */
  public boolean isClosing() {
    return mode.get() != ACCEPTING;
  }

  /**
   * The adapter has set {@code c} up (its call path exists). If the server's close began after its
   * admission, the drain, or the drain's end for a probe connection, may have missed it: it drains
   * now, or (a probe connection once probes are refused) closes.
   */
  public void settle(RegisteredConnection<H> c) {
    int m = mode.get();
    if (c.probeOnly() ? m == REFUSING : m != ACCEPTING) {
      c.noteClose(CloseCause.SERVER_CLOSING);
      if (c.probeOnly()) {
        c.handle().closeNow();
      } else {
        c.handle().startDrain();
      }
    }
  }

  /**
   * Drains every open connection ({@link ConnectionHandle#startDrain}) but the probe connections,
   * which end with their answer.
   */
  public void drainAll() {
    for (RegisteredConnection<H> c : open) {
      if (!c.probeOnly()) {
        c.noteClose(CloseCause.SERVER_CLOSING);
        c.handle().startDrain();
      }
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
    return await(false, deadlineNanos);
  }

  /**
   * Waits until every connection but the probe connections is closed, or {@code deadlineNanos}
   * ({@link System#nanoTime()}) passes: the drain.
   *
   * @return whether all those are closed
   */
  public boolean awaitDrained(long deadlineNanos) throws InterruptedException {
    return await(true, deadlineNanos);
  }

  /**
   * Waits until every connection but the probe connections and those admitted draining is closed,
   * or {@code deadlineNanos} ({@link System#nanoTime()}) passes: the drain, while the listening
   * socket is open. {@link #awaitDrained} then waits for the others once it has closed.
   *
   * @return whether all those are closed
   */
  public boolean awaitEarlierDrained(long deadlineNanos) throws InterruptedException {
    synchronized (changed) {
      while (served.get() - bornDraining.size() > 0) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.wait(Math.max(1, left / 1_000_000));
      }
      return true;
    }
  }

  /**
   * Waits until no connection has been admitted for {@code quietNanos}, or {@code untilNanos}
   * ({@link System#nanoTime()}) passes: the listening socket of a draining server closes once
   * clients have stopped connecting to it (issue 38), a connection still in its backlog then being
   * reset.
   */
  public void awaitAcceptsQuiet(long quietNanos, long untilNanos) throws InterruptedException {
    synchronized (changed) {
      while (true) {
        long now = System.nanoTime();
        long left = Math.min(lastAdmittedNanos + quietNanos - now, untilNanos - now);
        if (left <= 0) {
          return;
        }
        changed.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  private boolean await(boolean probesLeft, long deadlineNanos) throws InterruptedException {
    synchronized (changed) {
      while (probesLeft ? served.get() > 0 : !open.isEmpty()) {
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
