package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.core.tls.ClientTls;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This module's clients as conformance-suite client kinds, on shared event loops: NIO unless a
 * kind names its transport, so that the NIO client path keeps its tests where epoll would be the
 * default.
 */
final class NettyClientKinds {

  /** Two NIO client event loops for every test of the module; daemon threads, never closed. */
  static final NettyClientResources RESOURCES =
      NettyClientResources.create(2, NettyTransportType.NIO);

  private static final Map<NettyTransportType, NettyClientResources> NATIVE =
      new ConcurrentHashMap<>();

  private NettyClientKinds() {}

  /**
   * Two client event loops of {@code transport}, created on first use and never closed.
   *
   * @throws IllegalStateException if the transport cannot be used here
   */
  static NettyClientResources resources(NettyTransportType transport) {
    return transport == NettyTransportType.NIO
        ? RESOURCES
        : NATIVE.computeIfAbsent(transport, t -> NettyClientResources.create(2, t));
  }

  /** {@link TNettyTransport} clients on event loops of {@code transport}. */
  static ClientKind syncTransport(NettyTransportType transport) {
    String name = "netty-sync-" + transport.name().toLowerCase(Locale.ROOT);
    return ClientKinds.syncTransport(
        name,
        address ->
            TNettyTransport.builder(address)
                .resources(resources(transport))
                .readTimeout(Duration.ofSeconds(30))
                .open());
  }

  /** {@link NettyThriftChannel} clients on event loops of {@code transport}. */
  static ClientKind asyncChannel(NettyTransportType transport) {
    String name = "netty-async-" + transport.name().toLowerCase(Locale.ROOT);
    return ClientKinds.channel(
        name,
        address -> NettyThriftChannel.builder(address).resources(resources(transport)).connect());
  }

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
