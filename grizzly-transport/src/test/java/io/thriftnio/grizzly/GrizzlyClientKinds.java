package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireTransport;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.tls.TestPki;

/** This module's clients as conformance-suite client kinds, over one shared resource holder. */
final class GrizzlyClientKinds {
  private GrizzlyClientKinds() {}

  private static final class Holder {
    static final GrizzlyClientResources RESOURCES = create();

    private static GrizzlyClientResources create() {
      GrizzlyClientResources r = GrizzlyClientResources.create();
      Runtime.getRuntime().addShutdownHook(new Thread(r::close));
      return r;
    }
  }

  /** Shared by the suite runs of one JVM; closed at exit. */
  static GrizzlyClientResources resources() {
    return Holder.RESOURCES;
  }

  /** The sync transport of {@link GrizzlyClientResources} under a generated sync client. */
  static ClientKind syncTransport() {
    return ClientKinds.syncTransport("grizzly-sync", address -> resources().openTransport(address));
  }

  /** {@code GrizzlyThriftChannel} under core's async bridge. */
  static ClientKind channel() {
    return ClientKinds.channel("grizzly-channel", address -> resources().openChannel(address));
  }

  /** {@code GrizzlyThriftChannel}s over TLS, trusting {@link TestPki}'s authority. */
  static ClientKind tlsChannel() {
    ClientOptions options =
        ClientOptions.builder().tls(TestPki.shared().clientTls().build()).build();
    return ClientKinds.channel(
        "grizzly-channel-tls", address -> resources().openChannel(address, options));
  }

  private static final ClientOptions UNFRAMED =
      ClientOptions.builder().transport(WireTransport.UNFRAMED).build();

  /** Core's sync transport speaking {@code WireTransport.UNFRAMED}. */
  static ClientKind unframedSyncTransport() {
    return ClientKinds.syncTransport(
        "grizzly-sync-unframed", address -> resources().openTransport(address, UNFRAMED));
  }

  /** {@code GrizzlyThriftChannel} clients speaking {@code WireTransport.UNFRAMED}. */
  static ClientKind unframedChannel() {
    return ClientKinds.channel(
        "grizzly-channel-unframed", address -> resources().openChannel(address, UNFRAMED));
  }

  private static final ClientOptions TLS_UNFRAMED =
      ClientOptions.builder()
          .tls(TestPki.shared().clientTls().build())
          .transport(WireTransport.UNFRAMED)
          .build();

  /** Sync transports over TLS speaking {@code WireTransport.UNFRAMED} (Grizzly's TLS transport). */
  static ClientKind tlsUnframedSyncTransport() {
    return ClientKinds.syncTransport(
        "grizzly-sync-tls-unframed", address -> resources().openTransport(address, TLS_UNFRAMED));
  }

  /** {@code GrizzlyThriftChannel}s over TLS speaking {@code WireTransport.UNFRAMED}. */
  static ClientKind tlsUnframedChannel() {
    return ClientKinds.channel(
        "grizzly-channel-tls-unframed", address -> resources().openChannel(address, TLS_UNFRAMED));
  }
}
