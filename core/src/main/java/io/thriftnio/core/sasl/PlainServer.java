package io.thriftnio.core.sasl;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

/**
 * The server side of SASL {@code PLAIN} (RFC 4616), which the JDK does not have: one message from
 * the client, then complete.
 *
 * <pre>
 * | authzid (UTF-8, may be empty) | 00 | authcid (UTF-8) | 00 | passwd (UTF-8) |
 * </pre>
 *
 * <p>The credential goes to the application's {@link PlainAuthenticator}; an {@code authzid} that
 * is not the {@code authcid} needs its {@link PlainAuthenticator#mayActAs} too. No security layer:
 * the negotiated quality of protection is {@code auth}, and {@link #wrap}/{@link #unwrap} refuse.
 */
final class PlainServer implements SaslServer {

  static final String NAME = "PLAIN";

  private final PlainAuthenticator authenticator;
  private String authorizationId;
  private boolean complete;

  PlainServer(PlainAuthenticator authenticator) {
    this.authenticator = authenticator;
  }

  @Override
  public String getMechanismName() {
    return NAME;
  }

  @Override
  public byte[] evaluateResponse(byte[] response) throws SaslException {
    if (complete) {
      throw new SaslException("PLAIN: negotiation already complete");
    }
    int first = indexOf(response, 0);
    int second = first < 0 ? -1 : indexOf(response, first + 1);
    if (second < 0 || indexOf(response, second + 1) >= 0) {
      throw new SaslException(
          "PLAIN: malformed message of "
              + response.length
              + " bytes (expected: authzid NUL"
              + " authcid NUL passwd)");
    }
    String authzid = text(response, 0, first);
    String authcid = text(response, first + 1, second);
    if (authcid.isEmpty() || second + 1 == response.length) {
      throw new SaslException("PLAIN: empty user name or password");
    }
    char[] password = chars(response, second + 1, response.length);
    Arrays.fill(response, (byte) 0); // the password's bytes too
    boolean valid;
    try {
      valid = authenticator.authenticate(authcid, password);
    } catch (Exception e) {
      // Not the client's fault: the negotiation fails with ERROR rather than BAD.
      throw new IllegalStateException("PLAIN: authenticator failed for " + authcid + ": " + e, e);
    } finally {
      Arrays.fill(password, '\0');
    }
    if (!valid) {
      throw new SaslException("PLAIN: authentication failed for " + authcid);
    }
    String actingAs = authzid.isEmpty() ? authcid : authzid;
    if (!actingAs.equals(authcid) && !authenticator.mayActAs(authcid, actingAs)) {
      throw new SaslException("PLAIN: " + authcid + " may not act as " + actingAs);
    }
    authorizationId = actingAs;
    complete = true;
    return new byte[0];
  }

  private static int indexOf(byte[] bytes, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == 0) {
        return i;
      }
    }
    return -1;
  }

  private static String text(byte[] bytes, int from, int to) throws SaslException {
    return new String(chars(bytes, from, to));
  }

  private static char[] chars(byte[] bytes, int from, int to) throws SaslException {
    CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer decoded = utf8.decode(ByteBuffer.wrap(bytes, from, to - from));
      char[] out = new char[decoded.remaining()];
      decoded.get(out);
      Arrays.fill(decoded.array(), '\0');
      return out;
    } catch (CharacterCodingException e) {
      throw new SaslException("PLAIN: a field is not UTF-8", e);
    }
  }

  @Override
  public boolean isComplete() {
    return complete;
  }

  @Override
  public String getAuthorizationID() {
    if (!complete) {
      throw new IllegalStateException("PLAIN: negotiation not complete");
    }
    return authorizationId;
  }

  @Override
  public byte[] unwrap(byte[] incoming, int offset, int len) {
    throw new IllegalStateException("PLAIN has no security layer (quality of protection: auth)");
  }

  @Override
  public byte[] wrap(byte[] outgoing, int offset, int len) {
    throw new IllegalStateException("PLAIN has no security layer (quality of protection: auth)");
  }

  @Override
  public Object getNegotiatedProperty(String propName) {
    if (!complete) {
      throw new IllegalStateException("PLAIN: negotiation not complete");
    }
    return Sasl.QOP.equals(propName) ? SaslQop.AUTH.saslName() : null;
  }

  @Override
  public void dispose() {
    authorizationId = null;
  }
}
