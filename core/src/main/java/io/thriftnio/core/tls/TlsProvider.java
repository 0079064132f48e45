package io.thriftnio.core.tls;

/**
 * The TLS implementation. {@link #JDK} works everywhere; {@link #OPENSSL} is honoured by the Netty
 * transport only, and only when netty-tcnative (not a dependency of this library) is on the class
 * path and loads: otherwise {@code build()} fails with a message that says so.
 */
public enum TlsProvider {
  /** The JDK's {@code SSLEngine}. The default, and the only choice on Grizzly. */
  JDK,
  /** OpenSSL or BoringSSL through netty-tcnative; Netty transport only. */
  OPENSSL
}
