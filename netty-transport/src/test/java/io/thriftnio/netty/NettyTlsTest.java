package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.handler.ssl.SslContext;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.netty.internal.NettyTls;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.conformance.TlsSuite;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.tls.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The TLS suite on Netty (JDK and OpenSSL providers, every buffer counted), and its OpenSSL check.
 */
class NettyTlsTest extends TlsSuite {

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder();
  }

  @Override
  protected Set<IoStrategy> strategies() {
    return Set.of(IoStrategy.SAME_THREAD, IoStrategy.WORKER);
  }

  @Override
  protected ClientIo clientIo() {
    return NettyClientKinds.RESOURCES;
  }

  @Override
  protected void assumeOpenSsl() {
    NativeSupport.assumeOpenSsl();
  }

  @Override
  protected TlsProvider serverProvider(ServerTls tls) {
    SslContext context = NettyTls.serverContext(tls);
    assertThat(context.isServer()).as("a server context").isTrue();
    return provider(context);
  }

  @Override
  protected TlsProvider clientProvider(ClientTls tls) {
    return provider(NettyTls.clientContext(tls));
  }

  private static TlsProvider provider(SslContext context) {
    return context instanceof ReferenceCountedOpenSslContext
        ? TlsProvider.OPENSSL
        : TlsProvider.JDK;
  }

  @Override
  protected BufferCount countBuffers(ServerBuilder<?> builder) {
    LeakTrackingAllocator alloc = new LeakTrackingAllocator();
    ((NettyThriftServer.Builder) builder).allocator(alloc);
    return new BufferCount() {
      @Override
      public long allocations() {
        return alloc.allocations();
      }

      @Override
      public void assertAllReleased() {
        alloc.assertAllReleased();
      }
    };
  }

  /** Runs in the without-natives execution (netty-transport's POM), where tcnative is absent. */
  @Test
  @Tag("without-natives")
  void openSslFailsAtBuildWhenNettyTcnativeIsMissing() {
    assumeFalse(OpenSsl.isAvailable(), "netty-tcnative is on the class path");
    assertThatThrownBy(
            () ->
                NettyThriftServer.builder()
                    .processor(new BenchService.Processor<>(new BenchHandler()))
                    .tls(
                        ServerTls.builder(TestPki.shared().serverKeys())
                            .provider(TlsProvider.OPENSSL)
                            .build())
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("tls provider: OPENSSL (expected: JDK, or netty-tcnative");
    assertThatThrownBy(
            () ->
                NettyClientKinds.RESOURCES.openTransport(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                    ClientOptions.builder()
                        .tls(ClientTls.builder().provider(TlsProvider.OPENSSL).build())
                        .build()))
        .hasMessageStartingWith("tls provider: OPENSSL");
  }
}
