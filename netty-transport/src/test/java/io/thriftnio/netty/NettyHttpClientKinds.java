package io.thriftnio.netty;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;

/** This module's HTTP clients as conformance-suite client kinds, on the shared event loops. */
final class NettyHttpClientKinds {

  private NettyHttpClientKinds() {}

  static ClientOptions options(String path) {
    return ClientOptions.builder().wireKind(WireKind.HTTP).httpPath(path).build();
  }

  /** The HTTP sync transport, posting to {@code path}. */
  static ClientKind syncTransport(String path) {
    ClientOptions options = options(path);
    return ClientKinds.syncTransport(
        "netty-sync-http", address -> NettyClientKinds.RESOURCES.openTransport(address, options));
  }

  /** The HTTP channel, posting to {@code path}. */
  static ClientKind channel(String path) {
    ClientOptions options = options(path);
    return ClientKinds.channel(
        "netty-async-http", address -> NettyClientKinds.RESOURCES.openChannel(address, options));
  }

  /** The HTTP sync transport over TLS (HTTPS), posting to {@code path}. */
  static ClientKind syncTransport(String path, ClientTls tls) {
    ClientOptions options = options(path).toBuilder().tls(tls).build();
    return ClientKinds.syncTransport(
        "netty-sync-https", address -> NettyClientKinds.RESOURCES.openTransport(address, options));
  }

  /** The HTTP channel over TLS (HTTPS), posting to {@code path}. */
  static ClientKind channel(String path, ClientTls tls) {
    ClientOptions options = options(path).toBuilder().tls(tls).build();
    return ClientKinds.channel(
        "netty-async-https", address -> NettyClientKinds.RESOURCES.openChannel(address, options));
  }
}
