package io.thriftnio.core.internal.server;

import io.thriftnio.core.ServerConfig;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drain of one server's {@link ServerLifecycle#close()}: every connection answers what it
 * received, refuses what comes after as not run, and closes once quiet; after {@code drainTimeout}
 * whatever is left is closed. Not part of the API.
 *
 * <pre>
 *  without a health path:  new ones drain at once (listener open) | drain ... earlier ones done
 *                          | listener quiet (200 ms, at most 1 s) | refuse new, close the listener
 *                          | drain the late ones ... drained or drainTimeout
 *  with a health path:     probes only (listener open)            | drain ... drained or drainTimeout
 *                          | refuse new, close the listener, close what is left
 * </pre>
 *
 * <p>The listening socket stays open through the drain (issue 38): closing it at the start resets
 * the connections the kernel had accepted and the server had not (its listen backlog), and a
 * connection refused on accept is closed with the call its client wrote unread: a client sees
 * {@code Connection reset} on a call nobody ran and cannot tell that it may send it elsewhere. A
 * connection accepted during the drain is admitted draining ({@link
 * ConnectionRegistry#admitDraining()}): its calls are answered {@code not run} and it closes once
 * quiet, which also tells a pool that the server drains. With a health path it is a probe
 * connection instead ({@link ConnectionRegistry#admitProbesOnly()}, issue 28): a Kubernetes {@code
 * httpGet} probe reads {@code 503} for the whole drain, not "connection refused"; it is served for
 * the probe alone and never waited for.
 */
final class ServerDrain {

  private static final Logger log = LoggerFactory.getLogger(ServerDrain.class);

  private final ServerConfig config;
  private final ConnectionRegistry<?> registry;
  private final ServerLifecycle.Transport transport;
  private final InetSocketAddress address;

  /** Whether connections accepted during the drain serve health probes only. */
  private final boolean keepsListening;

  /** Whether {@link #stopAccepting} ran; only the close thread reads and writes it. */
  private boolean listenerClosed;

  ServerDrain(
      ServerConfig config,
      ConnectionRegistry<?> registry,
      ServerLifecycle.Transport transport,
      InetSocketAddress address) {
    this.config = config;
    this.registry = registry;
    this.transport = transport;
    this.address = address;
    this.keepsListening = config.healthPath() != null;
  }

  /**
   * Where {@code close()} cannot wait (in a call, on an IO thread): connections accepted from now
   * on drain at once (or serve probes only); {@link #run()} follows on the close thread.
   */
  void begin() {
    if (keepsListening) {
      registry.admitProbesOnly();
    } else {
      registry.admitDraining();
    }
  }

  /**
   * Drains, as the class documentation says; returns once every connection is closed or given up.
   */
  void run() {
    long drainNanos = config.drainTimeout().toNanos();
    long started = System.nanoTime();
    long deadline = started + drainNanos;
    // 1. New connections: admitted draining, or served for the probe only; the listener stays open.
    begin();
    // 2. Each connection answers its received calls, refuses new ones as not run, and closes once
    // quiet.
    registry.drainAll();
    boolean drained;
    try {
      // The connections open before the drain (not those accepted since: clients that keep
      // connecting must not hold the listener open until the drain timeout).
      drained = registry.awaitEarlierDrained(deadline);
      // 3. The listener closes once quiet, by the connections' rule: no connection accepted for
      // 200 ms, or 1 s after the drain began (clients that keep connecting), within the drain
      // timeout. A pool that reads a refusal stops connecting; closing earlier would reset what
      // it connected meanwhile. The connections accepted meanwhile then drain.
      if (!keepsListening) {
        registry.awaitAcceptsQuiet(
            CallSequencer.DRAIN_QUIET_NANOS,
            Math.min(started + CallSequencer.DRAIN_REFUSING_NANOS - deadline, 0) + deadline);
      }
      stopAccepting(graceAfter(deadline));
      drained = drained && registry.awaitDrained(deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // restored; close() goes on without waiting further
      closeLeft();
      return;
    }
    if (!drained) {
      log.warn(
          "Drain timeout {} ms passed with {} calls in flight on {} connections of {}; closing"
              + " them",
          TimeUnit.NANOSECONDS.toMillis(drainNanos),
          registry.pendingCalls(),
          registry.size(),
          address);
    }
    if (drained && !keepsListening) {
      return; // every connection is closed
    }
    // 4. Whatever is left (calls past the drain timeout, probe connections) is closed now.
    long grace =
        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ServerLifecycle.SHUTDOWN_GRACE_MILLIS);
    closeLeft();
    try {
      if (!registry.awaitAllClosed(grace)) {
        log.warn("{} connections of {} did not close in time", registry.size(), address);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // restored; close() goes on without waiting further
    }
  }

  /** {@code deadline}, or the shutdown grace from now if the deadline has passed. */
  private static long graceAfter(long deadline) {
    long now = System.nanoTime();
    return deadline - now > 0
        ? deadline
        : now + TimeUnit.MILLISECONDS.toNanos(ServerLifecycle.SHUTDOWN_GRACE_MILLIS);
  }

  /** Closes every connection left, the listening socket first if it is still open. */
  private void closeLeft() {
    if (!listenerClosed) {
      stopAccepting(graceAfter(System.nanoTime()));
    }
    registry.closeAll();
  }

  /**
   * Refuses new connections, closes the listening socket, then waits (until {@code deadline}) for
   * the connections the transport accepted before it closed and has not handed to the registry yet
   * (issue 38: Grizzly registers an accepted connection with a selector before the server sees it,
   * and a close that drained and released the transport meanwhile left it open, unseen). Once they
   * have arrived, the registry's set is every connection the server has: each is drained or closed,
   * or was refused and closed.
   */
  private void stopAccepting(long deadline) {
    listenerClosed = true;
    registry.refuseNew();
    try {
      transport.stopAccepting();
    } catch (RuntimeException e) {
      log.warn("Could not close the listening socket {}", address, e);
    }
    try {
      if (!registry.awaitArrivals(deadline)) {
        log.warn(
            "{} connections accepted on {} did not reach the server before the close went on",
            registry.arrivingConnections(),
            address);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // restored; the close goes on without waiting further
    }
  }
}
