package io.thriftnio.testkit.sasl;

import io.thriftnio.core.sasl.SaslQop;
import java.net.InetSocketAddress;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.RealmCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.thrift.transport.TSaslClientTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * libthrift's own blocking SASL client ({@code TSaslClientTransport} over a {@code TSocket}) and
 * the credentials of the SASL tests: the peer every SASL server test talks to.
 */
public final class SaslPeers {
  private SaslPeers() {}

  /** The protocol (service name) of the tests' SASL settings. */
  public static final String PROTOCOL = "thrift";

  /** The server name of the tests' SASL settings. */
  public static final String SERVER_NAME = "localhost";

  /** The users the tests' servers know, and their passwords. */
  public static final Map<String, String> USERS = Map.of("alice", "alice-secret", "bob", "bob's");

  /** A DIGEST-MD5 server's password lookup over {@link #USERS}; authorization left to default. */
  public static CallbackHandler digestServerHandler() {
    return callbacks -> {
      String user = null;
      for (Callback callback : callbacks) {
        if (callback instanceof NameCallback name) {
          user = name.getDefaultName();
        }
      }
      for (Callback callback : callbacks) {
        if (callback instanceof PasswordCallback password) {
          String secret = user == null ? null : USERS.get(user);
          password.setPassword(secret == null ? null : secret.toCharArray());
        } else if (callback instanceof AuthorizeCallback) {
          throw new UnsupportedCallbackException(callback, "left to the library's default");
        } else if (!(callback instanceof NameCallback) && !(callback instanceof RealmCallback)) {
          throw new UnsupportedCallbackException(callback);
        }
      }
    };
  }

  /** A DIGEST-MD5 client of {@code user} with {@code password}, asking for {@code qop}. */
  public static SaslClient digestClient(String user, String password, SaslQop qop)
      throws SaslException {
    CallbackHandler handler =
        callbacks -> {
          for (Callback callback : callbacks) {
            if (callback instanceof NameCallback name) {
              name.setName(user);
            } else if (callback instanceof PasswordCallback p) {
              p.setPassword(password.toCharArray());
            } else if (callback instanceof RealmCallback realm) {
              realm.setText(realm.getDefaultText());
            } else {
              throw new UnsupportedCallbackException(callback);
            }
          }
        };
    return Sasl.createSaslClient(
        new String[] {"DIGEST-MD5"},
        null,
        PROTOCOL,
        SERVER_NAME,
        Map.of(Sasl.QOP, qop.saslName()),
        handler);
  }

  /** A PLAIN client of {@code user}, acting as itself. */
  public static SaslClient plainClient(String user, String password) {
    return new PlainClient(null, user, password.toCharArray());
  }

  /**
   * A libthrift SASL transport to {@code address} with {@code client}, not yet open.
   *
   * @param timeoutMillis the socket's read timeout, so that a hang fails the test
   */
  public static TSaslClientTransport transport(
      InetSocketAddress address, SaslClient client, int timeoutMillis) throws TTransportException {
    TSocket socket =
        new TSocket(address.getAddress().getHostAddress(), address.getPort(), timeoutMillis);
    return new TSaslClientTransport(client, socket);
  }

  /** Closes {@code transport} quietly: the tests close clients the server may have closed. */
  public static void closeQuietly(TSaslClientTransport transport) {
    if (transport != null) {
      transport.close(); // TTransport.close throws nothing checked; a closed socket is fine
    }
  }
}
