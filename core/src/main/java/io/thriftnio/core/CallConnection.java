package io.thriftnio.core;

import io.thriftnio.core.sasl.SaslIdentity;
import java.net.SocketAddress;
import javax.net.ssl.SSLSession;

/**
 * The connection a server call arrived on, as {@link ServerCallContext} reads it: its addresses and
 * its TLS session. The servers' connections implement it; a user who runs a {@link
 * ProcessorInvoker} in a pipeline or filter chain of their own may implement it for {@link
 * ProcessorInvoker.Completion#connection()}, so that handlers see the caller's addresses.
 *
 * <p>Methods may be called on any thread, and only by a call that asks.
 */
public interface CallConnection {

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
  default SaslIdentity saslIdentity() {
    return null;
  }
}
