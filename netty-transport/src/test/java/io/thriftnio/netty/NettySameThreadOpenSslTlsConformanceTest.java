package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import io.thriftnio.testkit.tls.TestPki;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The conformance suite over TLS with {@link TlsProvider#OPENSSL} (netty-tcnative's BoringSSL) on
 * both ends: Netty server, SAME_THREAD, this module's {@link NettyThriftChannel} TLS clients.
 * Skipped, saying why, where OpenSSL does not load.
 */
@Tag("native-transport")
class NettySameThreadOpenSslTlsConformanceTest extends ConformanceSuite {
  @BeforeAll
  static void openSslLoadsHere() {
    NativeSupport.assumeOpenSsl();
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().ioThreads(2);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }

  @Override
  protected ServerTls serverTls() {
    return TestPki.shared().serverTls().provider(TlsProvider.OPENSSL).build();
  }

  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.asyncChannel(
        TestPki.shared().clientTls().provider(TlsProvider.OPENSSL).build());
  }
}
