package io.thriftnio.core.sasl;

import java.util.Locale;

/**
 * A SASL quality of protection ({@code javax.security.sasl.Sasl.QOP}): what the negotiated
 * mechanism does to every frame after the negotiation. Only mechanisms with a security layer
 * (GSSAPI, DIGEST-MD5) offer more than {@link #AUTH}.
 */
public enum SaslQop {
  /** Authentication only: frames travel as they would on a framed connection. */
  AUTH("auth"),
  /** Authentication and integrity: every frame is signed ({@code SaslServer.wrap}). */
  AUTH_INT("auth-int"),
  /** Authentication, integrity and confidentiality: every frame is encrypted. */
  AUTH_CONF("auth-conf");

  private final String saslName;

  SaslQop(String saslName) {
    this.saslName = saslName;
  }

  /** The name SASL uses: {@code auth}, {@code auth-int} or {@code auth-conf}. */
  public String saslName() {
    return saslName;
  }

  /**
   * The quality of protection named {@code saslName}, as {@code SaslServer.getNegotiatedProperty(
   * Sasl.QOP)} returns it (case ignored).
   *
   * @throws IllegalArgumentException if it names none
   */
  public static SaslQop of(String saslName) {
    String wanted = saslName == null ? "" : saslName.trim().toLowerCase(Locale.ROOT);
    for (SaslQop qop : values()) {
      if (qop.saslName.equals(wanted)) {
        return qop;
      }
    }
    throw new IllegalArgumentException(
        "saslQop: " + saslName + " (expected: auth, auth-int or auth-conf)");
  }

  /** Whether frames are wrapped under this quality of protection. */
  public boolean wraps() {
    return this != AUTH;
  }
}
