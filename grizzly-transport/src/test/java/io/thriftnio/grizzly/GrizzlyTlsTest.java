package io.thriftnio.grizzly;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.conformance.TlsSuite;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.tls.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The TLS suite on Grizzly: the three strategies, the JDK's TLS only (OpenSSL is refused at build,
 * so its cases are skipped), buffers not counted (Grizzly's memory is checked by its own test).
 */
class GrizzlyTlsTest extends TlsSuite {

  private static final String JDK_ONLY =
      "tls provider: OPENSSL (expected: JDK): Grizzly uses the JDK's TLS";

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected Set<IoStrategy> strategies() {
    return EnumSet.allOf(IoStrategy.class);
  }

  @Override
  protected ClientIo clientIo() {
    return GrizzlyClientKinds.resources();
  }

  @Override
  protected void assumeOpenSsl() {
    Assumptions.abort(
        "Grizzly uses the JDK's TLS: OPENSSL is refused at build, as openSslIsRefusedAtBuildBecauseGrizzlyUsesTheJdk shows");
  }

  @Override
  protected TlsProvider serverProvider(ServerTls tls) {
    return TlsProvider.JDK;
  }

  @Override
  protected TlsProvider clientProvider(ClientTls tls) {
    return TlsProvider.JDK;
  }

  @Override
  protected BufferCount countBuffers(ServerBuilder<?> builder) {
    Assumptions.abort(
        "Grizzly's server takes no allocator to count its buffers (GrizzlyMemoryTest checks its shared"
            + " pool)");
    throw new AssertionError("unreachable");
  }

  @Test
  void openSslIsRefusedAtBuildBecauseGrizzlyUsesTheJdk() {
    assertThatThrownBy(
            () ->
                GrizzlyThriftServer.builder()
                    .processor(new BenchService.Processor<>(new BenchHandler()))
                    .tls(
                        ServerTls.builder(TestPki.shared().serverKeys())
                            .provider(TlsProvider.OPENSSL)
                            .build())
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(JDK_ONLY);
    ClientOptions openSsl =
        ClientOptions.builder()
            .tls(ClientTls.builder().provider(TlsProvider.OPENSSL).build())
            .build();
    assertThatThrownBy(
            () ->
                GrizzlyClientKinds.resources()
                    .openTransport(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), 1), openSsl))
        .hasMessage(JDK_ONLY);
  }
}
