package io.thriftnio.core.tls;

import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS settings of a client connection; immutable, and shared freely by any number of
 * connections.
 *
 * <pre>{@code
 * ClientTls tls = ClientTls.builder()
 *     .trustManagerFactory(serverCas)        // default: the JDK's trusted authorities
 *     .keyManagerFactory(clientKeys)          // only for mutual TLS
 *     .build();
 * ClientOptions options = ClientOptions.builder().tls(tls).build();
 * TTransport transport = resources.openTransport(address, options);  // Netty or Grizzly
 * ThriftChannel channel = resources.openChannel(address, options);
 * ClientTransportFactory pooled = ClientTransportFactory.stock(ClientOptions.builder().connectTimeout(connect).callTimeout(read).tls(tls).build());
 * }</pre>
 *
 * <p>Hostname verification is on by default: the server's certificate must name the host the client
 * connects to (the {@code HTTPS} endpoint identification of RFC 2818, against a DNS or IP subject
 * alternative name), or the {@link Builder#serverName(String) server name} set here. The connection
 * is ready only once the handshake has completed; a failed or timed-out handshake fails the connect
 * with an error naming the peer.
 */
public final class ClientTls {

  /** Default {@link Builder#handshakeTimeout(Duration)}: 10 seconds. */
  public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  private final TrustManagerFactory trustManagerFactory;
  private final KeyManagerFactory keyManagerFactory;
  private final boolean hostnameVerification;
  private final String serverName;
  private final Duration handshakeTimeout;
  private final List<String> protocols;
  private final List<String> cipherSuites;
  private final TlsProvider provider;

  private ClientTls(Builder b) {
    this.trustManagerFactory = b.trustManagerFactory;
    this.keyManagerFactory = b.keyManagerFactory;
    this.hostnameVerification = b.hostnameVerification;
    if (b.serverName != null && b.serverName.isBlank()) {
      throw new SettingException(
          "serverName", "'" + b.serverName + "'", "a host name, or null for the peer's");
    }
    this.serverName = b.serverName;
    this.handshakeTimeout = Checks.positive("handshakeTimeout", b.handshakeTimeout);
    this.protocols = TlsChecks.protocols(b.protocols);
    this.cipherSuites = TlsChecks.cipherSuites(b.cipherSuites);
    this.provider = Checks.notNull("provider", b.provider);
  }

  /**
   * A builder with the defaults documented on each setter: the JDK's trusted authorities, no client
   * certificate, hostname verification on.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Trust for the server's certificate, or {@code null} for the JDK's default trust store. */
  public TrustManagerFactory trustManagerFactory() {
    return trustManagerFactory;
  }

  /** The client's own key and certificate for mutual TLS, or {@code null} for none. */
  public KeyManagerFactory keyManagerFactory() {
    return keyManagerFactory;
  }

  /** Whether the server certificate must name the host connected to. */
  public boolean hostnameVerification() {
    return hostnameVerification;
  }

  /** The name sent as SNI and verified, or {@code null} to use the host of the peer address. */
  public String serverName() {
    return serverName;
  }

  /**
   * The host name a connection to {@code peer} sends as SNI and verifies: {@link #serverName()} if
   * set, else the host the address was created with (its literal IP when it has no name).
   *
   * @param peer the address connected to
   * @return the name
   */
  public String peerHost(InetSocketAddress peer) {
    return serverName != null ? serverName : peer.getHostString();
  }

  /** Time allowed from connect until the handshake has completed. */
  public Duration handshakeTimeout() {
    return handshakeTimeout;
  }

  /** Enabled protocols. */
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
    return "ClientTls{hostnameVerification="
        + hostnameVerification
        + (serverName != null ? ", serverName=" + serverName : "")
        + ", clientCertificate="
        + (keyManagerFactory != null)
        + ", protocols="
        + protocols
        + ", handshakeTimeout="
        + handshakeTimeout
        + ", provider="
        + provider
        + '}';
  }

  /**
   * Builds a {@link ClientTls}. Setters only record; {@link #build()} validates. Not thread-safe.
   */
  public static final class Builder {
    private TrustManagerFactory trustManagerFactory;
    private KeyManagerFactory keyManagerFactory;
    private boolean hostnameVerification = true;
    private String serverName;
    private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
    private List<String> protocols = ServerTls.DEFAULT_PROTOCOLS;
    private List<String> cipherSuites = List.of();
    private TlsProvider provider = TlsProvider.JDK;

    private Builder() {}

    /**
     * The certificate authorities trusted to sign the server's certificate. Default: none set,
     * which means the JDK's default trust store ({@code cacerts}).
     *
     * @param trustManagerFactory an initialised factory
     * @return this builder
     */
    public Builder trustManagerFactory(TrustManagerFactory trustManagerFactory) {
      this.trustManagerFactory = trustManagerFactory;
      return this;
    }

    /**
     * The client's key and certificate, presented when the server asks for one (mutual TLS).
     * Default: none.
     *
     * @param keyManagerFactory an initialised factory
     * @return this builder
     */
    public Builder keyManagerFactory(KeyManagerFactory keyManagerFactory) {
      this.keyManagerFactory = keyManagerFactory;
      return this;
    }

    /**
     * Whether the server's certificate must name the host connected to (or {@link
     * #serverName(String)}). Default: {@code true}. Turning it off lets any certificate signed by a
     * trusted authority impersonate the server; do it only where the trust store holds nothing but
     * the expected peers.
     *
     * @param hostnameVerification {@code false} to skip the name check
     * @return this builder
     */
    public Builder hostnameVerification(boolean hostnameVerification) {
      this.hostnameVerification = hostnameVerification;
      return this;
    }

    /**
     * The host name to send as SNI and to verify the server certificate against, instead of the
     * host of the address connected to; for connecting by IP address, or through a tunnel, to a
     * server whose certificate carries a DNS name. Default: none (the peer address's host).
     *
     * @param serverName a host name, or {@code null} for the default
     * @return this builder
     */
    public Builder serverName(String serverName) {
      this.serverName = serverName;
      return this;
    }

    /**
     * Time allowed from connect until the handshake has completed; then the connect fails with
     * {@code TIMED_OUT} and the connection is closed. Default: 10 seconds.
     *
     * @param handshakeTimeout a positive duration
     * @return this builder
     */
    public Builder handshakeTimeout(Duration handshakeTimeout) {
      this.handshakeTimeout = handshakeTimeout;
      return this;
    }

    /**
     * The protocols enabled. Default: {@link ServerTls#DEFAULT_PROTOCOLS} (TLSv1.3, TLSv1.2).
     *
     * @param protocols non-empty; each one supported by the JDK
     * @return this builder
     */
    public Builder protocols(List<String> protocols) {
      this.protocols = protocols;
      return this;
    }

    /**
     * The cipher suites enabled. Default: empty, the provider's defaults.
     *
     * @param cipherSuites suite names
     * @return this builder
     */
    public Builder cipherSuites(List<String> cipherSuites) {
      this.cipherSuites = cipherSuites;
      return this;
    }

    /**
     * The TLS implementation. Default: {@link TlsProvider#JDK}. {@link TlsProvider#OPENSSL} is
     * honoured by the Netty clients only, and checked when they are built.
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
     *     (expected: > 0)}
     */
    public ClientTls build() {
      return new ClientTls(this);
    }
  }
}
