package io.thriftnio.core.sasl;

import io.thriftnio.core.util.internal.Subjects;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

/**
 * One mechanism a {@link ServerSasl} offers, and how to make its {@link SaslServer} for a
 * connection: {@code Sasl.createSaslServer} with the accepted qualities of protection, or this
 * library's PLAIN server.
 */
record Mechanism(
    String name,
    String protocol,
    String serverName,
    Map<String, ?> properties,
    CallbackHandler handler,
    Subject subject,
    PlainAuthenticator plain) {

  static Mechanism jdk(
      String name,
      String protocol,
      String serverName,
      Map<String, ?> properties,
      CallbackHandler handler,
      Subject subject) {
    return new Mechanism(
        name,
        protocol,
        serverName,
        Map.copyOf(properties),
        new AuthorizeSelf(handler),
        subject,
        null);
  }

  static Mechanism plain(PlainAuthenticator authenticator) {
    return new Mechanism(PlainServer.NAME, null, null, Map.of(), null, null, authenticator);
  }

  /** This mechanism with {@code Sasl.QOP} set to {@code qop}, unless its properties set it. */
  Mechanism withQop(String qop) {
    if (plain != null || properties.containsKey(Sasl.QOP)) {
      return this;
    }
    Map<String, Object> props = new HashMap<>(properties);
    props.put(Sasl.QOP, qop);
    return new Mechanism(name, protocol, serverName, Map.copyOf(props), handler, subject, null);
  }

  SaslServer newServer() throws SaslException {
    if (plain != null) {
      return new PlainServer(plain);
    }
    SaslServer server =
        asSubject(() -> Sasl.createSaslServer(name, protocol, serverName, properties, handler));
    if (server == null) {
      throw new SaslException("No SaslServerFactory provides mechanism " + name);
    }
    return subject == null ? server : new SubjectServer(server, this);
  }

  /** Runs {@code action} as the mechanism's subject, if it has one. */
  <T> T asSubject(Callable<T> action) throws SaslException {
    try {
      return Subjects.call(subject, action);
    } catch (SaslException e) {
      throw e;
    } catch (Exception e) {
      throw new SaslException(name + ": " + e, e);
    }
  }

  @Override
  public String toString() {
    return name;
  }

  /**
   * The user's handler, with a default for {@link AuthorizeCallback} when it has none (or there is
   * no handler, as for GSSAPI): a peer is authorized as the identity it authenticated as, never as
   * another.
   */
  private record AuthorizeSelf(CallbackHandler delegate) implements CallbackHandler {
    @Override
    public void handle(Callback[] callbacks)
        throws java.io.IOException, UnsupportedCallbackException {
      if (delegate != null) {
        try {
          delegate.handle(callbacks);
          return;
        } catch (UnsupportedCallbackException e) {
          if (!(e.getCallback() instanceof AuthorizeCallback)) {
            throw e;
          }
          // The user's handler leaves authorization to us: the default below.
        }
      }
      for (Callback callback : callbacks) {
        if (callback instanceof AuthorizeCallback authorize) {
          String id = authorize.getAuthenticationID();
          authorize.setAuthorized(id != null && id.equals(authorize.getAuthorizationID()));
        } else if (delegate == null) {
          throw new UnsupportedCallbackException(callback);
        }
      }
    }
  }
}
