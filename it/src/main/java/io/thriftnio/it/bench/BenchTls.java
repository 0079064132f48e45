package io.thriftnio.it.bench;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.tls.TlsProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * The certificates of the TLS rows ({@code netty-tls/...}, {@code netty-openssl/...}, {@code
 * grizzly-tls/...}): a throw-away CA and a server certificate for {@code localhost}, {@code
 * 127.0.0.1} and {@code ::1}, as PEM files in one directory, so that a {@code serve} child JVM and
 * the load generator that calls it trust the same CA:
 *
 * <pre>
 * DIR/ca.pem           the CA certificate: what clients trust
 * DIR/server.pem       the server's certificate chain
 * DIR/server-key.pem   the server's private key (PKCS#8, unencrypted)
 * </pre>
 *
 * <p>Certificates are EC P-256, valid from an hour ago for a day; clients verify the host name
 * (they connect to {@code 127.0.0.1}, which the certificate names). Made by netty-pkitesting at run
 * time, so no key is ever committed; never use them outside a bench.
 */
final class BenchTls {

  /** The CA certificate's file name in a TLS directory. */
  static final String CA_FILE = "ca.pem";

  /** The server certificate chain's file name in a TLS directory. */
  static final String CERT_FILE = "server.pem";

  /** The server private key's file name in a TLS directory. */
  static final String KEY_FILE = "server-key.pem";

  private static final char[] PASSWORD = "bench".toCharArray();

  private final Path dir;
  private final KeyManagerFactory serverKeys;
  private final TrustManagerFactory trust;

  private BenchTls(Path dir, KeyManagerFactory serverKeys, TrustManagerFactory trust) {
    this.dir = dir;
    this.serverKeys = serverKeys;
    this.trust = trust;
  }

  /**
   * Makes a new CA and server certificate, writes them to {@code dir} (created if missing; files
   * there are replaced) and loads them back.
   *
   * @param dir the directory
   * @return the certificates
   * @throws IOException if the files cannot be written
   * @throws GeneralSecurityException if the certificates cannot be made
   */
  static BenchTls generate(Path dir) throws IOException, GeneralSecurityException {
    Instant now = Instant.now();
    CertificateBuilder base =
        new CertificateBuilder()
            .ecp256()
            .notBefore(now.minus(Duration.ofHours(1)))
            .notAfter(now.plus(Duration.ofDays(1)));
    X509Bundle ca;
    X509Bundle server;
    try {
      ca =
          base.copy()
              .subject("CN=thrift-nio bench CA")
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
    } catch (GeneralSecurityException e) {
      throw e;
    } catch (Exception e) { // CertificateBuilder declares Exception
      throw new GeneralSecurityException("cannot make the bench certificates: " + e, e);
    }
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(CA_FILE), ca.getCertificatePEM(), StandardCharsets.US_ASCII);
    Files.writeString(
        dir.resolve(CERT_FILE), server.getCertificatePathPEM(), StandardCharsets.US_ASCII);
    Files.writeString(dir.resolve(KEY_FILE), server.getPrivateKeyPEM(), StandardCharsets.US_ASCII);
    return load(dir);
  }

  /**
   * Loads the files {@link #generate(Path)} writes (or the same three made another way: PEM, an EC
   * or RSA key in PKCS#8).
   *
   * @param dir the directory holding {@value #CA_FILE}, {@value #CERT_FILE} and {@value #KEY_FILE}
   * @return the certificates
   * @throws IOException if a file is missing or unreadable
   * @throws GeneralSecurityException if a file does not hold what its name says
   */
  static BenchTls load(Path dir) throws IOException, GeneralSecurityException {
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    Collection<? extends Certificate> cas = certificates(x509, dir.resolve(CA_FILE));
    Certificate[] chain = certificates(x509, dir.resolve(CERT_FILE)).toArray(new Certificate[0]);
    PrivateKey key = privateKey(dir.resolve(KEY_FILE));

    KeyStore keyStore = KeyStore.getInstance("PKCS12");
    keyStore.load(null, null);
    keyStore.setKeyEntry("server", key, PASSWORD, chain);
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(keyStore, PASSWORD);

    KeyStore trustStore = KeyStore.getInstance("PKCS12");
    trustStore.load(null, null);
    int i = 0;
    for (Certificate ca : cas) {
      trustStore.setCertificateEntry("ca-" + i++, ca);
    }
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trustStore);
    return new BenchTls(dir, keys, trust);
  }

  /** The directory the files are in. */
  Path dir() {
    return dir;
  }

  /** The CA certificate a client must trust. */
  Path caFile() {
    return dir.resolve(CA_FILE);
  }

  /** The server side: the server certificate, no client authentication, {@code provider}. */
  ServerTls serverTls(TlsProvider provider) {
    return ServerTls.builder(serverKeys).provider(provider).build();
  }

  /** The client side: trusts the CA, verifies the host name, JDK provider. */
  ClientTls clientTls() {
    return ClientTls.builder().trustManagerFactory(trust).build();
  }

  private static Collection<? extends Certificate> certificates(CertificateFactory x509, Path file)
      throws IOException, GeneralSecurityException {
    Collection<? extends Certificate> certs =
        x509.generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file)));
    if (certs.isEmpty()) {
      throw new GeneralSecurityException(file + ": no certificate (expected: PEM certificates)");
    }
    return certs;
  }

  private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    String begin = "-----BEGIN PRIVATE KEY-----";
    String end = "-----END PRIVATE KEY-----";
    int from = pem.indexOf(begin);
    int to = pem.indexOf(end);
    if (from < 0 || to < from) {
      throw new GeneralSecurityException(
          file + ": no '" + begin + "' block (expected: an unencrypted PKCS#8 key in PEM)");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    try {
      return KeyFactory.getInstance("EC").generatePrivate(spec);
    } catch (GeneralSecurityException notEc) {
      try {
        return KeyFactory.getInstance("RSA").generatePrivate(spec);
      } catch (GeneralSecurityException notRsa) {
        notRsa.addSuppressed(notEc);
        throw new GeneralSecurityException(
            file + ": the key is neither EC nor RSA (expected: PKCS#8)", notRsa);
      }
    }
  }
}
