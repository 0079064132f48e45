package io.thriftnio.core.wire;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.net.SocketAddress;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server connection's {@link SaslServer}, from the first negotiation step that makes it to its
 * disposal: used by the steps (on the negotiation executor), by the decoder once a step is done
 * (the reading thread), by {@code unwrap} (the reading thread) and {@code wrap} (the replying
 * thread), and closed from any thread. Each use is bracketed by {@link #begin()} and {@link
 * #end()}; {@link #close()} disposes the server at once when nothing uses it, else the last use in
 * progress does. So the server is disposed exactly once, never under a use.
 *
 * <p>Locks: {@code lock} guards the state and is never held while the mechanism runs; {@code layer}
 * makes {@code wrap} and {@code unwrap} one at a time (a mechanism's sequence numbers and cipher
 * state are not documented as safe for both at once) and is held only around them. Both are
 * private; the {@code SaslServer} itself is never used as a lock.
 */
final class SaslSession {

  private static final Logger log = LoggerFactory.getLogger(SaslSession.class);

  private final Object lock = new Object();
  private final Object layer = new Object();
  private final SocketAddress peer;

  @GuardedBy("lock")
  private SaslServer server;

  @GuardedBy("lock")
  private int uses;

  @GuardedBy("lock")
  private boolean closed;

  SaslSession(SocketAddress peer) {
    this.peer = peer;
  }

  /** Begins a use; {@code false} once closed, when the caller must not touch the server. */
  boolean begin() {
    synchronized (lock) {
      if (closed) {
        return false;
      }
      uses++;
      return true;
    }
  }

  /** The server, or {@code null} before the first step made it. Within a use. */
  SaslServer server() {
    synchronized (lock) {
      return server;
    }
  }

  /** The first step made {@code made}: the session's from now on. Within a use. */
  void made(SaslServer made) {
    synchronized (lock) {
      server = made;
    }
  }

  /** Ends a use: the last one after {@link #close()} disposes the server. */
  void end() {
    SaslServer gone = null;
    synchronized (lock) {
      uses--;
      if (closed && uses == 0) {
        gone = server;
        server = null;
      }
    }
    dispose(gone);
  }

  /**
   * Nothing more is asked of the server (the connection ended, or it negotiated {@code auth}):
   * disposes it now, or when the last use in progress ends. Idempotent; any thread.
   */
  void close() {
    SaslServer gone = null;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      if (uses == 0) {
        gone = server;
        server = null;
      }
    }
    dispose(gone);
  }

  /** {@code unwrap} of the negotiated security layer. */
  byte[] unwrap(byte[] wrapped, int offset, int length) throws SaslException {
    if (!begin()) {
      throw new SaslException("the connection closed: its SASL context is disposed");
    }
    try {
      SaslServer s = server();
      synchronized (layer) {
        return s.unwrap(wrapped, offset, length);
      }
    } finally {
      end();
    }
  }

  /** {@code wrap} of the negotiated security layer. */
  byte[] wrap(byte[] message, int offset, int length) throws SaslException {
    if (!begin()) {
      throw new SaslException("the connection closed: its SASL context is disposed");
    }
    try {
      SaslServer s = server();
      synchronized (layer) {
        return s.wrap(message, offset, length);
      }
    } finally {
      end();
    }
  }

  private void dispose(SaslServer s) {
    if (s == null) {
      return;
    }
    try {
      s.dispose();
    } catch (SaslException | RuntimeException e) {
      // Only the mechanism's own resources are at stake, and the connection is done with them.
      log.debug("SASL {} context of {} not disposed: {}", s.getMechanismName(), peer, e.toString());
    }
  }
}
