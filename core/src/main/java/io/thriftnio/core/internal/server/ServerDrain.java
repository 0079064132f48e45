package io.thriftnio.core.internal.server;

import io.thriftnio.core.ServerConfig;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drain of one server's {@link ServerLifecycle#close()}: new connections stop being served,
 * every connection answers what it received and closes, and after {@code drainTimeout} whatever is
 * left is closed. Not part of the API.
 *
 * <pre>
 *  without a health path:  refuse new, close the listener | drain ... drained or drainTimeout
 *  with a health path:     probes only (listener open)    | drain ... drained or drainTimeout
 *                          | refuse new, close the listener, close the probe connections left
 * </pre>
 *
 * <p>With a health path the listening socket stays open until the drain ends (issue 28): a
 * Kubernetes {@code httpGet} probe would otherwise read "connection refused" for the whole drain,
 * where it should read {@code 503}. A connection accepted meanwhile is a probe connection ({@link
 * ConnectionRegistry#admitProbesOnly()}): served for the probe alone, never waited for.
 */
final class ServerDrain {

  private static final Logger log = LoggerFactory.getLogger(ServerDrain.class);

  private final ServerConfig config;
  private final ConnectionRegistry<?> registry;
  private final ServerLifecycle.Transport transport;
  private final InetSocketAddress address;

  /** Whether the listening socket stays open, for probes, until the drain ends. */
  private final boolean keepsListening;

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
   * Where {@code close()} cannot wait (in a call, on an IO thread): stops serving new connections
   * now, and starts closing the listening socket unless it stays open for probes; {@link #run()}
   * follows on the close thread.
   */
  void begin() {
    if (keepsListening) {
      registry.admitProbesOnly();
      return;
    }
    registry.refuseNew();
    try {
      transport.beginStopAccepting();
    } catch (RuntimeException e) {
      log.warn("Could not close the listening socket {}", address, e);
    }
  }

  /**
   * Drains, as the class documentation says; returns once every connection is closed or given up.
   */
  void run() {
    long drainNanos = config.drainTimeout().toNanos();
    long deadline = System.nanoTime() + drainNanos;
    // 1. New connections: refused (the listener closes), or served for the probe only.
    if (keepsListening) {
      registry.admitProbesOnly();
    } else {
      stopAccepting(deadline);
    }
    // 2. Each connection stops reading and closes once its received calls are answered.
    registry.drainAll();
    boolean drained;
    try {
      drained = registry.awaitDrained(deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // restored; close() goes on without waiting further
      closeLeft(System.nanoTime());
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
    // 3. Whatever is left (calls past the drain timeout, probe connections) is closed now.
    long grace =
        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ServerLifecycle.SHUTDOWN_GRACE_MILLIS);
    closeLeft(grace);
    try {
      if (!registry.awaitAllClosed(grace)) {
        log.warn("{} connections of {} did not close in time", registry.size(), address);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // restored; close() goes on without waiting further
    }
  }

  /** Closes every connection left, the listening socket first if it was kept open for probes. */
  private void closeLeft(long deadline) {
    if (keepsListening) {
      stopAccepting(deadline);
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
