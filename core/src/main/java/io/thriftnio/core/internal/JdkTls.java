package io.thriftnio.core.internal;

import io.thriftnio.core.tls.ClientAuth;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.core.wire.FirstBytes;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/** JSSE contexts and engines from {@link ServerTls} and {@link ClientTls}. Not part of the API. */
public final class JdkTls {
  private JdkTls() {}

  /** A JSSE context for a server; fails when the settings ask for another provider. */
  public static SSLContext serverContext(ServerTls tls, String transport) {
    requireJdk(tls.provider(), transport);
    return context(tls.keyManagerFactory(), tls.trustManagerFactory());
  }

  /** A JSSE context for clients; fails when the settings ask for another provider. */
  public static SSLContext clientContext(ClientTls tls, String transport) {
    requireJdk(tls.provider(), transport);
    return context(tls.keyManagerFactory(), tls.trustManagerFactory());
  }

  private static void requireJdk(TlsProvider provider, String transport) {
    if (provider != TlsProvider.JDK) {
      throw new IllegalStateException(
          "tls provider: " + provider + " (expected: JDK): " + transport + " uses the JDK's TLS");
    }
  }

  private static SSLContext context(KeyManagerFactory keys, TrustManagerFactory trust) {
    KeyManager[] km = keys != null ? keys.getKeyManagers() : null;
    TrustManager[] tm = trust != null ? trust.getTrustManagers() : null; // null: JDK default trust
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(km, tm, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot create a TLS context: " + e, e);
    }
  }

  /** A server-mode engine with the protocols, suites and client authentication of {@code tls}. */
  public static SSLEngine serverEngine(SSLContext context, ServerTls tls) {
    SSLEngine engine = context.createSSLEngine();
    engine.setUseClientMode(false);
    SSLParameters p = engine.getSSLParameters();
    applyCommon(p, tls.protocols(), tls.cipherSuites());
    p.setNeedClientAuth(tls.clientAuth() == ClientAuth.REQUIRE);
    if (tls.clientAuth() == ClientAuth.OPTIONAL) {
      p.setWantClientAuth(true);
    }
    engine.setSSLParameters(p);
    return engine;
  }

  /**
   * A client-mode engine for a connection to {@code peer}: SNI and hostname verification on {@link
   * ClientTls#peerHost(InetSocketAddress)}.
   */
  public static SSLEngine clientEngine(SSLContext context, ClientTls tls, InetSocketAddress peer) {
    String host = tls.peerHost(peer);
    SSLEngine engine = context.createSSLEngine(host, peer.getPort());
    engine.setUseClientMode(true);
    engine.setSSLParameters(clientParameters(engine.getSSLParameters(), tls, host));
    return engine;
  }

  /**
   * Client parameters: protocols, suites, SNI for a host name (not for an IP literal, which RFC
   * 6066 forbids), and {@code HTTPS} endpoint identification when hostname verification is on.
   */
  public static SSLParameters clientParameters(SSLParameters p, ClientTls tls, String host) {
    applyCommon(p, tls.protocols(), tls.cipherSuites());
    p.setEndpointIdentificationAlgorithm(tls.hostnameVerification() ? "HTTPS" : null);
    if (!isIpLiteral(host)) {
      try {
        p.setServerNames(List.of(new SNIHostName(host)));
      } catch (IllegalArgumentException notAHostName) {
        // Not a valid SNI name (an underscore, say): sent without SNI, still verified below.
      }
    }
    return p;
  }

  private static void applyCommon(SSLParameters p, List<String> protocols, List<String> suites) {
    p.setProtocols(protocols.toArray(new String[0]));
    if (!suites.isEmpty()) {
      p.setCipherSuites(suites.toArray(new String[0]));
    }
  }

  /** Whether {@code host} is an IPv4 or IPv6 literal rather than a name. */
  public static boolean isIpLiteral(String host) {
    return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
  }

  /**
   * A one-line reason for a failed handshake: the exception's message (or a suppressed one's, as
   * Netty attaches "Connection closed while SSL/TLS handshake was in progress"), plus the root
   * cause's message when it adds something, such as a certificate path error.
   */
  public static String describe(Throwable failure) {
    String message = failure.getMessage();
    for (Throwable s : failure.getSuppressed()) {
      if (message == null) {
        message = s.getMessage();
      }
    }
    if (message == null) {
      message = failure.getClass().getSimpleName();
    }
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != failure && root.getMessage() != null && !message.contains(root.getMessage())) {
      message += " (" + root.getMessage() + ")";
    }
    return message;
  }

  /**
   * A server's {@link #describe} of a failed handshake: the JDK's words for a peer whose bytes are
   * no TLS record ("Unrecognized SSL message, plaintext connection?") become the hint every
   * transport logs for a plaintext client on a TLS port.
   */
  public static String describeServerFailure(Throwable failure) {
    String message = describe(failure);
    return message.contains("nrecognized SSL message") ? FirstBytes.PLAINTEXT_ON_TLS : message;
  }
}
