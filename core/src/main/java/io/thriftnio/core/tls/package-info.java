/**
 * TLS settings shared by every thrift-nio transport: {@link io.thriftnio.core.tls.ServerTls} for a
 * server ({@code ServerBuilder.tls(...)}) and {@link io.thriftnio.core.tls.ClientTls} for the
 * clients of the Netty and Grizzly transports and the pool's socket factory.
 *
 * <p>Both are immutable, validated at {@code build()}, and carry JSSE key and trust material
 * ({@link javax.net.ssl.KeyManagerFactory}, {@link javax.net.ssl.TrustManagerFactory}) so that keys
 * can come from any key store, PKCS#11 token or in-memory source. TLS wraps the framed transport:
 * the bytes inside the TLS records are exactly the {@code TFramedTransport} frames, so a stock
 * Thrift client on a JDK {@code SSLSocket} talks to a thrift-nio TLS server unchanged.
 */
package io.thriftnio.core.tls;
