package io.thriftnio.netty;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;

/** This module's clients as conformance-suite client kinds, on one shared set of event loops. */
final class NettyClientKinds {

  /** Two client event loops for every test of the module; daemon threads, never closed. */
  static final NettyClientResources RESOURCES = NettyClientResources.create(2);

  private NettyClientKinds() {}

  static ClientKind syncTransport() {
    return ClientKinds.syncTransport("netty-sync", address -> RESOURCES.openTransport(address));
  }

  static ClientKind asyncChannel() {
    return ClientKinds.channel("netty-async", address -> RESOURCES.openChannel(address));
  }

  static ClientKind syncTransport(ClientTls tls) {
    ClientOptions options = ClientOptions.builder().tls(tls).build();
    return ClientKinds.syncTransport(
        "netty-sync-tls", address -> RESOURCES.openTransport(address, options));
  }

  static ClientKind asyncChannel(ClientTls tls) {
    ClientOptions options = ClientOptions.builder().tls(tls).build();
    return ClientKinds.channel(
        "netty-async-tls", address -> RESOURCES.openChannel(address, options));
  }
}
