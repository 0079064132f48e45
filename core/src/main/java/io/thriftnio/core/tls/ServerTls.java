package io.thriftnio.core.tls;

import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS settings of a server, given to {@code ServerBuilder.tls(ServerTls)}; immutable.
 *
 * <pre>{@code
 * KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
 * keys.init(keyStore, password);
 * ServerTls tls = ServerTls.builder(keys)
 *     .clientAuth(ClientAuth.REQUIRE)          // mutual TLS
 *     .trustManagerFactory(clientCas)           // who may sign client certificates
 *     .build();
 * ThriftServer server = NettyThriftServer.builder()   // or GrizzlyThriftServer.builder()
 *     .processor(processor)
 *     .tls(tls)
 *     .bind(new InetSocketAddress(9090))
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>Every connection starts with the TLS handshake; the Thrift frames travel inside the TLS
 * records, unchanged. A connection whose handshake fails (a plain-text client, an untrusted or
 * missing client certificate, no common protocol or cipher) or does not finish within {@link
 * #handshakeTimeout()} is closed and counted in {@code ServerStats.tlsFailures()}.
 */
public final class ServerTls {

  /** Default {@link Builder#handshakeTimeout(Duration)}: 10 seconds. */
  public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  /** Default {@link Builder#protocols(List)}: TLSv1.3 and TLSv1.2. */
  public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

  private final KeyManagerFactory keyManagerFactory;
  private final TrustManagerFactory trustManagerFactory;
  private final ClientAuth clientAuth;
  private final Duration handshakeTimeout;
  private final List<String> protocols;
  private final List<String> cipherSuites;
  private final TlsProvider provider;

  private ServerTls(Builder b) {
    this.keyManagerFactory = Checks.notNull("keyManagerFactory", b.keyManagerFactory);
    this.clientAuth = Checks.notNull("clientAuth", b.clientAuth);
    if (clientAuth != ClientAuth.NONE && b.trustManagerFactory == null) {
      throw new SettingException(
          "trustManagerFactory",
          "null, clientAuth: " + clientAuth,
          "a trust manager factory for the client certificates when clientAuth is OPTIONAL or"
              + " REQUIRE");
    }
    this.trustManagerFactory = b.trustManagerFactory;
    this.handshakeTimeout = Checks.positive("handshakeTimeout", b.handshakeTimeout);
    this.protocols = TlsChecks.protocols(b.protocols);
    this.cipherSuites = TlsChecks.cipherSuites(b.cipherSuites);
    this.provider = Checks.notNull("provider", b.provider);
  }

  /**
   * A builder.
   *
   * @param keyManagerFactory the server's private key and certificate chain; required
   * @return the builder
   */
  public static Builder builder(KeyManagerFactory keyManagerFactory) {
    return new Builder(keyManagerFactory);
  }

  /** The server's key and certificate chain. */
  public KeyManagerFactory keyManagerFactory() {
    return keyManagerFactory;
  }

  /**
   * Trust for client certificates, or {@code null} when {@link #clientAuth()} is NONE and none was
   * set.
   */
  public TrustManagerFactory trustManagerFactory() {
    return trustManagerFactory;
  }

  /** Whether clients are asked for a certificate. */
  public ClientAuth clientAuth() {
    return clientAuth;
  }

  /** Time allowed from accept until the handshake has completed. */
  public Duration handshakeTimeout() {
    return handshakeTimeout;
  }

  /** Enabled protocols, in order of preference. */
  public List<String> protocols() {
    return protocols;
  }

  /** Enabled cipher suites; empty for the provider's defaults. */
  public List<String> cipherSuites() {
    return cipherSuites;
  }

  /** The TLS implementation. */
  public TlsProvider provider() {
    return provider;
  }

  @Override
  public String toString() {
    return "ServerTls{clientAuth="
        + clientAuth
        + ", protocols="
        + protocols
        + ", cipherSuites="
        + (cipherSuites.isEmpty() ? "default" : cipherSuites)
        + ", handshakeTimeout="
        + handshakeTimeout
        + ", provider="
        + provider
        + '}';
  }

  /**
   * Builds a {@link ServerTls}. Setters only record; {@link #build()} validates. Not thread-safe.
   */
  public static final class Builder {
    private final KeyManagerFactory keyManagerFactory;
    private TrustManagerFactory trustManagerFactory;
    private ClientAuth clientAuth = ClientAuth.NONE;
    private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
    private List<String> protocols = DEFAULT_PROTOCOLS;
    private List<String> cipherSuites = List.of();
    private TlsProvider provider = TlsProvider.JDK;

    private Builder(KeyManagerFactory keyManagerFactory) {
      this.keyManagerFactory = keyManagerFactory;
    }

    /**
     * The certificate authorities trusted to sign client certificates. Required when {@link
     * #clientAuth(ClientAuth)} is OPTIONAL or REQUIRE; ignored otherwise. Default: none.
     *
     * @param trustManagerFactory an initialised factory
     * @return this builder
     */
    public Builder trustManagerFactory(TrustManagerFactory trustManagerFactory) {
      this.trustManagerFactory = trustManagerFactory;
      return this;
    }

    /**
     * Whether clients must present a certificate. Default: {@link ClientAuth#NONE}.
     *
     * @param clientAuth NONE, OPTIONAL or REQUIRE (mutual TLS)
     * @return this builder
     */
    public Builder clientAuth(ClientAuth clientAuth) {
      this.clientAuth = clientAuth;
      return this;
    }

    /**
     * Time allowed from accept until the handshake has completed; a connection still handshaking
     * then (for example one that opened TCP and never spoke TLS) is closed and counted as a TLS
     * failure. Default: 10 seconds.
     *
     * @param handshakeTimeout a positive duration
     * @return this builder
     */
    public Builder handshakeTimeout(Duration handshakeTimeout) {
      this.handshakeTimeout = handshakeTimeout;
      return this;
    }

    /**
     * The protocols enabled, e.g. {@code List.of("TLSv1.3")}. Default: {@link
     * ServerTls#DEFAULT_PROTOCOLS} (TLSv1.3, TLSv1.2).
     *
     * @param protocols non-empty; each one supported by the JDK
     * @return this builder
     */
    public Builder protocols(List<String> protocols) {
      this.protocols = protocols;
      return this;
    }

    /**
     * The cipher suites enabled. Default: empty, the provider's defaults for the enabled protocols.
     *
     * @param cipherSuites suite names, e.g. {@code TLS_AES_128_GCM_SHA256}
     * @return this builder
     */
    public Builder cipherSuites(List<String> cipherSuites) {
      this.cipherSuites = cipherSuites;
      return this;
    }

    /**
     * The TLS implementation. Default: {@link TlsProvider#JDK}. {@link TlsProvider#OPENSSL} is
     * accepted here and checked by the transport when the server is built.
     *
     * @param provider JDK or OPENSSL
     * @return this builder
     */
    public Builder provider(TlsProvider provider) {
      this.provider = provider;
      return this;
    }

    /**
     * Validates the settings.
     *
     * @return the immutable settings
     * @throws SettingException if a value is out of range, e.g. {@code handshakeTimeout: PT0S
     *     (expected: > 0)}, or client authentication is asked for without trust material
     */
    public ServerTls build() {
      return new ServerTls(this);
    }
  }
}
