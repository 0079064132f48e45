package io.thriftnio.core.internal.server;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ConnectionInfo;
import java.net.SocketAddress;
import java.security.Principal;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * One open connection of a server, as its {@link ConnectionRegistry} keeps it: the adapter's {@link
 * ConnectionHandle}, who the peer is and when it was accepted. Not part of the API.
 *
 * <p>The peer identity (the authenticated principal of a TLS client certificate) is set by the
 * adapter once its handshake completes, for whatever needs to know the caller at call time.
 *
 * <p>Close cause: whoever decides to close the connection (a timeout, a TLS failure, a bad request,
 * the server's close, an error) {@linkplain #noteClose notes why} before closing it; the first note
 * wins, and a connection closed without one was closed by its peer.
 *
 * <p>Listener events (only with {@link ConnectionEvents}): open and close each fire at most once,
 * and a close that comes while the open's listeners run is fired by the opening thread once they
 * return, so {@code onClose} never overtakes {@code onOpen}. Lock-free.
 *
 * <pre>
 *  NEW --open--&gt; OPENING --&gt; OPEN --close--&gt; CLOSED      (onOpen, then onClose)
 *   |               +--close--&gt; CLOSE_PENDING --&gt; CLOSED   (onClose fired by the opener)
 *   +--close--&gt; CLOSED                                    (onRefused: never opened)
 * </pre>
 *
 * @param <H> the adapter's handle
 */
public final class RegisteredConnection<H extends ConnectionHandle> {

  private static final int NEW = 0;
  private static final int OPENING = 1;
  private static final int OPEN = 2;
  private static final int CLOSE_PENDING = 3;
  private static final int CLOSED = 4;

  private final long id;
  private final H handle;
  private final SocketAddress remoteAddress;
  private final SocketAddress localAddress;
  private final long acceptedAtNanos;
  private final Instant acceptedAt = Instant.now();
  private final ConnectionRegistry<H> registry;
  private final ConnectionEvents events;
  private final boolean probeOnly;
  private final AtomicBoolean tlsFailed = new AtomicBoolean();
  private final AtomicReference<CloseCause> closeCause = new AtomicReference<>();
  private final AtomicInteger eventState = new AtomicInteger(NEW);
  private volatile Principal peerPrincipal;
  private volatile List<Certificate> peerCertificates = List.of();
  private volatile ConnectionInfo info;
  private volatile CloseCause pendingClose;

  RegisteredConnection(
      long id,
      H handle,
      SocketAddress remoteAddress,
      SocketAddress localAddress,
      long acceptedAt,
      ConnectionRegistry<H> registry,
      ConnectionEvents events,
      boolean probeOnly) {
    this.id = id;
    this.handle = handle;
    this.remoteAddress = remoteAddress;
    this.localAddress = localAddress;
    this.acceptedAtNanos = TimeoutPolicy.stamp(acceptedAt);
    this.registry = registry;
    this.events = events;
    this.probeOnly = probeOnly;
  }

  /**
   * Whether it was accepted while the server drains, for the health probe only: its adapter decodes
   * it with {@link io.thriftnio.core.wire.WireSettings#forProbes()}, the drain does not wait for
   * it, and the drain's end closes it.
   */
  public boolean probeOnly() {
    return probeOnly;
  }

  /** The connection's number, unique within its server, from 1 in accept order. */
  public long id() {
    return id;
  }

  /** The adapter's handle. */
  public H handle() {
    return handle;
  }

  /** The peer's address; {@code null} if unknown. */
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }

  /** The server's address of this connection; {@code null} if unknown. */
  public SocketAddress localAddress() {
    return localAddress;
  }

  /** When it was accepted ({@link System#nanoTime()}, never {@link TimeoutPolicy#NONE}). */
  public long acceptedAtNanos() {
    return acceptedAtNanos;
  }

  /** The peer's authenticated identity (TLS client certificate); {@code null} if none. */
  public Principal peerPrincipal() {
    return peerPrincipal;
  }

  /**
   * Its TLS handshake completed: notes the peer's identity, if it presented a certificate, and
   * (with listeners) opens the connection.
   */
  public void tlsEstablished(SSLSession session) {
    try {
      this.peerCertificates = List.of(session.getPeerCertificates());
      this.peerPrincipal = session.getPeerPrincipal();
    } catch (SSLPeerUnverifiedException anonymous) {
      // No client certificate (client authentication NONE or OPTIONAL): no identity to note.
    }
    open();
  }

  /**
   * Notes why the server closes this connection, before it closes it. The first note wins: a
   * connection closed for a timeout stays so even if the drain or an error follows.
   *
   * @return whether this note is the one that counts
   */
  public boolean noteClose(CloseCause cause) {
    return closeCause.compareAndSet(null, cause);
  }

  /**
   * The connection's call path closes it after its last reply: a bad request, or (the server
   * closing) the end of its drain.
   */
  public void noteClosedAfterReplies() {
    noteClose(registry.isClosing() ? CloseCause.SERVER_CLOSING : CloseCause.BAD_REQUEST);
  }

  /** The noted cause, or {@code null} if none was noted. */
  CloseCause closeCause() {
    return closeCause.get();
  }

  /** What listeners see of it; {@code null} until it has opened (or without listeners). */
  public ConnectionInfo info() {
    return info;
  }

  /** Marks the TLS failure of this connection; {@code true} only the first time. */
  boolean markTlsFailed() {
    return tlsFailed.compareAndSet(false, true);
  }

  /** Opens the connection for the listeners: {@code onOpen}, once. */
  void open() {
    if (events == null || !eventState.compareAndSet(NEW, OPENING)) {
      return;
    }
    ConnectionInfo opened = snapshot();
    info = opened;
    events.opened(opened);
    if (!eventState.compareAndSet(OPENING, OPEN)) {
      // Closed while the listeners ran: the close was left to this thread.
      eventState.set(CLOSED);
      events.closed(opened, pendingClose);
    }
  }

  /** Closes the connection for the listeners: {@code onClose} if opened, else {@code onRefused}. */
  void close(CloseCause cause) {
    if (events == null) {
      return;
    }
    while (true) {
      int state = eventState.get();
      switch (state) {
        case NEW:
          if (eventState.compareAndSet(NEW, CLOSED)) {
            events.refused(snapshot(), cause);
            return;
          }
          break;
        case OPENING:
          pendingClose = cause; // read by the opener after its compareAndSet fails
          if (eventState.compareAndSet(OPENING, CLOSE_PENDING)) {
            return;
          }
          break;
        case OPEN:
          if (eventState.compareAndSet(OPEN, CLOSED)) {
            events.closed(info, cause);
            return;
          }
          break;
        default:
          return; // closed already
      }
    }
  }

  private ConnectionInfo snapshot() {
    return new ConnectionInfo(
        id, remoteAddress, localAddress, acceptedAt, peerPrincipal, peerCertificates);
  }

  @Override
  public String toString() {
    return "connection " + id + " from " + remoteAddress;
  }
}
