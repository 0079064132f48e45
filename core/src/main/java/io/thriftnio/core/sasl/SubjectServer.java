package io.thriftnio.core.sasl;

import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

/**
 * A {@link SaslServer} whose steps run as its mechanism's subject ({@code Subject.callAs}; {@code
 * doAs} on Java 17): GSSAPI finds the service's keys in the subject current while it accepts a
 * client's token.
 */
final class SubjectServer implements SaslServer {
  private final SaslServer server;
  private final Mechanism mechanism;

  SubjectServer(SaslServer server, Mechanism mechanism) {
    this.server = server;
    this.mechanism = mechanism;
  }

  @Override
  public String getMechanismName() {
    return server.getMechanismName();
  }

  @Override
  public byte[] evaluateResponse(byte[] response) throws SaslException {
    return mechanism.asSubject(() -> server.evaluateResponse(response));
  }

  @Override
  public boolean isComplete() {
    return server.isComplete();
  }

  @Override
  public String getAuthorizationID() {
    return server.getAuthorizationID();
  }

  @Override
  public byte[] unwrap(byte[] incoming, int offset, int len) throws SaslException {
    return server.unwrap(incoming, offset, len);
  }

  @Override
  public byte[] wrap(byte[] outgoing, int offset, int len) throws SaslException {
    return server.wrap(outgoing, offset, len);
  }

  @Override
  public Object getNegotiatedProperty(String propName) {
    return server.getNegotiatedProperty(propName);
  }

  @Override
  public void dispose() throws SaslException {
    server.dispose();
  }
}
