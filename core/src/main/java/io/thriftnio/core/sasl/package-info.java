/**
 * SASL settings and identities shared by every thrift-nio transport, for libthrift's SASL framing
 * ({@code TSaslServerTransport}, {@code TSaslClientTransport}, {@code TSaslNonblockingServer}): a
 * negotiation (status byte, 4-byte length, payload) runs first on each connection, then the
 * connection carries length-prefixed frames, wrapped by the negotiated mechanism when its quality
 * of protection is {@link io.thriftnio.core.sasl.SaslQop#AUTH_INT} or {@link
 * io.thriftnio.core.sasl.SaslQop#AUTH_CONF}.
 *
 * <p>The mechanisms are the JDK's {@code javax.security.sasl} ones (GSSAPI for Kerberos,
 * DIGEST-MD5) and a PLAIN server of this library's own that asks the application to check each
 * credential.
 */
package io.thriftnio.core.sasl;
