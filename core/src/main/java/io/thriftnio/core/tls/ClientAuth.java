package io.thriftnio.core.tls;

/**
 * Whether a TLS server asks its clients for a certificate; see {@link
 * ServerTls.Builder#clientAuth}.
 */
public enum ClientAuth {
  /** No client certificate is requested. */
  NONE,
  /**
   * A certificate is requested; a client without one is accepted, a client whose certificate does
   * not chain to the trusted authorities is rejected.
   */
  OPTIONAL,
  /** Mutual TLS: a client without a certificate trusted by the server fails the handshake. */
  REQUIRE
}
