package io.thriftnio.netty.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.tls.TlsProvider;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.WeakHashMap;
import javax.net.ssl.SSLException;

/** Netty {@link SslContext}s and handlers from the core TLS settings. Not part of the API. */
public final class NettyTls {
  private NettyTls() {}

  /**
   * One client context per {@link ClientTls} instance (identity), so that the connections of a pool
   * share one context and its session cache. Weak keys: a dropped settings object frees its
   * context.
   */
  @GuardedBy("CLIENT_CONTEXTS")
  private static final Map<ClientTls, SslContext> CLIENT_CONTEXTS = new WeakHashMap<>();

  /**
   * The server context.
   *
   * @throws IllegalStateException if OPENSSL is asked for and unavailable, or the key material is
   *     unusable
   */
  public static SslContext serverContext(ServerTls tls) {
    SslContextBuilder b =
        SslContextBuilder.forServer(tls.keyManagerFactory())
            .sslProvider(provider(tls.provider()))
            .protocols(tls.protocols())
            .clientAuth(clientAuth(tls.clientAuth()));
    if (tls.trustManagerFactory() != null) {
      b.trustManager(tls.trustManagerFactory());
    }
    if (!tls.cipherSuites().isEmpty()) {
      b.ciphers(tls.cipherSuites());
    }
    return build(b, "server");
  }

  /**
   * The client context for {@code tls}, made on first use.
   *
   * @throws IllegalStateException if OPENSSL is asked for and unavailable, or the key material is
   *     unusable
   */
  public static SslContext clientContext(ClientTls tls) {
    synchronized (CLIENT_CONTEXTS) {
      SslContext context = CLIENT_CONTEXTS.get(tls);
      if (context == null) {
        context = newClientContext(tls);
        CLIENT_CONTEXTS.put(tls, context);
      }
      return context;
    }
  }

  private static SslContext newClientContext(ClientTls tls) {
    SslContextBuilder b =
        SslContextBuilder.forClient()
            .sslProvider(provider(tls.provider()))
            .protocols(tls.protocols())
            // Netty 4.2 verifies host names by default; set it either way, so the setting decides.
            .endpointIdentificationAlgorithm(tls.hostnameVerification() ? "HTTPS" : null);
    if (tls.trustManagerFactory() != null) {
      b.trustManager(tls.trustManagerFactory()); // else the JDK's default trust store
    }
    if (tls.keyManagerFactory() != null) {
      b.keyManager(tls.keyManagerFactory());
    }
    if (!tls.cipherSuites().isEmpty()) {
      b.ciphers(tls.cipherSuites());
    }
    return build(b, "client");
  }

  /** A client handler for a connection to {@code peer}: SNI and verification on its host name. */
  public static SslHandler clientHandler(
      SslContext context, ClientTls tls, InetSocketAddress peer, ByteBufAllocator alloc) {
    SslHandler handler = context.newHandler(alloc, tls.peerHost(peer), peer.getPort());
    handler.setHandshakeTimeoutMillis(tls.handshakeTimeout().toMillis());
    return handler;
  }

  /** A server handler with the handshake timeout of {@code tls}. */
  public static SslHandler serverHandler(
      SslContext context, ServerTls tls, ByteBufAllocator alloc) {
    SslHandler handler = context.newHandler(alloc);
    handler.setHandshakeTimeoutMillis(tls.handshakeTimeout().toMillis());
    return handler;
  }

  private static SslProvider provider(TlsProvider provider) {
    switch (provider) {
      case JDK:
        return SslProvider.JDK;
      case OPENSSL:
        if (!OpenSsl.isAvailable()) {
          throw new IllegalStateException(
              "tls provider: OPENSSL (expected: JDK, or netty-tcnative on the class path): OpenSSL"
                  + " is not available: "
                  + OpenSsl.unavailabilityCause());
        }
        return SslProvider.OPENSSL;
      default:
        throw new IllegalStateException("tls provider: " + provider);
    }
  }

  private static io.netty.handler.ssl.ClientAuth clientAuth(io.thriftnio.core.tls.ClientAuth auth) {
    switch (auth) {
      case NONE:
        return io.netty.handler.ssl.ClientAuth.NONE;
      case OPTIONAL:
        return io.netty.handler.ssl.ClientAuth.OPTIONAL;
      case REQUIRE:
        return io.netty.handler.ssl.ClientAuth.REQUIRE;
      default:
        throw new IllegalStateException("clientAuth: " + auth);
    }
  }

  private static SslContext build(SslContextBuilder b, String side) {
    try {
      return b.build();
    } catch (SSLException | RuntimeException e) {
      throw new IllegalStateException("cannot create the TLS " + side + " context: " + e, e);
    }
  }
}
