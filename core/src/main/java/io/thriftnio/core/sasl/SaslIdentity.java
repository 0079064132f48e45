package io.thriftnio.core.sasl;

import java.util.Objects;

/**
 * Who a SASL connection authenticated as, and how: what {@code ServerCallContext.sasl()} gives
 * every call of the connection once its negotiation completed. Immutable.
 *
 * @param mechanism the negotiated mechanism, for example {@code GSSAPI}, {@code DIGEST-MD5} or
 *     {@code PLAIN}
 * @param authorizationId the identity the peer acts as ({@code SaslServer.getAuthorizationID()}):
 *     for GSSAPI the Kerberos principal, {@code alice@EXAMPLE.COM}
 * @param qop the negotiated quality of protection
 */
public record SaslIdentity(String mechanism, String authorizationId, SaslQop qop) {
  /** Checks that no component is {@code null}. */
  public SaslIdentity {
    Objects.requireNonNull(mechanism, "mechanism");
    Objects.requireNonNull(authorizationId, "authorizationId");
    Objects.requireNonNull(qop, "qop");
  }
}
