package io.thriftnio.core.util.internal;

import java.net.SocketAddress;
import javax.net.ssl.SSLSession;

/**
 * The connection a server call arrived on, as {@code ServerCallContext} reads it: its addresses,
 * its TLS session and its SASL identity. The servers' connections implement it. Not an API.
 *
 * <p>Methods may be called on any thread, and only by a call that asks.
 *
 * @param <I> the SASL identity's type, {@code io.thriftnio.core.sasl.SaslIdentity} (named by the
 *     implementations: this package names no type of the library's API)
 */
public interface CallConnection<I> {

  /** The peer's address, for log lines and the call context; {@code null} if unknown. */
  SocketAddress remoteAddress();

  /**
   * The server's address of the connection, for the call context. Default: {@code null}, unknown.
   */
  default SocketAddress localAddress() {
    return null;
  }

  /**
   * The connection's TLS session once its handshake is done, for the call context. Default: {@code
   * null}, plain TCP.
   */
  default SSLSession tlsSession() {
    return null;
  }

  /**
   * Who the connection authenticated as by SASL, once its negotiation completed, for the call
   * context. Default: {@code null}, not a SASL connection.
   */
  default I saslIdentity() {
    return null;
  }
}
