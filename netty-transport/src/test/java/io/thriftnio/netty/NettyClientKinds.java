package io.thriftnio.netty;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This module's clients as conformance-suite client kinds, on shared event loops: NIO unless a kind
 * names its transport, so that the NIO client path keeps its tests where epoll would be the
 * default.
 */
final class NettyClientKinds {

  /** Two NIO client event loops for every test of the module; daemon threads, never closed. */
  static final NettyClientIo RESOURCES = NettyClientIo.create(2, NettyTransportType.NIO);

  private static final Map<NettyTransportType, NettyClientIo> NATIVE = new ConcurrentHashMap<>();

  private NettyClientKinds() {}

  /**
   * Two client event loops of {@code transport}, created on first use and never closed.
   *
   * @throws IllegalStateException if the transport cannot be used here
   */
  static NettyClientIo resources(NettyTransportType transport) {
    return transport == NettyTransportType.NIO
        ? RESOURCES
        : NATIVE.computeIfAbsent(transport, t -> NettyClientIo.create(2, t));
  }

  /**
   * Sync transports from resources on {@code transport}. Over plain TCP they do their IO on the
   * caller's thread whatever the transport; the kind keeps its name for the suites that use it.
   */
  static ClientKind syncTransport(NettyTransportType transport) {
    String name = "netty-sync-" + transport.name().toLowerCase(Locale.ROOT);
    return ClientKinds.syncTransport(name, address -> resources(transport).openTransport(address));
  }

  /** {@code NettyThriftChannel} clients on event loops of {@code transport}. */
  static ClientKind asyncChannel(NettyTransportType transport) {
    String name = "netty-async-" + transport.name().toLowerCase(Locale.ROOT);
    return ClientKinds.channel(name, address -> resources(transport).openChannel(address));
  }

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

  private static final ClientOptions UNFRAMED =
      ClientOptions.builder().wireKind(WireKind.UNFRAMED).build();

  /** Core's sync transport speaking {@code WireKind.UNFRAMED}. */
  static ClientKind unframedSyncTransport() {
    return ClientKinds.syncTransport(
        "netty-sync-unframed", address -> RESOURCES.openTransport(address, UNFRAMED));
  }

  /** {@code NettyThriftChannel} clients speaking {@code WireKind.UNFRAMED}. */
  static ClientKind unframedChannel() {
    return ClientKinds.channel(
        "netty-async-unframed", address -> RESOURCES.openChannel(address, UNFRAMED));
  }

  /** Sync transports over TLS speaking {@code WireKind.UNFRAMED} (Netty's TLS transport). */
  static ClientKind unframedSyncTransport(ClientTls tls) {
    ClientOptions options = ClientOptions.builder().tls(tls).wireKind(WireKind.UNFRAMED).build();
    return ClientKinds.syncTransport(
        "netty-sync-tls-unframed", address -> RESOURCES.openTransport(address, options));
  }

  /** {@code NettyThriftChannel} clients over TLS speaking {@code WireKind.UNFRAMED}. */
  static ClientKind unframedChannel(ClientTls tls) {
    ClientOptions options = ClientOptions.builder().tls(tls).wireKind(WireKind.UNFRAMED).build();
    return ClientKinds.channel(
        "netty-async-tls-unframed", address -> RESOURCES.openChannel(address, options));
  }
}
