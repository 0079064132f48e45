package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.tls.TestPki;
import io.thriftnio.testkit.conformance.ClientKinds;
import java.io.IOException;
import java.io.UncheckedIOException;

/** This module's clients as conformance-suite client kinds, over one shared resource holder. */
final class GrizzlyClientKinds {
  private GrizzlyClientKinds() {}

  private static final class Holder {
    static final GrizzlyClientResources RESOURCES = create();

    private static GrizzlyClientResources create() {
      try {
        GrizzlyClientResources r = GrizzlyClientResources.builder().build();
        Runtime.getRuntime().addShutdownHook(new Thread(r::close));
        return r;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Shared by the suite runs of one JVM; closed at exit. */
  static GrizzlyClientResources resources() {
    return Holder.RESOURCES;
  }

  /** {@link TGrizzlyClientTransport} under a generated sync client. */
  static ClientKind syncTransport() {
    return ClientKinds.syncTransport(
        "grizzly-sync",
        address -> {
          TGrizzlyClientTransport t = resources().newTransport(address);
          t.open();
          return t;
        });
  }

  /** {@link GrizzlyThriftChannel} under core's async bridge. */
  static ClientKind channel() {
    return ClientKinds.channel("grizzly-channel", address -> resources().openChannel(address));
  }

  private static final class TlsHolder {
    static final GrizzlyClientResources RESOURCES = create();

    private static GrizzlyClientResources create() {
      try {
        GrizzlyClientResources r =
            GrizzlyClientResources.builder().tls(TestPki.shared().clientTls().build()).build();
        Runtime.getRuntime().addShutdownHook(new Thread(r::close));
        return r;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** {@link GrizzlyThriftChannel}s over TLS, trusting {@link TestPki}'s authority. */
  static ClientKind tlsChannel() {
    return ClientKinds.channel(
        "grizzly-channel-tls", address -> TlsHolder.RESOURCES.openChannel(address));
  }
}
