package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.core.tls.ClientTls;
import java.time.Duration;

/** This module's clients as conformance-suite client kinds, on one shared set of event loops. */
final class NettyClientKinds {

  /** Two client event loops for every test of the module; daemon threads, never closed. */
  static final NettyClientResources RESOURCES = NettyClientResources.create(2);

  private NettyClientKinds() {}

  static ClientKind syncTransport() {
    return ClientKinds.syncTransport(
        "netty-sync",
        address ->
            TNettyTransport.builder(address)
                .resources(RESOURCES)
                .readTimeout(Duration.ofSeconds(30))
                .open());
  }

  static ClientKind asyncChannel() {
    return ClientKinds.channel(
        "netty-async",
        address -> NettyThriftChannel.builder(address).resources(RESOURCES).connect());
  }

  static ClientKind syncTransport(ClientTls tls) {
    return ClientKinds.syncTransport(
        "netty-sync-tls",
        address ->
            TNettyTransport.builder(address)
                .resources(RESOURCES)
                .readTimeout(Duration.ofSeconds(30))
                .tls(tls)
                .open());
  }

  static ClientKind asyncChannel(ClientTls tls) {
    return ClientKinds.channel(
        "netty-async-tls",
        address -> NettyThriftChannel.builder(address).resources(RESOURCES).tls(tls).connect());
  }
}
