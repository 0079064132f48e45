package io.thriftnio.testkit.tls;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.thriftnio.core.tls.ClientAuth;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import java.io.File;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away public key infrastructure made when first used, so that no private key is ever
 * committed: a certificate authority, a server certificate for {@code localhost} and {@code
 * 127.0.0.1}, a server certificate for {@code other.example} only (for hostname checks), a client
 * certificate, and a second, untrusted authority with a client certificate of its own.
 *
 * <p>All certificates are EC P-256, valid from an hour ago for a day. {@link #shared()} makes them
 * once per JVM.
 */
public final class TestPki {

  /** The host name in {@link #otherNameServerKeys()}'s certificate. */
  public static final String OTHER_NAME = "other.example";

  private static volatile TestPki shared;

  private final X509Bundle ca;
  private final X509Bundle server;
  private final X509Bundle otherNameServer;
  private final X509Bundle client;
  private final X509Bundle wrongCa;
  private final X509Bundle wrongCaClient;

  private TestPki() throws Exception {
    Instant now = Instant.now();
    CertificateBuilder base =
        new CertificateBuilder()
            .ecp256()
            .notBefore(now.minus(Duration.ofHours(1)))
            .notAfter(now.plus(Duration.ofDays(1)));
    ca =
        base.copy()
            .subject("CN=thrift-nio test CA")
            .setIsCertificateAuthority(true)
            .buildSelfSigned();
    server =
        base.copy()
            .subject("CN=localhost")
            .addSanDnsName("localhost")
            .addSanIpAddress("127.0.0.1")
            .addSanIpAddress("::1")
            .addExtendedKeyUsageServerAuth()
            .buildIssuedBy(ca);
    otherNameServer =
        base.copy()
            .subject("CN=" + OTHER_NAME)
            .addSanDnsName(OTHER_NAME)
            .addExtendedKeyUsageServerAuth()
            .buildIssuedBy(ca);
    client =
        base.copy()
            .subject("CN=thrift-nio test client")
            .addExtendedKeyUsageClientAuth()
            .buildIssuedBy(ca);
    wrongCa =
        base.copy().subject("CN=untrusted CA").setIsCertificateAuthority(true).buildSelfSigned();
    wrongCaClient =
        base.copy()
            .subject("CN=untrusted client")
            .addExtendedKeyUsageClientAuth()
            .buildIssuedBy(wrongCa);
  }

  /** The PKI of this JVM, made on first use. */
  public static TestPki shared() {
    TestPki pki = shared;
    if (pki == null) {
      synchronized (TestPki.class) {
        pki = shared;
        if (pki == null) {
          try {
            pki = new TestPki();
          } catch (Exception e) {
            throw new IllegalStateException("cannot make the test certificates", e);
          }
          shared = pki;
        }
      }
    }
    return pki;
  }

  /** Trusts the test CA (and nothing else). */
  public TrustManagerFactory trust() {
    return ca.toTrustManagerFactory();
  }

  /** The server key and certificate: SAN {@code localhost}, {@code 127.0.0.1}, {@code ::1}. */
  public KeyManagerFactory serverKeys() {
    return keys(server);
  }

  /** A server key and certificate from the trusted CA naming only {@value #OTHER_NAME}. */
  public KeyManagerFactory otherNameServerKeys() {
    return keys(otherNameServer);
  }

  /** A client key and certificate from the trusted CA. */
  public KeyManagerFactory clientKeys() {
    return keys(client);
  }

  /**
   * A client key and certificate from an authority nobody trusts. Its key manager offers the
   * certificate whatever authorities the server names: the JDK's own would send no certificate at
   * all, and the test would then only show what {@link #clientTls()} without keys shows.
   */
  public KeyManagerFactory wrongCaClientKeys() {
    return AlwaysOfferedKeys.factory(keys(wrongCaClient));
  }

  /** A PKCS#12 trust store file (password {@code changeit}) with the test CA, for stock clients. */
  public File trustStoreFile() throws Exception {
    File file = ca.toTempKeyStoreFile("changeit".toCharArray());
    file.deleteOnExit();
    return file;
  }

  /** A server with the {@link #serverKeys()}, no client authentication. */
  public ServerTls.Builder serverTls() {
    return ServerTls.builder(serverKeys());
  }

  /** A mutual-TLS server: client certificates from the test CA required. */
  public ServerTls.Builder mutualServerTls() {
    return ServerTls.builder(serverKeys())
        .clientAuth(ClientAuth.REQUIRE)
        .trustManagerFactory(trust());
  }

  /** A client trusting the test CA, hostname verification on, no client certificate. */
  public ClientTls.Builder clientTls() {
    return ClientTls.builder().trustManagerFactory(trust());
  }

  /** Sockets that trust the test CA, present no certificate and do not verify host names. */
  public SSLSocketFactory clientSocketFactory() {
    return sslContext(null).getSocketFactory();
  }

  /** A JSSE context trusting the test CA, with {@code keys} (or none) as the client's keys. */
  public SSLContext sslContext(KeyManagerFactory keys) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys != null ? keys.getKeyManagers() : null, trust().getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyManagerFactory keys(X509Bundle bundle) {
    try {
      return bundle.toKeyManagerFactory();
    } catch (Exception e) {
      throw new IllegalStateException("cannot load the test key " + bundle.getCertificate(), e);
    }
  }
}
