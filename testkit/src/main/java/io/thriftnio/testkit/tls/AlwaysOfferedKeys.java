package io.thriftnio.testkit.tls;

import java.net.Socket;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.KeyManagerFactorySpi;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/** A client key manager that ignores the issuers a server asks for and always offers its key. */
final class AlwaysOfferedKeys extends X509ExtendedKeyManager {
  private final X509ExtendedKeyManager delegate;
  private final String alias;

  private AlwaysOfferedKeys(X509ExtendedKeyManager delegate) {
    this.delegate = delegate;
    String found = null;
    for (String type : new String[] {"EC", "RSA"}) {
      String[] aliases = delegate.getClientAliases(type, null);
      if (found == null && aliases != null && aliases.length > 0) {
        found = aliases[0];
      }
    }
    this.alias = found;
  }

  static KeyManagerFactory factory(KeyManagerFactory keys) {
    KeyManager[] managers = {
      new AlwaysOfferedKeys((X509ExtendedKeyManager) keys.getKeyManagers()[0])
    };
    KeyManagerFactorySpi spi =
        new KeyManagerFactorySpi() {
          @Override
          protected void engineInit(KeyStore ks, char[] password) {}

          @Override
          protected void engineInit(ManagerFactoryParameters spec) {}

          @Override
          protected KeyManager[] engineGetKeyManagers() {
            return managers;
          }
        };
    return new KeyManagerFactory(spi, keys.getProvider(), keys.getAlgorithm()) {};
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return alias;
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return alias;
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return delegate.getClientAliases(keyType, null);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return delegate.getServerAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return delegate.chooseServerAlias(keyType, issuers, socket);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return delegate.getCertificateChain(alias);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return delegate.getPrivateKey(alias);
  }
}
