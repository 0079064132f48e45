package io.thriftnio.testkit.sasl;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;

/**
 * A SASL {@code PLAIN} client (RFC 4616) for tests: the JDK has none, and libthrift's {@code
 * TSaslClientTransport} takes any {@link SaslClient}. One message, {@code authzid NUL authcid NUL
 * passwd}, sent as the initial response; then complete.
 */
public final class PlainClient implements SaslClient {
  private final String authorizationId;
  private final String user;
  private final char[] password;
  private boolean complete;

  /**
   * @param authorizationId who to act as; empty or {@code null} to act as {@code user}
   * @param user the authentication id
   * @param password its password
   */
  public PlainClient(String authorizationId, String user, char[] password) {
    this.authorizationId = authorizationId == null ? "" : authorizationId;
    this.user = user;
    this.password = password.clone();
  }

  @Override
  public String getMechanismName() {
    return "PLAIN";
  }

  @Override
  public boolean hasInitialResponse() {
    return true;
  }

  @Override
  public byte[] evaluateChallenge(byte[] challenge) throws SaslException {
    if (complete) {
      throw new SaslException("PLAIN: already complete");
    }
    complete = true;
    byte[] authz = authorizationId.getBytes(StandardCharsets.UTF_8);
    byte[] authc = user.getBytes(StandardCharsets.UTF_8);
    byte[] pass = new String(password).getBytes(StandardCharsets.UTF_8);
    byte[] message = new byte[authz.length + 1 + authc.length + 1 + pass.length];
    System.arraycopy(authz, 0, message, 0, authz.length);
    System.arraycopy(authc, 0, message, authz.length + 1, authc.length);
    System.arraycopy(pass, 0, message, authz.length + authc.length + 2, pass.length);
    Arrays.fill(pass, (byte) 0);
    return message;
  }

  @Override
  public boolean isComplete() {
    return complete;
  }

  @Override
  public byte[] unwrap(byte[] incoming, int offset, int len) {
    throw new IllegalStateException("PLAIN has no security layer");
  }

  @Override
  public byte[] wrap(byte[] outgoing, int offset, int len) {
    throw new IllegalStateException("PLAIN has no security layer");
  }

  @Override
  public Object getNegotiatedProperty(String propName) {
    return Sasl.QOP.equals(propName) ? "auth" : null;
  }

  @Override
  public void dispose() {
    Arrays.fill(password, '\0');
  }
}
