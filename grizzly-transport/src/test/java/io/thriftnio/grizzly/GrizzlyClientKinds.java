package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.tls.TestPki;

/** This module's clients as conformance-suite client kinds, over one shared resource holder. */
final class GrizzlyClientKinds {
  private GrizzlyClientKinds() {}

  private static final class Holder {
    static final GrizzlyClientIo RESOURCES = create();

    private static GrizzlyClientIo create() {
      GrizzlyClientIo r = GrizzlyClientIo.create();
      Runtime.getRuntime().addShutdownHook(new Thread(r::close));
      return r;
    }
  }

  /** Shared by the suite runs of one JVM; closed at exit. */
  static GrizzlyClientIo resources() {
    return Holder.RESOURCES;
  }

  /** The sync transport of {@link GrizzlyClientIo} under a generated sync client. */
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
      ClientOptions.builder().wireKind(WireKind.UNFRAMED).build();

  /** Core's sync transport speaking {@code WireKind.UNFRAMED}. */
  static ClientKind unframedSyncTransport() {
    return ClientKinds.syncTransport(
        "grizzly-sync-unframed", address -> resources().openTransport(address, UNFRAMED));
  }

  /** {@code GrizzlyThriftChannel} clients speaking {@code WireKind.UNFRAMED}. */
  static ClientKind unframedChannel() {
    return ClientKinds.channel(
        "grizzly-channel-unframed", address -> resources().openChannel(address, UNFRAMED));
  }

  private static final ClientOptions TLS_UNFRAMED =
      ClientOptions.builder()
          .tls(TestPki.shared().clientTls().build())
          .wireKind(WireKind.UNFRAMED)
          .build();

  /** Sync transports over TLS speaking {@code WireKind.UNFRAMED} (Grizzly's TLS transport). */
  static ClientKind tlsUnframedSyncTransport() {
    return ClientKinds.syncTransport(
        "grizzly-sync-tls-unframed", address -> resources().openTransport(address, TLS_UNFRAMED));
  }

  /** {@code GrizzlyThriftChannel}s over TLS speaking {@code WireKind.UNFRAMED}. */
  static ClientKind tlsUnframedChannel() {
    return ClientKinds.channel(
        "grizzly-channel-tls-unframed", address -> resources().openChannel(address, TLS_UNFRAMED));
  }
}
