package io.thriftnio.core.internal.server;

import java.net.SocketAddress;
import java.security.Principal;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * One open connection of a server, as its {@link ConnectionRegistry} keeps it: the adapter's {@link
 * ConnectionHandle}, who the peer is and when it was accepted. Not part of the API.
 *
 * <p>The peer identity (the authenticated principal of a TLS client certificate) is set by the
 * adapter once its handshake completes, for whatever needs to know the caller at call time.
 *
 * @param <H> the adapter's handle
 */
public final class RegisteredConnection<H extends ConnectionHandle> {

  private final long id;
  private final H handle;
  private final SocketAddress remoteAddress;
  private final SocketAddress localAddress;
  private final long acceptedAtNanos;
  private final AtomicBoolean tlsFailed = new AtomicBoolean();
  private volatile Principal peerPrincipal;

  RegisteredConnection(
      long id, H handle, SocketAddress remoteAddress, SocketAddress localAddress, long acceptedAt) {
    this.id = id;
    this.handle = handle;
    this.remoteAddress = remoteAddress;
    this.localAddress = localAddress;
    this.acceptedAtNanos = TimeoutPolicy.stamp(acceptedAt);
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

  /** Its TLS handshake completed: notes the peer's identity, if it presented a certificate. */
  public void tlsEstablished(SSLSession session) {
    try {
      this.peerPrincipal = session.getPeerPrincipal();
    } catch (SSLPeerUnverifiedException anonymous) {
      // No client certificate (client authentication NONE or OPTIONAL): no identity to note.
    }
  }

  /** Marks the TLS failure of this connection; {@code true} only the first time. */
  boolean markTlsFailed() {
    return tlsFailed.compareAndSet(false, true);
  }

  @Override
  public String toString() {
    return "connection " + id + " from " + remoteAddress;
  }
}
