package io.thriftnio.core.sasl;

/**
 * Checks the credentials of a SASL {@code PLAIN} client (RFC 4616) for {@link
 * ServerSasl.Builder#plain(PlainAuthenticator)}: the application's user store, an LDAP bind, a
 * token service. Called once per connection, on the server's negotiation executor (never an IO
 * thread; {@link ServerSasl.Builder#negotiationExecutor}), so it may block, holding up only that
 * server's negotiations; it must be thread-safe, as connections negotiate at once.
 *
 * <pre>{@code
 * PlainAuthenticator users = (user, password) -> store.matches(user, password);
 * }</pre>
 *
 * <p>PLAIN sends the password in clear: serve it over TLS (the server refuses PLAIN without TLS
 * unless {@link ServerSasl.Builder#plainWithoutTls(boolean)} says otherwise).
 */
@FunctionalInterface
public interface PlainAuthenticator {

  /**
   * Whether {@code password} is {@code authenticationId}'s. A {@code false}, or an exception,
   * refuses the connection. The client is told no more than {@code BAD "authentication failed"} for
   * a {@code false}, {@code ERROR "internal error"} for an exception; what happened (the user, the
   * exception and its text) goes to the server's log with the client's address, never to the
   * client.
   *
   * @param authenticationId who the client says it is (PLAIN's {@code authcid}), never empty
   * @param password the password; the server clears the array once this returns
   * @return whether the credential is valid
   * @throws Exception if it cannot tell (the user store is down): the negotiation fails with {@code
   *     ERROR "internal error"}, and the server logs the exception at WARN
   */
  boolean authenticate(String authenticationId, char[] password) throws Exception;

  /**
   * Whether the authenticated {@code authenticationId} may act as {@code authorizationId}, a
   * different identity (PLAIN's optional {@code authzid}: a proxy user). Asked only after {@link
   * #authenticate} accepted the credential and only when the two differ; a client that names no
   * {@code authzid}, or its own, acts as itself. By default {@code false}: nobody acts as another.
   *
   * @param authenticationId the authenticated user
   * @param authorizationId the identity it asks to act as; the connection's {@link
   *     SaslIdentity#authorizationId()} when allowed
   * @return whether to allow it; {@code false} tells the client {@code BAD "authentication
   *     failed"}, an exception {@code ERROR "internal error"}, as for {@link #authenticate}
   */
  default boolean mayActAs(String authenticationId, String authorizationId) {
    return false;
  }
}
