package io.thriftnio.core.sasl;

import java.util.Arrays;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.RealmCallback;
import javax.security.sasl.RealmChoiceCallback;

/**
 * Answers a PLAIN or DIGEST-MD5 client's callbacks with one user name and password: the name, the
 * password (the callback keeps its own copy), and for DIGEST-MD5 the realm the server offers (its
 * default, or the first of a choice). Holds its own copy of the password; {@link #toString()} shows
 * the user only.
 */
final class SaslCredentials implements CallbackHandler {

  private final String user;
  private final char[] password;

  SaslCredentials(String user, char[] password) {
    this.user = user;
    this.password = Arrays.copyOf(password, password.length);
  }

  @Override
  public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
    for (Callback callback : callbacks) {
      if (callback instanceof NameCallback) {
        ((NameCallback) callback).setName(user);
      } else if (callback instanceof PasswordCallback) {
        ((PasswordCallback) callback).setPassword(password);
      } else if (callback instanceof RealmCallback) {
        RealmCallback realm = (RealmCallback) callback;
        realm.setText(realm.getDefaultText());
      } else if (callback instanceof RealmChoiceCallback) {
        ((RealmChoiceCallback) callback).setSelectedIndex(0);
      } else {
        throw new UnsupportedCallbackException(callback, "only a user name and a password here");
      }
    }
  }

  @Override
  public String toString() {
    return "SaslCredentials{user=" + user + "}";
  }
}
