package io.thriftnio.core;

import java.net.SocketAddress;
import java.security.Principal;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Who is on the other end of one server connection, as a {@link ConnectionListener} sees it.
 * Immutable; taken when the connection opens (after its TLS handshake, when there is one), so it
 * carries the peer's verified identity. The server hands the same instance to every event of one
 * connection, and equality is identity, so a listener may key its per-connection state by it.
 */
public final class ConnectionInfo {

  private final long id;
  private final SocketAddress remoteAddress;
  private final SocketAddress localAddress;
  private final Instant acceptedAt;
  private final Principal peerPrincipal;
  private final List<Certificate> peerCertificates;

  /**
   * @param id the connection's number, unique within its server, from 1 in accept order
   * @param remoteAddress the peer's address; {@code null} if unknown
   * @param localAddress the server's address of the connection; {@code null} if unknown
   * @param acceptedAt when the server accepted it
   * @param peerPrincipal the authenticated identity of the peer's TLS certificate; {@code null} if
   *     none
   * @param peerCertificates the peer's TLS certificate chain, its own first; empty if none
   */
  public ConnectionInfo(
      long id,
      SocketAddress remoteAddress,
      SocketAddress localAddress,
      Instant acceptedAt,
      Principal peerPrincipal,
      List<Certificate> peerCertificates) {
    this.id = id;
    this.remoteAddress = remoteAddress;
    this.localAddress = localAddress;
    this.acceptedAt = Objects.requireNonNull(acceptedAt, "acceptedAt");
    this.peerPrincipal = peerPrincipal;
    this.peerCertificates = List.copyOf(peerCertificates);
  }

  /**
   * The connection's number: unique in this JVM, increasing in accept order, and the same as {@link
   * ServerCallContext#connectionId()} of its calls.
   */
  public long id() {
    return id;
  }

  /** The peer's address (an {@code InetSocketAddress} on TCP); {@code null} if unknown. */
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }

  /** The server's address of this connection; {@code null} if unknown. */
  public SocketAddress localAddress() {
    return localAddress;
  }

  /** When the server accepted the connection (before its TLS handshake). */
  public Instant acceptedAt() {
    return acceptedAt;
  }

  /**
   * The authenticated identity of the peer's TLS client certificate; empty for plain TCP and for a
   * TLS peer that presented no certificate.
   */
  public Optional<Principal> peerPrincipal() {
    return Optional.ofNullable(peerPrincipal);
  }

  /** The peer's TLS certificate chain, its own first; empty when it presented none. */
  public List<Certificate> peerCertificates() {
    return peerCertificates;
  }

  @Override
  public String toString() {
    return "connection "
        + id
        + " from "
        + remoteAddress
        + (peerPrincipal != null ? " (" + peerPrincipal.getName() + ")" : "");
  }
}
