package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;

/** This module's HTTP clients as conformance-suite client kinds, on the shared resources. */
final class GrizzlyHttpClientKinds {

  private GrizzlyHttpClientKinds() {}

  static ClientOptions options(String path) {
    return ClientOptions.builder().wireKind(WireKind.HTTP).httpPath(path).build();
  }

  /** The HTTP sync transport, posting to {@code path}. */
  static ClientKind syncTransport(String path) {
    ClientOptions options = options(path);
    return ClientKinds.syncTransport(
        "grizzly-sync-http",
        address -> GrizzlyClientKinds.resources().openTransport(address, options));
  }

  /** The HTTP channel, posting to {@code path}. */
  static ClientKind channel(String path) {
    ClientOptions options = options(path);
    return ClientKinds.channel(
        "grizzly-async-http",
        address -> GrizzlyClientKinds.resources().openChannel(address, options));
  }

  /** The HTTP sync transport over TLS (HTTPS), posting to {@code path}. */
  static ClientKind syncTransport(String path, ClientTls tls) {
    ClientOptions options = options(path).toBuilder().tls(tls).build();
    return ClientKinds.syncTransport(
        "grizzly-sync-https",
        address -> GrizzlyClientKinds.resources().openTransport(address, options));
  }

  /** The HTTP channel over TLS (HTTPS), posting to {@code path}. */
  static ClientKind channel(String path, ClientTls tls) {
    ClientOptions options = options(path).toBuilder().tls(tls).build();
    return ClientKinds.channel(
        "grizzly-async-https",
        address -> GrizzlyClientKinds.resources().openChannel(address, options));
  }
}
